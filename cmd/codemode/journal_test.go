package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/durable/store"
	"github.com/codemode-go/codemode/internal/mcptest"
	"github.com/codemode-go/codemode/internal/typescript"
)

// journalFixture is a folder with a tools file whose commands are shell
// scripts that append each call's input to a file, so a test sees what ran:
// list_items (a read), create_item (needs approval; reverted by
// delete_item), and a journal path.
type journalFixture struct {
	dir, tools, journal, program string
}

func newJournalFixture(t *testing.T) *journalFixture {
	t.Helper()
	dir := t.TempDir()
	f := &journalFixture{dir: dir, tools: filepath.Join(dir, "tools.json"), journal: filepath.Join(dir, "journal.db"), program: filepath.Join(dir, "program.ts")}
	tools := map[string]any{"tools": []map[string]any{
		{"name": "list_items", "description": "Lists the items.",
			"inputSchema":  json.RawMessage(`{"type":"object","properties":{"prefix":{"type":"string"}},"required":["prefix"]}`),
			"outputSchema": json.RawMessage(`{"type":"array","items":{"type":"string"}}`),
			"command":      []string{"sh", "-c", `cat >> list.log; echo >> list.log; echo '["a","b"]'`}},
		{"name": "create_item", "description": "Creates an item.",
			"inputSchema":      json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`),
			"outputSchema":     json.RawMessage(`{"type":"object","properties":{"id":{"type":"integer"}},"required":["id"]}`),
			"command":          []string{"sh", "-c", `cat >> create.log; echo >> create.log; echo '{"id":7}'`},
			"requiresApproval": true,
			"revert":           []string{"sh", "-c", `cat >> revert.log; echo >> revert.log`}},
	}}
	raw, _ := json.Marshal(tools)
	for name, text := range map[string]string{f.tools: string(raw), f.program: `const items = await codemode.list_items({ prefix: "x" });
console.log("found", items.length);
const created = await codemode.create_item({ name: "item-" + items.join("+") });
return { created, n: items.length };
`} {
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// lines returns the non-empty lines of a file the tool commands wrote.
func (f *journalFixture) lines(t *testing.T, name string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(f.dir, name))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

// cliProcess runs the CLI in a new process (the test binary as codemode),
// with $CODEMODE_JOURNAL set to the fixture's journal.
func (f *journalFixture) cli(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, append([]string{"-codemode-cli"}, args...)...)
	cmd.Env = append(os.Environ(), journalEnv+"="+f.journal)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		t.Fatalf("codemode %q did not finish", args)
	}
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), out.String(), errOut.String()
}

// output runs a command that prints one codetool.Answer as JSON.
func (f *journalFixture) output(t *testing.T, wantCode int, args ...string) codetool.Answer {
	t.Helper()
	code, stdout, stderr := f.cli(t, args...)
	var out codetool.Answer
	if err := json.Unmarshal([]byte(stdout), &out); err != nil || code != wantCode {
		t.Fatalf("codemode %q: exit %d (want %d), stdout %q, stderr %q, %v", args, code, wantCode, stdout, stderr, err)
	}
	if strings.Count(strings.TrimSpace(stdout), "\n") != 0 {
		t.Fatalf("--json printed more than one line: %q", stdout)
	}
	return out
}

func (f *journalFixture) record(t *testing.T, id string) *store.Execution {
	t.Helper()
	code, stdout, stderr := f.cli(t, "show", "--json", id)
	var e store.Execution
	if err := json.Unmarshal([]byte(stdout), &e); err != nil || code != 0 {
		t.Fatalf("show: exit %d, %q, %q, %v", code, stdout, stderr, err)
	}
	return &e
}

func logStates(e *store.Execution) string {
	var s []string
	for _, l := range e.Log {
		s = append(s, l.Method+"="+string(l.State))
	}
	return strings.Join(s, " ")
}

// TestJournalCLIRunPauseApproveRollback drives the built CLI, one process
// per command (each reopens the journal): run pauses (exit 3), pending
// lists the action, approve replays the read from the journal and runs the
// write (exit 0), rollback runs the revert command with {args, result}.
func TestJournalCLIRunPauseApproveRollback(t *testing.T) {
	f := newJournalFixture(t)
	paused := f.output(t, exitPaused, "run", "--journal", f.journal, "--tools", f.tools, "--json", f.program)
	if paused.Status != codetool.StatusPaused || len(paused.Pending) != 1 || paused.Pending[0].Seq != 2 ||
		paused.Pending[0].Method != "create_item" || string(paused.Pending[0].Args) != `{"name":"item-a+b"}` {
		t.Fatalf("run: %+v", paused)
	}
	if got := f.lines(t, "create.log"); got != nil {
		t.Fatalf("the write ran before approval: %q", got)
	}
	id := paused.ExecutionID

	// Human output: the pending action with its arguments, at a glance.
	code, stdout, _ := f.cli(t, "pending")
	if code != 0 || !strings.Contains(stdout, id) || !strings.Contains(stdout, "action 2: codemode.create_item\n    {\n      \"name\": \"item-a+b\"\n    }") {
		t.Fatalf("pending: exit %d\n%s", code, stdout)
	}
	code, stdout, _ = f.cli(t, "executions")
	if code != 0 || !strings.Contains(stdout, "STATUS") || !regexpMatch(`(?m)^`+id+`\s+paused\s+\d+s\s+\d+s\s+2\s+awaits approval: #2 codemode\.create_item\(\{"name":"item-a\+b"\}\)$`, stdout) {
		t.Fatalf("executions:\n%s", stdout)
	}
	code, stdout, _ = f.cli(t, "pending", "--json", id)
	var pending []store.PendingAction
	if err := json.Unmarshal([]byte(stdout), &pending); err != nil || code != 0 || len(pending) != 1 || pending[0].ExecutionID != id {
		t.Fatalf("pending --json: exit %d %q", code, stdout)
	}

	done := f.output(t, exitCompleted, "approve", "--tools", f.tools, "--json", id)
	if done.Status != codetool.StatusCompleted || string(done.Value) != `{"created":{"id":7},"n":2}` || strings.Join(done.Logs, "|") != "found 2" {
		t.Fatalf("approve: %+v", done)
	}
	if got := f.lines(t, "list.log"); len(got) != 1 {
		t.Fatalf("the read ran %d times, want once (the approval replays it): %q", len(got), got)
	}
	if got := f.lines(t, "create.log"); len(got) != 1 || got[0] != `{"name":"item-a+b"}` {
		t.Fatalf("the write's input: %q", got)
	}
	if e := f.record(t, id); e.Status != store.StatusCompleted || logStates(e) != "list_items=applied create_item=applied" || e.Passes != 2 {
		t.Fatalf("journal: %s %s passes %d", e.Status, logStates(e), e.Passes)
	}
	code, _, stderr := f.cli(t, "approve", "--tools", f.tools, id)
	if code != exitError || !strings.Contains(stderr, "approve: execution "+id+" is completed: only a paused execution can be approved") || strings.Count(stderr, "paused") != 1 {
		t.Fatalf("second approve: exit %d, %q", code, stderr)
	}

	code, stdout, stderr = f.cli(t, "rollback", "--tools", f.tools, id)
	if code != 0 || !strings.Contains(stdout, id+" is rolled_back; 1 action(s) reverted") {
		t.Fatalf("rollback: exit %d, %q, %q", code, stdout, stderr)
	}
	if got := f.lines(t, "revert.log"); len(got) != 1 || got[0] != `{"args":{"name":"item-a+b"},"result":{"id":7}}` {
		t.Fatalf("revert input %q", got)
	}
	if e := f.record(t, id); e.Status != store.StatusRolledBack || logStates(e) != "list_items=applied create_item=reverted" {
		t.Fatalf("after rollback: %s %s", e.Status, logStates(e))
	}
	code, _, stderr = f.cli(t, "rollback", "--tools", f.tools, id)
	if code != exitError || !strings.Contains(stderr, "nothing was reverted: "+id+" was already rolled back (1 action(s) reverted then)") {
		t.Fatalf("second rollback: exit %d, %q", code, stderr)
	}
}

func regexpMatch(pattern, s string) bool {
	return regexp.MustCompile(pattern).MatchString(s)
}

// TestJournalCLIReject: reject ends the run without running the action;
// rejecting again, or approving, is refused.
func TestJournalCLIReject(t *testing.T) {
	f := newJournalFixture(t)
	paused := f.output(t, exitPaused, "run", "--journal", f.journal, "--tools", f.tools, "--json", f.program)
	id := paused.ExecutionID
	code, _, stderr := f.cli(t, "reject", id, "1")
	if code != exitError || !strings.Contains(stderr, "action 1 of "+id+" is not pending") {
		t.Fatalf("reject of an applied action: exit %d %q", code, stderr)
	}
	code, stdout, stderr := f.cli(t, "reject", id, "2")
	if code != 0 || !strings.Contains(stdout, "rejected action 2") {
		t.Fatalf("reject: exit %d %q %q", code, stdout, stderr)
	}
	e := f.record(t, id)
	if e.Status != store.StatusRejected || e.Error != "Action codemode.create_item rejected by user" || logStates(e) != "list_items=applied create_item=error" {
		t.Fatalf("after reject: %s %q %s", e.Status, e.Error, logStates(e))
	}
	if code, _, _ := f.cli(t, "reject", id, "2"); code != exitError {
		t.Fatalf("second reject: exit %d", code)
	}
	if code, _, stderr := f.cli(t, "approve", "--tools", f.tools, id); code != exitError || !strings.Contains(stderr, "approve: execution "+id+" is rejected: only a paused execution can be approved") {
		t.Fatalf("approve after reject: exit %d %q", code, stderr)
	}
	if f.lines(t, "create.log") != nil {
		t.Fatal("a rejected action ran")
	}
	if code, _, stderr := f.cli(t, "reject", id, "x"); code != 2 || !strings.Contains(stderr, "SEQ") {
		t.Fatalf("reject with a bad SEQ: exit %d %q", code, stderr)
	}
}

// TestJournalCLIRejectSaysWhetherThereIsAnythingToRollBack: the run
// records which of its tools have a revert, and reject suggests codemode
// rollback only when an action that ran has one; when none has, it says
// there is nothing to roll back.
func TestJournalCLIRejectSaysWhetherThereIsAnythingToRollBack(t *testing.T) {
	tests := []struct {
		name, program string
		approvals     int // approved before the reject
		want          string
	}{
		{"nothing ran", `await codemode.create_item({ name: "a" })`, 0,
			"rejected action 1; execution ID is rejected (no earlier action ran: nothing needs undoing)\n"},
		{"a read without a revert ran", `await codemode.list_items({ prefix: "x" }); await codemode.create_item({ name: "a" })`, 0,
			"rejected action 2; execution ID is rejected (1 earlier action(s) stay applied, none with a revert: there is nothing to roll back)\n"},
		{"a write with a revert ran", `await codemode.list_items({ prefix: "x" }); await codemode.create_item({ name: "a" }); await codemode.create_item({ name: "b" })`, 1,
			"rejected action 3; execution ID is rejected (2 earlier action(s) stay applied, 1 with a revert: codemode rollback --tools FILE ID reverts those)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newJournalFixture(t)
			prog := writeFile(t, "prog.ts", tt.program)
			paused := f.output(t, exitPaused, "run", "--tools", f.tools, "--json", prog)
			for range tt.approvals {
				paused = f.output(t, exitPaused, "approve", "--tools", f.tools, "--json", paused.ExecutionID)
			}
			id, seq := paused.ExecutionID, fmt.Sprint(paused.Pending[0].Seq)
			code, stdout, stderr := f.cli(t, "reject", id, seq)
			if want := strings.ReplaceAll(tt.want, "ID", id); code != 0 || stdout != want {
				t.Fatalf("reject: exit %d\n%q\nwant %q\nstderr: %s", code, stdout, want, stderr)
			}
			if got := f.record(t, id).Configuration["tools with a revert"]; got != "codemode.create_item" {
				t.Errorf("the run recorded the tools with a revert as %q, want codemode.create_item", got)
			}
		})
	}
}

// TestJournalCLIExpireDeletePrune: expire ends paused runs older than
// --max-age and prints their IDs; delete removes one; prune keeps the
// newest ended ones; a missing journal flag is a usage error.
func TestJournalCLIExpireDeletePrune(t *testing.T) {
	f := newJournalFixture(t)
	var ids []string
	for range 3 {
		ids = append(ids, f.output(t, exitPaused, "run", "--journal", f.journal, "--tools", f.tools, "--json", f.program).ExecutionID)
	}
	code, stdout, _ := f.cli(t, "expire", "--max-age", "1h")
	if code != 0 || strings.TrimSpace(stdout) != "" {
		t.Fatalf("expire of fresh runs: exit %d %q", code, stdout)
	}
	time.Sleep(20 * time.Millisecond)
	code, stdout, _ = f.cli(t, "expire", "--max-age", "10ms", "--json")
	var expired struct{ Expired []string }
	if err := json.Unmarshal([]byte(stdout), &expired); err != nil || code != 0 || len(expired.Expired) != 3 {
		t.Fatalf("expire: exit %d %q", code, stdout)
	}
	if e := f.record(t, ids[0]); e.Status != store.StatusRejected || e.Error != "expired awaiting approval" {
		t.Fatalf("expired run: %s %q", e.Status, e.Error)
	}
	code, stdout, _ = f.cli(t, "delete", ids[0])
	if code != 0 || strings.TrimSpace(stdout) != "deleted "+ids[0] {
		t.Fatalf("delete: exit %d %q", code, stdout)
	}
	if code, _, stderr := f.cli(t, "show", ids[0]); code != 1 || !strings.Contains(stderr, "no execution "+ids[0]) {
		t.Fatalf("show of a deleted run: exit %d %q", code, stderr)
	}
	if code, _, _ := f.cli(t, "delete", ids[0]); code != exitError {
		t.Fatalf("second delete: exit %d", code)
	}
	code, stdout, _ = f.cli(t, "prune", "--keep", "1")
	if code != 0 || strings.TrimSpace(stdout) != "removed 1 ended execution(s)" {
		t.Fatalf("prune: exit %d %q", code, stdout)
	}
	code, stdout, _ = f.cli(t, "executions", "--json")
	var list []*store.Execution
	if err := json.Unmarshal([]byte(stdout), &list); err != nil || code != 0 || len(list) != 1 || list[0].ID != ids[2] {
		t.Fatalf("executions after prune: %q", stdout)
	}
	// Separate histories per runtime name.
	if code, stdout, _ := f.cli(t, "executions", "--name", "other"); code != 0 || strings.TrimSpace(stdout) != `no executions under the runtime name "other"; the journal has runs under: default (give --name default)` {
		t.Fatalf("another runtime name: exit %d %q", code, stdout)
	}
	cmd := []string{"executions", "--journal", ""}
	if code, _, stderr := f.cli(t, cmd...); code != 2 || !strings.Contains(stderr, "--journal FILE.db is required") {
		t.Fatalf("no journal: exit %d %q", code, stderr)
	}
}

// TestJournalCLIRunErrorAndCompleted: a program that throws exits 1 with
// its error; one that makes no approval-needing call completes (exit 0)
// and prints its value.
func TestJournalCLIRunErrorAndCompleted(t *testing.T) {
	f := newJournalFixture(t)
	failing := filepath.Join(f.dir, "fail.ts")
	os.WriteFile(failing, []byte(`await codemode.list_items({ prefix: "y" }); throw new Error("boom");`), 0o644)
	code, _, stderr := f.cli(t, "run", "--journal", f.journal, "--tools", f.tools, failing)
	if code != exitError || !strings.Contains(stderr, "boom") {
		t.Fatalf("failing program: exit %d %q", code, stderr)
	}
	ok := filepath.Join(f.dir, "ok.ts")
	os.WriteFile(ok, []byte(`const a = await codemode.list_items({ prefix: "y" }); return a.join("");`), 0o644)
	code, stdout, _ := f.cli(t, "run", "--journal", f.journal, "--tools", f.tools, ok)
	if code != 0 || stdout != "ab\n" {
		t.Fatalf("completed program: exit %d %q", code, stdout)
	}
}

// TestJournalMCPServe: `mcp serve --journal` over the real memory MCP
// server; the code tool's answer for a destructive call is paused and tells
// the agent not to retry; `codemode approve` in another process (its own
// memory server on the same file) completes it.
func TestJournalMCPServe(t *testing.T) {
	f := newJournalFixture(t)
	config := filepath.Join(f.dir, "mcp.json")
	cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"memory": map[string]any{
		"command": mcptest.Command(t, "mcp-server-memory"), "env": map[string]string{"MEMORY_FILE_PATH": filepath.Join(f.dir, "memory.jsonl")}}}})
	if err := os.WriteFile(config, cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, "-codemode-cli", "mcp", "serve", "--journal", f.journal, "--config", config, "--tools", f.tools, "--declarations", "full")
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
		t.Fatalf("tools %+v %v", tools, err)
	}
	desc := tools.Tools[0].Description
	for _, want := range []string{"readonly memory:", "delete_entities", "readonly codemode: Tools;", "list_items", "step<T>(", "run(name: string", "Do not call this tool again to retry"} {
		if !strings.Contains(desc, want) {
			t.Errorf("description lacks %q", want)
		}
	}
	if strings.Contains(desc, "__codemode") {
		t.Error("the description shows the hidden namespace")
	}
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "code", Arguments: map[string]any{"code": `async () => {
  await memory.create_entities({ entities: [{ name: "a", entityType: "t", observations: [] }] });
  const items = await codemode.list_items({ prefix: "p" });
  await memory.delete_entities({ entityNames: ["a"] });
  return items.length;
}`}})
	if err != nil || res.IsError || len(res.Content) != 2 {
		t.Fatalf("code: %+v %v", res, err)
	}
	var out codetool.Answer
	if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &out); err != nil || out.Status != codetool.StatusPaused ||
		len(out.Pending) != 1 || out.Pending[0].Connector != "memory" || out.Pending[0].Method != "delete_entities" {
		t.Fatalf("answer %q: %v", res.Content[0].(*mcp.TextContent).Text, err)
	}
	if note := res.Content[1].(*mcp.TextContent).Text; !strings.Contains(note, "Do not retry") || !strings.Contains(note, out.ExecutionID) {
		t.Fatalf("paused note %q", note)
	}
	done := f.output(t, exitCompleted, "approve", "--config", config, "--tools", f.tools, "--json", out.ExecutionID)
	if string(done.Value) != "2" {
		t.Fatalf("approve: %+v", done)
	}
	if got := f.lines(t, "list.log"); len(got) != 1 {
		t.Fatalf("the read ran %d times", len(got))
	}
	// A program error is an isError answer carrying the durable output.
	res, err = session.CallTool(ctx, &mcp.CallToolParams{Name: "code", Arguments: map[string]any{"code": `throw new Error("nope")`}})
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, `"status":"error"`) {
		t.Fatalf("failing program: %+v %v", res, err)
	}
}

