package durablemcp_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/connector/mcpconnector"
	"github.com/codemode-go/codemode/drivers/quickjs"
	"github.com/codemode-go/codemode/durable"
	"github.com/codemode-go/codemode/durable/durablemcp"
	"github.com/codemode-go/codemode/durable/sqlite"
	"github.com/codemode-go/codemode/internal/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// memory connects the real memory MCP server with a fresh graph file.
func memory(t *testing.T) *mcpconnector.Upstream {
	t.Helper()
	u, err := mcpconnector.Connect(context.Background(), mcpconnector.Server{Name: "memory", Command: mcptest.Command(t, "mcp-server-memory"),
		Env: map[string]string{"MEMORY_FILE_PATH": filepath.Join(t.TempDir(), "memory.jsonl")}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { u.Close() })
	return u
}

func handle(t *testing.T, cs ...durable.Connector) *durable.Handle {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "journal.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	d := quickjs.New(quickjs.Options{Timeout: 20 * time.Second})
	t.Cleanup(func() { d.Close() })
	rt, err := client.NewRuntime(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	h, err := durable.New(st, rt, cs, durable.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestDefaultApproval(t *testing.T) {
	yes, no := true, false
	for _, c := range []struct {
		a    *mcp.ToolAnnotations
		want bool
	}{
		{nil, true}, // MCP's defaults: not read-only, may be destructive
		{&mcp.ToolAnnotations{}, true},
		{&mcp.ToolAnnotations{ReadOnlyHint: true}, false},
		{&mcp.ToolAnnotations{ReadOnlyHint: true, DestructiveHint: &yes}, false}, // destructiveHint is meaningless for reads
		{&mcp.ToolAnnotations{DestructiveHint: &no}, false},
		{&mcp.ToolAnnotations{DestructiveHint: &yes}, true},
	} {
		if got := durablemcp.DefaultApproval(c.a); got != c.want {
			t.Errorf("DefaultApproval(%+v) = %v, want %v", c.a, got, c.want)
		}
	}
}

// The memory server annotates its tools: deletions are destructive (they
// need approval), creations and reads are not; a policy overrides that.
func TestConnectorApprovalFromAnnotations(t *testing.T) {
	u := memory(t)
	no := false
	c, err := durablemcp.Connector(u, durablemcp.Options{Tools: map[string]durablemcp.Policy{
		"delete_relations": {RequiresApproval: &no},
		"read_graph":       {Replay: durable.ReplayReexecute},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if c.Name != "memory" {
		t.Fatalf("name %q", c.Name)
	}
	got := map[string]bool{}
	for _, tool := range c.Tools {
		got[tool.Name] = tool.RequiresApproval
		if tool.Name == "read_graph" && tool.Replay != durable.ReplayReexecute {
			t.Error("read_graph's policy was not applied")
		}
	}
	want := map[string]bool{"create_entities": false, "create_relations": false, "add_observations": false, "delete_entities": true,
		"delete_observations": true, "delete_relations": false, "read_graph": false, "search_nodes": false, "open_nodes": false}
	for name, w := range want {
		if a, ok := got[name]; !ok || a != w {
			t.Errorf("%s: requiresApproval %v (present %v), want %v", name, a, ok, w)
		}
	}
	if _, err := durablemcp.Connector(u, durablemcp.Options{Tools: map[string]durablemcp.Policy{"drop_everything": {}}}); err == nil ||
		!strings.Contains(err.Error(), `no tool "drop_everything"`) {
		t.Fatalf("a policy for a missing tool: %v", err)
	}
}

// A program over the real memory server: the creation runs, the deletion
// pauses; approval replays the creation from the journal (the server is not
// asked again) and deletes; rollback's revert (set by the embedder)
// recreates the entity.
func TestMemoryServerPausesDestructiveCalls(t *testing.T) {
	u := memory(t)
	c, err := durablemcp.Connector(u, durablemcp.Options{Tools: map[string]durablemcp.Policy{
		"delete_entities": {Revert: func(ctx context.Context, args, result json.RawMessage) error {
			var in struct{ EntityNames []string }
			if err := json.Unmarshal(args, &in); err != nil {
				return err
			}
			entities := []map[string]any{}
			for _, n := range in.EntityNames {
				entities = append(entities, map[string]any{"name": n, "entityType": "restored", "observations": []string{}})
			}
			b, _ := json.Marshal(map[string]any{"entities": entities})
			_, err := u.CallTool(ctx, "create_entities", b)
			return err
		}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	h := handle(t, c)
	ctx := context.Background()
	out, err := h.Execute(ctx, `async () => {
  await memory.create_entities({ entities: [{ name: "a", entityType: "t", observations: ["x"] }, { name: "b", entityType: "t", observations: [] }] });
  await memory.delete_entities({ entityNames: ["a"] });
  return (await memory.read_graph({})).entities.map((e) => e.name);
}`)
	if err != nil || out.Status != durable.OutputPaused || len(out.Pending) != 1 || out.Pending[0].Method != "delete_entities" ||
		string(out.Pending[0].Args) != `{"entityNames":["a"]}` {
		t.Fatalf("first pass: %+v %v", out, err)
	}
	graph := func() string {
		raw, err := u.CallTool(ctx, "read_graph", json.RawMessage(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		var g struct {
			Entities []struct{ Name, EntityType string }
		}
		json.Unmarshal(raw, &g)
		var names []string
		for _, e := range g.Entities {
			names = append(names, e.Name+":"+e.EntityType)
		}
		return strings.Join(names, ",")
	}
	if g := graph(); g != "a:t,b:t" {
		t.Fatalf("graph while paused %q", g)
	}
	done, err := h.Approve(ctx, out.ExecutionID)
	if err != nil || done.Status != durable.OutputCompleted || string(done.Result) != `["b"]` {
		t.Fatalf("approval: %+v %v", done, err)
	}
	// Had the creation run again, the server would have kept one "a"
	// (create_entities skips existing names) but the journal shows it
	// replayed: two passes, the creation applied once.
	e, err := h.Execution(ctx, out.ExecutionID)
	if err != nil || e.Passes != 2 || len(e.Log) != 3 || e.Log[0].State != durable.EntryApplied || e.Log[1].State != durable.EntryApplied {
		t.Fatalf("journal: %+v %v", e, err)
	}
	if err := h.Rollback(ctx, out.ExecutionID); err != nil {
		t.Fatal(err)
	}
	if g := graph(); g != "b:t,a:restored" {
		t.Fatalf("graph after rollback %q", g)
	}
}
