package codetool

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/typecheck"
)

// Status says how an execution stands in an Answer.
type Status string

// The answer statuses.
const (
	// StatusCompleted: the program finished; Value and Content hold what it
	// produced.
	StatusCompleted Status = "completed"
	// StatusPaused: the program reached actions that wait for a person's
	// approval (Pending); only a Runner that is also an Approver pauses.
	StatusPaused Status = "paused"
	// StatusError: the program failed, or its execution could not go on
	// (Error says why).
	StatusError Status = "error"
)

// Answer is what the code tool answers for one program, whatever runs it:
// the same JSON from the Go adapters, the MCP server and the CLI's --json.
//
//	{"status":"completed","executionId":"…","value":…,"content":[…]?,"logs":[…]?}
//	{"status":"paused","executionId":"…","pending":[{"seq","connector","method","args"}],"logs":[…]?}
//	{"status":"error","executionId":"…","error":"…","logs":[…]?}
//
// executionId is left out only where no execution started (a program that
// does not type-check).
type Answer struct {
	Status      Status
	ExecutionID string
	// Value is, for StatusCompleted, the program's value as JSON (JSON null
	// when it returned undefined).
	Value json.RawMessage
	// Content is, for StatusCompleted, what the program appended with
	// result.appendText and result.appendImage, in order; nil when nothing
	// was.
	Content []contract.Content
	// Pending are, for StatusPaused, the actions awaiting approval.
	Pending []Pending
	// Error is, for StatusError, what went wrong: for a failed program its
	// error ("TypeError: …"), where in the code it failed and the lines
	// around that place.
	Error string
	// Logs is the program's console output, one entry per line; lines
	// written to stderr start with "[stderr] ".
	Logs []string
}

// Pending is an action awaiting approval: the call at Seq (the program's
// calls are numbered 1, 2, … in the order it made them) of
// Connector.Method with Args.
type Pending struct {
	Seq       uint64          `json:"seq"`
	Connector string          `json:"connector"`
	Method    string          `json:"method"`
	Args      json.RawMessage `json:"args"`
	// Uncertain: the action may have run already (its host died before
	// recording the outcome). A person says whether it happened instead
	// of approving it: it happened (the runner records it), run it again
	// (approve), or fail the run (reject).
	Uncertain bool `json:"uncertain,omitempty"`
}

// MarshalJSON encodes the variant for a.Status with only its fields (see
// Answer). Unlike json.Marshal's default, "<", ">" and "&" are kept as
// they are: the answer is read by a model and people, not embedded in
// HTML (json.Marshal of an Answer escapes them again; call this method for
// the plain form). It returns an error for an unknown status.
func (a Answer) MarshalJSON() ([]byte, error) {
	switch a.Status {
	case StatusCompleted:
		value := a.Value
		if len(bytes.TrimSpace(value)) == 0 {
			value = json.RawMessage("null")
		}
		return marshalPlain(struct {
			Status      Status             `json:"status"`
			ExecutionID string             `json:"executionId,omitempty"`
			Value       json.RawMessage    `json:"value"`
			Content     []contract.Content `json:"content,omitempty"`
			Logs        []string           `json:"logs,omitempty"`
		}{a.Status, a.ExecutionID, value, a.Content, a.Logs})
	case StatusPaused:
		pending := a.Pending
		if pending == nil {
			pending = []Pending{}
		}
		return marshalPlain(struct {
			Status      Status    `json:"status"`
			ExecutionID string    `json:"executionId,omitempty"`
			Pending     []Pending `json:"pending"`
			Logs        []string  `json:"logs,omitempty"`
		}{a.Status, a.ExecutionID, pending, a.Logs})
	case StatusError:
		return marshalPlain(struct {
			Status      Status   `json:"status"`
			ExecutionID string   `json:"executionId,omitempty"`
			Error       string   `json:"error"`
			Logs        []string `json:"logs,omitempty"`
		}{a.Status, a.ExecutionID, a.Error, a.Logs})
	}
	return nil, fmt.Errorf("codetool: answer status %q is not completed, paused or error", a.Status)
}

// UnmarshalJSON decodes any of the three variants; it returns an error for
// an unknown status.
func (a *Answer) UnmarshalJSON(data []byte) error {
	var v struct {
		Status      Status             `json:"status"`
		ExecutionID string             `json:"executionId,omitempty"`
		Value       json.RawMessage    `json:"value"`
		Content     []contract.Content `json:"content"`
		Pending     []Pending          `json:"pending"`
		Error       string             `json:"error"`
		Logs        []string           `json:"logs"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	switch v.Status {
	case StatusCompleted, StatusPaused, StatusError:
	default:
		return fmt.Errorf("codetool: answer status %q is not completed, paused or error", v.Status)
	}
	*a = Answer{Status: v.Status, ExecutionID: v.ExecutionID, Value: v.Value, Content: v.Content, Pending: v.Pending, Error: v.Error, Logs: v.Logs}
	return nil
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

// Runner runs the code tool's programs: a *client.Client (each program one
// execution) or a *durable.Handle (each program a recorded execution that
// may pause for approval). The code tool (New, whose Tool.Description
// describes it) and the MCP server (package mcpserver) take any Runner.
type Runner interface {
	// Execute runs code as models write it (a module with a default
	// export, a function expression, or statements whose last expression
	// is the value, optionally in a Markdown fence) and answers. A program
	// that fails is an answer (StatusError), not an error: the error is
	// for an answer that could not be made (the runtime or the journal
	// failed, ctx ended).
	Execute(ctx context.Context, code string) (Answer, error)
	// Contract is the contract programs run against: their namespaces and
	// tools.
	Contract() *contract.Contract
	// TypeDefinitions are the declarations programs are written against.
	TypeDefinitions() string
	// ValidateCode type-checks code as Execute runs it, with checker.
	ValidateCode(ctx context.Context, checker *typecheck.Checker, code string) (*typecheck.Result, error)
	// Environment describes where programs run, for an agent (a sandbox
	// without file system or network, or Node.js).
	Environment() string
}

// Approver is a Runner whose executions may pause for a person's approval
// (a *durable.Handle). The MCP server checks for it: with one it offers
// code_result and asks the person through the client (elicitation).
type Approver interface {
	Runner
	// Answer returns an execution's current answer without running
	// anything (completed, still paused, or error).
	Answer(ctx context.Context, executionID string) (Answer, error)
	// ApprovePending approves the actions seqs of a paused execution,
	// which must be exactly those it awaits, and continues it.
	ApprovePending(ctx context.Context, executionID string, seqs []uint64) (Answer, error)
	// Reject rejects the pending action seq, which ends the execution, and
	// reports whether that action was pending.
	Reject(ctx context.Context, executionID string, seq uint64) (bool, error)
}