// TestJournalCLIHelpfulErrors: a command that needs something the user left
// out says what to give; a journal path that does not exist is not created
// by the commands that read it.
func TestJournalCLIHelpfulErrors(t *testing.T) {
	f := newJournalFixture(t)
	paused := f.output(t, exitPaused, "run", "--journal", f.journal, "--tools", f.tools, "--json", f.program)
	id := paused.ExecutionID
	// The pause hint repeats the connector flags the run was given.
	code, stdout, _ := f.cli(t, "run", "--tools", f.tools, f.program)
	if want := "approve this action: codemode approve --tools " + f.tools + " exec_"; code != exitPaused || !strings.Contains(stdout, want) {
		t.Errorf("paused run: exit %d %q, want %q", code, stdout, want)
	}
	// The same tools file runs plain: the call that needs approval is
	// refused, saying how to get one.
	noJournal := *f
	noJournal.journal = ""
	if code, _, stderr := noJournal.cli(t, "run", "--tools", f.tools, f.program); code != 1 || !strings.Contains(stderr, "codemode.create_item needs a person's approval before it runs, and a plain run cannot ask for it: run with --journal FILE.db") {
		t.Errorf("a tools file with approvals without a journal: exit %d %q", code, stderr)
	}
	typo := filepath.Join(f.dir, "jounral.db")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"approve", id}, 2, "approve: give the tools " + id + " ran with: --tools FILE"},
		{[]string{"approve", id}, 2, "it recorded the namespace(s) codemode, and ran with --tools FILE (FILE: the tools file the run used;"},
		{[]string{"rollback", id}, 2, "rollback: give the tools " + id + " ran with"},
		{[]string{"reject", id}, 2, "codemode reject " + id + " SEQ"},
		{[]string{"approve", "--tools", f.tools, id, "x"}, 2, `approve: SEQ "x" is not a number`},
		// --json prints the false on stdout and why on stderr.
		{[]string{"reject", "--json", id, "999"}, 1, "action 999 of " + id + " is not pending"},
		{[]string{"reject", "exec_0_nope", "1"}, 1, "no execution exec_0_nope"},
		{[]string{"delete", "--json", "exec_0_nope"}, 1, "no execution exec_0_nope"},
		// An approval of actions the execution no longer awaits (a late
		// second approver's) is refused and leaves it paused.
		{[]string{"approve", "--tools", f.tools, id, "999"}, 1, "awaits approval of " + fmt.Sprint(paused.Pending[0].Seq) + " (codemode."},
		{[]string{"run", "--tools", f.tools, "--input", `{"a":1}`, f.program}, 2, "run: with --journal a run takes no --input or --input-schema: an execution has no input"},
		{[]string{"executions", "--journal", typo}, 1, "--journal " + typo + ": no journal there"},
		{[]string{"show", "--journal", "sqlite:" + typo, id}, 1, "no journal there"},
		{[]string{"pending", "--journal", typo}, 1, typo},
		{[]string{"expire", "--journal", typo}, 1, typo},
	} {
		code, _, stderr := f.cli(t, c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("codemode %q: exit %d %q; want exit %d and %q", c.args, code, stderr, c.code, c.want)
		}
	}
	if _, err := os.Stat(typo); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a journal command created %s (%v)", typo, err)
	}
}

