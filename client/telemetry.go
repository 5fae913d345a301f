package client

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/codemode-go/codemode/internal/callend"
	"github.com/codemode-go/codemode/internal/errname"
)

// EventKind names a telemetry event
// (https://github.com/torkbot/code-mode#outcomes-cancellation-and-telemetry).
type EventKind string

// The telemetry events.
const (
	EventProgramOutput      EventKind = "program-output"      // Stream, Text
	EventToolCallStarted    EventKind = "tool-call-started"   // Namespace, Tool, Seq, Input
	EventToolCallCompleted  EventKind = "tool-call-completed" // … Output, Duration
	EventToolCallFailed     EventKind = "tool-call-failed"    // … Err (how it ended: see Event), Duration
	EventExecutionCompleted EventKind = "execution-completed" // Outcome (a copy)
	EventExecutionFailed    EventKind = "execution-failed"    // Err: input validation, cancellation or transport
)

// Event is one observation of a run. Which fields are set depends on Kind.
//
// Every tool call the host admitted gets exactly one terminal event
// (EventToolCallCompleted or EventToolCallFailed) before the execution's
// own terminal event, so a UI or an audit can account for each, abandoned
// ones included. On EventToolCallFailed, Err says how the call ended; test
// it with errors.Is, in this order:
//   - ErrRuntimeFailed or ErrRuntimeClosed: the runtime was lost while
//     the call was in flight.
//   - context.Canceled: the program ended before the call finished (it
//     never awaited it, the run was cancelled, or another call halted the
//     execution): the call was abandoned.
//   - context.DeadlineExceeded: the execution passed its deadline
//     (Limits.Timeout) while the call was in flight.
//   - otherwise the call failed: it was refused (unknown tool, bad input),
//     or its handler, a Middleware or the output check failed; an error
//     made by Halt is one that halted the execution; a *PanicError is a
//     handler's or Middleware's panic, with the panic's stack (errors.As),
//     which the program's error does not hold.
//
// An error of the first three kinds reads "the execution ended while the
// call was in flight", with the run's error or the reason. A handler's own
// error may wrap a context error too (a request's own timeout): a caller
// that must tell it apart notes, in a Middleware, whether the call's
// context (which ends with the execution) had ended when the handler
// returned.
type Event struct {
	Kind      EventKind
	Stream    string // "stdout" or "stderr"
	Text      string
	Namespace string
	Tool      string
	Seq       uint64
	Input     json.RawMessage
	Output    json.RawMessage
	Duration  time.Duration
	Outcome   *Outcome
	Err       error
}

// telemetry delivers events one at a time and swallows callback panics, so
// an observer can never change a run. The terminal event (execution
// completed or failed) is the last: a tool call still in flight then gets
// its terminal event first (endInFlight), and its own later end is not
// delivered.
type telemetry struct {
	fn         func(Event)
	mu         sync.Mutex
	done       bool
	callsEnded bool             // endInFlight ran: no tool-call event follows
	inFlight   map[uint64]Event // started calls without their terminal event, by seq
}

func (t *telemetry) emit(e Event) {
	if t.fn == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.done {
		return
	}
	switch e.Kind {
	case EventExecutionCompleted, EventExecutionFailed:
		t.done = true
	case EventToolCallStarted, EventToolCallCompleted, EventToolCallFailed:
		if t.callsEnded {
			return // its terminal event went out with the execution's end
		}
	}
	switch e.Kind {
	case EventToolCallStarted:
		if t.inFlight == nil {
			t.inFlight = map[uint64]Event{}
		}
		t.inFlight[e.Seq] = e
	case EventToolCallCompleted, EventToolCallFailed:
		delete(t.inFlight, e.Seq)
	}
	t.deliver(e)
}

// admit notes a call the runtime admitted, so that it gets a terminal
// event even if its run ends before the call starts.
func (t *telemetry) admit(call ToolCall) {
	if t.fn == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.inFlight == nil {
		t.inFlight = map[uint64]Event{}
	}
	if _, ok := t.inFlight[call.Seq]; !ok && !t.callsEnded {
		t.inFlight[call.Seq] = Event{Namespace: call.Namespace, Tool: call.Tool, Seq: call.Seq, Input: call.Input}
	}
}

// deliver calls the observer, swallowing its panic.
func (t *telemetry) deliver(e Event) {
	defer func() { _ = recover() }()
	t.fn(e)
}

// endInFlight gives every call still in flight its terminal event, failed
// with err (an *inFlightError), in seq order, before the execution's own
// terminal event.
func (t *telemetry) endInFlight(err error) {
	if t.fn == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.done {
		return
	}
	for _, seq := range slices.Sorted(maps.Keys(t.inFlight)) {
		e := t.inFlight[seq]
		e.Kind, e.Err, e.Duration = EventToolCallFailed, err, 0
		t.deliver(e)
	}
	t.inFlight, t.callsEnded = nil, true
}

// inFlightError is the Err of the terminal event of a call still in flight
// when its execution ended (see Event): end is how the call ended, in the
// words of internal/callend; err is the run's error, if any; cause is the
// sentinel errors.Is finds (context.Canceled, context.DeadlineExceeded),
// nil when err says it (a lost runtime).
type inFlightError struct {
	end   string
	err   error
	cause error
}

func (e *inFlightError) Error() string {
	if e.err != nil {
		return "the execution ended while the call was in flight: " + e.err.Error()
	}
	return "the execution ended while the call was in flight (" + e.end + ")"
}

func (e *inFlightError) Unwrap() []error {
	var errs []error
	for _, err := range []error{e.err, e.cause} {
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// endOfInFlight is how the calls still in flight at an execution's end
// ended: with the runtime, the deadline or a halt, else abandoned (the
// program never awaited them, or the run was cancelled).
func endOfInFlight(out *Outcome, err error) *inFlightError {
	switch {
	case errors.Is(err, ErrRuntimeFailed), errors.Is(err, ErrRuntimeClosed):
		return &inFlightError{end: callend.Runtime, err: err}
	case err != nil:
		return &inFlightError{end: callend.Cancelled, err: err, cause: context.Canceled}
	case out.Halt != nil:
		return &inFlightError{end: callend.Halted, cause: context.Canceled}
	case out.Error != nil && out.Error.Name == string(errname.Timeout):
		return &inFlightError{end: callend.Timeout, cause: context.DeadlineExceeded}
	}
	return &inFlightError{end: callend.Cancelled, cause: context.Canceled}
}

// callEnd is how the call of a terminal event ended, in the words of
// internal/callend (the metrics' and spans' codemode.tool.end).
func callEnd(e Event) string {
	var inFlight *inFlightError
	switch _, halted := asHalt(e.Err); {
	case e.Kind == EventToolCallCompleted:
		return callend.Completed
	case errors.As(e.Err, &inFlight):
		return inFlight.end
	case halted:
		return callend.Halted
	}
	return callend.Failed
}
