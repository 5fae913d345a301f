package openapi_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/connector/openapi"
	"github.com/codemode-go/codemode/internal/boundtest"
	"github.com/codemode-go/codemode/internal/echoserver"
	"github.com/codemode-go/codemode/internal/memtest"
)

const (
	apiToken = "tok-DDDD-4444-secret"
	apiKey   = "key-EEEE-5555-secret"
	ownToken = "prog-FFFF-6666-own"
)

// echoDoc is a document whose only path is the echo server's.
const echoDoc = `{"openapi":"3.0.3","info":{"title":"echo","version":"1"},"paths":{"/echo":{"get":{"operationId":"echo","responses":{"200":{"description":"the request's headers"}}}}}}`

// echoConnector is a connector on a's echo server, with credentials, that
// may also reach the other servers' hosts.
func echoConnector(t *testing.T, a *echoserver.Server, others ...string) *openapi.Connector {
	t.Helper()
	c, _, err := openapi.Parse(context.Background(), []byte(echoDoc), openapi.Options{
		Name: "api", BaseURL: a.URL,
		Headers:      http.Header{"Authorization": {"Bearer " + apiToken}, "X-Api-Key": {apiKey}},
		AllowedHosts: others,
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// redirectChain is the params of a request to /redirect that goes through
// each of hops to target.
func redirectChain(target string, hops ...string) map[string]any {
	for i := len(hops) - 1; i >= 1; i-- {
		target = hops[i] + "/redirect?to=" + url.QueryEscape(target)
	}
	return map[string]any{"to": target}
}

// TestOpenAPICredentialsStayWithTheirOrigin: the connector's credentials
// reach the base URL's origin only, on every hop (two and three hops,
// across hosts, ports and host names), and no echo of them reaches the
// program, whatever the encoding it asks for or the server picks.
func TestOpenAPICredentialsStayWithTheirOrigin(t *testing.T) {
	a := echoserver.Start(t, "127.0.0.1")
	b := echoserver.Start(t, "127.0.0.2")
	c := echoserver.Start(t, "127.0.0.1")
	localhost := "http://localhost:" + a.Port
	conn := echoConnector(t, a, b.Host+":"+b.Port, c.Host+":"+c.Port, "localhost:"+a.Port)
	cases := []struct {
		name     string
		opts     openapi.RequestOptions
		wantErr  string
		redacted bool // the answer must show a replaced echo
	}{
		{"two hops to another host", openapi.RequestOptions{Path: "/redirect", Params: redirectChain(b.URL+"/echo", a.URL, b.URL)}, "", false},
		{"three hops back to the origin", openapi.RequestOptions{Path: "/redirect", Params: redirectChain(a.URL+"/echo", a.URL, b.URL, a.URL)}, "", true},
		{"to another port", openapi.RequestOptions{Path: "/redirect", Params: redirectChain(c.URL+"/echo", a.URL)}, "", false},
		{"to another host name", openapi.RequestOptions{Path: "/redirect", Params: redirectChain(localhost+"/echo", a.URL)}, "", false},
		{"307 with a body", openapi.RequestOptions{Path: "/redirect", Method: "POST", Body: []byte(`{"x":1}`),
			Params: map[string]any{"to": b.URL + "/echo", "code": 307}}, "", false},
		{"the program's own credentials", openapi.RequestOptions{Path: "/redirect", Params: redirectChain(b.URL+"/echo", a.URL),
			Headers: map[string]string{"Authorization": "Bearer " + ownToken, "Cookie": "s=" + ownToken, "X-Api-Key": ownToken}}, "", false},
		{"json echo", openapi.RequestOptions{Path: "/echo"}, "", true},
		{"base64 echo", openapi.RequestOptions{Path: "/echo", Params: map[string]any{"form": "base64"}}, "", true},
		{"base64url echo", openapi.RequestOptions{Path: "/echo", Params: map[string]any{"form": "base64url"}}, "", true},
		{"shifted base64 echo", openapi.RequestOptions{Path: "/echo", Params: map[string]any{"form": "base64-shifted"}}, "", true},
		{"percent-encoded echo", openapi.RequestOptions{Path: "/echo", Params: map[string]any{"form": "url"}}, "", true},
		{"gzip asked by the program", openapi.RequestOptions{Path: "/echo", Params: map[string]any{"enc": "gzip"}, Headers: map[string]string{"Accept-Encoding": "gzip"}}, "", true},
		{"gzip base64", openapi.RequestOptions{Path: "/echo", Params: map[string]any{"enc": "gzip", "form": "base64"}}, "", true},
		{"gzip unasked", openapi.RequestOptions{Path: "/echo", Params: map[string]any{"enc": "gzip-always"}, Headers: map[string]string{"Accept-Encoding": "identity"}}, "", true},
		{"deflate", openapi.RequestOptions{Path: "/echo", Params: map[string]any{"enc": "deflate"}, Headers: map[string]string{"Accept-Encoding": "deflate"}}, "", true},
		{"raw deflate", openapi.RequestOptions{Path: "/echo", Params: map[string]any{"enc": "rawdeflate"}}, "", true},
		{"br", openapi.RequestOptions{Path: "/echo", Params: map[string]any{"enc": "br"}, Headers: map[string]string{"Accept-Encoding": "br"}}, `Content-Encoding "br" is not one the host decodes`, false},
		{"range", openapi.RequestOptions{Path: "/echo", Headers: map[string]string{"Range": "bytes=10-30"}}, "may not carry Range", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := map[*echoserver.Server]int{a: len(a.Seen()), b: len(b.Seen()), c: len(c.Seen())}
			value, err := conn.Request(context.Background(), tc.opts)
			seen := string(value)
			if err != nil {
				seen = err.Error()
			}
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("request failed: %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
			}
			if s := echoserver.Leak(seen, apiToken, apiKey); s != "" {
				t.Errorf("the program sees the host's %q: %s", s, seen)
			}
			if tc.redacted && !strings.Contains(seen, "[redacted]") {
				t.Errorf("the echo was not redacted, so the case tests nothing: %s", seen)
			}
			for srv, n := range before {
				for _, r := range srv.Seen()[n:] {
					checkAPIHop(t, r, srv == a && r.Host == a.Host+":"+a.Port)
				}
			}
		})
	}
}

// checkAPIHop checks what one hop carried: the connector's credentials
// exactly on the base URL's origin; of the program's own, only its Cookie
// and only there (the others are the host's names); and no Referer.
func checkAPIHop(t *testing.T, r echoserver.Request, origin bool) {
	t.Helper()
	got := r.Header.Get("Authorization") + " " + r.Header.Get("X-Api-Key")
	if origin && got != "Bearer "+apiToken+" "+apiKey {
		t.Errorf("%s%s: the origin's credentials are %q", r.Host, r.Path, got)
	}
	for name, values := range r.Header {
		v := name + ": " + strings.Join(values, ", ")
		if !origin && echoserver.Leak(v, apiToken, apiKey) != "" {
			t.Errorf("%s%s received the host's credential in %s", r.Host, r.Path, name)
		}
		if strings.Contains(v, ownToken) && !(name == "Cookie" && origin) {
			t.Errorf("%s%s received the program's %s", r.Host, r.Path, name)
		}
	}
	if ref := r.Header.Get("Referer"); ref != "" {
		t.Errorf("%s%s received Referer %q", r.Host, r.Path, ref)
	}
}

// TestOpenAPIGzipEchoInAProgram is the review's attack as a program runs
// it: it asks for gzip, and the answer holds no credential.
func TestOpenAPIGzipEchoInAProgram(t *testing.T) {
	a := echoserver.Start(t, "127.0.0.1")
	conn := echoConnector(t, a)
	out := runCode(t, `const r = await api.request({ path: "/echo", params: { enc: "gzip" }, headers: { "Accept-Encoding": "gzip" } });
return typeof r === "string" ? r : JSON.stringify(r);`, conn)
	if out.Kind != client.Success {
		t.Fatalf("%+v", out.Error)
	}
	got := string(out.Value)
	if echoserver.Leak(got, apiToken, apiKey) != "" || !strings.Contains(got, "[redacted]") {
		t.Fatalf("the program saw %s", got)
	}
}

// TestConcurrentRequestsStayWithinMaxInFlightBytes: a program that sends
// 100 requests at once for 2 MiB bodies, under a MaxInFlightBytes of 32
// MiB, takes the host's heap up by less than twice the bound; the requests
// past it fail with a RangeError naming it. (The review took the host to
// 1.7 GB with 300 requests of 4 MB under the 256 MiB default.)
func TestConcurrentRequestsStayWithinMaxInFlightBytes(t *testing.T) {
	const bound, body, calls = 32 << 20, 2 << 20, 100
	a := echoserver.Start(t, "127.0.0.1")
	k := contractOf(t, echoConnector(t, a))
	input := []byte(fmt.Sprintf(`{"path":"/big","params":{"n":%d}}`, body))
	flood := memtest.Flood{Calls: calls, Namespace: "api", Tool: "request", Input: input}
	grew, _, answers := boundtest.Run(t, flood, k, bound, client.RunOptions{})
	boundtest.CheckBound(t, grew, bound, answers)
}