// TestTypesAndCheckTakeDurableToolsFiles: types prints the surface of a
// tools file with approvals, with a journal's codemode.run, and check checks
// a program as run --journal runs it.
func TestTypesAndCheckTakeDurableToolsFiles(t *testing.T) {
	f := newJournalFixture(t)
	code, stdout, stderr := f.cli(t, "types", "--tools", f.tools)
	if code != 0 || !strings.Contains(stdout, "create_item(") || !strings.Contains(stdout, "@requiresApproval") || !strings.Contains(stdout, "run(name: string, input?: unknown)") {
		t.Fatalf("types: exit %d %q %q", code, stdout, stderr)
	}
	if _, err := typescript.Find(mustGetwd(t)); err != nil {
		t.Skip(err)
	}
	if code, stdout, stderr := f.cli(t, "check", "--tools", f.tools, f.program); code != 0 || strings.TrimSpace(stdout) != "valid" {
		t.Fatalf("check: exit %d %q %q", code, stdout, stderr)
	}
	bad := filepath.Join(f.dir, "bad.ts")
	os.WriteFile(bad, []byte("const s = await codemode.step(\"s\", () => 1);\nawait codemode.create_item({ name: s });\n"), 0o644)
	if code, stdout, _ := f.cli(t, "check", "--tools", f.tools, bad); code != 1 || !strings.Contains(stdout, "bad.ts:2:") {
		t.Fatalf("check of a bad program: exit %d %q", code, stdout)
	}
}

