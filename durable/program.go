package durable

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/durable/store"
)

// ProgramSeq is the seq of the action that stands for the program itself
// when the handle approves programs before they run
// (Options.ApprovePrograms): calls are numbered from 1, so seq 0 is never
// a call. The action is codemode.program, its arguments {"code": CODE}.
const ProgramSeq = 0

// programMethod is the method of the program's own action, on the
// journal's codemode namespace (as codemode.step is).
const programMethod = "program"

// awaitProgram pauses the new execution e (running, its lease held, no
// pass run) with its program as its one pending action, and answers so.
func (h *Handle) awaitProgram(ctx context.Context, e *store.Execution) (codetool.Answer, error) {
	args, err := json.Marshal(struct {
		Code string `json:"code"`
	}{e.Code})
	if err != nil {
		return codetool.Answer{}, fmt.Errorf("durable: %w", err)
	}
	entry := &store.Entry{Seq: ProgramSeq, Connector: stepConnector, Method: programMethod, Args: args, RequiresApproval: true, State: store.EntryPending, UpdatedAt: now()}
	if ok, err := h.store.InsertEntry(ctx, h.name, e.ID, entry); err != nil || !ok {
		return codetool.Answer{}, fmt.Errorf("durable: recording the program of %s for approval: %v, %w", e.ID, ok, err)
	}
	if _, err := h.store.TransitionExecution(ctx, h.name, e.ID, []store.Status{store.StatusRunning}, store.StatusPaused, store.ExecutionUpdate{At: now(), Lease: &store.Lease{}}); err != nil {
		return codetool.Answer{}, fmt.Errorf("durable: %w", err)
	}
	h.log.Debug("durable: the program awaits approval", "execution", e.ID)
	return codetool.Answer{Status: codetool.StatusPaused, ExecutionID: e.ID,
		Pending: []codetool.Pending{{Seq: ProgramSeq, Connector: stepConnector, Method: programMethod, Args: args}}}, nil
}

// startApprovedProgram records the approval of e's program, when its own
// action is pending, before the approval's pass runs it for the first
// time.
func (h *Handle) startApprovedProgram(ctx context.Context, e *store.Execution) error {
	for _, l := range e.Log {
		if !isProgram(l) || l.State != store.EntryPending {
			continue
		}
		ok, err := h.store.TransitionEntry(ctx, h.name, e.ID, ProgramSeq, []store.EntryState{store.EntryPending}, store.EntryApplied,
			store.EntryUpdate{At: now(), Result: json.RawMessage("null")})
		if err != nil || ok {
			return wrapStore(err)
		}
		// A reject of the program won: it never runs.
		cur, err := h.store.Execution(ctx, h.name, e.ID)
		if err != nil {
			return wrapStore(err)
		}
		return &notPausedError{id: e.ID, status: cur.Status}
	}
	return nil
}

// isProgram reports whether l is the program's own action.
func isProgram(l store.Entry) bool {
	return l.Seq == ProgramSeq && l.Connector == stepConnector && l.Method == programMethod
}

// unapprovedOrphan ends the takeover of e, a running execution whose host
// died before its program was approved (no pass started): it never runs
// unapproved. With its program pending it is paused for approval, without
// it (the host died before recording it) it ends as an error.
func (h *Handle) unapprovedOrphan(ctx context.Context, e *store.Execution) (codetool.Answer, error) {
	to, msg := store.StatusError, "the program was never approved: its host died before asking"
	for _, l := range e.Log {
		if isProgram(l) && l.State == store.EntryPending {
			to, msg = store.StatusPaused, ""
		}
	}
	u := store.ExecutionUpdate{At: now(), Lease: &store.Lease{}}
	if to == store.StatusError {
		u.Error = &msg
	}
	ok, err := h.store.TransitionExecution(ctx, h.name, e.ID, []store.Status{store.StatusRunning}, to, u)
	if err != nil {
		return codetool.Answer{}, fmt.Errorf("durable: %w", err)
	}
	if !ok {
		return codetool.Answer{}, h.notOrphaned(ctx, e.ID)
	}
	return h.Answer(ctx, e.ID)
}
