package durable

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/durable/store"
	"github.com/codemode-go/codemode/internal/defaults"
)

// DeleteExecution removes an audit record and reports whether it existed.
// Deleting a running or paused execution also calls Options.OnEnd with the
// status it had.
func (h *Handle) DeleteExecution(ctx context.Context, id string) (bool, error) {
	e, err := h.store.DeleteExecution(ctx, h.name, id)
	if err != nil {
		return false, fmt.Errorf("durable: %w", err)
	}
	if e == nil {
		return false, nil
	}
	if !e.Status.Terminal() {
		h.dispose(ctx, id, e.Status)
	}
	return true, nil
}

// PruneExecutions removes all but the keep newest terminal executions and
// returns how many it removed (keep 0 removes every terminal one).
func (h *Handle) PruneExecutions(ctx context.Context, keep int) (int, error) {
	n, err := h.store.PruneExecutions(ctx, h.name, keep)
	return n, wrapStore(err)
}

// ExpirePaused ends executions last updated more than maxAge ago (0 means
// 24 hours, as Cloudflare's DEFAULT_PAUSED_TTL_MS): paused ones become rejected ("expired awaiting
// approval") and running ones error ("expired while running: the host never
// completed the pass"), each by a conditional update so that a concurrent
// approval can neither be revived nor revive it. Their execution resources
// are disposed. It returns the IDs it ended.
func (h *Handle) ExpirePaused(ctx context.Context, maxAge time.Duration) (ended []string, err error) {
	ctx, span := h.span(ctx, "codemode.journal.expire", "")
	defer func() { span.SetAttributes(attrCount.Int(len(ended))); endSpan(span, err) }()
	if maxAge <= 0 {
		maxAge = defaults.PausedTTL
	}
	t := now()
	cutoff := t - maxAge.Milliseconds()
	paused, err := h.store.ExpireExecutions(ctx, h.name, store.StatusPaused, cutoff, store.StatusRejected, "expired awaiting approval", t)
	if err != nil {
		return nil, fmt.Errorf("durable: %w", err)
	}
	running, err := h.store.ExpireExecutions(ctx, h.name, store.StatusRunning, cutoff, store.StatusError, "expired while running: the host never completed the pass", t)
	if err != nil {
		return paused, fmt.Errorf("durable: %w", err)
	}
	for _, id := range paused {
		h.closePending(ctx, id, "not run: the execution expired awaiting approval")
		h.dispose(ctx, id, store.StatusRejected)
	}
	for _, id := range running {
		h.dispose(ctx, id, store.StatusError)
	}
	return append(paused, running...), nil
}

// RollbackError reports the reverts that failed; the others were done.
type RollbackError struct {
	Reverted int
	Failures []error
}

// Error says how many actions were reverted and how many failed, and why.
func (e *RollbackError) Error() string {
	msgs := make([]string, len(e.Failures))
	for i, f := range e.Failures {
		msgs[i] = f.Error()
	}
	return fmt.Sprintf("rollback reverted %d action(s) but %d failed: %s", e.Reverted, len(e.Failures), strings.Join(msgs, "; "))
}

// Unwrap returns the failures.
func (e *RollbackError) Unwrap() []error { return e.Failures }