// TestJournalMCPElicitation drives mcp serve --journal from the official
// TypeScript MCP SDK client: declaring elicitation, a pause asks the person
// (the client's handler) and accept completes the same code call, decline
// rejects it, cancel leaves it paused; without the capability the answer is
// paused. code_result then reads the same outcome.
func TestJournalMCPElicitation(t *testing.T) {
	tools := findTools(t)
	node := testNode(tools)
	if _, err := os.Stat(filepath.Join(tools, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		t.Skip("the TypeScript MCP SDK is not installed in .tools: ", err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		action string // "" : no elicitation capability
		status codetool.Status
		record store.Status
		asked  int
	}{
		{"", codetool.StatusPaused, store.StatusPaused, 0},
		{"accept", codetool.StatusCompleted, store.StatusCompleted, 1},
		{"decline", codetool.StatusError, store.StatusRejected, 1},
		{"cancel", codetool.StatusPaused, store.StatusPaused, 1},
	} {
		t.Run("action="+c.action, func(t *testing.T) {
			f := newJournalFixture(t)
			var action any
			if c.action != "" {
				action = c.action
			}
			program, _ := os.ReadFile(f.program)
			cfg, _ := json.Marshal(map[string]any{"command": self, "action": action, "code": string(program),
				"args": []string{"-codemode-cli", "mcp", "serve", "--no-check", "--journal", f.journal, "--tools", f.tools}})
			cmd := exec.Command(node, "testdata/elicit-client.cjs", string(cfg))
			cmd.Env = append(os.Environ(), "NODE_PATH="+filepath.Join(tools, "node_modules"))
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("client: %v\n%s", err, stderr.String())
			}
			var got struct {
				Asked  []string
				Answer struct {
					Content []struct{ Text string }
					IsError bool
				}
				Later struct {
					Content []struct{ Text string }
				}
			}
			if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
				t.Fatalf("client output %q: %v", stdout.String(), err)
			}
			var out, later codetool.Answer
			if err := json.Unmarshal([]byte(got.Answer.Content[0].Text), &out); err != nil || out.Status != c.status {
				t.Fatalf("answer %+v (%v), want %s", got.Answer, err, c.status)
			}
			if len(got.Asked) != c.asked || (c.asked > 0 && !strings.Contains(got.Asked[0], "codemode.create_item with {\"name\":\"item-a+b\"}")) {
				t.Fatalf("asked %q", got.Asked)
			}
			if c.action == "accept" && string(out.Value) != `{"created":{"id":7},"n":2}` {
				t.Errorf("result %s", out.Value)
			}
			if err := json.Unmarshal([]byte(got.Later.Content[0].Text), &later); err != nil || later.Status != c.status || later.ExecutionID != out.ExecutionID {
				t.Errorf("code_result %+v (%v)", got.Later, err)
			}
			if e := f.record(t, out.ExecutionID); e.Status != c.record {
				t.Errorf("journal status %s, want %s", e.Status, c.record)
			}
			if n := len(f.lines(t, "create.log")); (c.action == "accept") != (n == 1) {
				t.Errorf("the approved action ran %d times", n)
			}
		})
	}
}

