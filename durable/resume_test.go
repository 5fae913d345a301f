package durable_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/durable"
	"github.com/codemode-go/codemode/durable/store"
)

// A run whose host died is resumed from the journal as its state says:
// each case leaves the journal as a process killed at one point of a pass
// leaves it (a paused run that a dead approver had moved to running, with
// or without the approval recorded; a call started and never recorded),
// with the run's lease ended, and Resume takes it from there.
func TestResumeContinuesWhereThePassDied(t *testing.T) {
	const code = `const p = await github.list_pull_requests({ repo: "a" });
await github.add_label({ title: "seen" });
return await github.create_issue({ title: p[0].title });`
	for _, c := range []struct {
		name string
		// tune sets the tools' policies for the case.
		tune func(gh *connector)
		// die moves the paused run (seq 1 list, 2 add_label applied; 3
		// create_issue pending) to the state a dead pass left.
		die                func(t *testing.T, st store.Store, id string)
		want               codetool.Status
		lists, labels, cis int // the effects afterwards, counted by the tools
		uncertain          bool
	}{
		{"an approved action that never started runs once", nil,
			func(t *testing.T, st store.Store, id string) { orphan(t, st, id, 3) },
			codetool.StatusCompleted, 1, 1, 1, false},
		{"an action recorded pending by a pass that never paused awaits approval", nil,
			func(t *testing.T, st store.Store, id string) { orphan(t, st, id, 0) },
			codetool.StatusPaused, 1, 1, 0, false},
		{"an interrupted read runs again", func(gh *connector) { gh.Tools[0].ReadOnly = true },
			func(t *testing.T, st store.Store, id string) { orphan(t, st, id, 3); interrupt(t, st, id, 1) },
			codetool.StatusCompleted, 2, 1, 1, false},
		{"an interrupted idempotent action runs again", func(gh *connector) { gh.Tools[2].Idempotent = true },
			func(t *testing.T, st store.Store, id string) { orphan(t, st, id, 3); interrupt(t, st, id, 2) },
			codetool.StatusCompleted, 1, 2, 1, false},
		{"an interrupted action is put to a person", nil,
			func(t *testing.T, st store.Store, id string) { orphan(t, st, id, 3); interrupt(t, st, id, 2) },
			codetool.StatusPaused, 1, 1, 0, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			st := openStore(t, filepath.Join(t.TempDir(), "journal.db"))
			svc := newService()
			gh := svc.github()
			if c.tune != nil {
				c.tune(&gh)
			}
			h := newHandle(t, st, durable.Options{}, gh)
			ctx := context.Background()
			out, err := h.Execute(ctx, code)
			if err != nil {
				t.Fatal(err)
			}
			wantStatus(t, out, codetool.StatusPaused)
			c.die(t, st, out.ExecutionID)
			out, err = h.Resume(ctx, out.ExecutionID)
			if err != nil {
				t.Fatal(err)
			}
			if out.Status != c.want {
				t.Fatalf("resumed: %+v, want %s", out, c.want)
			}
			if got := [3]int{svc.count("list_pull_requests"), svc.count("add_label"), svc.count("create_issue")}; got != [3]int{c.lists, c.labels, c.cis} {
				t.Fatalf("effects (list, label, create) %v, want %v", got, [3]int{c.lists, c.labels, c.cis})
			}
			if c.want == codetool.StatusPaused && (len(out.Pending) == 0 || out.Pending[0].Uncertain != c.uncertain) {
				t.Fatalf("pending %+v, want the first with uncertain %v", out.Pending, c.uncertain)
			}
			// Nothing is left to resume: a second Resume refuses.
			if _, err := h.Resume(ctx, out.ExecutionID); err == nil {
				t.Fatal("a second Resume took the run again")
			}
		})
	}
}

// orphan moves the paused run id to running as an approver that died
// would have left it: approved records the seq its approval covered (0:
// none), and the lease has ended.
func orphan(t *testing.T, st store.Store, id string, approved uint64) {
	t.Helper()
	dead := time.Now().Add(-time.Second).UnixMilli()
	u := store.ExecutionUpdate{At: dead, Lease: &store.Lease{Owner: "dead-host", Until: dead}}
	if approved > 0 {
		u.Approved = &approved
	}
	ok, err := st.TransitionExecution(context.Background(), "default", id, []store.Status{store.StatusPaused}, store.StatusRunning, u)
	if err != nil || !ok {
		t.Fatalf("orphaning %s: %v, %v", id, ok, err)
	}
}

// interrupt moves the applied entry at seq back to executing, as a pass
// killed between the call's effect and its record leaves it.
func interrupt(t *testing.T, st store.Store, id string, seq uint64) {
	t.Helper()
	ok, err := st.TransitionEntry(context.Background(), "default", id, seq, []store.EntryState{store.EntryApplied}, store.EntryExecuting, store.EntryUpdate{})
	if err != nil || !ok {
		t.Fatalf("interrupting entry %d of %s: %v, %v", seq, id, ok, err)
	}
}

