package client

import (
	"encoding/json"
	"sync"
	"time"
)

// EventKind names a telemetry event (seed 002, "Outcomes, cancellation, and
// telemetry").
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
// an observer can never change a run.
type telemetry struct {
	fn func(Event)
	mu sync.Mutex
}

func (t *telemetry) emit(e Event) {
	if t.fn == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	defer func() { _ = recover() }()
	t.fn(e)
}