// Rollback compensates an execution's applied tool calls in reverse seq
// order, calling each tool's contract.Policy.Revert with the recorded
// arguments and result. Tools without a Revert, and namespaces the
// handle's contract no longer has, are skipped and stay applied. Uncertain
// actions (their host died before recording their outcome: they may never
// have happened) are not reverted: the audit record lists them, and
// RevertUncertain reverts one a person knows happened. Every revert is attempted; a
// *RollbackError lists the failures after. The execution becomes
// rolled_back (and is disposed) only when at least one call was reverted.
// A running execution is refused: its pass may still apply actions; so is
// any execution when the handle's Options.Configuration differs from the
// one it started with (an error wrapping ErrConfigurationChanged: the
// reverts would go to other connectors), and nothing is reverted. An
// applied call whose tool now calls another upstream tool than when it
// was recorded (store.Entry.Upstream: an MCP server's new tool took the
// name) is not reverted, and is a failure of the *RollbackError: the
// revert found under the name is another tool's.
//
// Each entry is claimed (applied -> reverted) before its Revert runs, so
// two concurrent rollbacks never revert one action twice; a failed revert
// moves it back to applied.
func (h *Handle) Rollback(ctx context.Context, id string) (err error) {
	ctx, span := h.span(ctx, "codemode.journal.rollback", id)
	defer func() { endSpan(span, err) }()
	e, err := h.store.Execution(ctx, h.name, id)
	if err != nil {
		return fmt.Errorf("durable: %w", err)
	}
	if e.Status == store.StatusRunning {
		return fmt.Errorf("durable: execution %s is running; roll it back once its pass has ended", id)
	}
	if err := h.checkConfiguration(e); err != nil {
		return err
	}
	rb := &RollbackError{}
	defer func() { span.SetAttributes(attrCount.Int(rb.Reverted)) }()
	for i := len(e.Log) - 1; i >= 0; i-- {
		entry := e.Log[i]
		if entry.State != store.EntryApplied || entry.IsStep() || isProgram(entry) {
			continue
		}
		if m := h.moved(entry); m != "" {
			rb.Failures = append(rb.Failures, fmt.Errorf("%s: not reverted: the name now calls another upstream tool, whose revert would not undo this call", m))
			continue
		}
		t := h.tools[entry.Connector][entry.Method]
		if t == nil || t.Policy().Revert == nil {
			continue
		}
		ok, err := h.store.TransitionEntry(ctx, h.name, id, entry.Seq, []store.EntryState{store.EntryApplied}, store.EntryReverted, store.EntryUpdate{At: now()})
		if err != nil {
			rb.Failures = append(rb.Failures, fmt.Errorf("%s.%s (seq %d): %w", entry.Connector, entry.Method, entry.Seq, err))
			continue
		}
		if !ok {
			continue // another rollback took it
		}
		if err := h.revert(ctx, id, t, entry); err != nil {
			rb.Failures = append(rb.Failures, fmt.Errorf("%s.%s (seq %d): %w", entry.Connector, entry.Method, entry.Seq, err))
			if _, err := h.store.TransitionEntry(ctx, h.name, id, entry.Seq, []store.EntryState{store.EntryReverted}, store.EntryApplied, store.EntryUpdate{At: now()}); err != nil {
				rb.Failures = append(rb.Failures, fmt.Errorf("restoring seq %d to applied: %w", entry.Seq, err))
			}
			continue
		}
		rb.Reverted++
	}
	if rb.Reverted > 0 {
		moved, err := h.store.TransitionExecution(ctx, h.name, id,
			[]store.Status{store.StatusPaused, store.StatusCompleted, store.StatusError, store.StatusRejected, store.StatusRolledBack}, store.StatusRolledBack, store.ExecutionUpdate{At: now()})
		if err != nil {
			rb.Failures = append(rb.Failures, err)
		} else if moved {
			span.SetAttributes(attrStatus.String(string(store.StatusRolledBack)))
			h.dispose(ctx, id, store.StatusRolledBack)
		}
	}
	if len(rb.Failures) > 0 {
		return rb
	}
	return nil
}

// RevertUncertain runs the revert of one uncertain action of an execution
// that is not running: an action whose outcome is unknown (its host died
// between running it and recording it: an entry left executing, or pending
// and marked uncertain), which Rollback leaves alone because it may never
// have happened. The revert receives the recorded arguments and a null
// output (none was recorded); the entry becomes reverted. A person who
// knows the action happened asks for it.
//
//	err := h.RevertUncertain(ctx, "exec_…", 3)
//
// It returns an error for a running execution, one wrapping
// ErrConfigurationChanged when the handle's Options.Configuration differs
// from the run's or the action's tool now calls another upstream tool
// than when it was recorded (store.Entry.Upstream), an error for a seq
// that is not an uncertain action, for a tool without a revert, and the
// revert's own.
func (h *Handle) RevertUncertain(ctx context.Context, id string, seq uint64) (err error) {
	ctx, span := h.span(ctx, "codemode.journal.rollback", id, attrSeq.Int64(int64(seq)))
	defer func() { endSpan(span, err) }()
	e, err := h.store.Execution(ctx, h.name, id)
	if err != nil {
		return fmt.Errorf("durable: %w", err)
	}
	if e.Status == store.StatusRunning {
		return fmt.Errorf("durable: execution %s is running; revert its actions once its pass has ended", id)
	}
	if err := h.checkConfiguration(e); err != nil {
		return err
	}
	var entry *store.Entry
	for i := range e.Log {
		if e.Log[i].Seq == seq && uncertainEntry(e.Log[i]) {
			entry = &e.Log[i]
		}
	}
	if entry == nil {
		return fmt.Errorf("durable: action %d of %s is not an uncertain action", seq, id)
	}
	if m := h.moved(*entry); m != "" {
		return fmt.Errorf("%w: execution %s recorded %s (a name in programs now calls another upstream tool); nothing was reverted: revert it where the name calls the tool it recorded",
			ErrConfigurationChanged, id, m)
	}
	t := h.tools[entry.Connector][entry.Method]
	if t == nil || t.Policy().Revert == nil {
		return fmt.Errorf("durable: %s.%s (action %d) has no revert here", entry.Connector, entry.Method, seq)
	}
	ok, err := h.store.TransitionEntry(ctx, h.name, id, seq, []store.EntryState{entry.State}, store.EntryReverted, store.EntryUpdate{At: now()})
	if err != nil {
		return fmt.Errorf("durable: %w", err)
	}
	if !ok {
		return fmt.Errorf("durable: action %d of %s changed meanwhile: look again", seq, id)
	}
	entry.Result = json.RawMessage("null")
	if err := h.revert(ctx, id, t, *entry); err != nil {
		if _, rerr := h.store.TransitionEntry(ctx, h.name, id, seq, []store.EntryState{store.EntryReverted}, entry.State, store.EntryUpdate{At: now()}); rerr != nil {
			return fmt.Errorf("durable: %s.%s (seq %d): %w; restoring it: %w", entry.Connector, entry.Method, seq, err, rerr)
		}
		return fmt.Errorf("durable: %s.%s (seq %d): %w", entry.Connector, entry.Method, seq, err)
	}
	if e.Status == store.StatusPaused {
		h.closePending(ctx, id, "not run: an uncertain action of the execution was reverted")
		msg := fmt.Sprintf("uncertain action %s.%s (seq %d) reverted", entry.Connector, entry.Method, seq)
		if moved, err := h.store.TransitionExecution(ctx, h.name, id, []store.Status{store.StatusPaused}, store.StatusRolledBack, store.ExecutionUpdate{At: now(), Error: &msg}); err == nil && moved {
			h.dispose(ctx, id, store.StatusRolledBack)
		}
	}
	return nil
}

