package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	catalog "github.com/codemode-go/codemode/internal/discovery"

	"github.com/codemode-go/codemode/codetool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestDiscoveryCLI drives search, describe, snippet save, snippets and
// snippet delete as separate processes over one journal.
func TestDiscoveryCLI(t *testing.T) {
	f := newJournalFixture(t)
	code, stdout, stderr := f.cli(t, "search", "--tools", f.tools, "list the items")
	if code != 0 || !strings.Contains(stdout, "codemode.list_items") {
		t.Fatalf("search: exit %d %q %q", code, stdout, stderr)
	}
	var found catalog.Output
	code, stdout, _ = f.cli(t, "search", "--tools", f.tools, "--json", "create an item")
	if err := json.Unmarshal([]byte(stdout), &found); err != nil || code != 0 || len(found.Results) == 0 ||
		found.Results[0].Path != "codemode.create_item" || !found.Results[0].RequiresApproval {
		t.Fatalf("search --json: exit %d %q %v", code, stdout, err)
	}
	if code, stdout, _ = f.cli(t, "search", "--tools", f.tools, "send slack message"); code != 0 || !strings.Contains(stdout, "nothing matches") {
		t.Fatalf("search without a match: exit %d %q", code, stdout)
	}
	code, stdout, _ = f.cli(t, "describe", "--tools", f.tools, "codemode.create_item")
	for _, want := range []string{"// codemode.create_item (method, needs approval)", "create_item(input: {", "@requiresApproval", "declare const codemode: Tools;"} {
		if code != 0 || !strings.Contains(stdout, want) {
			t.Errorf("describe: exit %d, lacks %q:\n%s", code, want, stdout)
		}
	}
	if strings.Contains(stdout, "list_items") {
		t.Errorf("describe of one method printed another:\n%s", stdout)
	}
	if code, _, stderr = f.cli(t, "describe", "--tools", f.tools, "codemode.nothing"); code != 1 || !strings.Contains(stderr, "namespace codemode has no tool nothing") {
		t.Errorf("describe of an unknown method: exit %d %q", code, stderr)
	}
	if code, _, stderr = f.cli(t, "search", "--journal", "", "x"); code != 2 || !strings.Contains(stderr, "give the tools (--tools FILE") {
		t.Errorf("search without a source: exit %d %q", code, stderr)
	}

	// A completed run becomes a snippet; a paused one is refused.
	list := writeProgram(t, f, "list.ts", `await codemode.list_items({ prefix: typeof input === "undefined" ? "p" : input.prefix })`)
	done := f.output(t, exitCompleted, "run", "--journal", f.journal, "--tools", f.tools, "--json", list)
	paused := f.output(t, exitPaused, "run", "--journal", f.journal, "--tools", f.tools, "--json", f.program)
	if code, _, stderr = f.cli(t, "snippet", "save", "bad", "--from", paused.ExecutionID); code != 1 || !strings.Contains(stderr, "is paused; only a completed execution") {
		t.Errorf("saving a paused run: exit %d %q", code, stderr)
	}
	if code, stdout, stderr = f.cli(t, "snippet", "save", "list-items", "--from", done.ExecutionID, "--description", "Lists items by prefix."); code != 0 || !strings.Contains(stdout, `codemode.run("list-items", input)`) {
		t.Fatalf("snippet save: exit %d %q %q", code, stdout, stderr)
	}
	if code, stdout, _ = f.cli(t, "snippets"); code != 0 || !strings.Contains(stdout, "list-items") || !strings.Contains(stdout, "Lists items by prefix.") {
		t.Fatalf("snippets: exit %d %q", code, stdout)
	}
	code, stdout, _ = f.cli(t, "search", "--tools", f.tools, "--json", "items by prefix")
	if err := json.Unmarshal([]byte(stdout), &found); err != nil || code != 0 || !slices.ContainsFunc(found.Results, func(r catalog.Result) bool {
		return r.Path == "list-items" && r.Kind == catalog.KindSaved && r.Connector == "codemode"
	}) {
		t.Fatalf("search with the journal's snippets: %q %v", stdout, err)
	}
	if code, stdout, _ = f.cli(t, "describe", "list-items"); code != 0 || !strings.Contains(stdout, `run(name: "list-items", input?: unknown)`) {
		t.Fatalf("describe of a snippet (journal only): exit %d %q", code, stdout)
	}
	if code, _, _ = f.cli(t, "snippet", "delete", "list-items"); code != 0 {
		t.Fatalf("snippet delete: exit %d", code)
	}
	if code, _, stderr = f.cli(t, "snippet", "delete", "list-items"); code != 1 || !strings.Contains(stderr, "no snippet named list-items") {
		t.Fatalf("second snippet delete: exit %d %q", code, stderr)
	}
}