// Two processes resuming one orphan at once: one takes it over and runs
// its approved action once; the other is told it is running.
func TestConcurrentResumeHasOneWinner(t *testing.T) {
	st := openStore(t, filepath.Join(t.TempDir(), "journal.db"))
	svc := newService()
	a := newHandle(t, st, durable.Options{}, svc.github())
	b := newHandle(t, st, durable.Options{}, svc.github())
	ctx := context.Background()
	out, err := a.Execute(ctx, `return await github.create_issue({ title: "once" })`)
	if err != nil {
		t.Fatal(err)
	}
	orphan(t, st, out.ExecutionID, 1)
	errs := make(chan error, 2)
	for _, h := range []*durable.Handle{a, b} {
		go func() {
			_, err := h.Resume(ctx, out.ExecutionID)
			errs <- err
		}()
	}
	var won, refused int
	for range 2 {
		switch err := <-errs; {
		case err == nil:
			won++
		case errors.Is(err, durable.ErrRunning):
			refused++
		default:
			// The loser may arrive after the winner ended the run.
			refused++
		}
	}
	if won != 1 || refused != 1 || svc.count("create_issue") != 1 {
		t.Fatalf("%d resumes won, %d refused, create_issue ran %d time(s); want 1, 1, 1", won, refused, svc.count("create_issue"))
	}
}

// "It happened" on an uncertain action whose run also holds an action
// approved before the pass died continues the run: the approved one runs
// once, the uncertain one is not run again.
func TestResolveContinuesWithWhatWasApproved(t *testing.T) {
	st := openStore(t, filepath.Join(t.TempDir(), "journal.db"))
	svc := newService()
	h := newHandle(t, st, durable.Options{}, svc.github())
	ctx := context.Background()
	out, err := h.Execute(ctx, `await github.add_label({ title: "seen" });
return await github.create_issue({ title: "once" });`)
	if err != nil {
		t.Fatal(err)
	}
	orphan(t, st, out.ExecutionID, 2)
	interrupt(t, st, out.ExecutionID, 1)
	out, err = h.Resume(ctx, out.ExecutionID)
	if err != nil || out.Status != codetool.StatusPaused || !out.Pending[0].Uncertain {
		t.Fatalf("resumed: %+v, %v", out, err)
	}
	out, err = h.Resolve(ctx, out.ExecutionID, 1, []byte(`{"id":7,"title":"seen"}`))
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, out, codetool.StatusCompleted)
	if svc.count("add_label") != 1 || svc.count("create_issue") != 1 {
		t.Fatalf("add_label ran %d, create_issue %d time(s); want 1 and 1", svc.count("add_label"), svc.count("create_issue"))
	}
}

// Rollback leaves an uncertain action alone (it may never have happened);
// RevertUncertain reverts it when a person asks, with a null output.
func TestRollbackLeavesUncertainActionsToAPerson(t *testing.T) {
	st := openStore(t, filepath.Join(t.TempDir(), "journal.db"))
	svc := newService()
	h := newHandle(t, st, durable.Options{}, svc.github())
	ctx := context.Background()
	out, err := h.Execute(ctx, `return await github.create_issue({ title: "maybe" })`)
	if err != nil {
		t.Fatal(err)
	}
	id := out.ExecutionID
	// An approver claimed the action and died; the orphan was expired.
	orphan(t, st, id, 1)
	if ok, err := st.TransitionEntry(ctx, "default", id, 1, []store.EntryState{store.EntryPending}, store.EntryExecuting, store.EntryUpdate{}); err != nil || !ok {
		t.Fatalf("claiming: %v, %v", ok, err)
	}
	if err := h.Expire(ctx, id); err != nil {
		t.Fatal(err)
	}
	if err := h.Rollback(ctx, id); err != nil {
		t.Fatal(err)
	}
	if len(svc.reverted) != 0 {
		t.Fatalf("Rollback reverted an uncertain action: %v", svc.reverted)
	}
	if err := h.RevertUncertain(ctx, id, 1); err != nil {
		t.Fatal(err)
	}
	if len(svc.reverted) != 1 || svc.reverted[0] != "maybe" {
		t.Fatalf("reverted %v, want [maybe]", svc.reverted)
	}
	if e := record(t, h, id); e.Log[0].State != store.EntryReverted {
		t.Fatalf("entry after RevertUncertain: %s", e.Log[0].State)
	}
	if err := h.RevertUncertain(ctx, id, 1); err == nil {
		t.Fatal("an action was reverted twice")
	}
}
