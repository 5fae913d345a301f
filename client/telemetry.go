package client

import (
	"encoding/json"
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
	EventToolCallCompleted  EventKind = "tool-call-completed" // … Output, Duration
	EventToolCallFailed     EventKind = "tool-call-failed"    // … Err, Duration
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
}

// telemetry delivers events one at a time and swallows callback panics, so
// an observer can never change a run. The terminal event (execution
// completed or failed) is the last: events of tool calls the program left
// unawaited, which end after it, are not delivered.
type telemetry struct {
	fn   func(Event)
	mu   sync.Mutex
	done bool
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
	if e.Kind == EventExecutionCompleted || e.Kind == EventExecutionFailed {
		t.done = true
	}
	defer func() { _ = recover() }()
	t.fn(e)
}
