package durable

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/codemode-go/codemode/client"
)

// Constants of the durable runtime (Cloudflare Code Mode API reference,
// "DEFAULT_MAX_EXECUTIONS", "DEFAULT_PAUSED_TTL_MS", "MAX_DURABLE_VALUE_BYTES").
const (
	// DefaultMaxExecutions is how many terminal executions a runtime keeps
	// when a new one starts (Options.MaxExecutions when zero).
	DefaultMaxExecutions = 50
	// DefaultPausedTTL is the default age after which ExpirePaused ends a
	// paused or stale running execution: 24 hours.
	DefaultPausedTTL = 24 * 60 * 60 * 1000 // milliseconds
	// MaxDurableValueLength is the largest durable value (connector
	// arguments, recorded results, step results, the execution's code), in
	// UTF-16 code units of its JSON text, as JavaScript measures a string's
	// length.
	MaxDurableValueLength = 1_000_000
	// DefaultName is the runtime name when Options.Name is empty.
	DefaultName = "default"
)

// Status is an execution's state.
type Status string

// The execution states. Running and Paused are not terminal; the others are.
const (
	StatusRunning    Status = "running"
	StatusPaused     Status = "paused"
	StatusCompleted  Status = "completed"
	StatusError      Status = "error"
	StatusRejected   Status = "rejected"
	StatusRolledBack Status = "rolled_back"
)

// Terminal reports whether s is an end state (completed, error, rejected,
// rolled_back): such executions may be pruned and never run again.
func (s Status) Terminal() bool {
	switch s {
	case StatusCompleted, StatusError, StatusRejected, StatusRolledBack:
		return true
	}
	return false
}

// Valid reports whether s is one of the six states.
func (s Status) Valid() bool { return s == StatusRunning || s == StatusPaused || s.Terminal() }

// EntryState is the state of one tool log entry.
type EntryState string

// The entry states. An entry is executing from just before its connector is
// called until its result is recorded (a crash in between leaves it
// executing, as evidence); pending while it awaits approval; applied once
// its result is recorded; reverted after a rollback; error when the
// connector failed or the action was rejected.
const (
	EntryExecuting EntryState = "executing"
	EntryApplied   EntryState = "applied"
	EntryPending   EntryState = "pending"
	EntryReverted  EntryState = "reverted"
	EntryError     EntryState = "error"
)

// Replay is a connector tool's replay policy.
type Replay string

// The replay policies.
const (
	// ReplayLog (the default, also the zero value "") records the result and
	// returns it on later passes without calling the connector.
	ReplayLog Replay = "log"
	// ReplayReexecute records the call's sequence and arguments but not its
	// result: later passes call the connector again. For idempotent reads
	// with large, cheap results only; not allowed with RequiresApproval.
	ReplayReexecute Replay = "reexecute"
)

// StepConnector and StepMethod name a codemode.step entry in the tool log:
// connector "codemode", method "step", arguments {"name": …}. A step whose
// function made tool calls (connector calls or nested steps) also has an
// entry StepEndMethod at the seq its end took, arguments {"name": …,
// "begin": the step's seq}: on replay the step's function does not run, and
// the entry tells the pass how many seq numbers the calls inside it took,
// so that the calls after the step keep theirs.
const (
	StepConnector = "codemode"
	StepMethod    = "step"
	StepEndMethod = "step_end"
)

// Execution is the audit record of one execution (Cloudflare's
// ExecutionState).
type Execution struct {
	ID         string          `json:"id"`
	Code       string          `json:"code"`
	Status     Status          `json:"status"`
	Log        []ToolLogEntry  `json:"log"`
	Result     json.RawMessage `json:"result,omitempty"` // the completed value as JSON, or a placeholder when too large
	Error      string          `json:"error,omitempty"`
	Logs       []string        `json:"logs,omitempty"`       // console output lines
	Connectors []string        `json:"connectors,omitempty"` // every connector configured when the run started
	CreatedAt  int64           `json:"createdAt"`            // Unix milliseconds
	UpdatedAt  int64           `json:"updatedAt"`            // Unix milliseconds
	// Seed is the 16-byte seed of Math.random and crypto randomness, chosen
	// by the first pass and given to every later pass.
	Seed []byte `json:"seed,omitempty"`
	// Clock holds the Date.now()/new Date() values the passes observed, in
	// order; later passes receive them back.
	Clock []float64 `json:"clock,omitempty"`
	// Passes counts the passes started (1 after Execute; approvals add one).
	Passes int `json:"passes"`
}

// ToolLogEntry is one connector call or codemode.step in an execution's
// journal.
type ToolLogEntry struct {
	Seq              uint64          `json:"seq"`
	Connector        string          `json:"connector"`
	Method           string          `json:"method"`
	Args             json.RawMessage `json:"args"`
	Result           json.RawMessage `json:"result,omitempty"`
	Error            string          `json:"error,omitempty"` // the connector's error, for state error
	RequiresApproval bool            `json:"requiresApproval"`
	Ephemeral        bool            `json:"ephemeral,omitempty"` // a reexecute entry: no result is kept
	State            EntryState      `json:"state"`
	UpdatedAt        int64           `json:"updatedAt"` // Unix milliseconds
}

// IsStep reports whether the entry records a codemode.step (its start, or
// the end of a step that made calls inside): not a connector call.
func (e *ToolLogEntry) IsStep() bool {
	return e.Connector == StepConnector && (e.Method == StepMethod || e.Method == StepEndMethod)
}

func (e *ToolLogEntry) isStepStart() bool {
	return e.Connector == StepConnector && e.Method == StepMethod
}

