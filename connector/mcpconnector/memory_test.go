package mcpconnector_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/connector/mcpconnector"
	"github.com/codemode-go/codemode/internal/boundtest"
	"github.com/codemode-go/codemode/internal/memtest"
)

// bulkyServer is a streamable HTTP MCP server whose one tool, t, answers
// every call with a text of size bytes, as JSON or as an event stream,
// and headers of headerKB KiB; its answers are encoded once, so that it
// adds next to nothing to the heap a test measures.
func bulkyServer(t *testing.T, size int, sse bool, headerKB int) *httptest.Server {
	headers := make([]string, headerKB)
	for i := range headers {
		headers[i] = strings.Repeat("h", 1000)
	}
	text, _ := json.Marshal(strings.Repeat("x", size))
	result := `{"content":[{"type":"text","text":` + string(text) + `}]}`
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if r.Method != http.MethodPost || json.NewDecoder(r.Body).Decode(&req) != nil {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		if req.ID == nil {
			w.WriteHeader(http.StatusAccepted) // a notification
			return
		}
		answer := `"error":{"code":-32601,"message":"no such method"}`
		switch req.Method {
		case "initialize":
			answer = `"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"bulky","version":"1"}}`
		case "tools/list":
			answer = `"result":{"tools":[{"name":"t","description":"Answers at length.","inputSchema":{"type":"object"}}]}`
		case "tools/call":
			answer = `"result":` // then result, written as it is
		}
		if req.Method == "tools/call" {
			w.Header()["X-Bulk"] = headers
		}
		if sse && req.Method == "tools/call" {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "event: message\ndata: ")
		} else {
			w.Header().Set("Content-Type", "application/json")
		}
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,%s`, req.ID, answer)
		if req.Method == "tools/call" {
			io.WriteString(w, result)
		}
		io.WriteString(w, "}")
		if sse && req.Method == "tools/call" {
			io.WriteString(w, "\n\n")
		}
	}))
	t.Cleanup(ts.Close)
	return ts
}

// TestLargeAnswersStayWithinMaxInFlightBytes: a program makes 40 calls at
// once to a streamable HTTP server that answers each with 4 MiB, as JSON
// and as an event stream, under a MaxInFlightBytes of 64 MiB. The host's
// heap grows by less than twice the bound, and the calls past it fail
// with a RangeError naming it (those read at once compete for it: two to
// four of the 40 were answered); the session survives them. (The review
// took the heap up by 741 MiB with 30 answers of 15 MB under 256 MiB, and
// this test by 345 to 372 MiB under 32 MiB: the answers were read and
// decoded before the client reserved their values.)
func TestLargeAnswersStayWithinMaxInFlightBytes(t *testing.T) {
	const bound, size, calls = 64 << 20, 4 << 20, 40
	for _, sse := range []bool{false, true} {
		t.Run(fmt.Sprintf("sse=%v", sse), func(t *testing.T) {
			set := connectUp(t, mcpconnector.Options{}, mcpconnector.Server{Name: "r", URL: bulkyServer(t, size, sse, 0).URL, Approval: mcpconnector.ApprovalNever})
			k := contractOf(t, set)
			flood := memtest.Flood{Calls: calls, Namespace: "r", Tool: "t", Input: []byte(`{}`)}
			grew, _, answers := boundtest.Run(t, flood, k, bound, client.RunOptions{})
			boundtest.CheckBound(t, grew, bound, answers)
			if out, err := k.Tool("r", "t").Call(context.Background(), json.RawMessage(`{}`)); err != nil || len(out) != size+2 {
				t.Errorf("a call after the flood: %d bytes, %v", len(out), err)
			}
		})
	}
}

// TestLargeHeadersStayWithinMaxInFlightBytes: a program makes 40 calls at
// once to a streamable HTTP server whose answers carry 9 MB of headers
// (net/http reads up to 10 MiB of them), under a MaxInFlightBytes of 32
// MiB: each call fails with an error saying the headers are too large, and
// the heap grows by less than twice the bound. (Before, every call was
// answered and the heap grew by 200 MiB.)
func TestLargeHeadersStayWithinMaxInFlightBytes(t *testing.T) {
	const bound, calls = 32 << 20, 40
	set := connectUp(t, mcpconnector.Options{}, mcpconnector.Server{Name: "r", URL: bulkyServer(t, 10, false, 9000).URL, Approval: mcpconnector.ApprovalNever})
	k := contractOf(t, set)
	flood := memtest.Flood{Calls: calls, Namespace: "r", Tool: "t", Input: []byte(`{}`)}
	grew, _, answers := boundtest.Run(t, flood, k, bound, client.RunOptions{})
	for _, a := range answers {
		if !strings.Contains(a, "server response headers exceeded 65536 bytes") {
			t.Errorf("a call answered %.300q, want an error naming the headers' bound", a)
			break
		}
	}
	t.Logf("the heap grew by %.1f MiB", float64(grew)/(1<<20))
	boundtest.CheckGrowth(t, grew, bound)
}