// findTools returns the .tools folder above the working directory, or
// skips the test.
func findTools(t *testing.T) string {
	t.Helper()
	dir := mustGetwd(t)
	for {
		p := filepath.Join(dir, ".tools")
		if _, err := os.Stat(filepath.Join(p, "node_modules")); err == nil {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("no .tools folder with node_modules above the working directory")
		}
		dir = parent
	}
}

// TestJournalMCPServeUI: mcp serve --journal --ui serves the journal page
// over the server's own handle: a run the code tool paused is listed with
// its pending action; a non-loopback --ui without a token is refused.
func TestJournalMCPServeUI(t *testing.T) {
	f := newJournalFixture(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, "-codemode-cli", "mcp", "serve", "--no-check", "--journal", f.journal, "--tools", f.tools, "--ui", addr)
	cmd.Stderr = os.Stderr
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	session, err := mcp.NewClient(&mcp.Implementation{Name: "test-agent", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	program, _ := os.ReadFile(f.program)
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "code", Arguments: map[string]any{"code": string(program)}})
	if err != nil {
		t.Fatal(err)
	}
	var out codetool.Answer
	if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &out); err != nil || out.Status != codetool.StatusPaused {
		t.Fatalf("answer %v: %v", res.Content, err)
	}
	get := func(path string) string {
		resp, err := http.Get("http://" + addr + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("GET %s: %s %s", path, resp.Status, b)
		}
		return string(b)
	}
	if page := get("/"); !strings.Contains(page, out.ExecutionID) || !strings.Contains(page, "create_item") {
		t.Fatalf("the list lacks the paused run %s", out.ExecutionID)
	}
	if page := get("/executions/" + out.ExecutionID); !strings.Contains(page, "item-a") {
		t.Fatalf("the execution page lacks the pending action's arguments")
	}
	code, _, stderr := f.cli(t, "mcp", "serve", "--journal", f.journal, "--tools", f.tools, "--ui", "0.0.0.0:0")
	if code != 2 || !strings.Contains(stderr, "is not a loopback address") {
		t.Fatalf("non-loopback --ui: exit %d %q", code, stderr)
	}
}

