package mcpconnector_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/connector/mcpconnector"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/internal/mcptest"
)

// memory connects the real memory MCP server with a fresh graph file,
// under an approval rule and policies.
func memory(t *testing.T, approval mcpconnector.Approval, policies map[string]contract.Policy) *mcpconnector.Set {
	t.Helper()
	set, err := mcpconnector.Connect(context.Background(), []mcpconnector.Server{{Name: "memory", Command: mcptest.Command(t, "mcp-server-memory"),
		Env: map[string]string{"MEMORY_FILE_PATH": filepath.Join(t.TempDir(), "memory.jsonl")}, Approval: approval, Policies: policies}}, mcpconnector.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { set.Close() })
	return set
}

// approvals are which of a set's tools need approval.
func approvals(t *testing.T, set *mcpconnector.Set) map[string]bool {
	t.Helper()
	if down := set.Down(); len(down) > 0 {
		t.Fatalf("down: %v", down)
	}
	got := map[string]bool{}
	for _, tool := range set.Namespaces()[0].Tools {
		got[tool.Name()] = tool.Policy().NeedsApproval(json.RawMessage(`{}`))
	}
	return got
}

// TestApprovalFromAnnotations: the memory server annotates its tools, and
// under the default rule deletions (destructive) need approval while
// creations and reads do not; the other rules and a policy override that.
func TestApprovalFromAnnotations(t *testing.T) {
	destructive := map[string]bool{"create_entities": false, "create_relations": false, "add_observations": false, "delete_entities": true,
		"delete_observations": true, "delete_relations": true, "read_graph": false, "search_nodes": false, "open_nodes": false}
	revert := func(context.Context, json.RawMessage, json.RawMessage) error { return nil }
	for _, tc := range []struct {
		name     string
		rule     mcpconnector.Approval
		policies map[string]contract.Policy
		want     func(tool string) bool
	}{
		{"default", "", nil, func(tool string) bool { return destructive[tool] }},
		{"destructive", mcpconnector.ApprovalDestructive, nil, func(tool string) bool { return destructive[tool] }},
		{"always", mcpconnector.ApprovalAlways, nil, func(string) bool { return true }},
		{"never", mcpconnector.ApprovalNever, nil, func(string) bool { return false }},
		{"a policy replaces the rule", "", map[string]contract.Policy{"delete_relations": {Revert: revert}},
			func(tool string) bool { return destructive[tool] && tool != "delete_relations" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := approvals(t, memory(t, tc.rule, tc.policies))
			for tool := range destructive {
				if got[tool] != tc.want(tool) {
					t.Errorf("%s: needs approval %v, want %v", tool, got[tool], tc.want(tool))
				}
			}
		})
	}
	// A policy that names no tool keeps the server out, saying why: the
	// policy may be what makes a call wait for a person.
	set := memory(t, "", map[string]contract.Policy{"drop_everything": {}})
	if err := set.Down()["memory"]; err == nil || !strings.Contains(err.Error(), `no tool "drop_everything"`) {
		t.Fatalf("a policy for a missing tool: %v", err)
	}
	if ns := set.Namespaces(); len(ns[0].Tools) != 0 || !strings.Contains(ns[0].Instructions, `no tool "drop_everything"`) {
		t.Fatalf("the down server's namespace: %+v", ns[0])
	}
}

// TestCallersPerTool: Server.Callers marks tools the model calls directly,
// on top of the approval rule; a name that matches no tool is a warning.
func TestCallersPerTool(t *testing.T) {
	connect := func(callers map[string]contract.Callers) *mcpconnector.Set {
		set, err := mcpconnector.Connect(context.Background(), []mcpconnector.Server{{Name: "memory", Command: mcptest.Command(t, "mcp-server-memory"),
			Env: map[string]string{"MEMORY_FILE_PATH": filepath.Join(t.TempDir(), "memory.jsonl")}, Callers: callers}}, mcpconnector.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { set.Close() })
		return set
	}
	set := connect(map[string]contract.Callers{"delete_entities": contract.CallersModel, "read_graph": contract.CallersBoth})
	for _, tool := range set.Namespaces()[0].Tools {
		want := map[string]contract.Callers{"delete_entities": contract.CallersModel, "read_graph": contract.CallersBoth}[tool.Name()]
		if got := tool.Policy().Callers; got != want {
			t.Errorf("%s: callers %q, want %q", tool.Name(), got, want)
		}
		if tool.Name() == "delete_entities" && !tool.Policy().NeedsApproval(json.RawMessage(`{}`)) {
			t.Errorf("delete_entities lost its approval rule")
		}
	}
	// A callers setting for a missing tool (a typo, a tool renamed
	// upstream) is a warning: the server's other tools stay.
	typo := connect(map[string]contract.Callers{"nothing": contract.CallersModel})
	if err := typo.Down()["memory"]; err != nil || len(typo.Namespaces()[0].Tools) == 0 {
		t.Fatalf("callers for a missing tool took the server down: %v", err)
	}
}
