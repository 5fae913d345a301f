package mcpserver_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/quickjs"
	"github.com/codemode-go/codemode/durable"
	"github.com/codemode-go/codemode/mcpserver"
)

// toolNames lists the server's tools as a client sees them.
func toolNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	return names
}

// saveSnippet runs code through the code tool (it may pause) and saves it
// as name.
func saveSnippet(t *testing.T, h *durable.Handle, cs *mcp.ClientSession, name, code string, schema string) {
	t.Helper()
	out := outputOf(t, callCode(t, cs, code))
	if out.Status == codetool.StatusError {
		t.Fatalf("snippet source: %+v", out)
	}
	opts := durable.SaveSnippetOptions{ExecutionID: out.ExecutionID, Description: "Greets " + name + "."}
	if schema != "" {
		opts.InputSchema = json.RawMessage(schema)
	}
	if _, err := h.SaveSnippet(context.Background(), name, opts); err != nil {
		t.Fatal(err)
	}
}

// With SnippetsAsTools, each saved snippet is a tool of its own, listed
// anew on every tools/list: its call checks the arguments against the
// snippet's schema and runs it in a new execution, answered like the code
// tool (a pause for approval included); a deleted snippet goes.
func TestServerListsSnippetsAsTools(t *testing.T) {
	for _, driver := range []string{"quickjs", "node"} {
		t.Run(driver, func(t *testing.T) { testSnippetsAsTools(t, handleOn(t, runtimeOf(t, driver), testConnector(t))) })
	}
}

func testSnippetsAsTools(t *testing.T, h *durable.Handle) {
	cs := connectRunner(t, h, mcpserver.Options{SnippetsAsTools: true}, nil)
	if names := toolNames(t, cs); !slices.Equal(names, []string{"code", "code_result"}) {
		t.Fatalf("tools before any snippet: %q", names)
	}
	saveSnippet(t, h, cs, "greet", `const r = await svc.ping({}); ({ hello: typeof input === "undefined" ? "nobody" : input.who, ok: r.ok })`,
		`{"type":"object","properties":{"who":{"type":"string"}},"required":["who"]}`)
	saveSnippet(t, h, cs, "approve-me", `await svc.act({})`, "")
	saveSnippet(t, h, cs, "scalar", `1`, `{"type":"string"}`) // not an MCP tool's input: left out
	saveSnippet(t, h, cs, "proto", `typeof input === "undefined" ? [] : Object.keys(input)`, `{"properties":{"x":{"type":"string"}}}`)
	names := toolNames(t, cs)
	if !slices.Contains(names, "greet") || !slices.Contains(names, "approve-me") || !slices.Contains(names, "proto") || slices.Contains(names, "scalar") {
		t.Fatalf("tools after saving: %q", names)
	}

	call := func(name string, args any) *mcp.CallToolResult {
		t.Helper()
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	out := outputOf(t, call("greet", map[string]any{"who": "Ada"}))
	if out.Status != codetool.StatusCompleted || string(out.Value) != `{"hello":"Ada","ok":true}` || out.ExecutionID == "" {
		t.Fatalf("greet answered %+v", out)
	}
	bad := call("greet", map[string]any{"who": 7})
	if text := bad.Content[0].(*mcp.TextContent).Text; !bad.IsError || !strings.Contains(text, "do not fit its input schema") || !strings.Contains(text, "/who") {
		t.Fatalf("bad arguments answered %v %q", bad.IsError, text)
	}
	// A "__proto__" argument stays a key: the program sees it, the schema
	// checked it, nothing is inherited.
	proto := outputOf(t, call("proto", json.RawMessage(`{"x":"a","__proto__":{"admin":true}}`)))
	if proto.Status != codetool.StatusCompleted || string(proto.Value) != `["x","__proto__"]` {
		t.Fatalf("proto answered %+v", proto)
	}
	if paused := outputOf(t, call("approve-me", map[string]any{})); paused.Status != codetool.StatusPaused {
		t.Fatalf("a snippet that needs approval answered %+v", paused)
	}

	if ok, err := h.DeleteSnippet(context.Background(), "greet"); err != nil || !ok {
		t.Fatal(ok, err)
	}
	if names := toolNames(t, cs); slices.Contains(names, "greet") || !slices.Contains(names, "approve-me") {
		t.Fatalf("tools after deleting greet: %q", names)
	}
}

// SnippetsAsTools on a runner without snippets is refused.
func TestServerRefusesSnippetsWithoutAJournal(t *testing.T) {
	d := quickjs.New(quickjs.Options{InProcess: true})
	t.Cleanup(func() { d.Close() })
	rt, err := client.NewRuntime(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	c, err := contract.NewNamespaced(testConnector(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mcpserver.New(client.New(rt, c), mcpserver.Options{SnippetsAsTools: true}); err == nil || !strings.Contains(err.Error(), "SnippetsAsTools") {
		t.Fatalf("New answered %v", err)
	}
}