// PendingAction is an action awaiting approval.
type PendingAction struct {
	ExecutionID string          `json:"executionId"`
	Seq         uint64          `json:"seq"`
	Connector   string          `json:"connector"`
	Method      string          `json:"method"`
	Args        json.RawMessage `json:"args"`
}

// OutputStatus is the kind of an Output.
type OutputStatus string

// The output kinds.
const (
	OutputCompleted OutputStatus = "completed"
	OutputPaused    OutputStatus = "paused"
	OutputError     OutputStatus = "error"
)

// Output is what an execution or an approval answers (Cloudflare's
// ProxyToolOutput): completed with the result and the console lines, paused
// with the pending actions, or error with the message and the console
// lines. Its JSON is that of the API reference, with one optional field
// the reference leaves open: "content" on a completed output.
type Output struct {
	Status      OutputStatus
	ExecutionID string
	Result      json.RawMessage // completed: the value as JSON (null when the program returned undefined)
	// Content is, for completed, what the program appended with
	// result.appendText and result.appendImage, in call order, on the pass
	// that completed (it is not recorded in the journal: an output read
	// back from the journal has none). Nil when nothing was appended.
	Content []client.Content
	Pending []PendingAction // paused
	Error   string          // error
	// Logs is the pass's console output, one entry per line: for
	// completed and error the whole pass, for paused the lines written
	// before the pause (a replay writes them again).
	Logs []string
}

// MarshalJSON encodes the variant for o.Status with only its fields:
// {"status":"completed","executionId",…,"result",…,"content"?,"logs"?},
// {"status":"paused","executionId",…,"pending":[…],"logs"?} or
// {"status":"error","executionId",…,"error",…,"logs"?}. Unlike
// json.Marshal's default, "<", ">" and "&" are kept as they are (the
// answer is read by a model and people, not embedded in HTML); json.Marshal
// of an Output escapes them again, so call this method for the plain form.
func (o Output) MarshalJSON() ([]byte, error) {
	switch o.Status {
	case OutputCompleted:
		res := o.Result
		if len(res) == 0 {
			res = json.RawMessage("null")
		}
		return marshalPlain(struct {
			Status      OutputStatus     `json:"status"`
			ExecutionID string           `json:"executionId"`
			Result      json.RawMessage  `json:"result"`
			Content     []client.Content `json:"content,omitempty"`
			Logs        []string         `json:"logs,omitempty"`
		}{o.Status, o.ExecutionID, res, o.Content, o.Logs})
	case OutputPaused:
		p := o.Pending
		if p == nil {
			p = []PendingAction{}
		}
		return marshalPlain(struct {
			Status      OutputStatus    `json:"status"`
			ExecutionID string          `json:"executionId"`
			Pending     []PendingAction `json:"pending"`
			Logs        []string        `json:"logs,omitempty"`
		}{o.Status, o.ExecutionID, p, o.Logs})
	case OutputError:
		return marshalPlain(struct {
			Status      OutputStatus `json:"status"`
			ExecutionID string       `json:"executionId"`
			Error       string       `json:"error"`
			Logs        []string     `json:"logs,omitempty"`
		}{o.Status, o.ExecutionID, o.Error, o.Logs})
	}
	return nil, fmt.Errorf("durable: output status %q is not completed, paused or error", o.Status)
}

// marshalPlain is json.Marshal without HTML escaping.
func marshalPlain(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// UnmarshalJSON decodes any of the three variants.
func (o *Output) UnmarshalJSON(data []byte) error {
	var v struct {
		Status      OutputStatus     `json:"status"`
		ExecutionID string           `json:"executionId"`
		Result      json.RawMessage  `json:"result"`
		Content     []client.Content `json:"content"`
		Pending     []PendingAction  `json:"pending"`
		Error       string           `json:"error"`
		Logs        []string         `json:"logs"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	switch v.Status {
	case OutputCompleted, OutputPaused, OutputError:
	default:
		return fmt.Errorf("durable: output status %q is not completed, paused or error", v.Status)
	}
	*o = Output{Status: v.Status, ExecutionID: v.ExecutionID, Result: v.Result, Content: v.Content, Pending: v.Pending, Error: v.Error, Logs: v.Logs}
	return nil
}

var runtimeName = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

// CheckName reports whether name can name a runtime: one or more letters,
// digits, '_', '-' or '.', at most 128 characters.
func CheckName(name string) error {
	if !runtimeName.MatchString(name) || len(name) > 128 {
		return fmt.Errorf("durable: runtime name %q: use 1 to 128 letters, digits, '_', '-' or '.'", name)
	}
	return nil
}

// jsLength is the length JavaScript reports for s: UTF-16 code units.
func jsLength(s []byte) int {
	if utf8.Valid(s) {
		n := 0
		for _, r := range string(s) {
			n += utf16.RuneLen(r)
		}
		return n
	}
	return len(s)
}

// ValueTooLargeError is a durable value over MaxDurableValueLength: it
// fails the execution, since truncating it would replay different data.
type ValueTooLargeError struct {
	What   string // "arguments of github.create_issue", "result of …", "step t", "code"
	Length int    // its length in UTF-16 code units of JSON text
}

// Error advises storing the data elsewhere.
func (e *ValueTooLargeError) Error() string {
	return fmt.Sprintf("durable value too large: the %s is %d characters of JSON, over the limit of %d; store the data elsewhere (a file, an object store) and pass a small reference such as its path",
		e.What, e.Length, MaxDurableValueLength)
}

// checkDurable returns a *ValueTooLargeError when v is over the limit.
func checkDurable(what string, v []byte) error {
	if len(v) <= MaxDurableValueLength {
		return nil // UTF-16 length never exceeds the UTF-8 byte length
	}
	if n := jsLength(v); n > MaxDurableValueLength {
		return &ValueTooLargeError{What: what, Length: n}
	}
	return nil
}
