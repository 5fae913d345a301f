package durable

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/durable/store"
	"github.com/codemode-go/codemode/internal/callend"
	"github.com/codemode-go/codemode/internal/errname"
)

// Why a pass was halted (client.Halt): the journal's decisions that end a
// pass at once, whatever the program does.
type (
	// pauseSignal: actions await approval; the execution pauses.
	pauseSignal struct{}
	// divergenceError: a call differs from the journal at its seq.
	divergenceError struct{ msg string }
	// endError: the execution ends as error with this message (an oversize
	// value, an interrupted action, the journal no longer running the run).
	endError struct{ msg string }
	// storeError: the store failed; the pass returns it as a Go error.
	storeError struct{ err error }
)

func (pauseSignal) Error() string        { return "the execution paused for approval" }
func (e *divergenceError) Error() string { return e.msg }
func (e *endError) Error() string        { return e.msg }
func (e *storeError) Error() string      { return "durable: the journal failed: " + e.err.Error() }
func (e *storeError) Unwrap() error      { return e.err }

// pass is one pass of an execution: the journal middleware and the little
// in-memory bookkeeping that decides when a pause halts (which calls are in
// flight). Every decision is read from and written to the store.
type pass struct {
	h  *Handle
	id string

	// lease is the pass's hold on the execution.
	lease *lease
	// created is the execution's record when the pass writes it
	// (Execute), nil when it existed before the pass: every call writes
	// it, or waits for it, before the journal decides the call.
	created *creation
	// approved is the highest seq the last approval covered
	// (store.Execution.Approved): a pending entry above it awaits approval.
	approved uint64

	// known is the highest seq in the journal when the pass started: a call
	// above it is new unless the conditional insert says otherwise, so its
	// entry is not read first. Only a hint; the store decides.
	known uint64
	// applied holds the entries that were applied (and not ephemeral) when
	// the pass started, by seq: they cannot change while the execution is
	// running (only a rollback moves them, and it refuses a running
	// execution), so a replayed call is answered without reading the store.
	applied map[uint64]*store.Entry
	// stepEnds maps the seq of a recorded step whose function made calls
	// or read the clock to its stepEndMethod entry's arguments.
	stepEnds map[uint64]stepEnd
	// replayed maps the seqs a replay of the steps recorded as applied
	// takes, to the step: the calls its function made (step_skip) and its
	// end (step_end without a token). Only those calls may take them: a
	// connector call, a step's beginning or another step's skip or end
	// there is a divergence (an adversarial review ended a replayed step
	// on the seq of an approved action, which was then never run, and the
	// execution completed).
	replayed map[uint64]replayedSeq

	mu       sync.Mutex
	inflight int
	pending  int
	changed  chan struct{} // closed and replaced when inflight or pending changes
	// open are the steps this pass began and has not ended, by token (the
	// step's seq): only these may be ended, so a caller of the host
	// namespace could not end a step it does not own, or one whose function
	// threw (the adversarial review did, when the namespace was in the
	// program's reach; sdkSetup now keeps it out).
	// Each holds the clock count (values the program had read) when the
	// step began, which the host keeps rather than trust the program to
	// echo it: a program that forged it (a then getter on
	// Object.prototype rewrites step_begin's answer before the codemode
	// object reads it) recorded a step that read the clock two million
	// times, and its replay ran out of memory.
	open map[uint64]stepUse
	// ends are how the calls of this pass ended, by seq, as the client's
	// telemetry told it (their terminal events; mu).
	ends map[uint64]callEnded
	// halt is the execution's halt (client.Outcome.Halt) once the run
	// returned, nil before and when it did not halt (mu): a call in flight
	// then, or the call that halted it, ended halted.
	halt error
	// failedAlive are the calls whose handler failed while the execution
	// went on (mu): their error is their own, failed even when it wraps a
	// context error (a request's own timeout), not the execution's end.
	failedAlive map[uint64]bool

	// The pass's journal writes, in order (wmu). A call's result (its
	// entry executing -> applied) is recorded with the pass's next write,
	// in one commit when the store is an EntryBatcher: the next call's
	// executing mark, a step, the end of the pass, or recordDelay after
	// the result at the latest. The program has the result before it is
	// recorded, but it can act on it only through another call, whose mark
	// commits the result first; a crash in between leaves the entry
	// executing, the evidence a replay refuses to guess about.
	wmu     sync.Mutex
	results []store.EntryMove // results to record
	flusher *time.Timer       // records results after recordDelay
	wctx    context.Context   // the pass's context without its cancellation, for flusher
	werr    error             // a failed write of results: every later write fails with it
	ended   bool              // the pass is recording its end: results are recorded at once
	// ran are the connector calls this pass ran and records (execute), by
	// seq: their entry's state and the end the journal has for them.
	ran map[uint64]ranCall
}

// ranCall is a call of pass.ran: the state its entry was left in, and the
// end written with it ("" while it runs).
type ranCall struct {
	state store.EntryState
	end   string
}

// recordDelay bounds how long a call's result waits for the pass's next
// journal write (see pass.results).
const recordDelay = 10 * time.Millisecond

