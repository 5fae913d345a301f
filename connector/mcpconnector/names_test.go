package mcpconnector_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/connector/mcpconnector"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sameNamed serves tools whose names sanitise alike (and one that is
// another's suffixed name) over streamable HTTP; each answers with its
// MCP name.
func sameNamed(t *testing.T) *httptest.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "same", Version: "1"}, nil)
	for _, name := range []string{"get.file", "get_file_2", "get-file", "get_file"} {
		srv.AddTool(&mcp.Tool{Name: name, Description: "Reads a file.", InputSchema: json.RawMessage(`{"type": "object"}`)},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				b, _ := json.Marshal(name)
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}, nil
			})
	}
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(ts.Close)
	return ts
}

// TestToolsThatSanitiseAlikeAreAllDeclared: get_file, get-file and
// get.file all sanitise to get_file; before, the whole server was down
// ("both become get_file in programs"). Now get_file keeps its name, the
// others are get_file_3 and get_file_4 (get_file_2 is a tool of its own),
// each call reaches its own MCP tool (its contract.Tool.Upstream names
// it, for journals), a warning says which is which, the renamed tools'
// descriptions give their MCP names, and connecting again gives the same
// names.
func TestToolsThatSanitiseAlikeAreAllDeclared(t *testing.T) {
	ts := sameNamed(t)
	want := map[string]string{"get_file": "get_file", "get_file_2": "get_file_2", "get_file_3": "get-file", "get_file_4": "get.file"}
	for attempt := range 2 {
		var log logs
		set := connectUp(t, mcpconnector.Options{Logger: log.logger()}, mcpconnector.Server{Name: "files", URL: ts.URL})
		c := contractOf(t, set)
		if names := strings.Join(toolNames(set, 0), " "); len(toolNames(set, 0)) != len(want) {
			t.Fatalf("connection %d: tools %s, want %d", attempt, names, len(want))
		}
		for name, mcpName := range want {
			tool := c.Tool("files", name)
			if tool == nil {
				t.Fatalf("connection %d: no tool %s among %v", attempt, name, toolNames(set, 0))
			}
			out, err := tool.Call(context.Background(), json.RawMessage(`{}`))
			if err != nil {
				t.Fatalf("connection %d: %s: %v", attempt, name, err)
			}
			if got := strings.Trim(string(out), `"`); got != mcpName {
				t.Errorf("connection %d: %s called the MCP tool %s, want %s", attempt, name, got, mcpName)
			}
			if got := tool.Upstream(); got != "MCP tool "+mcpName {
				t.Errorf("connection %d: %s's upstream name is %q, want %q", attempt, name, got, "MCP tool "+mcpName)
			}
		}
		if d := c.Tool("files", "get_file_3").Description(); !strings.Contains(d, "(MCP tool name: get-file; named get_file_3 because the server's tool get_file is get_file)") {
			t.Errorf("get_file_3's description %q does not say its MCP name", d)
		}
		if d := c.Tool("files", "get_file").Description(); d != "Reads a file." {
			t.Errorf("get_file's description %q, want the server's own", d)
		}
		if w := log.String(); !strings.Contains(w, `tools \"get_file\", \"get-file\" and \"get.file\" all become get_file in programs: \"get_file\" keeps it, \"get-file\" is get_file_3, \"get.file\" is get_file_4`) {
			t.Errorf("connection %d: warnings %s", attempt, w)
		}
	}
}

// TestToolsNamedLikeTheSDKOnTheCodemodeNamespace: a server whose tools are
// on the codemode namespace (one unnamed server; `codemode run --mcp`)
// and that has tools named search, describe, step or run, which code
// mode's SDK has there, has them suffixed like tools that sanitise alike
// (search_2, each calling its own MCP tool, with a warning and the MCP
// name in the description); before, the contract could not be built and
// nothing ran. On a namespace of its own a tool keeps the name.
func TestToolsNamedLikeTheSDKOnTheCodemodeNamespace(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "sdk-named", Version: "1"}, nil)
	for _, name := range []string{"search", "describe", "step", "run", "search_2", "other"} {
		srv.AddTool(&mcp.Tool{Name: name, Description: "Does " + name + ".", InputSchema: json.RawMessage(`{"type": "object"}`)},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				b, _ := json.Marshal(name)
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}, nil
			})
	}
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(ts.Close)
	for _, tc := range []struct {
		server string
		want   map[string]string // name in programs: MCP name
	}{
		{"", map[string]string{"search_3": "search", "describe_2": "describe", "step_2": "step", "run_2": "run", "search_2": "search_2", "other": "other"}},
		{"tools", map[string]string{"search": "search", "describe": "describe", "step": "step", "run": "run", "search_2": "search_2", "other": "other"}},
	} {
		var log logs
		set := connectUp(t, mcpconnector.Options{Logger: log.logger()}, mcpconnector.Server{Name: tc.server, URL: ts.URL})
		c := contractOf(t, set)
		ns := set.Namespaces()[0].Name
		if got := toolNames(set, 0); len(got) != len(tc.want) {
			t.Fatalf("server %q: tools %v, want %d", tc.server, got, len(tc.want))
		}
		for name, mcpName := range tc.want {
			tool := c.Tool(ns, name)
			if tool == nil {
				t.Fatalf("server %q: no tool %s.%s among %v", tc.server, ns, name, toolNames(set, 0))
			}
			out, err := tool.Call(context.Background(), json.RawMessage(`{}`))
			if err != nil || strings.Trim(string(out), `"`) != mcpName {
				t.Errorf("server %q: %s called %s (%v), want the MCP tool %s", tc.server, name, out, err, mcpName)
			}
		}
		if tc.server != "" {
			continue
		}
		if d := c.Tool(ns, "search_3").Description(); !strings.Contains(d, "MCP tool name: search;") {
			t.Errorf("search_3's description %q does not say its MCP name", d)
		}
		if w := log.String(); !strings.Contains(w, `search_3`) || !strings.Contains(w, `code mode's SDK`) {
			t.Errorf("warnings %s do not say search is search_3 because of the SDK", w)
		}
	}
}
