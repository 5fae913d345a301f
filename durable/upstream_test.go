package durable_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/connector/mcpconnector"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/durable"
	"github.com/codemode-go/codemode/durable/store"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// filesServer is a real MCP server (go-sdk, streamable HTTP) whose tool
// list a test changes while runs are paused: it starts with list, a read,
// and get-file, which needs approval (no annotations: destructive by
// MCP's defaults) and which programs call files.get_file. Each tool
// records its calls by MCP name.
type filesServer struct {
	srv *mcp.Server
	url string
	// policies are the connector's Policies setting for the handles.
	policies map[string]contract.Policy

	mu    sync.Mutex
	calls []string
}

func newFilesServer(t *testing.T) *filesServer {
	t.Helper()
	f := &filesServer{srv: mcp.NewServer(&mcp.Implementation{Name: "files", Version: "1"}, nil)}
	yes := true
	f.add("list", &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, DestructiveHint: new(bool), OpenWorldHint: &yes})
	f.add("get-file", nil)
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return f.srv }, nil))
	t.Cleanup(ts.Close)
	f.url = ts.URL
	return f
}

// add adds the tool name, which answers with its own name.
func (f *filesServer) add(name string, a *mcp.ToolAnnotations) {
	f.srv.AddTool(&mcp.Tool{Name: name, Description: "The server's " + name + ".", InputSchema: json.RawMessage(`{"type":"object"}`), Annotations: a},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			f.mu.Lock()
			f.calls = append(f.calls, name)
			f.mu.Unlock()
			b, _ := json.Marshal(name)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}, nil
		})
}

// called returns the MCP names of the tools called so far, in order.
func (f *filesServer) called() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.calls)
}

