package client

import (
	"encoding/json"
	"maps"
	"slices"
	"sync"
	"time"
)

// EventKind names a telemetry event
// (https://github.com/torkbot/code-mode#outcomes-cancellation-and-telemetry).
type EventKind string

// The telemetry events.
const (
	EventProgramOutput      EventKind = "program-output"      // Stream, Text
	EventToolCallStarted    EventKind = "tool-call-started"   // Namespace, Tool, Seq, Input
	EventToolCallCompleted  EventKind = "tool-call-completed" // … Output, Duration, End
	EventToolCallFailed     EventKind = "tool-call-failed"    // … Err, Duration, End
	EventExecutionCompleted EventKind = "execution-completed" // Outcome (a copy)
	EventExecutionFailed    EventKind = "execution-failed"    // Err: input validation, cancellation or transport
)

// Event is one observation of a run. Which fields are set depends on Kind.
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
	// End is how a tool call ended, on its one terminal event
	// (EventToolCallCompleted or EventToolCallFailed): every call the host
	// admitted gets exactly one, before the execution's own terminal event,
	// so a UI or an audit can account for each, abandoned ones included.
	End CallEnd
}

// CallEnd is how a tool call ended (Event.End).
type CallEnd string

// How tool calls end.
const (
	CallCompleted CallEnd = "completed"           // the handler answered, and the answer passed the output schema
	CallFailed    CallEnd = "failed"              // refused (unknown tool, bad input), or the handler or the output check failed
	CallCancelled CallEnd = "cancelled"           // the execution ended first (the program never awaited it, or was cancelled)
	CallTimeout   CallEnd = "timeout"             // in flight when the execution passed its deadline
	CallRuntime   CallEnd = "runtime_unavailable" // in flight when the runtime failed or closed
	CallHalted    CallEnd = "halted"              // the call halted the execution, or was in flight when another did
)

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
// with end and err, in seq order, before the execution's own terminal
// event.
func (t *telemetry) endInFlight(end CallEnd, err error) {
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
		e.Kind, e.End, e.Err, e.Duration = EventToolCallFailed, end, err, 0
		t.deliver(e)
	}
	t.inFlight, t.callsEnded = nil, true
}
