package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/durable/store"
	"github.com/codemode-go/codemode/durable/store/sqlite"
)

// A run whose approver died after its approval, in the middle of the
// replayed read, is shown as orphaned; resume puts the read's unknown
// outcome to a person (uncertain, with the three answers); happened
// records it and the run completes, running the approved write once.
// expire ID ends one paused run and no other.
func TestJournalCLIResumeAnOrphan(t *testing.T) {
	f := newJournalFixture(t)
	paused := f.output(t, exitPaused, "run", "--tools", f.tools, "--json", f.program)
	other := f.output(t, exitPaused, "run", "--tools", f.tools, "--json", f.program)
	id := paused.ExecutionID

	f.orphanInRead(t, id)

	if code, stdout, _ := f.cli(t, "show", id); code != 0 || !strings.Contains(stdout, "lease") || !strings.Contains(stdout, "continue it: codemode resume --tools FILE "+id) {
		t.Fatalf("show of an orphan: exit %d\n%s", code, stdout)
	}
	code, stdout, stderr := f.cli(t, "resume", "--tools", f.tools, id)
	if code != exitPaused || !strings.Contains(stdout, "uncertain, did this happen? codemode.list_items") ||
		!strings.Contains(stdout, "codemode happened --tools") || !strings.Contains(stdout, "run again:") || !strings.Contains(stdout, "fail the run:") {
		t.Fatalf("resume: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if code, stdout, _ := f.cli(t, "pending", id); code != 0 || !strings.Contains(stdout, "uncertain, did this happen?") {
		t.Fatalf("pending: exit %d\n%s", code, stdout)
	}
	if code, _, stderr := f.cli(t, "happened", "--tools", f.tools, id, "1", "--result", `{"not":"a list"}`); code == 0 || !strings.Contains(stderr, "not one the tool could return") {
		t.Fatalf("happened with a result the tool could not return: exit %d, %s", code, stderr)
	}
	done := f.output(t, 0, "happened", "--tools", f.tools, "--json", "--result", `["a","b"]`, id, "1")
	if done.Status != codetool.StatusCompleted {
		t.Fatalf("happened: %+v", done)
	}
	// Two runs read once each (the resumed read was not run again); the
	// approved write ran once.
	if got := f.lines(t, "list.log"); len(got) != 2 {
		t.Fatalf("list_items ran %d times, want 2 (one per run)", len(got))
	}
	if got := f.lines(t, "create.log"); len(got) != 1 {
		t.Fatalf("create_item ran %d times, want 1", len(got))
	}
	if e := f.record(t, id); logStates(e) != "list_items=applied create_item=applied" || !e.Log[0].Uncertain {
		t.Fatalf("log %s, first entry uncertain %v", logStates(e), e.Log[0].Uncertain)
	}

	if code, stdout, stderr := f.cli(t, "expire", other.ExecutionID); code != 0 || !strings.Contains(stdout, "rejected") {
		t.Fatalf("expire ID: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if code, _, stderr := f.cli(t, "resume", "--tools", f.tools, id); code == 0 || !strings.Contains(stderr, "completed") {
		t.Fatalf("resume of a completed run: exit %d, %s", code, stderr)
	}
}

// orphanInRead leaves the paused run id in the state an approver that died
// after approving it leaves: running, the approval recorded, the replayed
// read's (action 1's) record lost, the lease ended.
func (f *journalFixture) orphanInRead(t *testing.T, id string) {
	t.Helper()
	st, err := sqlite.Open(context.Background(), f.journal, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx, dead, approved := context.Background(), time.Now().Add(-time.Minute).UnixMilli(), uint64(2)
	if ok, err := st.TransitionExecution(ctx, "default", id, []store.Status{store.StatusPaused}, store.StatusRunning,
		store.ExecutionUpdate{At: dead, Approved: &approved, Lease: &store.Lease{Owner: "dead-host", Until: dead}}); err != nil || !ok {
		t.Fatalf("orphaning: %v, %v", ok, err)
	}
	if ok, err := st.TransitionEntry(ctx, "default", id, 1, []store.EntryState{store.EntryApplied}, store.EntryExecuting, store.EntryUpdate{}); err != nil || !ok {
		t.Fatalf("interrupting: %v, %v", ok, err)
	}
}

// Every command that shows an uncertain action offers the same three
// answers, with the action's number when one action is uncertain, and
// says that the pause waits for an answer, not an approval; happened
// without --result, for a tool that cannot return null, says to give it.
func TestJournalCLIOffersAnUncertainActionItsAnswers(t *testing.T) {
	f := newJournalFixture(t)
	id := f.output(t, exitPaused, "run", "--tools", f.tools, "--json", f.program).ExecutionID
	f.orphanInRead(t, id)
	offered := []string{
		"codemode happened --tools " + f.tools + " " + id + " 1 [--result JSON]",
		"run again:    codemode approve",
		"fail the run: codemode reject " + id + " 1",
		"an answer about 1 uncertain action(s)",
	}
	for _, c := range []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"resume", []string{"resume", "--tools", f.tools, id}, exitPaused, append(offered[:len(offered):len(offered)], "paused: execution "+id+" waits for an answer")},
		{"show", []string{"show", id}, 0, append(offered[1:len(offered):len(offered)], "happened --tools FILE "+id+" 1 [--result JSON]", "[uncertain]")},
		{"pending", []string{"pending", id}, 0, append(offered[1:len(offered):len(offered)], "happened --tools FILE "+id+" 1 [--result JSON]")},
	} {
		code, stdout, stderr := f.cli(t, c.args...)
		if code != c.code {
			t.Fatalf("%s: exit %d, want %d\n%s\n%s", c.name, code, c.code, stdout, stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(stdout, w) {
				t.Errorf("%s: no %q in\n%s", c.name, w, stdout)
			}
		}
		if strings.Contains(stdout, "approval of 1 action(s)") {
			t.Errorf("%s: says the pause waits for an approval:\n%s", c.name, stdout)
		}
	}
	if code, _, stderr := f.cli(t, "happened", "--tools", f.tools, id, "1"); code == 0 || !strings.Contains(stderr, "give --result JSON, the result action 1 returned") {
		t.Fatalf("happened without --result for a tool that returns a list: exit %d, %s", code, stderr)
	}
}
