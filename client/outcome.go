package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"sort"
	"strings"

	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/internal/wire"
)

// OutcomeKind says how a program ended.
type OutcomeKind string

// The outcome kinds (RunOutcome in https://github.com/torkbot/code-mode#outcomes-cancellation-and-telemetry).
const (
	Success       OutcomeKind = "success"
	ProgramFailed OutcomeKind = "program-failed"
)

// ProgramError is the error a failed program ended with: the JavaScript
// error's name, message and stack (bounded by the runner: name 200, message
// 8,192, stack 16,384 characters), with stack positions in the submitted
// source's coordinates.
type ProgramError struct {
	Name    string `json:"name"`
	Message string `json:"message"`
	Stack   string `json:"stack,omitempty"`
	// Properties is the JSON object of the error's own, enumerable
	// properties, name, message and stack aside (a QuotaError's
	// {"limit":100,"retryAfterSeconds":30}, which a tool's error arrives
	// with): those JSON can hold, at most 2,048 characters of them (the
	// runner leaves out a property that is undefined, a function, a class
	// instance or a cycle, or that would pass the bound). Nil when there
	// are none, and from a runner older than wire protocol 1.7.
	Properties json.RawMessage `json:"properties,omitempty"`

	// excerpt is where the program failed, "  at agent.ts:L:C" and the
	// source's lines around it, when the stack names a place in it.
	excerpt string
	// cpuLimit says the runner ended the execution for its CPU time limit
	// (the result's wire.Message.CPULimit, which a program cannot set).
	cpuLimit bool
}

// Error returns "name: message".
func (e *ProgramError) Error() string { return e.Name + ": " + e.Message }

// ErrCPUTimeLimit is what a ProgramError wraps when the execution passed
// its CPU time limit (Limits.CPUTime):
//
//	if errors.Is(outcome.Error, client.ErrCPUTimeLimit) { ... }
//
// The error is a TimeoutError whose message names the CPU time limit; a
// deadline's TimeoutError names the deadline and wraps nothing. Only the
// runner's own mark on the result (wire protocol 1.5, cpuLimit) makes a
// ProgramError wrap it: a program that throws a TimeoutError with the same
// message does not. A runner older than 1.5 never marks one.
var ErrCPUTimeLimit = errors.New("codemode: the execution's CPU time limit was exceeded")

// Unwrap returns ErrCPUTimeLimit for an execution the runner ended for its
// CPU time limit, and nil otherwise.
func (e *ProgramError) Unwrap() error {
	if e.cpuLimit {
		return ErrCPUTimeLimit
	}
	return nil
}

// Text is the error as an agent reads it: "name: message", then its
// Properties on a line of their own when it has any that the message does
// not already say (a string property whose text is in the message, such as
// an HTTPError's method, path and body, is left out: {"status":404}), then,
// when the stack names a place in the program, "  at agent.ts:LINE:COLUMN"
// and the program's lines around it, with a caret under the column.
func (e *ProgramError) Text() string {
	text := e.Error()
	if props := propertiesBeyond(e.Properties, e.Message); props != "" {
		text += "\n" + props
	}
	if e.excerpt != "" {
		text += "\n" + e.excerpt
	}
	return text
}

// Outcome is the result of one run: Kind Success with Content (never nil;
// empty when the program appended nothing), or Kind ProgramFailed with
// Error.
type Outcome struct {
	Kind    OutcomeKind        `json:"kind"`
	Content []contract.Content `json:"content,omitempty"`
	Error   *ProgramError      `json:"error,omitempty"`
	// Halt is the error a Middleware or tool handler ended the execution
	// with (see Halt), for errors.As; nil otherwise. Error then carries its
	// name and message.
	Halt error `json:"-"`
	// Value is the JSON of what the program's default export resolved to,
	// for Kind Success; nil when it resolved to undefined (a value JSON
	// cannot carry fails the run with a TypeError instead).
	Value json.RawMessage `json:"value,omitempty"`
	// Clock holds the values Date.now(), new Date() and Date() gave the
	// program, in order (ms since the Unix epoch). Pass them as
	// RunOptions.Clock, with the same RunOptions.Seed, to replay the run's
	// time and randomness.
	Clock []float64 `json:"clock,omitempty"`
	// SessionLost names the bindings a program run in a Session declared
	// or changed that the session could not keep, each with why ("m (a
	// Map)"), sorted; nil outside sessions and when nothing was lost.
	SessionLost []string `json:"sessionLost,omitempty"`
}

func outcomeOf(m *wire.Message) *Outcome {
	if m.Outcome == wire.OutcomeSuccess {
		c := make([]contract.Content, len(m.Content))
		for i, x := range m.Content {
			c[i] = contract.Content{Type: x.Type, Text: x.Text, Data: x.Data, MimeType: x.MimeType}
		}
		return &Outcome{Kind: Success, Content: c, Value: json.RawMessage(m.Value), Clock: m.Clock}
	}
	e := &ProgramError{Name: m.Error.Name, Message: m.Error.Message, Stack: m.Error.Stack, cpuLimit: m.CPULimit}
	if len(m.Error.Data) > 0 {
		e.Properties = json.RawMessage(m.Error.Data)
	}
	return &Outcome{Kind: ProgramFailed, Error: e, Clock: m.Clock}
}

func sortedKeys(m map[string][]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// ValueText renders the outcome's Value for a person or a model: a JSON
// string as its text, any other JSON indented by two spaces. ok is false
// when there is no value.
func (o *Outcome) ValueText() (text string, ok bool) {
	if len(o.Value) == 0 {
		return "", false
	}
	if json.Unmarshal(o.Value, &text) == nil {
		return text, true
	}
	var buf bytes.Buffer
	if json.Indent(&buf, o.Value, "", "  ") != nil {
		return string(o.Value), true
	}
	return buf.String(), true
}

// propertiesBeyond is props, a JSON object, without the members whose
// value is a non-empty string that message holds, in props' order; "" when
// no member is left, and props as it is when it is not an object.
func propertiesBeyond(props json.RawMessage, message string) string {
	if len(props) == 0 {
		return ""
	}
	dec := json.NewDecoder(bytes.NewReader(props))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return string(props)
	}
	var b strings.Builder
	for dec.More() {
		k, err := dec.Token()
		var v json.RawMessage
		if err == nil {
			err = dec.Decode(&v)
		}
		if err != nil {
			return string(props)
		}
		var str string
		if json.Unmarshal(v, &str) == nil && str != "" && strings.Contains(message, str) {
			continue
		}
		key, _ := json.Marshal(k)
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.Write(key)
		b.WriteByte(':')
		b.Write(v)
	}
	if b.Len() == 0 {
		return ""
	}
	return "{" + b.String() + "}"
}