// flushLocked records the results waiting (wmu held).
func (p *pass) flushLocked(ctx context.Context) error {
	if p.werr != nil {
		return p.werr
	}
	moves := p.results
	p.results = nil
	if len(moves) == 0 {
		return nil
	}
	ctx = context.WithoutCancel(ctx) // the actions happened: recorded even when the pass ended
	if b, ok := p.store().(store.EntryBatcher); ok {
		_, err := b.WriteEntries(ctx, p.h.name, p.id, moves, nil)
		p.werr = err
		return err
	}
	for _, m := range moves {
		if _, err := p.store().TransitionEntry(ctx, p.h.name, p.id, m.Seq, m.From, m.To, m.Update); err != nil {
			p.werr = err
			return err
		}
	}
	return nil
}

// settle records the end of a call this pass ran: m moves its entry out
// of executing, with how the call ended: the telemetry's word when it has
// one already (the program's view: a call the program had abandoned was
// cancelled, whatever its handler did next), else derived. A result waits
// for the pass's next write (see pass.results), or is recorded at once
// when the pass is ending; an error is recorded at once.
func (p *pass) settle(ctx context.Context, m store.EntryMove, derived string) error {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	m.Update.End = p.endOf(m.Seq, derived)
	p.ran[m.Seq] = ranCall{state: m.To, end: m.Update.End}
	p.results = append(p.results, m)
	if p.ended || m.To != store.EntryApplied {
		return p.flushLocked(ctx)
	}
	if p.flusher == nil {
		p.flusher = time.AfterFunc(recordDelay, p.flushLater)
	} else if len(p.results) == 1 {
		p.flusher.Reset(recordDelay)
	}
	return nil
}

// running notes that this pass runs the call at seq, whose entry is
// executing: its end is recorded when it settles or the pass ends.
func (p *pass) running(seq uint64) {
	p.wmu.Lock()
	p.ran[seq] = ranCall{state: store.EntryExecuting}
	p.wmu.Unlock()
}

// callEnded is a call's terminal telemetry event: how it ended in the
// journal's words (store.Entry.End), and its error.
type callEnded struct {
	end string
	err error
}

// noteEnd keeps how a call ended, from its terminal telemetry event
// (client.Event says how to read it).
func (p *pass) noteEnd(ev client.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var end string
	switch {
	case ev.Kind == client.EventToolCallCompleted:
		end = callend.Completed
	case ev.Kind != client.EventToolCallFailed:
		return
	case p.failedAlive[ev.Seq]:
		end = callend.Failed
	case errors.Is(ev.Err, client.ErrRuntimeFailed), errors.Is(ev.Err, client.ErrRuntimeClosed):
		end = callend.Runtime
	case errors.Is(ev.Err, context.Canceled):
		end = callend.Cancelled
	case errors.Is(ev.Err, context.DeadlineExceeded):
		end = callend.Timeout
	default:
		end = callend.Failed
	}
	p.ends[ev.Seq] = callEnded{end: end, err: ev.Err}
}

// endOf is how the call at seq ended as the telemetry told it, or
// derived when it has not (yet): halted, once the run returned halted, for
// the call the client abandoned at the halt and for the call whose error
// was the halt.
func (p *pass) endOf(seq uint64, derived string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	e, ok := p.ends[seq]
	switch {
	case !ok:
		return derived
	case p.halt != nil && (e.end == callend.Cancelled || e.end == callend.Failed && errors.Is(e.err, p.halt)):
		return callend.Halted
	}
	return e.end
}

// recordEndsLocked writes how each call this pass ran ended where the
// journal has another word for it than the telemetry's (wmu held, after
// the execution's end: the telemetry has given every call its end). That
// is a call whose output then failed the tool's schema, one in flight when
// the program ended (cancelled: it never awaited it), passed its deadline
// (timeout) or was halted, and one still running (its entry stays
// executing: what happened to the action is not guessed; the end says
// only that the program did not wait for it).
func (p *pass) recordEndsLocked(ctx context.Context) error {
	ctx = context.WithoutCancel(ctx)
	for _, seq := range slices.Sorted(maps.Keys(p.ran)) {
		c := p.ran[seq]
		end := p.endOf(seq, "")
		if end == "" || end == c.end {
			continue
		}
		if _, err := p.store().TransitionEntry(ctx, p.h.name, p.id, seq, []store.EntryState{c.state}, c.state, store.EntryUpdate{End: end}); err != nil {
			p.werr = err
			return err
		}
		c.end = end
		p.ran[seq] = c
	}
	return nil
}

// flushLater is the flusher's: the results waited recordDelay.
func (p *pass) flushLater() {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	_ = p.flushLocked(p.wctx) // a failure is kept in werr for the next write
}

