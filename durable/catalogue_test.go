package durable_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/durable"
)

// TestForeignSchemaThatDoesNotCompileDegradesItsTool: schemas compile on a
// tool's first call, not in New, so a foreign tool whose schema does not
// compile (an external $ref) does not stop the handle from being built; as
// in a plain run, its values go unvalidated (contract.NewForeignTool), and
// the namespace's other tools work (real QuickJS, real SQLite journal).
func TestForeignSchemaThatDoesNotCompileDegradesItsTool(t *testing.T) {
	ran := 0
	conn := connector{Name: "docs", Tools: []connectorTool{
		{Name: "remote", Description: "Refers outside its schema.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"x":{"$ref":"https://example.com/x.json"}}}`),
			Execute: func(context.Context, json.RawMessage) (json.RawMessage, error) {
				ran++
				return json.RawMessage(`1`), nil
			}},
		{Name: "local", Description: "Answers 2.",
			InputSchema: json.RawMessage(`{"type":"object"}`),
			Execute: func(context.Context, json.RawMessage) (json.RawMessage, error) {
				return json.RawMessage(`2`), nil
			}},
	}}
	st := openStore(t, filepath.Join(t.TempDir(), "journal.db"))
	h := newHandle(t, st, durable.Options{}, conn)
	out := execute(t, h, `async () => {
  let err = "";
  let remote = 0;
  try { remote = await docs.remote({ x: 1 }); } catch (e) { err = String(e.message); }
  return { err, remote, local: await docs.local({}) };
}`)
	wantStatus(t, out, codetool.StatusCompleted)
	var res struct {
		Err    string `json:"err"`
		Remote int    `json:"remote"`
		Local  int    `json:"local"`
	}
	if err := json.Unmarshal(out.Value, &res); err != nil {
		t.Fatal(err)
	}
	if res.Err != "" || res.Remote != 1 || res.Local != 2 || ran != 1 {
		t.Fatalf("answer %s, remote ran %d times", out.Value, ran)
	}
	if err := h.Contract().Tool("docs", "remote").Degraded(); err == nil || !strings.Contains(err.Error(), "input schema") {
		t.Fatalf("Degraded() = %v, want the input schema's fault", err)
	}
}

// TestToolDescribesTheNamespaces: the code tool over a handle lists the
// namespaces with their hints, the durable SDK's run and what a pause
// means, refuses a hint for a namespace the handle does not have, and
// answers with the journal's answers.
func TestToolDescribesTheNamespaces(t *testing.T) {
	h, _, _ := fixture(t)
	if _, err := codetool.New(h, codetool.Options{Hints: map[string]string{"jira": "tickets"}}); err == nil || !strings.Contains(err.Error(), "jira") {
		t.Fatalf("hint for a missing namespace: %v", err)
	}
	tool, err := codetool.New(h, codetool.Options{Hints: map[string]string{"github": "acme's repositories"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"- github: acme's repositories (5 tools)", "codemode.run(name, input?)", "Do not call this tool again to retry", `{"status": "paused"`, "run(name: string, input?: unknown): Promise<unknown>;"} {
		if !strings.Contains(tool.Description, want) {
			t.Errorf("description lacks %q:\n%s", want, tool.Description)
		}
	}
	out, err := tool.Call(context.Background(), json.RawMessage(`{"code": "(await github.list_pull_requests({repo: \"agents\"})).length"}`))
	if err != nil || !strings.Contains(string(out), `"status":"completed"`) || !strings.Contains(string(out), `"value":2`) {
		t.Fatalf("Call: %s, %v", out, err)
	}
	out, err = tool.Call(context.Background(), json.RawMessage(`{"code": "await github.create_issue({title: \"x\"})"}`))
	if err != nil || !strings.Contains(string(out), `"status":"paused"`) {
		t.Fatalf("Call: %s, %v", out, err)
	}
}
