package durable_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"

	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/durable"
	"github.com/codemode-go/codemode/durable/store"
)

// With ApprovePrograms the program is the first thing a person approves:
// Execute runs nothing and pauses with the program (seq 0) pending; an
// approval of another digest is refused; the approval of what was shown
// runs it, and it pauses only for the call its policy holds.
func TestApproveProgramBeforeItRuns(t *testing.T) {
	svc := newService()
	st := openStore(t, filepath.Join(t.TempDir(), "j.db"))
	h := newHandle(t, st, durable.Options{ApprovePrograms: true}, svc.github())
	ctx := context.Background()
	out := execute(t, h, readThenWrite)
	wantStatus(t, out, codetool.StatusPaused)
	code, _ := json.Marshal(map[string]string{"code": readThenWrite})
	if len(out.Pending) != 1 || out.Pending[0].Seq != durable.ProgramSeq || out.Pending[0].Connector != "codemode" || out.Pending[0].Method != "program" || string(out.Pending[0].Args) != string(code) {
		t.Fatalf("pending %+v, want the program", out.Pending)
	}
	if e := record(t, h, out.ExecutionID); e.Passes != 0 || svc.count("list_pull_requests") != 0 {
		t.Fatalf("before approval: %d passes, list_pull_requests ran %d times", e.Passes, svc.count("list_pull_requests"))
	}
	other := durable.ShownDigest([]codetool.Pending{{Seq: 0, Connector: "codemode", Method: "program", Args: json.RawMessage(`{"code":"1"}`)}})
	if _, err := h.ApproveShown(ctx, out.ExecutionID, other); !errors.Is(err, durable.ErrPendingChanged) {
		t.Fatalf("approving another program: %v, want ErrPendingChanged", err)
	}
	next, err := h.ApproveShown(ctx, out.ExecutionID, durable.ShownDigest(out.Pending))
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, next, codetool.StatusPaused)
	if len(next.Pending) != 1 || next.Pending[0].Method != "create_issue" || svc.count("list_pull_requests") != 1 {
		t.Fatalf("after the program's approval: pending %+v, list_pull_requests ran %d times", next.Pending, svc.count("list_pull_requests"))
	}
	done, err := h.ApproveShown(ctx, out.ExecutionID, durable.ShownDigest(next.Pending))
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, done, codetool.StatusCompleted)
	e := record(t, h, out.ExecutionID)
	if e.Log[0].Seq != durable.ProgramSeq || e.Log[0].State != store.EntryApplied || svc.count("list_pull_requests") != 1 || svc.count("create_issue") != 1 {
		t.Fatalf("after completion: %+v; list_pull_requests %d, create_issue %d", e.Log[0], svc.count("list_pull_requests"), svc.count("create_issue"))
	}
	// A rollback undoes the actions, not the program's approval.
	if err := h.Rollback(ctx, out.ExecutionID); err != nil {
		t.Fatal(err)
	}
	if e := record(t, h, out.ExecutionID); e.Status != store.StatusRolledBack || e.Log[0].State != store.EntryApplied || e.Log[len(e.Log)-1].State != store.EntryReverted {
		t.Fatalf("after the rollback: %s, %+v", e.Status, e.Log)
	}
}

// Rejecting the program ends the run rejected with nothing run; a run
// whose host died before its program was approved is paused for approval
// again when taken over, never run.
func TestRejectedOrOrphanedProgramNeverRuns(t *testing.T) {
	svc := newService()
	st := openStore(t, filepath.Join(t.TempDir(), "j.db"))
	h := newHandle(t, st, durable.Options{ApprovePrograms: true}, svc.github())
	ctx := context.Background()
	rejected := execute(t, h, readThenWrite)
	if ok, err := h.Reject(ctx, rejected.ExecutionID, durable.ProgramSeq); err != nil || !ok {
		t.Fatalf("Reject: %v, %v", ok, err)
	}
	if e := record(t, h, rejected.ExecutionID); e.Status != store.StatusRejected || e.Error != "Action codemode.program rejected by user" {
		t.Fatalf("after the reject: %s %q", e.Status, e.Error)
	}
	orphan := execute(t, h, readThenWrite)
	// Its host died holding it before the program was approved.
	if ok, err := st.TransitionExecution(ctx, "default", orphan.ExecutionID, []store.Status{store.StatusPaused}, store.StatusRunning,
		store.ExecutionUpdate{Lease: &store.Lease{Owner: "dead", Until: 1}}); err != nil || !ok {
		t.Fatalf("making an orphan: %v, %v", ok, err)
	}
	out, err := h.Resume(ctx, orphan.ExecutionID)
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, out, codetool.StatusPaused)
	if len(out.Pending) != 1 || out.Pending[0].Method != "program" || svc.count("list_pull_requests") != 0 {
		t.Fatalf("the taken-over run: pending %+v, list_pull_requests ran %d times", out.Pending, svc.count("list_pull_requests"))
	}
}