// endWrites records the results waiting and how the pass's calls ended
// before the pass records its end; a result that arrives later (a call
// still in flight) is recorded at once. out is the run's outcome (nil when
// the run failed).
func (p *pass) endWrites(ctx context.Context, out *client.Outcome) error {
	if out != nil {
		p.mu.Lock()
		p.halt = out.Halt
		p.mu.Unlock()
	}
	p.wmu.Lock()
	defer p.wmu.Unlock()
	p.ended = true
	if p.flusher != nil {
		p.flusher.Stop()
	}
	if err := p.flushLocked(ctx); err != nil {
		return err
	}
	return p.recordEndsLocked(ctx)
}

// insert adds e to the journal (store.Store.InsertEntry) with the results
// waiting, in one commit when the store is an store.EntryBatcher.
func (p *pass) insert(ctx context.Context, e *store.Entry) (bool, error) {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	if b, ok := p.store().(store.EntryBatcher); ok && len(p.results) > 0 && p.werr == nil && ctx.Err() == nil {
		moves := p.results
		p.results = nil
		ok, err := b.WriteEntries(context.WithoutCancel(ctx), p.h.name, p.id, moves, e)
		p.werr = err
		return ok, err
	}
	if err := p.flushLocked(ctx); err != nil {
		return false, err
	}
	return p.store().InsertEntry(ctx, p.h.name, p.id, e)
}

// transition moves the entry at seq (store.Store.TransitionEntry) after
// recording the results waiting.
func (p *pass) transition(ctx context.Context, seq uint64, from []store.EntryState, to store.EntryState, u store.EntryUpdate) (bool, error) {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	if err := p.flushLocked(ctx); err != nil {
		return false, err
	}
	return p.store().TransitionEntry(ctx, p.h.name, p.id, seq, from, to, u)
}

// openStep records that this pass began the step at seq, and what the
// program had used of the clock and the random streams then (call's
// counts); closeStep ends it, returning those and whether it was open.
func (p *pass) openStep(seq uint64, call client.ToolCall) {
	p.mu.Lock()
	p.open[seq] = stepUse{clock: call.Clock, draws: call.RandomDraws, bytes: call.RandomBytes}
	p.mu.Unlock()
}

func (p *pass) closeStep(seq uint64) (stepUse, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	use, ok := p.open[seq]
	if ok {
		delete(p.open, seq)
	}
	return use, ok
}

// stepUse is what the program had used of the clock and the random
// streams when a step began (client.ToolCall's counts at its step_begin).
type stepUse struct {
	clock        int
	draws, bytes uint64
}

// since returns what was used from u to call, none where a count went
// backwards.
func (u stepUse) since(call client.ToolCall) (clock int, draws, bytes uint64) {
	clock = max(call.Clock-u.clock, 0)
	if call.RandomDraws > u.draws {
		draws = call.RandomDraws - u.draws
	}
	if call.RandomBytes > u.bytes {
		bytes = call.RandomBytes - u.bytes
	}
	return clock, draws, bytes
}

func (h *Handle) newPass(e *store.Execution) *pass {
	p := &pass{h: h, id: e.ID, approved: e.Approved, changed: make(chan struct{}), applied: map[uint64]*store.Entry{}, stepEnds: map[uint64]stepEnd{},
		replayed: map[uint64]replayedSeq{}, open: map[uint64]stepUse{}, ends: map[uint64]callEnded{}, failedAlive: map[uint64]bool{}, ran: map[uint64]ranCall{}}
	for i := range e.Log {
		l := &e.Log[i]
		if isProgram(*l) {
			continue // the program's approval, not a call
		}
		p.known = max(p.known, l.Seq)
		if l.State == store.EntryApplied && !l.Ephemeral {
			p.applied[l.Seq] = l
		}
		if l.Connector == stepConnector && l.Method == stepEndMethod {
			var a stepEnd
			if json.Unmarshal(l.Args, &a) == nil && a.Begin > 0 && a.Begin < l.Seq && a.Clock >= 0 {
				a.seq = l.Seq
				p.stepEnds[a.Begin] = a
			}
		}
	}
	p.reserveReplayedSteps()
	return p
}

// maxPrefillBytes bounds the recorded results a pass prefills
// (client.RunOptions.Prefill), which travel in the execute message (16 MiB
// at most): the first in seq order up to this many bytes. Later calls are
// replayed through the round trip.
const maxPrefillBytes = 8 << 20

