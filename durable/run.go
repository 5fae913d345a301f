package durable

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/durable/store"
	"github.com/codemode-go/codemode/internal/loglines"
)

// runPassFrom runs one pass of e (status running, its lease taken by this
// handle at taken) and records how it ended. With a creation, e is new
// and the pass writes its record (see creation).
func (h *Handle) runPassFrom(ctx context.Context, e *store.Execution, taken time.Time, created *creation) (answer codetool.Answer, err error) {
	ctx, span := h.span(ctx, "codemode.durable.pass", e.ID, attrPass.Int(e.Passes))
	defer func() { endPassSpan(span, answer, err) }()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	p := h.newPass(e)
	p.lease = h.newLease(e.ID, taken, cancel)
	p.created = created
	created.arm(ctx, h, p.lease, cancel)
	var logs loglines.Lines
	opts := client.RunOptions{
		ExecutionID: e.ID,
		Middleware:  p.middleware,
		// The middleware pauses calls that need approval, and lets them
		// through once approved.
		Approve: func(context.Context, client.ToolCall) error { return nil },
		Limits:  h.opts.Limits,
		// The first pass's randomness and every time value observed so far:
		// a replay sees the same Math.random and Date.now() as the passes
		// before it, so a program that branches on them takes the same path.
		Seed:  e.Seed,
		Clock: e.Clock,
		// The recorded results of the calls the journal applied: the
		// runner answers them without a round trip, and the middleware
		// still checks each against the journal, in order, before the
		// program's next call is handled (client.RunOptions.Prefill).
		Prefill: p.prefill(),
		// Spans for the pass's execution and tool calls.
		TracerProvider: h.opts.TracerProvider,
		MeterProvider:  h.opts.MeterProvider,
		OnTelemetry: func(ev client.Event) {
			if ev.Kind == client.EventProgramOutput {
				logs.Add(ev.Stream, ev.Text)
			}
			p.noteEnd(ev)
		},
	}
	p.wctx = context.WithoutCancel(ctx)
	out, runErr := h.client.RunCode(ctx, e.Code, opts)
	written, err := created.claim()
	if err != nil {
		// The record could not be written: the program made no call
		// (each waits for it), and there is nothing to record its end in.
		return codetool.Answer{}, err
	}
	lost := p.lease.end()
	ctx = context.WithoutCancel(ctx) // the record is written even when the caller gave up
	end := &passEnd{h: h, id: e.ID, u: store.ExecutionUpdate{At: now(), Logs: logs.All(), Lease: &store.Lease{}}}
	if !written {
		end.unwritten = created
	}
	if end.u.Logs == nil {
		end.u.Logs = []string{}
	}
	if out != nil && len(out.Clock) > len(e.Clock) {
		end.u.Clock = out.Clock // the values replayed, then the new ones, in order
	}
	werr := p.endWrites(ctx, out)
	if lost {
		// The run goes on in the process that took it over: this pass
		// records nothing more about it.
		return codetool.Answer{}, fmt.Errorf("durable: execution %s: %w", e.ID, errLeaseLost)
	}
	if werr != nil {
		return end.failed(ctx, &storeError{werr})
	}
	if runErr != nil {
		a, err := end.finish(ctx, store.StatusError, "the pass did not finish: "+runErr.Error())
		if err != nil {
			return a, err
		}
		return a, fmt.Errorf("durable: execution %s: %w", e.ID, runErr)
	}
	return end.outcome(ctx, out)
}

// passEnd records how a pass ended: the execution's update, and the
// transition out of running.
type passEnd struct {
	h  *Handle
	id string
	u  store.ExecutionUpdate
	// unwritten is the creation of a record not written yet: the end
	// writes it whole (creation.ended).
	unwritten *creation
}

// record moves the execution from running to to with e.u, and reports
// whether it did (false: another process ended it first); an unwritten
// record is written in that state.
func (e *passEnd) record(ctx context.Context, to store.Status) (bool, error) {
	c := e.unwritten
	if c == nil {
		return e.h.store.TransitionExecution(ctx, e.h.name, e.id, []store.Status{store.StatusRunning}, to, e.u)
	}
	rec, keep := c.ended(to, e.u)
	if _, err := e.h.store.CreateExecution(ctx, e.h.name, rec, keep); err != nil {
		return false, err
	}
	e.h.pruneOlder(ctx, rec.CreatedAt)
	return true, nil
}

