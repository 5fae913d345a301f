package durable

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/durable/store"
)

// ErrNotPaused is wrapped by Approve's error for an execution that is not
// paused.
var ErrNotPaused = errors.New("durable: execution is not paused")

// notPausedError is Approve's error for an execution that is not paused:
// "durable: execution exec_… is not paused (status: completed)", which is
// ErrNotPaused.
type notPausedError struct {
	id     string
	status store.Status
}

func (e *notPausedError) Error() string {
	return fmt.Sprintf("durable: execution %s is not paused (status: %s)", e.id, e.status)
}

func (e *notPausedError) Is(target error) bool { return target == ErrNotPaused }

// Approve approves every pending action of a paused execution and replays
// it: a new pass of the same code with the same execution ID, in which
// applied calls return their recorded results, the approved actions run,
// and the program goes on to completion, an error or the next pause. It
// returns an error wrapping ErrNotPaused ("execution exec_… is not paused
// (status: completed)") for any other status, even when another process
// approved it a moment earlier, an error wrapping store.ErrNotFound for an unknown
// ID, and an error naming them when namespaces the execution started with
// are not in the handle's contract, or wrapping ErrConfigurationChanged when
// the handle's Options.Configuration differs from the one the execution
// started with, or when a call it recorded names a tool that now calls
// another upstream tool (store.Entry.Upstream: an MCP server added a tool
// that took the name; the person approved a call of the tool named then):
// it stays paused, its approval unused.
func (h *Handle) Approve(ctx context.Context, id string) (out codetool.Answer, err error) {
	return h.approve(ctx, id, nil)
}

// shown is what an approval names: the pending actions' seqs, or the
// digest of the actions as a surface showed them.
type shown struct {
	seqs   []uint64
	digest string
}

// String names what was shown in an error message.
func (s *shown) String() string {
	if s.digest != "" {
		return "the actions shown (digest " + s.digest + ")"
	}
	return seqList(s.seqs)
}

// ErrPendingChanged is returned by ApprovePending when the actions the
// execution awaits approval for are not the ones the caller approved.
var ErrPendingChanged = errors.New("durable: the actions awaiting approval changed")

// ApprovePending is Approve for the pending actions a person saw: it
// approves and replays only when the paused execution awaits approval for
// exactly the actions seqs (in any order), and otherwise returns an error
// wrapping ErrPendingChanged that lists what it awaits now, and leaves it
// paused. Two people approving one pause at once, or an approval sent after
// another approval's replay paused again at the next action, would
// otherwise approve an action nobody has looked at. The check and the
// start of the replay are one step for every other approver: the execution
// is running (not paused) while it is made. Other errors are Approve's.
func (h *Handle) ApprovePending(ctx context.Context, id string, seqs []uint64) (out codetool.Answer, err error) {
	if len(seqs) == 0 {
		return codetool.Answer{}, fmt.Errorf("durable: approving execution %s: no actions named", id)
	}
	return h.approve(ctx, id, &shown{seqs: seqs})
}

// ApproveShown is ApprovePending for a person who saw the pending actions
// on another surface (a page, a terminal): digest is ShownDigest of the
// actions that surface showed in full, and the execution is approved and
// replayed only when the actions it awaits still have that digest
// (the same seqs, tools and arguments, byte for byte). Otherwise it
// returns an error wrapping ErrPendingChanged that lists what it awaits
// now, and leaves it paused. Other errors are Approve's.
func (h *Handle) ApproveShown(ctx context.Context, id, digest string) (codetool.Answer, error) {
	if digest == "" {
		return codetool.Answer{}, fmt.Errorf("durable: approving execution %s: no digest of the actions shown", id)
	}
	return h.approve(ctx, id, &shown{digest: digest})
}

// ShownDigest is the digest of pending actions as a surface shows them for
// approval: 32 lowercase hex characters of SHA-256 over each action's seq,
// tool and arguments as recorded, in seq order. ApproveShown approves only
// actions that still have it.
func ShownDigest(pending []codetool.Pending) string {
	p := slices.Clone(pending)
	slices.SortFunc(p, func(a, b codetool.Pending) int { return cmp.Compare(a.Seq, b.Seq) })
	s := sha256.New()
	for _, a := range p {
		// Length-prefixed fields: no two different lists write the same bytes.
		for _, f := range []string{strconv.FormatUint(a.Seq, 10), a.Connector, a.Method, string(a.Args)} {
			fmt.Fprintf(s, "%d:%s", len(f), f)
		}
	}
	return hex.EncodeToString(s.Sum(nil)[:16])
}

