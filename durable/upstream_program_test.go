package durable_test

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/connector/mcpconnector"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/durable"
	"github.com/codemode-go/codemode/durable/store"
)

// programHandle connects to the server as it is now and returns a handle
// on st that has each program approved whole (ApprovePrograms), the
// server's calls needing no approval of their own: the person's approval
// of the program is the one decision.
func (f *filesServer) programHandle(t *testing.T, st store.Store) *durable.Handle {
	t.Helper()
	set, err := mcpconnector.Connect(context.Background(), []mcpconnector.Server{{Name: "files", URL: f.url, Approval: mcpconnector.ApprovalNever}}, mcpconnector.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { set.Close() })
	c, err := contract.NewNamespaced(set.Namespaces()...)
	if err != nil {
		t.Fatal(err)
	}
	h, err := durable.New(st, executor(t), c, durable.Options{ApprovePrograms: true})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// A program awaiting approval (ApprovePrograms) calls files.get_file,
// which was the MCP tool get-file when it was written and shown; the
// server then adds a tool named get_file, which takes the name. The
// approval from a handle connected since is refused naming the tool, and
// nothing runs; the handle whose get_file is still get-file runs it. So
// for every way the code can name the tool, escapes included. Before, the
// approval ran the new get_file, a tool that neither the model that wrote
// the program nor the person who approved it had seen. Each store keeps
// what the program named.
func TestProgramApprovalRefusedWhenItsToolMoved(t *testing.T) {
	for name, code := range map[string]string{
		"a call":              `return await files.get_file({ path: "notes.txt" });`,
		"an escaped name":     `return await files.get\u005ffile({ path: "notes.txt" });`,
		"a member named":      `const f = files["get\x5ffile"]; return await f({ path: "notes.txt" });`,
		"a destructured name": `const { get_file: g } = files; return await g({ path: "notes.txt" });`,
	} {
		t.Run(name, func(t *testing.T) {
			eachStore(t, func(t *testing.T, st store.Store) {
				ctx := context.Background()
				files := newFilesServer(t)
				before := files.programHandle(t, st)
				out := execute(t, before, code)
				wantStatus(t, out, codetool.StatusPaused)
				if len(out.Pending) != 1 || out.Pending[0].Seq != durable.ProgramSeq {
					t.Fatalf("pending %+v, want the program", out.Pending)
				}

				files.add("get_file", nil)
				after := files.programHandle(t, st)
				const moved = "files.get_file as MCP tool get-file (named by the program, action 0), now MCP tool get_file"
				answer, err := after.ApproveShown(ctx, out.ExecutionID, durable.ShownDigest(out.Pending))
				if !errors.Is(err, durable.ErrConfigurationChanged) || !strings.Contains(err.Error(), moved) {
					t.Fatalf("approving the program after its tool moved: %s %s %q, %v\nwant ErrConfigurationChanged naming %s; tools called %v",
						answer.Status, answer.Value, answer.Error, err, moved, files.called())
				}
				e := record(t, after, out.ExecutionID)
				if e.Status != store.StatusPaused || len(files.called()) != 0 {
					t.Fatalf("after the refusal: status %s, tools called %v", e.Status, files.called())
				}
				if got := after.ConfigurationChanges(e); !slices.Equal(got, []string{moved}) {
					t.Errorf("ConfigurationChanges = %q, want %q", got, moved)
				}
				done := approve(t, before, out.ExecutionID)
				wantStatus(t, done, codetool.StatusCompleted)
				if !slices.Equal(files.called(), []string{"get-file"}) {
					t.Fatalf("approved where get_file is get-file: tools called %v", files.called())
				}
			})
		})
	}
}

// A program is refused only for a name it uses that moved: a program that
// names list alone is approved and runs after get_file moved, and one
// that names get_file after the server added an unrelated tool.
func TestProgramApprovalIgnoresNamesItDoesNotUse(t *testing.T) {
	ctx := context.Background()
	files := newFilesServer(t)
	st := openStore(t, filepath.Join(t.TempDir(), "j.db"))
	before := files.programHandle(t, st)
	lists := execute(t, before, `return await files.list({});`)
	gets := execute(t, before, `return await files.get_file({ path: "notes.txt" });`)
	files.add("other", nil)
	if done, err := files.programHandle(t, st).ApproveShown(ctx, gets.ExecutionID, durable.ShownDigest(gets.Pending)); err != nil || done.Status != codetool.StatusCompleted {
		t.Fatalf("approving get_file's program after an unrelated tool was added: %s %q, %v", done.Status, done.Error, err)
	}
	files.add("get_file", nil)
	if done, err := files.programHandle(t, st).ApproveShown(ctx, lists.ExecutionID, durable.ShownDigest(lists.Pending)); err != nil || done.Status != codetool.StatusCompleted {
		t.Fatalf("approving list's program after get_file moved: %s %q, %v", done.Status, done.Error, err)
	}
	if !slices.Equal(files.called(), []string{"get-file", "list"}) {
		t.Fatalf("tools called %v", files.called())
	}
}

// What the program's action recorded is compared name by name: a name
// removed since counts, as a recorded call's does; a record that cannot be
// read counts as moved, since what it named is unknown.
func TestProgramMovedReadsItsRecord(t *testing.T) {
	files := newFilesServer(t)
	h := files.programHandle(t, openStore(t, filepath.Join(t.TempDir(), "j.db")))
	program := func(upstream string) store.Entry {
		return store.Entry{Seq: durable.ProgramSeq, Connector: "codemode", Method: "program", Upstream: upstream}
	}
	for _, c := range []struct{ name, upstream, want string }{
		{"unchanged", `{"files.get_file":"MCP tool get-file","files.list":"MCP tool list"}`, ""},
		{"moved", `{"files.get_file":"MCP tool get_file"}`, "files.get_file as MCP tool get_file (named by the program, action 0), now MCP tool get-file"},
		{"removed", `{"files.put_file":"MCP tool put-file"}`, "files.put_file as MCP tool put-file (named by the program, action 0), now no tool of that name"},
		{"a namespace the handle lacks", `{"github.get_repo":"MCP tool get_repo"}`, ""},
		{"unreadable", `{"files.get_file":`, "the tools the program named (action 0) as "},
		{"recorded before programs kept them", ``, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := durable.Moved(h, program(c.upstream))
			if c.want == "" && got != "" || !strings.HasPrefix(got, c.want) {
				t.Fatalf("Moved = %q, want %q", got, c.want)
			}
		})
	}
}