// TestOneProgramPlainAndDurable: a tools file's tools are on codemode
// with and without a journal, so the same program runs, type-checks and is
// declared the same way in both; $CODEMODE_JOURNAL makes a run durable and
// says so on stderr. A failure names the place in the program's own lines.
func TestOneProgramPlainAndDurable(t *testing.T) {
	f := newJournalFixture(t)
	plain := filepath.Join(f.dir, "plain.json")
	os.WriteFile(plain, []byte(`{"tools": [{"name": "echo", "description": "Echoes.",
  "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"], "additionalProperties": false},
  "outputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"], "additionalProperties": false},
  "command": ["cat"]}]}`), 0o644)
	prog := filepath.Join(f.dir, "echo.ts")
	os.WriteFile(prog, []byte("const a = 1;\nconst r = await codemode.echo({ text: \"hi\" });\nreturn r.text;\n"), 0o644)
	badInput := filepath.Join(f.dir, "bad_input.ts")
	os.WriteFile(badInput, []byte("const a = 1;\nawait codemode.echo({ text: a });\n"), 0o644)
	noJournal := *f
	noJournal.journal = ""

	for name, g := range map[string]*journalFixture{"plain": &noJournal, "with $" + journalEnv: f} {
		code, stdout, stderr := g.cli(t, "run", "--tools", plain, prog)
		if code != 0 || stdout != "hi\n" {
			t.Fatalf("%s: run: exit %d %q %q", name, code, stdout, stderr)
		}
		if announced := strings.Contains(stderr, "codemode: durable: journal "+f.journal+" (from $"+journalEnv+")"); announced != (g == f) {
			t.Errorf("%s: the journal announced: %v (stderr %q)", name, announced, stderr)
		}
		code, stdout, stderr = g.cli(t, "types", "--tools", plain)
		if code != 0 || !strings.Contains(stdout, "readonly codemode: Tools;") || !strings.Contains(stdout, "echo(input: {") || !strings.Contains(stdout, "step<T>") {
			t.Fatalf("%s: types: exit %d %q %q", name, code, stdout, stderr)
		}
		if hasRun := strings.Contains(stdout, "run(name: string"); hasRun != (g == f) {
			t.Errorf("%s: codemode.run declared: %v", name, hasRun)
		}
		code, _, stderr = g.cli(t, "run", "--tools", plain, badInput)
		if want := "  at bad_input.ts:2:16\n  1 | const a = 1;\n> 2 | await codemode.echo({ text: a });\n    |                ^\n"; code != exitError || !strings.Contains(stderr, want) {
			t.Fatalf("%s: run of a bad input: exit %d %q, want %q", name, code, stderr, want)
		}
	}
	_, stdout, _ := f.cli(t, "executions", "--json")
	var list []*store.Execution
	if err := json.Unmarshal([]byte(stdout), &list); err != nil || len(list) != 2 || list[1].Status != store.StatusCompleted {
		t.Fatalf("the durable runs are not in the journal: %q %v", stdout, err)
	}
	if _, err := typescript.Find(mustGetwd(t)); err != nil {
		t.Skip(err)
	}
	for name, g := range map[string]*journalFixture{"plain": &noJournal, "with $" + journalEnv: f} {
		if code, stdout, stderr := g.cli(t, "check", "--tools", plain, prog); code != 0 || strings.TrimSpace(stdout) != "valid" {
			t.Errorf("%s: check: exit %d %q %q", name, code, stdout, stderr)
		}
		if code, _, _ := g.cli(t, "check", "--tools", plain, badInput); code != 1 {
			t.Errorf("%s: check of a bad input: exit %d, want 1", name, code)
		}
	}
}

// A completed durable run prints what the program appended, then its
// value, as a plain run does (a new user's trial found the text only in
// --json).
func TestDurableRunPrintsContent(t *testing.T) {
	f := newJournalFixture(t)
	prog := filepath.Join(f.dir, "report.ts")
	if err := os.WriteFile(prog, []byte(`const items = await codemode.list_items({ prefix: "x" });
result.appendText("report: " + items.join(", "));
items.length`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := f.cli(t, "run", "--journal", f.journal, "--tools", f.tools, prog)
	if code != 0 || stdout != "report: a, b\n2\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q; want the appended text, then the value", code, stdout, stderr)
	}
}

// run's help lists --journal, and what a run with one does not take.
func TestRunHelpTellsOfJournals(t *testing.T) {
	f := newJournalFixture(t)
	_, stdout, _ := f.cli(t, "run", "--help")
	for _, want := range []string{"-journal string", "-name string", "plain runs only"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("run --help lacks %q:\n%s", want, stdout)
		}
	}
}

