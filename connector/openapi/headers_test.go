package openapi_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/connector/openapi"
	"github.com/codemode-go/codemode/internal/boundtest"
	"github.com/codemode-go/codemode/internal/memtest"
)

// TestResponseHeadersStayWithinMaxInFlightBytes: a program sends 100
// requests at once to a server whose responses carry headers of some
// size, under a MaxInFlightBytes of 32 MiB. Headers of 9 MB (net/http
// reads up to 10 MiB of them) fail each request with an error that says
// so, and the heap grows by less than twice the bound; headers of 8 KB
// are answered. (The review's 100 requests with 9 MB of headers were all
// answered, and took the heap up by 720 MiB: response headers were
// neither bounded below net/http's 10 MiB nor reserved.)
func TestResponseHeadersStayWithinMaxInFlightBytes(t *testing.T) {
	const bound, calls = 32 << 20, 100
	for _, tc := range []struct {
		name   string
		values int    // header values of 7,990 bytes each
		answer string // what every call answers: "" for success, else part of the error
	}{
		{"8 KB of headers", 1, ""},
		{"9 MB of headers", 1126, "server response headers exceeded 65536 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			values := make([]string, tc.values)
			for i := range values {
				values[i] = strings.Repeat("v", 7990)
			}
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header()["X-Big"] = values
				w.Header().Set("Content-Type", "application/json")
				w.Write([]byte(`{"ok":true}`))
			}))
			defer ts.Close()
			conn, _, err := openapi.Parse(context.Background(), []byte(echoDoc), openapi.Options{Name: "api", BaseURL: ts.URL})
			if err != nil {
				t.Fatal(err)
			}
			k := contractOf(t, conn)
			flood := memtest.Flood{Calls: calls, Namespace: "api", Tool: "request", Input: []byte(`{"path":"/echo"}`)}
			grew, _, answers := boundtest.Run(t, flood, k, bound, client.RunOptions{})
			for _, a := range answers {
				if !strings.Contains(a, tc.answer) || (tc.answer == "") != (a == "") {
					t.Errorf("a call answered %.200q, want %q", a, tc.answer)
					break
				}
			}
			t.Logf("the heap grew by %.1f MiB", float64(grew)/(1<<20))
			boundtest.CheckGrowth(t, grew, bound)
		})
	}
}