// prefill returns the recorded results of the connector calls applied when
// the pass started, by seq, up to maxPrefillBytes; nil when there are none.
func (p *pass) prefill() map[uint64]json.RawMessage {
	if len(p.applied) == 0 {
		return nil
	}
	seqs := make([]uint64, 0, len(p.applied))
	for seq, e := range p.applied {
		// A recorded step's function does not run again: the seqs of the
		// calls it made are step_skip calls on replay (p.replayed).
		if _, skipped := p.replayed[seq]; e.Connector != stepConnector && p.h.tools[e.Connector][e.Method] != nil && len(e.Result) > 0 && !skipped {
			seqs = append(seqs, seq)
		}
	}
	slices.Sort(seqs)
	out := make(map[uint64]json.RawMessage, len(seqs))
	size := 0
	for _, seq := range seqs {
		r := p.applied[seq].Result
		if size += len(r); size > maxPrefillBytes {
			break
		}
		out[seq] = r
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// replayedSeq is a seq a replayed step takes (pass.replayed).
type replayedSeq struct {
	begin uint64 // the step's seq
	name  string
	end   bool // the step's end, else one of its function's calls
}

// reserveReplayedSteps fills p.replayed from the applied steps, outermost
// first: a step inside another's function is not run on replay (the outer
// one's skips cover it).
func (p *pass) reserveReplayedSteps() {
	var begins []uint64
	for seq, e := range p.applied {
		if isStepStart(e) {
			begins = append(begins, seq)
		}
	}
	slices.Sort(begins)
	for _, b := range begins {
		if _, inside := p.replayed[b]; inside {
			continue
		}
		var a struct {
			Name string `json:"name"`
		}
		_ = json.Unmarshal(p.applied[b].Args, &a)
		end := b + 1
		if se, ok := p.stepEnds[b]; ok {
			end = se.seq
		}
		for seq := b + 1; seq < end; seq++ {
			p.replayed[seq] = replayedSeq{begin: b, name: a.Name}
		}
		p.replayed[end] = replayedSeq{begin: b, name: a.Name, end: true}
	}
}

// replayDivergence halts a call that took a seq a replayed step takes, or
// a step's replay call that took another seq; got describes the call.
func (p *pass) replayDivergence(ctx context.Context, seq uint64, got string) (json.RawMessage, error) {
	want, hint := "no call", ""
	if r, ok := p.replayed[seq]; ok {
		if r.end {
			want = fmt.Sprintf("the end of codemode.step(%q), replayed", r.name)
		} else {
			want = fmt.Sprintf("a call of codemode.step(%q)'s function, replayed without running it", r.name)
		}
		hint = " (calls and steps made while a codemode.step's function runs, but outside it, do not replay: await steps one at a time)"
	} else if e, found := p.applied[seq]; found {
		want = fmt.Sprintf("%s.%s(%s)", e.Connector, e.Method, e.Args)
	} else if e, found, err := p.store().Entry(ctx, p.h.name, p.id, seq); err != nil {
		return p.fail(err)
	} else if found {
		want = fmt.Sprintf("%s.%s(%s)", e.Connector, e.Method, e.Args)
	}
	return halt(&divergenceError{msg: fmt.Sprintf("replay divergence at step %d: expected %s, got %s%s", seq, want, got, hint)})
}

// stepEnd is a stepEndMethod entry's arguments, and its seq.
type stepEnd struct {
	Name  string `json:"name"`
	Begin uint64 `json:"begin"`           // the step's seq
	Clock int    `json:"clock,omitempty"` // how many clock values the step's function read
	// Draws and Bytes are how much of the random streams it used: Math.random
	// calls, and bytes of crypto.getRandomValues and crypto.randomUUID.
	Draws uint64 `json:"draws,omitempty"`
	Bytes uint64 `json:"bytes,omitempty"`
	seq   uint64
}

func (p *pass) bump(dIn, dPending int) {
	p.mu.Lock()
	p.inflight += dIn
	p.pending += dPending
	close(p.changed)
	p.changed = make(chan struct{})
	p.mu.Unlock()
}

func (p *pass) middleware(next client.ToolCaller) client.ToolCaller {
	return func(ctx context.Context, call client.ToolCall) (json.RawMessage, error) {
		if err := p.created.write(); err != nil {
			return p.fail(err)
		}
		p.bump(1, 0)
		defer p.bump(-1, 0)
		switch {
		case call.Namespace == journalNamespace && call.Tool == "snippet":
			return p.snippet(ctx, call)
		case call.Namespace == journalNamespace:
			return p.step(ctx, call)
		case call.Namespace == stepConnector && (call.Tool == "search" || call.Tool == "describe") && p.h.tools[call.Namespace][call.Tool] == nil:
			return p.discover(ctx, call)
		}
		return p.connectorCall(ctx, next, call)
	}
}

func (p *pass) store() store.Store { return p.h.store }

// isStepStart reports whether e records the beginning of a codemode.step.
func isStepStart(e *store.Entry) bool { return e.Connector == stepConnector && e.Method == stepMethod }

func halt(err error) (json.RawMessage, error) { return nil, client.Halt(err) }

func (p *pass) fail(err error) (json.RawMessage, error) { return halt(&storeError{err}) }

// notRunning halts a call the journal refused because the execution is no
// longer running (paused, rejected, expired), naming its status.
func (p *pass) notRunning(ctx context.Context, what string) (json.RawMessage, error) {
	e, err := p.store().Execution(ctx, p.h.name, p.id)
	if err != nil {
		return p.fail(err)
	}
	if e.Status == store.StatusRejected || e.Status == store.StatusError {
		return halt(&endError{msg: e.Error})
	}
	return halt(&endError{msg: fmt.Sprintf("%s was refused: the execution is %s", what, e.Status)})
}

func (p *pass) connectorCall(ctx context.Context, next client.ToolCaller, call client.ToolCall) (json.RawMessage, error) {
	t := p.h.tools[call.Namespace][call.Tool]
	if t == nil {
		return next(ctx, call) // not a connector tool: the client reports it
	}
	what := call.Namespace + "." + call.Tool
	args, err := canonicalArgs(call.Input)
	var lossy *lossError
	if errors.As(err, &lossy) {
		// The tool did not run: the program sees a ToolValidationError.
		return nil, &contract.ValidationError{Tool: call.Tool, Phase: "input", Lines: []string{lossy.Error()}}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: the arguments are not JSON: %w", what, err)
	}
	if err := checkDurable("arguments of "+what, args); err != nil {
		return halt(&endError{msg: err.Error()})
	}
	if _, taken := p.replayed[call.Seq]; taken {
		return p.replayDivergence(ctx, call.Seq, fmt.Sprintf("%s(%s)", what, args))
	}
	if call.Seq > p.known {
		return p.newCall(ctx, next, call, t, args)
	}
	return p.recordedCall(ctx, next, call, t, args)
}

// recordedCall decides a call whose seq may be in the journal.
func (p *pass) recordedCall(ctx context.Context, next client.ToolCaller, call client.ToolCall, t *contract.Tool, args json.RawMessage) (json.RawMessage, error) {
	what := call.Namespace + "." + call.Tool
	e, found := p.applied[call.Seq]
	if !found {
		var err error
		if e, found, err = p.store().Entry(ctx, p.h.name, p.id, call.Seq); err != nil {
			return p.fail(err)
		}
	}
	if found {
		if e.Connector != call.Namespace || e.Method != call.Tool || !bytes.Equal(e.Args, args) {
			return halt(&divergenceError{msg: fmt.Sprintf("replay divergence at step %d: expected %s.%s(%s), got %s(%s)",
				call.Seq, e.Connector, e.Method, e.Args, what, args)})
		}
		if m := p.h.moved(*e); m != "" {
			// Approve and Resume refuse such a run before a pass starts
			// (checkConfiguration); this is where a pass meets one they
			// could not see (an entry another process wrote meanwhile,
			// with other tools): nothing runs under the name.
			return halt(&endError{msg: fmt.Sprintf("%s: not run, replayed or answered: the name in programs now calls another upstream tool than when the call was recorded", m)})
		}
		switch e.State {
		case store.EntryApplied:
			if !e.Ephemeral {
				p.h.crash.reached("replay")
				p.h.log.Debug("durable: replay", "execution", p.id, "seq", call.Seq, "call", what)
				markCall(ctx, "replayed")
				return e.Result, nil
			}
			p.h.log.Debug("durable: reexecute", "execution", p.id, "seq", call.Seq, "call", what)
			markCall(ctx, "reexecuted")
			return p.execute(ctx, next, call, t, false)
		case store.EntryError:
			markCall(ctx, "recorded-error")
			return nil, replayedFailure(e) // the recorded failure, replayed
		case store.EntryPending:
			if call.Seq > p.approved {
				// Recorded by a pass that died before it paused: it still
				// awaits approval.
				markCall(ctx, "paused")
				return p.awaitPause(ctx)
			}
			if !p.lease.held(ctx) {
				return halt(&endError{msg: errLeaseLost.Error()})
			}
			// Approved: claim it. A reject that got there first wins.
			ok, err := p.transition(ctx, call.Seq, []store.EntryState{store.EntryPending}, store.EntryExecuting, store.EntryUpdate{At: now()})
			if err != nil {
				return p.fail(err)
			}
			if !ok {
				return p.notRunning(ctx, what)
			}
			p.h.log.Debug("durable: execute approved", "execution", p.id, "seq", call.Seq, "call", what)
			markCall(ctx, "executed")
			return p.execute(ctx, next, call, t, true)
		case store.EntryExecuting:
			return p.interrupted(ctx, next, call, t, e)
		default: // reverted
			return halt(&endError{msg: fmt.Sprintf("step %d (%s) was rolled back; the execution cannot continue", call.Seq, what)})
		}
	}
	return p.newCall(ctx, next, call, t, args)
}

// newCall records a call the journal does not have and executes or pauses
// it. When the insert finds the seq taken, the recorded entry decides.
func (p *pass) newCall(ctx context.Context, next client.ToolCaller, call client.ToolCall, t *contract.Tool, args json.RawMessage) (json.RawMessage, error) {
	what := call.Namespace + "." + call.Tool
	needs := t.Policy().NeedsApproval(args)
	entry := &store.Entry{Seq: call.Seq, Connector: call.Namespace, Method: call.Tool, Args: args, Upstream: t.Upstream(),
		RequiresApproval: needs, Ephemeral: t.Policy().Replay == contract.ReplayReexecute, UpdatedAt: now()}
	if needs {
		entry.State = store.EntryPending
		ok, err := p.insert(ctx, entry)
		if err != nil {
			return p.fail(err)
		}
		if !ok {
			return p.refused(ctx, next, call, t, args)
		}
		p.h.log.Debug("durable: pause", "execution", p.id, "seq", call.Seq, "call", what)
		markCall(ctx, "paused")
		return p.awaitPause(ctx)
	}
	if !p.lease.held(ctx) {
		return halt(&endError{msg: errLeaseLost.Error()})
	}
	entry.State = store.EntryExecuting
	ok, err := p.insert(ctx, entry)
	if err != nil {
		return p.fail(err)
	}
	if !ok {
		return p.refused(ctx, next, call, t, args)
	}
	p.h.log.Debug("durable: execute", "execution", p.id, "seq", call.Seq, "call", what)
	markCall(ctx, "executed")
	return p.execute(ctx, next, call, t, true)
}

// interrupted decides a call whose entry an earlier pass left executing:
// it died between starting the action and recording its outcome. A read
// (contract.Annotations.ReadOnly), an idempotent action
// (contract.Policy.Idempotent) or a reexecuted call runs again; any other
// action is uncertain, and the run pauses for a person to say whether it
// happened (the entry becomes pending and uncertain).
func (p *pass) interrupted(ctx context.Context, next client.ToolCaller, call client.ToolCall, t *contract.Tool, e *store.Entry) (json.RawMessage, error) {
	what := call.Namespace + "." + call.Tool
	if ro := t.Annotations().ReadOnly; t.Policy().Idempotent || (ro != nil && *ro) || e.Ephemeral {
		if !p.lease.held(ctx) {
			return halt(&endError{msg: errLeaseLost.Error()})
		}
		p.h.log.Info("durable: running an interrupted call again", "execution", p.id, "seq", call.Seq, "call", what)
		markCall(ctx, "reexecuted")
		return p.execute(ctx, next, call, t, true)
	}
	yes := true
	ok, err := p.transition(ctx, call.Seq, []store.EntryState{store.EntryExecuting}, store.EntryPending, store.EntryUpdate{At: now(), Uncertain: &yes})
	if err != nil {
		return p.fail(err)
	}
	if !ok {
		return halt(&endError{msg: fmt.Sprintf("step %d (%s) changed while this pass decided it", call.Seq, what)})
	}
	p.h.log.Info("durable: an interrupted action is uncertain; asking a person", "execution", p.id, "seq", call.Seq, "call", what)
	markCall(ctx, "uncertain")
	return p.awaitPause(ctx)
}

// refused handles an insert the store refused: the seq is taken (decide
// from the recorded entry) or the execution is no longer running.
func (p *pass) refused(ctx context.Context, next client.ToolCaller, call client.ToolCall, t *contract.Tool, args json.RawMessage) (json.RawMessage, error) {
	if _, found, err := p.store().Entry(ctx, p.h.name, p.id, call.Seq); err != nil {
		return p.fail(err)
	} else if found && call.Seq > p.known {
		return p.recordedCall(ctx, next, call, t, args)
	}
	return p.notRunning(ctx, call.Namespace+"."+call.Tool)
}

// execute runs the connector for an entry that is executing and records
// the outcome: applied with the result (none for an ephemeral entry), or
// error with the connector's message, which the program receives.
func (p *pass) execute(ctx context.Context, next client.ToolCaller, call client.ToolCall, t *contract.Tool, record bool) (json.RawMessage, error) {
	p.h.crash.reached("action")
	if record {
		p.running(call.Seq)
	}
	out, err := next(withExecutionID(ctx, p.id), call)
	if !record {
		return out, err
	}
	if err != nil && ctx.Err() == nil { // ctx ends with the execution
		p.mu.Lock()
		p.failedAlive[call.Seq] = true
		p.mu.Unlock()
	}
	p.h.crash.reached("recorded")
	at := now()
	executing := []store.EntryState{store.EntryExecuting}
	if err != nil {
		msg := err.Error()
		u := store.EntryUpdate{At: at, Error: &msg, ErrorName: errname.Of(err, ""), ErrorData: errname.Data(err)}
		if serr := p.settle(ctx, store.EntryMove{Seq: call.Seq, From: executing, To: store.EntryError, Update: u}, callend.Failed); serr != nil {
			return p.fail(serr)
		}
		return nil, err
	}
	u := store.EntryUpdate{At: at}
	if t.Policy().Replay != contract.ReplayReexecute {
		if len(out) == 0 {
			out = json.RawMessage("null")
		}
		if err := checkDurable("result of "+call.Namespace+"."+call.Tool, out); err != nil {
			msg := err.Error()
			_ = p.settle(ctx, store.EntryMove{Seq: call.Seq, From: executing, To: store.EntryError, Update: store.EntryUpdate{At: at, Error: &msg}}, callend.Halted)
			return halt(&endError{msg: msg})
		}
		u.Result = out
	}
	// Recorded even when the pass has ended meanwhile: the action happened.
	if err := p.settle(ctx, store.EntryMove{Seq: call.Seq, From: executing, To: store.EntryApplied, Update: u}, callend.Completed); err != nil {
		return p.fail(err)
	}
	return out, nil
}

// awaitPause holds a call that awaits approval until the pass cannot go on
// without approvals (every call in flight awaits one) and no new call has
// arrived for PauseSettle, then halts the pass: all the actions that became
// pending meanwhile (Promise.all siblings) pause together.
func (p *pass) awaitPause(ctx context.Context) (json.RawMessage, error) {
	p.bump(0, 1)
	defer p.bump(0, -1)
	settle := time.NewTimer(p.h.opts.PauseSettle)
	defer settle.Stop()
	for {
		p.mu.Lock()
		quiet := p.inflight == p.pending
		changed := p.changed
		p.mu.Unlock()
		if quiet {
			settle.Reset(p.h.opts.PauseSettle)
		} else {
			settle.Stop()
		}
		var tick <-chan time.Time
		if quiet {
			tick = settle.C
		}
		select {
		case <-ctx.Done():
			return halt(pauseSignal{})
		case <-changed:
		case <-tick:
			return halt(pauseSignal{})
		}
	}
}

// step answers the two halves of codemode.step (see sdkObject).
func (p *pass) step(ctx context.Context, call client.ToolCall) (json.RawMessage, error) {
	var in stepInput
	if err := json.Unmarshal(call.Input, &in); err != nil {
		return nil, fmt.Errorf("codemode.step: %w", err)
	}
	nameArgs, _ := json.Marshal(map[string]string{"name": in.Name})
	what := fmt.Sprintf("codemode.step(%q)", in.Name)
	switch call.Tool {
	case "step_begin":
		return p.stepBegin(ctx, call, in, nameArgs, what)
	case "step_skip":
		// Takes the seq of a call the replayed step's function made.
		if r, ok := p.replayed[call.Seq]; !ok || r.end || r.name != in.Name {
			return p.replayDivergence(ctx, call.Seq, fmt.Sprintf("a call of codemode.step(%q)'s function, replayed", in.Name))
		}
		return json.RawMessage(`{}`), nil
	case "step_end":
		return p.stepEnd(ctx, call, in, nameArgs, what)
	}
	return nil, fmt.Errorf("unknown tool %s.%s", call.Namespace, call.Tool)
}

// stepInput is what the SDK's codemode.step sends.
type stepInput struct {
	Name   string          `json:"name"`
	Token  uint64          `json:"token"`
	Value  json.RawMessage `json:"value"`
	Failed bool            `json:"failed"`
	Reason string          `json:"reason"` // why the step failed, when not a throw
}

// stepBegin answers the start of codemode.step: its recorded value when an
// earlier pass applied it (and how many seqs its calls took), else a
// token to run the function under.
func (p *pass) stepBegin(ctx context.Context, call client.ToolCall, in stepInput, nameArgs json.RawMessage, what string) (json.RawMessage, error) {
	if _, taken := p.replayed[call.Seq]; taken {
		return p.replayDivergence(ctx, call.Seq, what)
	}
	e, found := p.applied[call.Seq]
	if !found {
		var err error
		if e, found, err = p.store().Entry(ctx, p.h.name, p.id, call.Seq); err != nil {
			return p.fail(err)
		}
	}
	if found {
		if !isStepStart(e) || !bytes.Equal(e.Args, nameArgs) {
			return halt(&divergenceError{msg: fmt.Sprintf("replay divergence at step %d: expected %s.%s(%s), got codemode.step(%s)",
				call.Seq, e.Connector, e.Method, e.Args, nameArgs)})
		}
		if e.State == store.EntryApplied {
			p.h.log.Debug("durable: replay step", "execution", p.id, "seq", call.Seq, "name", in.Name)
			// The calls the function made took the seq numbers up to
			// its end: the program skips them (step_skip) so the calls
			// after the step keep theirs.
			skip, skipClock := uint64(0), 0
			var skipDraws, skipBytes uint64
			if end, ok := p.stepEnds[call.Seq]; ok {
				skip, skipClock, skipDraws, skipBytes = end.seq-call.Seq-1, end.Clock, end.Draws, end.Bytes
			}
			reply := map[string]any{"found": true, "skip": skip, "skipClock": skipClock, "skipDraws": skipDraws, "skipBytes": skipBytes}
			if e.Result != nil {
				reply["value"] = e.Result
			}
			return json.Marshal(reply)
		}
		// executing or error: an earlier pass did not record a value; run fn again.
		p.openStep(call.Seq, call)
		return json.Marshal(map[string]any{"found": false, "token": call.Seq})
	}
	entry := &store.Entry{Seq: call.Seq, Connector: stepConnector, Method: stepMethod, Args: nameArgs, State: store.EntryExecuting, UpdatedAt: now()}
	ok, err := p.insert(ctx, entry)
	if err != nil {
		return p.fail(err)
	}
	if !ok {
		return p.notRunning(ctx, what)
	}
	p.openStep(call.Seq, call)
	return json.Marshal(map[string]any{"found": false, "token": call.Seq})
}

// stepEnd records the end of a step the program ran: where it ended, when
// its function made calls or used the clock or random streams, then its
// value or failure (settleStep).
func (p *pass) stepEnd(ctx context.Context, call client.ToolCall, in stepInput, nameArgs json.RawMessage, what string) (json.RawMessage, error) {
	if in.Token == 0 {
		// The replayed path: the seq the step's end took.
		if r, ok := p.replayed[call.Seq]; !ok || !r.end || r.name != in.Name {
			return p.replayDivergence(ctx, call.Seq, fmt.Sprintf("the end of codemode.step(%q), replayed", in.Name))
		}
		return json.RawMessage(`{}`), nil
	}
	begin, open := p.closeStep(in.Token)
	if !open {
		return nil, fmt.Errorf("codemode.step: no step %q is open at %d", in.Name, in.Token)
	}
	e, found, err := p.store().Entry(ctx, p.h.name, p.id, in.Token)
	if err != nil {
		return p.fail(err)
	}
	if !found || !isStepStart(e) || !bytes.Equal(e.Args, nameArgs) || in.Token >= call.Seq {
		return nil, fmt.Errorf("codemode.step: no step %q is open at %d", in.Name, in.Token)
	}
	if clock, draws, rbytes := begin.since(call); (call.Seq > in.Token+1 || clock > 0 || draws > 0 || rbytes > 0) && !in.Failed {
		// The function made calls, read the clock or used the random
		// streams: record where the step ended (see stepEndMethod) and
		// what it used before the step's value, so a replay skips them
		// and the program's later values stay those of the first pass.
		endArgs, _ := json.Marshal(stepEnd{Name: in.Name, Begin: in.Token, Clock: clock, Draws: draws, Bytes: rbytes})
		end := &store.Entry{Seq: call.Seq, Connector: stepConnector, Method: stepEndMethod, Args: endArgs, State: store.EntryApplied, UpdatedAt: now()}
		ok, err := p.insert(ctx, end)
		if err != nil {
			return p.fail(err)
		}
		if !ok {
			prev, found, err := p.store().Entry(ctx, p.h.name, p.id, call.Seq)
			if err != nil {
				return p.fail(err)
			}
			if !found || prev.Method != stepEndMethod || !bytes.Equal(prev.Args, endArgs) {
				return p.notRunning(ctx, what)
			}
		}
	}
	return p.settleStep(ctx, in, what)
}

// settleStep records the value (or failure) of the step opened at
// in.Token.
func (p *pass) settleStep(ctx context.Context, in stepInput, what string) (json.RawMessage, error) {
	from := []store.EntryState{store.EntryExecuting, store.EntryError}
	failed := func(msg string) error {
		_, err := p.transition(context.WithoutCancel(ctx), in.Token, from, store.EntryError, store.EntryUpdate{At: now(), Error: &msg})
		return err
	}
	if in.Failed {
		msg := "the step's function threw"
		if in.Reason != "" {
			msg = truncate(in.Reason, 1000)
		}
		if err := failed(msg); err != nil {
			return p.fail(err)
		}
		return json.RawMessage(`{}`), nil
	}
	u := store.EntryUpdate{At: now()}
	var value json.RawMessage
	if len(in.Value) > 0 {
		var buf bytes.Buffer
		if err := json.Compact(&buf, in.Value); err != nil {
			err = fmt.Errorf("codemode.step(%q): the value is not JSON: %w", in.Name, err)
			if serr := failed(err.Error()); serr != nil {
				return p.fail(serr)
			}
			return nil, err
		}
		v := json.RawMessage(buf.Bytes())
		if err := checkDurable(fmt.Sprintf("result of step %q", in.Name), v); err != nil {
			if serr := failed(err.Error()); serr != nil {
				return p.fail(serr)
			}
			return halt(&endError{msg: err.Error()})
		}
		value, u.Result = v, v
	}
	ok, err := p.transition(ctx, in.Token, from, store.EntryApplied, u)
	if err != nil {
		return p.fail(err)
	}
	if !ok {
		return p.notRunning(ctx, what)
	}
	if value == nil {
		return json.RawMessage(`{}`), nil
	}
	return json.Marshal(map[string]any{"value": value})
}

// truncate returns s cut to at most n bytes, at a rune boundary, with "…"
// when it was cut.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// replayedError is a recorded connector failure given to the program
// again as it was (store.Entry.ErrorName and ErrorData), so that a program
// that tells failures apart by name, class or property (an HTTPError's
// status) takes the branch it took.
type replayedError struct {
	name, msg string
	data      json.RawMessage
}

func (e *replayedError) Error() string { return e.msg }

// ErrorName is the recorded name; "Error" for a failure recorded with
// properties and no name of its own, as the program saw it.
func (e *replayedError) ErrorName() string {
	if e.name == "" {
		return "Error"
	}
	return e.name
}

// ErrorProperties are the recorded properties; nil when they do not
// decode (recorded by this package from JSON it encoded, they do).
func (e *replayedError) ErrorProperties() map[string]any {
	var props map[string]any
	if json.Unmarshal(e.data, &props) != nil {
		return nil
	}
	return props
}

// replayedFailure is the error a replay rejects the call of entry e with:
// its recorded message, named and with the properties it had; a plain
// Error when it had neither (and for entries recorded before names were).
func replayedFailure(e *store.Entry) error {
	if e.ErrorName == "" && e.ErrorData == nil {
		return errors.New(e.Error)
	}
	return &replayedError{name: e.ErrorName, msg: e.Error, data: e.ErrorData}
}
