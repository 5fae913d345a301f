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

// TestConnectorSchemaThatDoesNotCompileFailsItsCalls: schemas compile on a
// method's first call, not in New, so a connector method whose schema does
// not compile (an external $ref) no longer stops the handle from being
// built; every call of that method fails naming the fault, the method does
// not run, and the connector's other methods work (real QuickJS, real
// SQLite journal).
func TestConnectorSchemaThatDoesNotCompileFailsItsCalls(t *testing.T) {
	ran := 0
	conn := durable.Connector{Name: "docs", Tools: []durable.ConnectorTool{
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
  try { await docs.remote({ x: 1 }); } catch (e) { err = String(e.message); }
  return { err, local: await docs.local({}) };
}`)
	wantStatus(t, out, durable.OutputCompleted)
	var res struct {
		Err   string `json:"err"`
		Local int    `json:"local"`
	}
	if err := json.Unmarshal(out.Result, &res); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Err, "remote") || !strings.Contains(res.Err, "input schema") || res.Local != 2 || ran != 0 {
		t.Fatalf("result %s, remote ran %d times", out.Result, ran)
	}
}

// TestToolDescribesTheConnectors: the durable code tool's descriptor lists
// the connectors with their hints and the declarations, and refuses a hint
// for a connector the handle does not have.
func TestToolDescribesTheConnectors(t *testing.T) {
	h, _, _ := fixture(t)
	if _, err := h.Tool(codetool.Options{ConnectorHints: map[string]string{"jira": "tickets"}}); err == nil || !strings.Contains(err.Error(), "jira") {
		t.Fatalf("hint for a missing connector: %v", err)
	}
	tool, err := h.Tool(codetool.Options{ConnectorHints: map[string]string{"github": "acme's repositories"}})
	if err != nil {
		t.Fatal(err)
	}
	if tool.Name != "code" || !strings.Contains(tool.Description, "- github: acme's repositories") || !strings.Contains(tool.Description, h.TypeDefinitions()[:40]) {
		t.Fatalf("description:\n%s", tool.Description)
	}
	out, err := tool.Call(context.Background(), json.RawMessage(`{"code": "(await github.list_pull_requests({repo: \"agents\"})).length"}`))
	if err != nil || !strings.Contains(string(out), `"status":"completed"`) {
		t.Fatalf("Call: %s, %v", out, err)
	}
}
