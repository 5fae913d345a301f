package mcpconnector_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/connector/mcpconnector"
	"github.com/codemode-go/codemode/internal/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// toolNames are the names of the namespace's tools.
func toolNames(set *mcpconnector.Set, i int) []string {
	var names []string
	for _, t := range set.Namespaces()[i].Tools {
		names = append(names, t.Name())
	}
	return names
}

// TestTaskRequiredToolIsLeftOut: the everything server's
// simulate-research-query can only be called as an MCP task (taskSupport
// "required"), which the go-sdk cannot do: it is not declared, a warning
// names it, and the server's other tools are there.
func TestTaskRequiredToolIsLeftOut(t *testing.T) {
	var log logs
	set := connectUp(t, mcpconnector.Options{Logger: log.logger()}, mcpconnector.Server{Name: "everything", Command: mcptest.Command(t, "mcp-server-everything")})
	names := strings.Join(toolNames(set, 0), " ")
	if strings.Contains(names, "simulate_research_query") || !strings.Contains(names, "echo") {
		t.Fatalf("tools %s: want echo and not simulate_research_query", names)
	}
	if w := log.String(); !strings.Contains(w, "left out simulate-research-query") || !strings.Contains(w, `taskSupport \"required\"`) {
		t.Fatalf("warnings %s", w)
	}
}

// injectTasks marks the tool "research" as task-required and "lookup" as
// task-optional in the tools/list
// answers (the go-sdk cannot say it), whether they are JSON or an event
// stream.
type injectTasks struct{ http.ResponseWriter }

func (w injectTasks) WriteHeader(code int) {
	w.Header().Del("Content-Length")
	w.ResponseWriter.WriteHeader(code)
}

func (w injectTasks) Write(p []byte) (int, error) {
	q := bytes.ReplaceAll(p, []byte(`"name":"research"`), []byte(`"execution":{"taskSupport":"required"},"name":"research"`))
	q = bytes.ReplaceAll(q, []byte(`"name":"lookup"`), []byte(`"execution":{"taskSupport":"optional"},"name":"lookup"`))
	_, err := w.ResponseWriter.Write(q)
	return len(p), err
}

func (w injectTasks) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// TestTaskSupportReadOverHTTP reads taskSupport from a streamable HTTP
// server's tools/list, answered as JSON and as an event stream: the
// required tool is left out, the optional one is called the ordinary way.
func TestTaskSupportReadOverHTTP(t *testing.T) {
	for _, jsonResponse := range []bool{true, false} {
		srv := mcp.NewServer(&mcp.Implementation{Name: "tasks", Version: "1"}, nil)
		echo := func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(req.Params.Arguments)}}}, nil
		}
		for _, name := range []string{"research", "lookup"} {
			srv.AddTool(&mcp.Tool{Name: name, Description: "A tool.", InputSchema: json.RawMessage(`{"type": "object"}`)}, echo)
		}
		h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{JSONResponse: jsonResponse})
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(injectTasks{w}, r) }))
		t.Cleanup(ts.Close)
		var log logs
		set := connectUp(t, mcpconnector.Options{Logger: log.logger()}, mcpconnector.Server{Name: "tasks", URL: ts.URL})
		if names := strings.Join(toolNames(set, 0), " "); names != "lookup" {
			t.Fatalf("JSON response %v: tools %q, want lookup alone", jsonResponse, names)
		}
		if w := log.String(); !strings.Contains(w, "left out research") {
			t.Fatalf("JSON response %v: warnings %s", jsonResponse, w)
		}
		out, err := contractOf(t, set).Tool("tasks", "lookup").Call(context.Background(), json.RawMessage(`{"q": 1}`))
		if err != nil || string(out) != `{"q":1}` {
			t.Fatalf("lookup: %s, %v", out, err)
		}
	}
}