// outcome records the pass's outcome: a halt (a pause, the journal's own
// end of the run), a failed program, or the program's value.
func (e *passEnd) outcome(ctx context.Context, out *client.Outcome) (codetool.Answer, error) {
	if out.Halt != nil {
		var se *storeError
		if errors.As(out.Halt, &se) {
			return e.failed(ctx, se)
		}
		if errors.As(out.Halt, new(pauseSignal)) {
			return e.finish(ctx, store.StatusPaused, "")
		}
		return e.finish(ctx, store.StatusError, out.Halt.Error())
	}
	if out.Kind != client.Success {
		msg := "the program failed"
		if out.Error != nil {
			msg = out.Error.Text()
		}
		return e.finish(ctx, store.StatusError, msg)
	}
	return e.completed(ctx, out)
}

// failed records a pass whose journal failed as an error, and returns the
// failure too.
func (e *passEnd) failed(ctx context.Context, se *storeError) (codetool.Answer, error) {
	a, err := e.finish(ctx, store.StatusError, se.Error())
	if err != nil {
		return a, err
	}
	return a, se
}

// finish moves the execution from running to to (paused or error, with
// msg), and answers.
func (e *passEnd) finish(ctx context.Context, to store.Status, msg string) (codetool.Answer, error) {
	h := e.h
	if to == store.StatusError {
		e.u.Error = &msg
	}
	if to == store.StatusPaused {
		h.crash.reached("pause")
	}
	ok, err := e.record(ctx, to)
	if err != nil {
		return codetool.Answer{}, fmt.Errorf("durable: recording the end of the pass: %w", err)
	}
	if !ok {
		return h.current(ctx, e.id)
	}
	if to == store.StatusError {
		h.closePending(ctx, e.id, "not run: the execution ended in error")
	}
	h.hooks(ctx, e.id, to, true)
	if to == store.StatusPaused {
		pending, err := h.store.Pending(ctx, h.name, e.id)
		if err != nil {
			return codetool.Answer{}, fmt.Errorf("durable: %w", err)
		}
		return codetool.Answer{Status: codetool.StatusPaused, ExecutionID: e.id, Pending: answerPending(pending), Logs: e.u.Logs}, nil
	}
	return codetool.Answer{Status: codetool.StatusError, ExecutionID: e.id, Error: msg, Logs: e.u.Logs}, nil
}

// completed records a program's value (or a placeholder when it is too
// large to keep) and answers with it, through TransformResult.
func (e *passEnd) completed(ctx context.Context, out *client.Outcome) (codetool.Answer, error) {
	h := e.h
	value := out.Value
	if len(value) == 0 {
		value = json.RawMessage("null")
	}
	e.u.Value = value
	if err := checkDurable("result", value); err != nil {
		e.u.Value, _ = json.Marshal(fmt.Sprintf("[result omitted from the journal: %d characters of JSON, over the limit of %d; the model received it]", jsLength(value), store.MaxValueLength))
	}
	ok, err := e.record(ctx, store.StatusCompleted)
	if err != nil {
		return codetool.Answer{}, fmt.Errorf("durable: recording the end of the pass: %w", err)
	}
	if !ok {
		return h.current(ctx, e.id)
	}
	h.hooks(ctx, e.id, store.StatusCompleted, true)
	if h.opts.TransformResult != nil {
		t, err := h.opts.TransformResult(ctx, value)
		if err != nil {
			return codetool.Answer{Status: codetool.StatusError, ExecutionID: e.id, Error: "transforming the result: " + err.Error(), Logs: e.u.Logs}, nil
		}
		value = t
	}
	answer := codetool.Answer{Status: codetool.StatusCompleted, ExecutionID: e.id, Value: value, Logs: e.u.Logs}
	if len(out.Content) > 0 {
		answer.Content = out.Content
	}
	return answer, nil
}

// current answers from the journal's record when a pass could not record
// its own end (another process rejected or expired the run meanwhile).
func (h *Handle) current(ctx context.Context, id string) (codetool.Answer, error) {
	e, err := h.store.Execution(ctx, h.name, id)
	if err != nil {
		return codetool.Answer{}, fmt.Errorf("durable: %w", err)
	}
	switch e.Status {
	case store.StatusCompleted:
		return codetool.Answer{Status: codetool.StatusCompleted, ExecutionID: id, Value: e.Value, Logs: e.Logs}, nil
	case store.StatusPaused:
		pending, err := h.store.Pending(ctx, h.name, id)
		if err != nil {
			return codetool.Answer{}, fmt.Errorf("durable: %w", err)
		}
		return codetool.Answer{Status: codetool.StatusPaused, ExecutionID: id, Pending: answerPending(pending), Logs: e.Logs}, nil
	}
	h.hooks(ctx, id, e.Status, true)
	msg := e.Error
	if msg == "" {
		msg = "the execution is " + string(e.Status)
	}
	return codetool.Answer{Status: codetool.StatusError, ExecutionID: id, Error: msg, Logs: e.Logs}, nil
}