// samePending reports whether the pending entries of log are the actions
// shown, and describes those it has.
func samePending(log []store.Entry, shown *shown) (bool, string) {
	want := map[uint64]bool{}
	for _, s := range shown.seqs {
		want[s] = true
	}
	var now []string
	var pending []codetool.Pending
	same := true
	for _, e := range log {
		if e.State != store.EntryPending {
			continue
		}
		pending = append(pending, codetool.Pending{Seq: e.Seq, Connector: e.Connector, Method: e.Method, Args: e.Args})
		now = append(now, fmt.Sprintf("%d (%s.%s %s)", e.Seq, e.Connector, e.Method, truncate(string(e.Args), 200)))
		if !want[e.Seq] {
			same = false
		}
	}
	if shown.digest != "" {
		same = ShownDigest(pending) == shown.digest
	} else if len(pending) != len(want) {
		same = false
	}
	if len(now) == 0 {
		return same, "no action"
	}
	return same, strings.Join(now, ", ")
}

// approve is Approve, or ApprovePending and ApproveShown when shown is not
// nil.
func (h *Handle) approve(ctx context.Context, id string, shown *shown) (out codetool.Answer, err error) {
	ctx, span := h.span(ctx, "codemode.journal.approve", id)
	defer func() { endPassSpan(span, out, err) }()
	e, err := h.store.Execution(ctx, h.name, id)
	if err != nil {
		return codetool.Answer{}, fmt.Errorf("durable: %w", err)
	}
	if shown == nil && e.Orphaned(now()) {
		return h.resume(ctx, e) // its host died: approving it goes on where it stopped
	}
	if e.Status != store.StatusPaused {
		return codetool.Answer{}, &notPausedError{id: id, status: e.Status}
	}
	if missing := h.missing(e.Connectors); len(missing) > 0 {
		return codetool.Answer{}, fmt.Errorf("durable: execution %s needs the namespace(s) %s, which the handle's contract does not have", id, strings.Join(missing, ", "))
	}
	if err := h.checkConfiguration(e); err != nil {
		return codetool.Answer{}, err
	}
	passes := e.Passes + 1
	var approved uint64
	for _, l := range e.Log {
		if l.State == store.EntryPending {
			approved = max(approved, l.Seq)
		}
	}
	approved = max(approved, e.Approved)
	taken := time.Now()
	ok, err := h.store.TransitionExecution(ctx, h.name, id, []store.Status{store.StatusPaused}, store.StatusRunning,
		store.ExecutionUpdate{At: taken.UnixMilli(), Passes: &passes, Approved: &approved, Lease: &store.Lease{Owner: h.owner, Until: taken.Add(h.opts.Lease).UnixMilli()}})
	if err != nil {
		return codetool.Answer{}, fmt.Errorf("durable: %w", err)
	}
	if !ok {
		cur, err := h.store.Execution(ctx, h.name, id)
		if err != nil {
			return codetool.Answer{}, fmt.Errorf("durable: %w", err)
		}
		return codetool.Answer{}, &notPausedError{id: id, status: cur.Status}
	}
	if shown != nil {
		// Read again now that this approval holds the execution: another
		// one may have replayed it to its next pause since it was read.
		cur, err := h.store.Execution(ctx, h.name, id)
		if err != nil {
			return codetool.Answer{}, fmt.Errorf("durable: %w", err)
		}
		if same, awaiting := samePending(cur.Log, shown); !same {
			back := cur.Passes - 1
			if _, err := h.store.TransitionExecution(ctx, h.name, id, []store.Status{store.StatusRunning}, store.StatusPaused, store.ExecutionUpdate{At: now(), Passes: &back, Lease: &store.Lease{}}); err != nil {
				return codetool.Answer{}, fmt.Errorf("durable: %w", err)
			}
			return codetool.Answer{}, fmt.Errorf("%w: execution %s awaits approval of %s, not of %s: review it and approve again", ErrPendingChanged, id, awaiting, shown)
		}
		e = cur
		passes = cur.Passes
	}
	if err := h.startApprovedProgram(ctx, e); err != nil {
		return codetool.Answer{}, err
	}
	e.Status, e.Passes, e.Approved = store.StatusRunning, passes, approved
	h.log.Debug("durable: approved", "execution", id, "pass", passes)
	return h.runPassFrom(ctx, e, taken, nil)
}

