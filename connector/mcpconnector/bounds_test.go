package mcpconnector_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/connector/mcpconnector"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// failing serves one tool over streamable HTTP, and answers the method
// fail with a JSON-RPC error whose message is 5 MiB long.
func failing(t *testing.T, fail string) *httptest.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "verbose", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "t", Description: "Fails.", InputSchema: json.RawMessage(`{"type": "object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == fail {
				return nil, &jsonrpc.Error{Code: -32000, Message: "denied: " + strings.Repeat("blah ", 1<<20)}
			}
			return next(ctx, method, req)
		}
	})
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(ts.Close)
	return ts
}

// TestServerErrorsAreBounded: a server's error text reaches a down
// namespace's instructions and unavailable reason (which every program's
// scope carries: 15 MB of it made "1 + 1" take 3.7 s instead of 0.25), the
// logs and a call's error. A 5 MiB message is cut to a few KiB there,
// keeping its start and saying how long it was.
func TestServerErrorsAreBounded(t *testing.T) {
	const bound = 8 << 10
	for _, tc := range []struct {
		method string
		texts  func(*mcpconnector.Set) []string
	}{
		{"tools/list", func(set *mcpconnector.Set) []string {
			ns := set.Namespaces()[0]
			return []string{set.Down()["v"].Error(), ns.Instructions, ns.Unavailable}
		}},
		{"tools/call", func(set *mcpconnector.Set) []string {
			_, err := contractOf(t, set).Tool("v", "t").Call(context.Background(), json.RawMessage(`{}`))
			if err == nil {
				t.Fatal("the call did not fail")
			}
			return []string{err.Error()}
		}},
	} {
		t.Run(tc.method, func(t *testing.T) {
			ts := failing(t, tc.method)
			set, err := mcpconnector.Connect(context.Background(), []mcpconnector.Server{{Name: "v", URL: ts.URL, Approval: mcpconnector.ApprovalNever}}, mcpconnector.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer set.Close()
			for _, text := range tc.texts(set) {
				if len(text) > bound || !strings.Contains(text, "denied: blah") || !strings.Contains(text, "… (cut: the message is 52429") {
					t.Errorf("a text of %d bytes (at most %d, keeping the start and saying it was cut): %.300s", len(text), bound, text)
				}
			}
		})
	}
}
