package mcpconnector_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/codemode-go/codemode/connector/mcpconnector"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/oauth2"
)

// fixedToken is an OAuth handler that holds a token already.
type fixedToken struct{ token string }

func (f fixedToken) TokenSource(context.Context) (oauth2.TokenSource, error) {
	return oauth2.StaticTokenSource(&oauth2.Token{AccessToken: f.token}), nil
}

func (f fixedToken) Authorize(_ context.Context, _ *http.Request, resp *http.Response) error {
	resp.Body.Close()
	return nil
}

// TestHeadersStayWithTheServersOrigin: a streamable HTTP server whose URL
// redirects (307) every request elsewhere. The configured headers (a
// bearer token and an API key) and an OAuth token reach the configured
// URL's origin only: a redirect to another host name or another port gets
// none of them; a redirect within the origin keeps them.
func TestHeadersStayWithTheServersOrigin(t *testing.T) {
	const token, key, oauthToken = "Bearer tok-7Q2w-secret-9d1e", "key-5Rt8-secret-0c3f", "oauth-3Hs6-secret-2b7a"
	srv := mcp.NewServer(&mcp.Implementation{Name: "behind", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "echo", Description: "Says ok.", InputSchema: json.RawMessage(`{"type": "object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
		})
	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	// seen holds the secrets each path of the target was sent.
	var mu sync.Mutex
	seen := map[string]string{}
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := r.Header.Get("Authorization") + " " + r.Header.Get("X-Api-Key")
		mu.Lock()
		if strings.Contains(got, "secret") {
			seen[r.URL.Path] = got
		}
		mu.Unlock()
		if r.URL.Path == "/front" {
			http.Redirect(w, r, "/mcp", http.StatusTemporaryRedirect)
			return
		}
		mcpHandler.ServeHTTP(w, r)
	}))
	t.Cleanup(target.Close)
	port := target.URL[strings.LastIndexByte(target.URL, ':'):]
	for _, tc := range []struct {
		name, redirectTo string
		sameOrigin       bool
		oauth            bool
	}{
		{"another host name", "http://localhost" + port + "/mcp", false, false},
		{"another port", target.URL + "/mcp", false, false},
		{"within the origin", "", true, false},
		{"an OAuth token to another port", target.URL + "/mcp", false, true},
		{"an OAuth token within the origin", "", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mu.Lock()
			clear(seen)
			mu.Unlock()
			url := target.URL + "/front"
			if !tc.sameOrigin {
				front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					http.Redirect(w, r, tc.redirectTo, http.StatusTemporaryRedirect)
				}))
				t.Cleanup(front.Close)
				url = front.URL + "/mcp"
			}
			server := mcpconnector.Server{Name: "r", URL: url, Headers: map[string]string{"Authorization": token, "X-Api-Key": key}, Approval: mcpconnector.ApprovalNever}
			want := token + " " + key
			if tc.oauth {
				server.Headers, server.OAuth = nil, fixedToken{oauthToken}
				want = "Bearer " + oauthToken + " "
			}
			c := contractOf(t, connectUp(t, mcpconnector.Options{}, server))
			if out, err := c.Tool("r", "echo").Call(context.Background(), json.RawMessage(`{}`)); err != nil || string(out) != `"ok"` {
				t.Fatalf("call: %s, %v", out, err)
			}
			mu.Lock()
			defer mu.Unlock()
			switch {
			case !tc.sameOrigin && len(seen) > 0:
				t.Fatalf("another origin than the configured URL's was sent its secrets: %v", seen)
			case tc.sameOrigin && seen["/mcp"] != want:
				t.Fatalf("the configured origin was not sent its headers after a redirect within it: %v", seen)
			}
		})
	}
}