// seqList prints seqs as "1, 2 and 3".
func seqList(seqs []uint64) string {
	parts := make([]string, len(seqs))
	for i, s := range seqs {
		parts[i] = strconv.FormatUint(s, 10)
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// Reject rejects the pending action at seq and ends the execution as
// rejected ("Action github.create_issue rejected by user"); earlier actions
// are not rolled back (Rollback does that). It returns false when that
// action is not pending (approved and executing already, rejected, or
// absent). A reject that wins against an approval's replay stops the replay
// at that action.
func (h *Handle) Reject(ctx context.Context, id string, seq uint64) (rejected bool, err error) {
	ctx, span := h.span(ctx, "codemode.journal.reject", id, attrSeq.Int64(int64(seq)))
	defer func() {
		if rejected {
			span.SetAttributes(attrStatus.String(string(store.StatusRejected)))
		}
		endSpan(span, err)
	}()
	entry, found, err := h.store.Entry(ctx, h.name, id, seq)
	if err != nil {
		return false, fmt.Errorf("durable: %w", err)
	}
	if !found || entry.State != store.EntryPending {
		return false, nil
	}
	msg := "rejected by user"
	ok, err := h.store.TransitionEntry(ctx, h.name, id, seq, []store.EntryState{store.EntryPending}, store.EntryError, store.EntryUpdate{At: now(), Error: &msg})
	if err != nil || !ok {
		return false, wrapStore(err)
	}
	runMsg := fmt.Sprintf("Action %s.%s rejected by user", entry.Connector, entry.Method)
	moved, err := h.store.TransitionExecution(ctx, h.name, id, []store.Status{store.StatusPaused, store.StatusRunning}, store.StatusRejected, store.ExecutionUpdate{At: now(), Error: &runMsg})
	if err != nil {
		return true, fmt.Errorf("durable: %w", err)
	}
	if moved {
		h.closePending(ctx, id, fmt.Sprintf("not run: the execution was rejected (action %d rejected by user)", seq))
		h.hooks(ctx, id, store.StatusRejected, false)
	}
	return true, nil
}

func wrapStore(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("durable: %w", err)
}

// Pending lists the actions awaiting approval: of the execution id, or of
// every paused execution when id is "".
func (h *Handle) Pending(ctx context.Context, id string) ([]store.PendingAction, error) {
	p, err := h.store.Pending(ctx, h.name, id)
	return p, wrapStore(err)
}

// Executions returns up to limit audit records (0: all), newest first.
func (h *Handle) Executions(ctx context.Context, limit int) ([]*store.Execution, error) {
	l, err := h.store.Executions(ctx, h.name, limit)
	return l, wrapStore(err)
}

// ErrRunning is returned (wrapped) by Answer for an execution whose pass
// is still running: it has no answer yet.
var ErrRunning = errors.New("durable: the execution is running")

// Answer returns an execution's current answer from the journal, as Execute
// or Approve answered it: completed (the recorded value, through
// TransformResult; appended content is not recorded, so there is none),
// paused (the pending actions), or error (the message of an error, a
// rejection, an expiry, or "the execution is rolled_back"). It runs
// nothing. Errors: one wrapping store.ErrNotFound, ErrRunning, or the
// store's.
func (h *Handle) Answer(ctx context.Context, id string) (codetool.Answer, error) {
	e, err := h.store.Execution(ctx, h.name, id)
	if err != nil {
		return codetool.Answer{}, fmt.Errorf("durable: %w", err)
	}
	switch e.Status {
	case store.StatusRunning:
		return codetool.Answer{}, fmt.Errorf("%w: %s", ErrRunning, id)
	case store.StatusPaused:
		pending, err := h.store.Pending(ctx, h.name, id)
		if err != nil {
			return codetool.Answer{}, fmt.Errorf("durable: %w", err)
		}
		return codetool.Answer{Status: codetool.StatusPaused, ExecutionID: id, Pending: answerPending(pending), Logs: e.Logs}, nil
	case store.StatusCompleted:
		result := e.Value
		if len(result) == 0 {
			result = json.RawMessage("null")
		}
		if h.opts.TransformResult != nil {
			t, err := h.opts.TransformResult(ctx, result)
			if err != nil {
				return codetool.Answer{Status: codetool.StatusError, ExecutionID: id, Error: "transforming the result: " + err.Error(), Logs: e.Logs}, nil
			}
			result = t
		}
		return codetool.Answer{Status: codetool.StatusCompleted, ExecutionID: id, Value: result, Logs: e.Logs}, nil
	}
	msg := e.Error
	if msg == "" || e.Status == store.StatusRolledBack {
		msg = strings.TrimSpace("the execution is " + string(e.Status) + ". " + msg)
	}
	return codetool.Answer{Status: codetool.StatusError, ExecutionID: id, Error: msg, Logs: e.Logs}, nil
}

// Execution returns one audit record with its tool log, or an error
// wrapping store.ErrNotFound.
func (h *Handle) Execution(ctx context.Context, id string) (*store.Execution, error) {
	e, err := h.store.Execution(ctx, h.name, id)
	return e, wrapStore(err)
}

// Resolve answers an uncertain action (codetool.Pending.Uncertain: a pass
// died between starting it and recording its outcome) with "it happened":
// the action is recorded as applied with result, the output the person
// gives (nil means null), which must be an output the tool could return
// (contract.Tool.CheckOutput: the program receives it), and is not run
// again. When no other action of the paused execution awaits an answer
// or an approval (actions approved before the pass died do not), the run
// then continues as Approve continues it; otherwise it stays paused and
// the answer lists the rest.
// The other two answers are Approve (run it again) and Reject (fail the
// run).
//
//	answer, err := h.Resolve(ctx, "exec_…", 3, json.RawMessage(`{"id":42}`))
//
// It returns an error wrapping ErrNotPaused for a run that is not paused,
// one wrapping ErrConfigurationChanged as Approve does (nothing is
// recorded), and an error when seq is not an uncertain action awaiting an
// answer or result is not JSON or over store.MaxValueLength.
func (h *Handle) Resolve(ctx context.Context, id string, seq uint64, result json.RawMessage) (codetool.Answer, error) {
	if len(result) == 0 {
		result = json.RawMessage("null")
	}
	result, err := canonical(result)
	if err != nil {
		return codetool.Answer{}, fmt.Errorf("durable: the result of action %d is not JSON: %w", seq, err)
	}
	if err := checkDurable(fmt.Sprintf("result of action %d", seq), result); err != nil {
		return codetool.Answer{}, fmt.Errorf("durable: %w", err)
	}
	e, err := h.store.Execution(ctx, h.name, id)
	if err != nil {
		return codetool.Answer{}, fmt.Errorf("durable: %w", err)
	}
	if e.Status != store.StatusPaused {
		return codetool.Answer{}, &notPausedError{id: id, status: e.Status}
	}
	entry, found, err := h.store.Entry(ctx, h.name, id, seq)
	if err != nil {
		return codetool.Answer{}, fmt.Errorf("durable: %w", err)
	}
	if !found || entry.State != store.EntryPending || !entry.Uncertain {
		return codetool.Answer{}, fmt.Errorf("durable: action %d of %s is not an uncertain action awaiting an answer", seq, id)
	}
	if err := h.checkConfiguration(e); err != nil {
		return codetool.Answer{}, err
	}
	if t := h.tools[entry.Connector][entry.Method]; t != nil {
		if err := t.CheckOutput(result); err != nil {
			return codetool.Answer{}, fmt.Errorf("durable: the result given for %s.%s (action %d) is not one the tool could return, which the program would then receive: %w", entry.Connector, entry.Method, seq, err)
		}
	}
	ok, err := h.store.TransitionEntry(ctx, h.name, id, seq, []store.EntryState{store.EntryPending}, store.EntryApplied, store.EntryUpdate{At: now(), Result: result})
	if err != nil {
		return codetool.Answer{}, fmt.Errorf("durable: %w", err)
	}
	if !ok {
		return codetool.Answer{}, fmt.Errorf("durable: action %d of %s changed while answering it: look again", seq, id)
	}
	h.log.Debug("durable: resolved an uncertain action as applied", "execution", id, "seq", seq)
	pending, err := h.store.Pending(ctx, h.name, id)
	if err != nil {
		return codetool.Answer{}, fmt.Errorf("durable: %w", err)
	}
	for _, p := range pending {
		if p.Uncertain || p.Seq > e.Approved {
			return h.Answer(ctx, id) // another awaits a person's answer
		}
	}
	// What is left was approved before the pass died: it runs now.
	return h.approve(ctx, id, nil)
}