func writeProgram(t *testing.T, f *journalFixture, name, text string) string {
	t.Helper()
	p := f.dir + "/" + name
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestJournalMCPServeDiscovery: `mcp serve --journal --declarations
// discover` describes the namespaces and the SDK without declarations, and
// a program calls codemode.search, codemode.describe and codemode.run
// through it.
func TestJournalMCPServeDiscovery(t *testing.T) {
	f := newJournalFixture(t)
	list := writeProgram(t, f, "list.ts", `await codemode.list_items({ prefix: input.prefix })`)
	// Save a snippet from a completed run (statements that read input).
	src := f.output(t, exitError, "run", "--journal", f.journal, "--tools", f.tools, "--json", list) // no input at top level
	_ = src
	ok := f.output(t, exitCompleted, "run", "--journal", f.journal, "--tools", f.tools, "--json", writeProgram(t, f, "ok.ts", `await codemode.list_items({ prefix: "q" })`))
	if code, _, stderr := f.cli(t, "snippet", "save", "list-q", "--from", ok.ExecutionID, "--description", "Items starting with q."); code != 0 {
		t.Fatalf("snippet save: %d %q", code, stderr)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, "-codemode-cli", "mcp", "serve", "--journal", f.journal, "--tools", f.tools, "--declarations", "discover")
	cmd.Stderr = os.Stderr
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	session, err := mcp.NewClient(&mcp.Implementation{Name: "test-agent", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	tools, err := session.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 2 {
		t.Fatalf("tools %+v %v (want code and code_result)", tools, err)
	}
	var desc string
	for _, tool := range tools.Tools {
		if tool.Name == "code" {
			desc = tool.Description
		}
	}
	for _, want := range []string{"- codemode: tools list_items, create_item (2 tools)", "codemode.search(query)", "codemode.describe(target)", "codemode.step(name, fn)", "codemode.run(name, input?)", "```ts\nconst found = await codemode.search(\"list items\");"} {
		if !strings.Contains(desc, want) {
			t.Errorf("description lacks %q:\n%s", want, desc)
		}
	}
	if strings.Contains(desc, "create_item(input: {") {
		t.Errorf("discover mode printed the declarations:\n%s", desc)
	}
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "code", Arguments: map[string]any{"code": `async () => {
  const s = await codemode.search("create an item");
  const d = await codemode.describe(s.results[0].path);
  const q = await codemode.run("list-q");
  const missing = await codemode.run("nope");
  return { path: s.results[0].path, approval: d.requiresApproval, typed: d.types.includes("create_item(input: {"), q, missing };
}`}})
	if err != nil || res.IsError {
		t.Fatalf("code: %+v %v", res, err)
	}
	var out codetool.Answer
	if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &out); err != nil || out.Status != codetool.StatusCompleted {
		t.Fatalf("answer %q: %v", res.Content[0].(*mcp.TextContent).Text, err)
	}
	want := `{"path":"codemode.create_item","approval":true,"typed":true,"q":["a","b"],"missing":{"error":"no snippet named \"nope\"; codemode.search finds saved snippets"}}`
	if string(out.Value) != want {
		t.Fatalf("result %s\nwant   %s", out.Value, want)
	}
	if got := f.lines(t, "list.log"); len(got) != 2 { // the snippet's source run and the snippet's run
		t.Fatalf("list_items ran %d times: %q", len(got), got)
	}
}

// TestMCPServeSnippetsAsTools: `mcp serve --journal --snippets-as-tools`
// lists a saved snippet as a tool of its own, whose call runs it; one saved
// by another process while the server runs shows on the next list.
func TestMCPServeSnippetsAsTools(t *testing.T) {
	f := newJournalFixture(t)
	save := func(name, program string) {
		t.Helper()
		done := f.output(t, exitCompleted, "run", "--journal", f.journal, "--tools", f.tools, "--json", writeProgram(t, f, name+".ts", program))
		if code, _, stderr := f.cli(t, "snippet", "save", name, "--from", done.ExecutionID, "--description", "Items by prefix."); code != 0 {
			t.Fatalf("snippet save: %d %q", code, stderr)
		}
	}
	save("list-q", `await codemode.list_items({ prefix: typeof input === "undefined" ? "q" : input.prefix })`)
	session := agent(t, "--journal", f.journal, "--tools", f.tools, "--snippets-as-tools", "--no-check")
	names := func() []string {
		t.Helper()
		tools, err := session.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, tool := range tools.Tools {
			out = append(out, tool.Name)
		}
		return out
	}
	if got := names(); !slices.Equal(got, []string{"code", "code_result", "list-q"}) {
		t.Fatalf("tools %q", got)
	}
	res, err := session.CallTool(context.Background(), &mcp.CallToolParams{Name: "list-q", Arguments: map[string]any{"prefix": "p"}})
	if err != nil {
		t.Fatal(err)
	}
	var answer codetool.Answer
	if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &answer); err != nil || answer.Status != codetool.StatusCompleted {
		t.Fatalf("list-q answered %v: %+v", err, res.Content[0])
	}
	save("list-r", `await codemode.list_items({ prefix: "r" })`)
	if got := names(); !slices.Contains(got, "list-r") {
		t.Fatalf("tools after a save elsewhere %q", got)
	}
	if code, _, stderr := f.cli(t, "mcp", "serve", "--journal", "", "--tools", f.tools, "--snippets-as-tools"); code != 2 || !strings.Contains(stderr, "needs --journal") {
		t.Fatalf("--snippets-as-tools without a journal: exit %d %q", code, stderr)
	}
}
