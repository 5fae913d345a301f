package contract

import (
	"context"
	"encoding/json"
	"fmt"
)

// Policy is how a tool's calls are governed beyond their schemas: whether a
// person must approve a call before it runs, how a call is answered when an
// execution that recorded it runs again, and how an applied call is undone.
// It travels with the tool (Go function, tools-file command, MCP tool,
// OpenAPI operation alike), so every runner that can honour it does:
//
//   - A runner that records calls and can wait for a person stops before a
//     call that needs approval, and runs it once approved; on a later run
//     of the same execution it answers recorded calls by Replay, and it
//     undoes applied calls with Revert on request.
//   - A plain client (package client) records nothing: it asks its
//     RunOptions.Approve for a call that needs approval and refuses the call
//     when there is none; Replay and Revert do not apply.
//
// The zero Policy needs no approval, answers recorded calls from the record
// and has no revert.
type Policy struct {
	// RequiresApproval makes every call wait for a person's approval before
	// the handler runs.
	RequiresApproval bool
	// ApprovalFor, when set, decides per call instead of RequiresApproval:
	// it receives the call's validated input and reports whether this call
	// needs approval (an HTTP request's method, a path under a protected
	// folder). It must be deterministic and quick: it is asked again when
	// the call is answered from a record.
	ApprovalFor func(input json.RawMessage) bool
	// Replay is how a recorded call is answered when its execution runs
	// again: ReplayLog (the default) returns the recorded output without
	// calling the handler; ReplayReexecute records the call but not its
	// output and calls the handler again, for idempotent reads whose output
	// is large and cheap to get. ReplayReexecute cannot be combined with
	// approval (WithPolicy refuses it): the approved effect would happen
	// twice.
	Replay Replay
	// Revert, optional, undoes an applied call: it receives the
	// call's input and recorded output, in that order. TypedRevert adapts a
	// typed function.
	Revert func(ctx context.Context, input, output json.RawMessage) error
	// Idempotent says that running the call twice has the effect of running
	// it once: a call interrupted by a crash, whose effect is unknown, may
	// simply run again instead of being put to a person.
	Idempotent bool
	// Callers says who calls the tool: programs (the zero value), the model
	// directly (CallersModel: the MCP server lists it beside the code tool,
	// its declaration is left out of what programs see, and a program that
	// calls it gets a TypeError saying so), or both (CallersBoth). A tool
	// that needs approval is a natural direct tool: one call, one decision
	// in the client (the allowed_callers of OpenAI's and Anthropic's
	// programmatic tool calling:
	// https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/programmatic-tool-calling).
	Callers Callers
}

// Callers says who calls a tool (Policy.Callers).
type Callers string

// Who calls a tool, beside programs (the zero value "").
const (
	// CallersModel: the model calls the tool directly, programs never do.
	CallersModel Callers = "model"
	// CallersBoth: the model calls the tool directly, and programs call it
	// too.
	CallersBoth Callers = "both"
)

// Replay is a tool's replay policy (Policy.Replay).
type Replay string

// The replay policies. The zero value "" is ReplayLog.
const (
	// ReplayLog answers a recorded call with its recorded output.
	ReplayLog Replay = "log"
	// ReplayReexecute calls the handler again; the output is not recorded.
	ReplayReexecute Replay = "reexecute"
)

// NeedsApproval reports whether a call with this input needs a person's
// approval: ApprovalFor's answer when it is set, else RequiresApproval.
func (p Policy) NeedsApproval(input json.RawMessage) bool {
	if p.ApprovalFor != nil {
		return p.ApprovalFor(input)
	}
	return p.RequiresApproval
}

// mayNeedApproval reports whether some call may need approval.
func (p Policy) mayNeedApproval() bool { return p.RequiresApproval || p.ApprovalFor != nil }

// check returns an error for a policy no runner can honour: an unknown
// Replay or Callers, or ReplayReexecute with approval.
func (p Policy) check() error {
	switch p.Callers {
	case "", CallersModel, CallersBoth:
	default:
		return fmt.Errorf("callers %q is not %q or %q (or empty, for programs only)", p.Callers, CallersModel, CallersBoth)
	}
	switch p.Replay {
	case "", ReplayLog:
	case ReplayReexecute:
		if p.mayNeedApproval() {
			return fmt.Errorf("replay %q cannot be combined with approval: answering a recorded call again would apply the approved effect twice", ReplayReexecute)
		}
	default:
		return fmt.Errorf("replay %q is not %q or %q", p.Replay, ReplayLog, ReplayReexecute)
	}
	return nil
}

// Policy returns the tool's policy; the zero Policy when none was given.
func (t *Tool) Policy() Policy { return t.policy }

// WithPolicy returns a copy of the tool governed by p (replacing any
// policy it had); the tool itself is unchanged, so a tool shared between
// contracts keeps its own policy.
//
//	pay, err := contract.NewTool("pay", "Pay an invoice.", payInvoice)
//	pay, err = pay.WithPolicy(contract.Policy{RequiresApproval: true, Revert: contract.TypedRevert(refund)})
//
// It returns an error for a Replay other than "", ReplayLog and
// ReplayReexecute, for ReplayReexecute with approval, and for Callers
// other than "", CallersModel and CallersBoth.
func (t *Tool) WithPolicy(p Policy) (*Tool, error) {
	if err := p.check(); err != nil {
		return nil, fmt.Errorf("contract: tool %s: %w", t.name, err)
	}
	c := *t
	c.policy = p
	return &c, nil
}

// TypedRevert adapts a typed undo function to Policy.Revert: the recorded
// input and output are decoded into In and Out (an empty output leaves Out
// its zero value).
//
//	refund := func(ctx context.Context, in PayInput, out Receipt) error { return bank.Refund(ctx, out.ID) }
//	pay, err = pay.WithPolicy(contract.Policy{RequiresApproval: true, Revert: contract.TypedRevert(refund)})
func TypedRevert[In, Out any](fn func(ctx context.Context, input In, output Out) error) func(ctx context.Context, input, output json.RawMessage) error {
	return func(ctx context.Context, input, output json.RawMessage) error {
		var in In
		if err := json.Unmarshal(input, &in); err != nil {
			return fmt.Errorf("decoding the recorded input: %w", err)
		}
		var out Out
		if len(output) > 0 {
			if err := json.Unmarshal(output, &out); err != nil {
				return fmt.Errorf("decoding the recorded output: %w", err)
			}
		}
		return fn(ctx, in, out)
	}
}