// TestJournalCLIShowsEverythingItOffersToApprove: a program that pads one
// argument (keys are recorded sorted, so "to" comes after "memo") cannot
// push another past what the terminal shows: every key is printed, the
// long string is folded, and a folded view offers no approval but says how
// to see it all; the full view prints the approve command with the digest
// of what it showed, which approves; a digest of something else does not,
// nor does approve without --shown.
func TestJournalCLIShowsEverythingItOffersToApprove(t *testing.T) {
	f := newJournalFixture(t)
	program := writeFile(t, "padded.ts", `const args = { name: "gift", memo: "pad ".repeat(5000), to: "mallory" };
await codemode.create_item(args);
`)
	code, stdout, stderr := f.cli(t, "run", "--tools", f.tools, program)
	id := regexp.MustCompile(`exec_\w+`).FindString(stdout)
	if code != exitPaused || id == "" {
		t.Fatalf("run: exit %d %q %q", code, stdout, stderr)
	}
	for _, args := range [][]string{{"run"}, {"pending"}, {"pending", id}, {"show", id}} {
		out := stdout
		if args[0] != "run" {
			_, out, _ = f.cli(t, args...)
		}
		if !strings.Contains(out, `"to": "mallory"`) || !strings.Contains(out, "more characters)") {
			t.Errorf("%q does not show every key with the long string folded:\n%s", args, out)
		}
		if strings.Contains(out, "--shown") || !strings.Contains(out, "codemode pending --full "+id) {
			t.Errorf("%q offers approval of folded arguments, or does not say how to see them:\n%s", args, out)
		}
	}
	_, full, _ := f.cli(t, "pending", "--full", id)
	digest := regexp.MustCompile(`--shown (\w+)`).FindStringSubmatch(full)
	if !strings.Contains(full, strings.Repeat("pad ", 5000)) || !strings.Contains(full, `"to": "mallory"`) || digest == nil {
		t.Fatalf("pending --full shows less than everything, or no approve command:\n%s", cut(full, 400))
	}
	if code, _, stderr := f.cli(t, "approve", "--tools", f.tools, id, "--shown", "0123456789abcdef0123456789abcdef"); code != exitError || !strings.Contains(stderr, "the actions awaiting approval changed") {
		t.Fatalf("approve of another digest: exit %d %q", code, stderr)
	}
	// Without --shown, approve approves only what pending prints in full:
	// here it refuses, the ID alone or with the action's number.
	for _, args := range [][]string{{id}, {id, "1"}} {
		code, stdout, stderr := f.cli(t, append([]string{"approve", "--tools", f.tools}, args...)...)
		if code != exitError || stdout != "" || !strings.Contains(stderr, "some arguments are longer than codemode pending shows") ||
			!strings.Contains(stderr, "nothing was approved; see them all with codemode pending --full "+id+", and approve with the --shown DIGEST it prints") {
			t.Fatalf("approve %q of folded arguments: exit %d %q %q", args, code, stdout, stderr)
		}
	}
	if e := f.record(t, id); e.Status != store.StatusPaused || e.Passes != 1 || f.lines(t, "create.log") != nil {
		t.Fatalf("after a refused approval: %s, %d passes, ran %q", e.Status, e.Passes, f.lines(t, "create.log"))
	}
	if code, _, stderr := f.cli(t, "approve", "--tools", f.tools, id, "--shown", digest[1]); code != exitCompleted {
		t.Fatalf("approve --shown %s: exit %d %q", digest[1], code, stderr)
	}
	if got := f.lines(t, "create.log"); len(got) != 1 || !strings.Contains(got[0], `"to":"mallory"`) {
		t.Fatalf("the approved call's input: %q", got)
	}
}

// TestJournalCLIEscapesWhatProgramsWrite: a program that writes a
// terminal escape (clear the screen) and a fake pause into its console
// output, its arguments and its error cannot repaint the terminal of the
// person approving: no command prints a raw escape or a bidirectional
// override, and every console line is marked as the program's.
func TestJournalCLIEscapesWhatProgramsWrite(t *testing.T) {
	f := newJournalFixture(t)
	const fake = `\x1b[2J\x1b[Hpaused: execution exec_1 waits for approval of 1 action(s)\n  action 2: codemode.create_item\n    {"name": "harmless"}`
	paused := writeFile(t, "fake.ts", `console.log('`+fake+`');
await codemode.create_item({ name: "\u202egnp.exe\x1b[31m" });
`)
	failing := writeFile(t, "fail.ts", `console.log('`+fake+`'); throw new Error('`+fake+`');`)
	code, stdout, stderr := f.cli(t, "run", "--tools", f.tools, paused)
	id := regexp.MustCompile(`exec_\d+_\w+`).FindString(stdout)
	if code != exitPaused || id == "" {
		t.Fatalf("run: exit %d %q %q", code, stdout, stderr)
	}
	_, _, failErr := f.cli(t, "run", "--tools", f.tools, failing)
	// A completed program with an escape in its code.
	quiet := writeFile(t, "quiet.ts", "// \x1b[2J\u202e a comment\n\"done\"\n")
	_, done, _ := f.cli(t, "run", "--json", "--tools", f.tools, quiet)
	doneID := regexp.MustCompile(`exec_\d+_\w+`).FindString(done)
	outputs := map[string]string{"run (stdout)": stdout, "run (stderr)": stderr, "failed run": failErr}
	for _, args := range [][]string{{"show", doneID}} {
		_, out, errOut := f.cli(t, args...)
		if !strings.Contains(out, "a comment") {
			t.Errorf("%q does not show the code: %q", args, out)
		}
		outputs[strings.Join(args, " ")] = out + errOut
	}
	for _, args := range [][]string{{"pending"}, {"pending", "--full"}, {"show", id}, {"executions"}} {
		_, out, errOut := f.cli(t, args...)
		outputs[strings.Join(args, " ")] = out + errOut
	}
	for name, out := range outputs {
		if strings.ContainsAny(out, "\x1b\u202e") {
			t.Errorf("%s prints a raw escape or override: %q", name, out)
		}
	}
	for _, l := range strings.Split(stderr, "\n") {
		if strings.Contains(l, "harmless") && !strings.HasPrefix(l, "console: ") {
			t.Errorf("run prints a console line that passes for its own: %q", l)
		}
	}
	if !strings.Contains(stdout, `\u202egnp.exe\u001b[31m`) {
		t.Errorf("the arguments are not shown escaped:\n%s", stdout)
	}
}

