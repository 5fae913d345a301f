package durable_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/connector/mcpconnector"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/durable"
	"github.com/codemode-go/codemode/durable/store"
	"github.com/codemode-go/codemode/internal/mcptest"
)

// A program over the real memory MCP server, whose tools carry their
// policy from the server's annotations: the creation runs, the deletion
// pauses; approval replays the creation from the journal (the server is
// not asked again) and deletes; rollback's revert (set by the embedder)
// recreates the entity.
func TestMemoryServerPausesDestructiveCalls(t *testing.T) {
	ctx := context.Background()
	var c *contract.Contract
	call := func(ctx context.Context, tool string, args json.RawMessage) (json.RawMessage, error) {
		return c.Tool("memory", tool).Call(ctx, args)
	}
	revert := func(ctx context.Context, args, result json.RawMessage) error {
		var in struct{ EntityNames []string }
		if err := json.Unmarshal(args, &in); err != nil {
			return err
		}
		entities := []map[string]any{}
		for _, n := range in.EntityNames {
			entities = append(entities, map[string]any{"name": n, "entityType": "restored", "observations": []string{}})
		}
		b, _ := json.Marshal(map[string]any{"entities": entities})
		_, err := call(ctx, "create_entities", b)
		return err
	}
	set, err := mcpconnector.Connect(ctx, []mcpconnector.Server{{Name: "memory", Command: mcptest.Command(t, "mcp-server-memory"),
		Env:      map[string]string{"MEMORY_FILE_PATH": filepath.Join(t.TempDir(), "memory.jsonl")},
		Policies: map[string]contract.Policy{"delete_entities": {RequiresApproval: true, Revert: revert}}}}, mcpconnector.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { set.Close() })
	if down := set.Down(); len(down) > 0 {
		t.Fatal(down)
	}
	if c, err = contract.NewNamespaced(set.Namespaces()...); err != nil {
		t.Fatal(err)
	}
	h, err := durable.New(openStore(t, filepath.Join(t.TempDir(), "j.db")), executor(t), c, durable.Options{})
	if err != nil {
		t.Fatal(err)
	}
	out := execute(t, h, `async () => {
  await memory.create_entities({ entities: [{ name: "a", entityType: "t", observations: ["x"] }, { name: "b", entityType: "t", observations: [] }] });
  await memory.delete_entities({ entityNames: ["a"] });
  return (await memory.read_graph({})).entities.map((e) => e.name);
}`)
	if out.Status != codetool.StatusPaused || len(out.Pending) != 1 || out.Pending[0].Method != "delete_entities" || string(out.Pending[0].Args) != `{"entityNames":["a"]}` {
		t.Fatalf("first pass: %+v", out)
	}
	graph := func() string {
		raw, err := call(ctx, "read_graph", json.RawMessage(`{}`))
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
	done := approve(t, h, out.ExecutionID)
	if done.Status != codetool.StatusCompleted || string(done.Value) != `["b"]` {
		t.Fatalf("approval: %+v", done)
	}
	// Had the creation run again, the server would have kept one "a"
	// (create_entities skips existing names), but the journal shows it
	// replayed: two passes, the creation applied once.
	e := record(t, h, out.ExecutionID)
	if e.Passes != 2 || len(e.Log) != 3 || e.Log[0].State != store.EntryApplied || e.Log[1].State != store.EntryApplied {
		t.Fatalf("journal: %+v", e)
	}
	if err := h.Rollback(ctx, out.ExecutionID); err != nil {
		t.Fatal(err)
	}
	if g := graph(); g != "b:t,a:restored" {
		t.Fatalf("graph after rollback %q", g)
	}
}
