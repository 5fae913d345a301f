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

	// The state a dead approver leaves: running, the approval recorded,
	// the read's record lost, the lease ended.
	st, err := sqlite.Open(context.Background(), f.journal, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, dead, approved := context.Background(), time.Now().Add(-time.Minute).UnixMilli(), uint64(2)
	if ok, err := st.TransitionExecution(ctx, "default", id, []store.Status{store.StatusPaused}, store.StatusRunning,
		store.ExecutionUpdate{At: dead, Approved: &approved, Lease: &store.Lease{Owner: "dead-host", Until: dead}}); err != nil || !ok {
		t.Fatalf("orphaning: %v, %v", ok, err)
	}
	if ok, err := st.TransitionEntry(ctx, "default", id, 1, []store.EntryState{store.EntryApplied}, store.EntryExecuting, store.EntryUpdate{}); err != nil || !ok {
		t.Fatalf("interrupting: %v, %v", ok, err)
	}
	st.Close()

	if code, stdout, _ := f.cli(t, "show", id); code != 0 || !strings.Contains(stdout, "lease") || !strings.Contains(stdout, "codemode resume "+id) {
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