// handle connects to the server as it is now, as a new process would,
// and returns a durable handle on st over its tools (namespace files).
func (f *filesServer) handle(t *testing.T, st store.Store, opts durable.Options) *durable.Handle {
	t.Helper()
	set, err := mcpconnector.Connect(context.Background(), []mcpconnector.Server{{Name: "files", URL: f.url, Policies: f.policies}}, mcpconnector.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { set.Close() })
	if down := set.Down(); len(down) > 0 {
		t.Fatal(down)
	}
	c, err := contract.NewNamespaced(set.Namespaces()...)
	if err != nil {
		t.Fatal(err)
	}
	h, err := durable.New(st, executor(t), c, opts)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// readThenGet lists, then gets a file: paused at get_file (action 2).
const readThenGet = `const listed = await files.list({});
return [listed, await files.get_file({ path: "notes.txt" })];`

// A run paused for a person's approval of files.get_file, which was the
// MCP tool get-file; the server then adds a tool named get_file, which
// takes the name (get-file becomes get_file_2). An approval from a
// handle connected since, on every approve path, is refused naming the
// call, what it was and what it is now: the run stays paused, no tool
// runs, and the approval is not used up, so the handle that still has
// get-file as get_file approves it and get-file runs. Before, the
// approval ran the new get_file, a tool the person never saw.
func TestApprovalRefusedWhenTheToolMoved(t *testing.T) {
	ctx := context.Background()
	files := newFilesServer(t)
	st := openStore(t, filepath.Join(t.TempDir(), "j.db"))
	before := files.handle(t, st, durable.Options{})
	out := execute(t, before, readThenGet)
	wantStatus(t, out, codetool.StatusPaused)
	if len(out.Pending) != 1 || out.Pending[0].Method != "get_file" {
		t.Fatalf("pending %+v, want files.get_file", out.Pending)
	}
	if e := record(t, before, out.ExecutionID); e.Log[0].Upstream != "MCP tool list" || e.Log[1].Upstream != "MCP tool get-file" {
		t.Fatalf("the journal recorded the upstream tools %q and %q", e.Log[0].Upstream, e.Log[1].Upstream)
	}

	files.add("get_file", nil)
	after := files.handle(t, st, durable.Options{})
	if up := after.Contract().Tool("files", "get_file").Upstream(); up != "MCP tool get_file" {
		t.Fatalf("after the server's change files.get_file is %q, want the new MCP tool get_file", up)
	}
	const moved = "files.get_file as MCP tool get-file (action 2), now MCP tool get_file"
	digest := durable.ShownDigest(out.Pending)
	for how, approve := range map[string]func() (codetool.Answer, error){
		"Approve":        func() (codetool.Answer, error) { return after.Approve(ctx, out.ExecutionID) },
		"ApprovePending": func() (codetool.Answer, error) { return after.ApprovePending(ctx, out.ExecutionID, []uint64{2}) },
		"ApproveShown":   func() (codetool.Answer, error) { return after.ApproveShown(ctx, out.ExecutionID, digest) },
	} {
		answer, err := approve()
		if !errors.Is(err, durable.ErrConfigurationChanged) || !strings.Contains(err.Error(), moved) {
			t.Fatalf("%s after the tool moved: %s %s, %v\nwant ErrConfigurationChanged naming %s", how, answer.Status, answer.Value, err, moved)
		}
		e := record(t, after, out.ExecutionID)
		if e.Status != store.StatusPaused || e.Passes != 1 || !slices.Equal(files.called(), []string{"list"}) {
			t.Fatalf("%s: after the refusal: status %s, %d passes, tools called %v", how, e.Status, e.Passes, files.called())
		}
	}
	_, err := after.Approve(ctx, out.ExecutionID)
	if want := "durable: the connectors' configuration differs from the run's: execution " + out.ExecutionID + " recorded " + moved +
		" (a name in programs now calls another upstream tool); it stays paused: continue it where each of those names calls the tool it recorded, or reject it"; err.Error() != want {
		t.Errorf("Approve's error reads\n%v\nwant\n%s", err, want)
	}
	if got := after.ConfigurationChanges(record(t, after, out.ExecutionID)); !slices.Equal(got, []string{moved}) {
		t.Errorf("ConfigurationChanges = %q, want %q", got, moved)
	}

	done := approve(t, before, out.ExecutionID)
	wantStatus(t, done, codetool.StatusCompleted)
	if string(done.Value) != `["list","get-file"]` || !slices.Equal(files.called(), []string{"list", "get-file"}) {
		t.Fatalf("approved where get_file is get-file: %s; tools called %v", done.Value, files.called())
	}
}

// An orphan (its host died after the approval) whose tool moved since is
// not resumed by a handle connected since: Resume refuses naming the call,
// ResumeOrphans skips it and says why once, and it stays orphaned, with
// nothing run, for a handle whose tools are the run's.
func TestResumeRefusedWhenTheToolMoved(t *testing.T) {
	ctx := context.Background()
	files := newFilesServer(t)
	st := openStore(t, filepath.Join(t.TempDir(), "j.db"))
	before := files.handle(t, st, durable.Options{})
	out := execute(t, before, readThenGet)
	wantStatus(t, out, codetool.StatusPaused)
	orphan(t, st, out.ExecutionID, 2)

	files.add("get_file", nil)
	var logs bytes.Buffer
	after := files.handle(t, st, durable.Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	const moved = "files.get_file as MCP tool get-file (action 2), now MCP tool get_file"
	if _, err := after.Resume(ctx, out.ExecutionID); !errors.Is(err, durable.ErrConfigurationChanged) || !strings.Contains(err.Error(), moved) ||
		!strings.HasSuffix(err.Error(), "it stays as its host left it: resume it where each of those names calls the tool it recorded, or expire it") {
		t.Fatalf("Resume after the tool moved: %v, want ErrConfigurationChanged naming %s", err, moved)
	}
	for range 2 {
		if resumed, err := after.ResumeOrphans(ctx); err != nil || len(resumed) != 0 {
			t.Fatalf("ResumeOrphans after the tool moved = %v, %v; want none", resumed, err)
		}
	}
	if n := strings.Count(logs.String(), "not resuming an orphaned execution"); n != 1 || !strings.Contains(logs.String(), "get_file") {
		t.Errorf("ResumeOrphans logged the skip %d times, want once naming get_file:\n%s", n, logs.String())
	}
	if e := record(t, after, out.ExecutionID); e.Status != store.StatusRunning || !slices.Equal(files.called(), []string{"list"}) {
		t.Fatalf("after the refusals: status %s, tools called %v", e.Status, files.called())
	}
	done, err := before.Resume(ctx, out.ExecutionID)
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, done, codetool.StatusCompleted)
	if !slices.Equal(files.called(), []string{"list", "get-file"}) {
		t.Fatalf("resumed where get_file is get-file: tools called %v", files.called())
	}
}

// A pass that meets a recorded call whose tool moved (an entry the
// checks before it did not see: another process, with other tools, wrote
// it meanwhile) ends the run as an error naming the call, and runs
// nothing under the name: here the pass of an orphan approved at
// files.get_file, run on a handle whose get_file is the server's new tool.
func TestPassEndsWhenARecordedToolMoved(t *testing.T) {
	ctx := context.Background()
	files := newFilesServer(t)
	st := openStore(t, filepath.Join(t.TempDir(), "j.db"))
	out := execute(t, files.handle(t, st, durable.Options{}), readThenGet)
	wantStatus(t, out, codetool.StatusPaused)
	orphan(t, st, out.ExecutionID, 2)
	files.add("get_file", nil)
	after := files.handle(t, st, durable.Options{})
	answer, err := durable.ReplayUnchecked(ctx, after, out.ExecutionID)
	if err != nil {
		t.Fatal(err)
	}
	const moved = "files.get_file as MCP tool get-file (action 2), now MCP tool get_file: not run"
	if answer.Status != codetool.StatusError || !strings.Contains(answer.Error, moved) {
		t.Fatalf("the pass answered %s %s %q, want an error naming %s", answer.Status, answer.Value, answer.Error, moved)
	}
	e := record(t, after, out.ExecutionID)
	if e.Status != store.StatusError || e.Log[1].State != store.EntryError || !slices.Equal(files.called(), []string{"list"}) {
		t.Fatalf("after the pass: status %s, entries %s, tools called %v", e.Status, states(e), files.called())
	}
}

// An ended run's calls are reverted by the revert of the tool each
// named: Rollback reverts the others and reports a call whose tool moved
// since (the revert now under its name is the new tool's) as a failure,
// not reverted; RevertUncertain refuses such a call.
func TestRevertRefusedWhenTheToolMoved(t *testing.T) {
	ctx := context.Background()
	files := newFilesServer(t)
	var mu sync.Mutex
	reverted := map[string]int{}
	revert := func(name string) func(context.Context, json.RawMessage, json.RawMessage) error {
		return func(context.Context, json.RawMessage, json.RawMessage) error {
			mu.Lock()
			reverted[name]++
			mu.Unlock()
			return nil
		}
	}
	files.policies = map[string]contract.Policy{"list": {Revert: revert("list")}, "get_file": {Revert: revert("get_file")}}
	st := openStore(t, filepath.Join(t.TempDir(), "j.db"))
	before := files.handle(t, st, durable.Options{})
	done := execute(t, before, readThenGet)
	wantStatus(t, done, codetool.StatusCompleted)
	files.policies = map[string]contract.Policy{"list": {Revert: revert("list")}, "get_file": {RequiresApproval: true, Revert: revert("get_file")}}
	uncertain := execute(t, files.handle(t, st, durable.Options{}), readThenGet)
	wantStatus(t, uncertain, codetool.StatusPaused)
	// Its host died with get_file's outcome unknown, and a person failed
	// the run.
	orphan(t, st, uncertain.ExecutionID, 2)
	yes, msg := true, "failed by a person"
	if ok, err := st.TransitionEntry(ctx, "default", uncertain.ExecutionID, 2, []store.EntryState{store.EntryPending}, store.EntryPending, store.EntryUpdate{Uncertain: &yes}); err != nil || !ok {
		t.Fatal(ok, err)
	}
	if ok, err := st.TransitionExecution(ctx, "default", uncertain.ExecutionID, []store.Status{store.StatusRunning}, store.StatusError, store.ExecutionUpdate{Error: &msg, Lease: &store.Lease{}}); err != nil || !ok {
		t.Fatal(ok, err)
	}

	files.add("get_file", nil)
	after := files.handle(t, st, durable.Options{})
	const moved = "files.get_file as MCP tool get-file (action 2), now MCP tool get_file"
	err := after.Rollback(ctx, done.ExecutionID)
	var rb *durable.RollbackError
	if !errors.As(err, &rb) || rb.Reverted != 1 || len(rb.Failures) != 1 || !strings.Contains(rb.Failures[0].Error(), moved) {
		t.Fatalf("Rollback after the tool moved: %v, want list reverted and a failure naming %s", err, moved)
	}
	if errors.Is(err, durable.ErrConfigurationChanged) {
		t.Errorf("Rollback's partial failure %v reads as a refusal that reverted nothing", err)
	}
	if e := record(t, after, done.ExecutionID); e.Log[0].State != store.EntryReverted || e.Log[1].State != store.EntryApplied || reverted["list"] != 1 || reverted["get_file"] != 0 {
		t.Fatalf("after the rollback: entries %s, reverts %v", states(e), reverted)
	}
	if err := after.RevertUncertain(ctx, uncertain.ExecutionID, 2); !errors.Is(err, durable.ErrConfigurationChanged) || !strings.Contains(err.Error(), moved) {
		t.Fatalf("RevertUncertain after the tool moved: %v, want ErrConfigurationChanged naming %s", err, moved)
	}
	if reverted["get_file"] != 0 {
		t.Fatalf("get_file's revert ran %d times", reverted["get_file"])
	}
}