// TestShowPrintsTheErrorWhole: show gives a failed run's error first line
// in its table and the whole error after it, line by line, so that the
// excerpt's caret stays under the failing column.
func TestShowPrintsTheErrorWhole(t *testing.T) {
	f := newJournalFixture(t)
	throws := filepath.Join(f.dir, "throws.ts")
	if err := os.WriteFile(throws, []byte("const a = { count: 2 };\nthrow new Error(\"boom after \" + a.count);\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := f.output(t, exitError, "run", "--json", "--tools", f.tools, throws)
	code, stdout, stderr := f.cli(t, "show", out.ExecutionID)
	if code != 0 {
		t.Fatalf("show: exit %d, %s", code, stderr)
	}
	for _, want := range []string{
		"error         Error: boom after 2\n",
		"\nerror:\n  Error: boom after 2\n",
		"  > 2 | throw new Error(\"boom after \" + a.count);\n      |                                 ^\n",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("show printed\n%s\nwithout %q", stdout, want)
		}
	}
}

// executions under a runtime name without runs names those that have
// some, so that a person who forgot --name finds their runs.
func TestJournalCLIExecutionsNamesTheRuntimesWithRuns(t *testing.T) {
	f := newJournalFixture(t)
	for _, c := range []struct {
		runUnder string // a run is recorded under this name first ("": none)
		args     []string
		want     string
	}{
		{"bank", []string{"executions"}, `no executions under the runtime name "default"; the journal has runs under: bank (give --name bank)`},
		{"ops", []string{"executions", "--name", "x"}, `no executions under the runtime name "x"; the journal has runs under: bank, ops (give --name NAME)`},
		{"", []string{"executions", "--name", "bank"}, "ID "},
	} {
		if c.runUnder != "" {
			f.output(t, exitPaused, "run", "--tools", f.tools, "--name", c.runUnder, "--json", f.program)
		}
		code, stdout, stderr := f.cli(t, c.args...)
		if code != 0 || !strings.HasPrefix(stdout, c.want) {
			t.Errorf("%q after a run under %q: exit %d %q %q, want %q", c.args, c.runUnder, code, stdout, stderr, c.want)
		}
	}
}

// TestJournalCLINamesTheRuntimeOfAnExecution: show, pending and approve of
// an execution recorded under another runtime name say which name to give.
func TestJournalCLINamesTheRuntimeOfAnExecution(t *testing.T) {
	f := newJournalFixture(t)
	paused := f.output(t, exitPaused, "run", "--tools", f.tools, "--name", "bank", "--json", f.program)
	want := `it is under "bank" (give --name bank)`
	for _, args := range [][]string{{"show", paused.ExecutionID}, {"pending", paused.ExecutionID}, {"approve", "--tools", f.tools, paused.ExecutionID}} {
		code, stdout, stderr := f.cli(t, args...)
		if code == 0 || !strings.Contains(stderr, want) {
			t.Errorf("%q under the default name: exit %d %q %q, want %q", args, code, stdout, stderr, want)
		}
	}
}

// TestShowAccountsForEveryActionNumber: a codemode.step takes a number
// for its start and one for its end; show lists the end as a row, whether
// the journal recorded it (the function made a call or read the clock) or
// not (it made none), so the numbers of the tool log leave no gap.
func TestShowAccountsForEveryActionNumber(t *testing.T) {
	f := newJournalFixture(t)
	prog := filepath.Join(f.dir, "steps.ts")
	code := `const a = await codemode.step("calls", async () => (await codemode.list_items({ prefix: "a" })).length);
const b = await codemode.step("plain", () => 2);
await codemode.create_item({ name: "n" + (a + b) });
`
	if err := os.WriteFile(prog, []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	out := f.output(t, exitPaused, "run", "--json", "--tools", f.tools, prog)
	exit, stdout, stderr := f.cli(t, "show", out.ExecutionID)
	if exit != 0 {
		t.Fatalf("show: exit %d, %s", exit, stderr)
	}
	_, log, _ := strings.Cut(stdout, "tool log:\n")
	log, _, _ = strings.Cut(log, "\n\n")
	var rows []string
	for _, l := range strings.Split(log, "\n")[1:] {
		rows = append(rows, strings.Join(strings.Fields(l), " "))
	}
	want := []string{
		`1 applied - codemode.step({"name":"calls"}) 2`,
		`2 applied completed codemode.list_items({"prefix":"a"}) ["a","b"]`,
		`3 applied - end of codemode.step("calls") begun at #1`,
		`4 applied - codemode.step({"name":"plain"}) 2`,
		`5 - - end of codemode.step("plain") (not recorded: its function made no calls)`,
		`6 pending - codemode.create_item({"name":"n4"}) [approval]`,
	}
	if strings.Join(rows, "\n") != strings.Join(want, "\n") {
		t.Errorf("the tool log's rows are\n%s\nwant\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"))
	}
}

// TestShowNamesAFailedCallsError: a failed call's row gives its error as
// the program saw it, name first (an HTTPError), and a nameless one as
// before.
func TestShowNamesAFailedCallsError(t *testing.T) {
	e := &store.Execution{ID: "exec_1", Code: "await api.get()", Status: store.StatusCompleted, Log: []store.Entry{
		{Seq: 1, Connector: "api", Method: "getPet", Args: json.RawMessage(`{}`), State: store.EntryError, Error: "HTTP 404 Not Found: GET /pets/9", ErrorName: "HTTPError"},
		{Seq: 2, Connector: "api", Method: "getPet", Args: json.RawMessage(`{}`), State: store.EntryError, Error: "upstream is down"},
	}}
	var b strings.Builder
	printExecution(&b, e, time.Now(), "")
	for _, want := range []string{"error: HTTPError: HTTP 404 Not Found: GET /pets/9", "error: upstream is down"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("show printed\n%s\nwithout %q", b.String(), want)
		}
	}
}

// TestShowPrintsCodeAsJavaScriptReadsIt: show prints a line for each line
// the engine reads (a carriage return and U+2028 end one), so a statement
// hidden after one in a comment shows on a line of its own, as it runs.
func TestShowPrintsCodeAsJavaScriptReadsIt(t *testing.T) {
	f := newJournalFixture(t)
	hiding := writeFile(t, "hiding.ts", "// a comment \u2028 console.log(\"after U+2028\");\n// a comment \r console.log(\"after CR\");\n\"done\"\n")
	_, done, _ := f.cli(t, "run", "--json", "--tools", f.tools, hiding)
	id := regexp.MustCompile(`exec_\d+_\w+`).FindString(done)
	_, out, _ := f.cli(t, "show", id)
	for _, want := range []string{"\n  // a comment \n   console.log(\"after U+2028\");\n", "\n  // a comment \n   console.log(\"after CR\");\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("show does not print the lines %q:\n%s", want, out)
		}
	}
}