// uncertainEntry reports whether l is an action whose outcome is unknown:
// left executing by a pass that died, or pending and marked uncertain.
func uncertainEntry(l store.Entry) bool {
	return !l.IsStep() && (l.State == store.EntryExecuting || (l.State == store.EntryPending && l.Uncertain))
}

func (h *Handle) revert(ctx context.Context, id string, t *contract.Tool, e store.Entry) (err error) {
	ctx, cancel := context.WithTimeout(withExecutionID(ctx, id), h.opts.HookTimeout)
	defer cancel()
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("revert panicked: %v", p)
		}
	}()
	return t.Policy().Revert(ctx, e.Args, e.Result)
}

// hooks runs Options.OnPassEnd when a pass ended, then, when status is an
// end, Options.OnEnd.
func (h *Handle) hooks(ctx context.Context, id string, status store.Status, passEnded bool) {
	if passEnded && h.opts.OnPassEnd != nil {
		h.hook(ctx, "OnPassEnd", id, status, h.opts.OnPassEnd)
	}
	if status.Terminal() {
		h.dispose(ctx, id, status)
	}
}

// closePending records that the actions still pending in an execution
// that has ended will not run: each moves to error with reason. Without
// it, a run ended by a divergence, a rejection of one of several actions,
// or expiry showed its other actions as pending in the audit record, while
// nothing awaited them. Failures are logged: the execution's own end is
// recorded already.
func (h *Handle) closePending(ctx context.Context, id, reason string) {
	ctx = context.WithoutCancel(ctx)
	e, err := h.store.Execution(ctx, h.name, id)
	if err != nil {
		h.log.Warn("durable: closing pending actions", "execution", id, "err", err)
		return
	}
	for _, l := range e.Log {
		if l.State != store.EntryPending {
			continue
		}
		if _, err := h.store.TransitionEntry(ctx, h.name, id, l.Seq, []store.EntryState{store.EntryPending}, store.EntryError, store.EntryUpdate{At: now(), Error: &reason}); err != nil {
			h.log.Warn("durable: closing a pending action", "execution", id, "seq", l.Seq, "err", err)
		}
	}
}

// dispose runs Options.OnEnd.
func (h *Handle) dispose(ctx context.Context, id string, status store.Status) {
	if h.opts.OnEnd != nil {
		h.hook(ctx, "OnEnd", id, status, h.opts.OnEnd)
	}
}

// hook runs one lifecycle hook; its errors and panics are logged and
// ignored, so cleanup never turns a finished execution into a failed one.
func (h *Handle) hook(ctx context.Context, name, id string, status store.Status, fn func(context.Context, string, store.Status) error) {
	ctx, cancel := context.WithTimeout(withExecutionID(context.WithoutCancel(ctx), id), h.opts.HookTimeout)
	defer cancel()
	defer func() {
		if p := recover(); p != nil {
			h.log.Warn("durable: lifecycle hook panicked", "hook", name, "execution", id, "panic", p)
		}
	}()
	if err := fn(ctx, id, status); err != nil {
		h.log.Warn("durable: lifecycle hook failed", "hook", name, "execution", id, "err", err)
	}
}

// answerPending is the pending actions as an answer lists them.
func answerPending(p []store.PendingAction) []codetool.Pending {
	out := make([]codetool.Pending, len(p))
	for i, a := range p {
		out[i] = codetool.Pending{Seq: a.Seq, Connector: a.Connector, Method: a.Method, Args: a.Args, Uncertain: a.Uncertain}
	}
	return out
}
