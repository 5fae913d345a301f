package durable

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/typegen"
)

// Connector is a host service exposed to programs as one namespace: a
// connector named github with a tool list_pull_requests is called as
// `await github.list_pull_requests({...})`. The program never sees the
// connector's credentials or clients, only its tools.
//
// Connectors are configured anew by every process (their instances hold no
// journal state): approval and rollback in another process need a connector
// with the same name and tools.
type Connector struct {
	// Name is the namespace: a JavaScript identifier, unique among the
	// handle's connectors; "codemode" and names starting with "__" are
	// reserved.
	Name string
	// Instructions is optional guidance about the connector for the agent.
	Instructions string
	// Tools are the connector's methods; names are unique.
	Tools []ConnectorTool
	// Definitions, optional, are named types the Declared tools' schemas
	// refer to (contract.Namespace.Definitions): an OpenAPI description's
	// components, declared once by name.
	Definitions *typegen.Definitions
	// OnPassEnd, when set, is called after every pass (paused included),
	// with the pass's status, to release resources held for one pass. It
	// should be idempotent and keep no state in memory: a paused execution
	// may continue in another process. Its errors are ignored.
	OnPassEnd func(ctx context.Context, executionID string, status Status) error
	// DisposeExecution, when set, is called after a terminal transition
	// (completed, error, rejected, rolled_back; after OnPassEnd) to release
	// resources held for the whole execution. It must be idempotent (a
	// completed execution may later be rolled back and disposed again). Its
	// errors are ignored.
	DisposeExecution func(ctx context.Context, executionID string, status Status) error
}

// ConnectorTool is one connector method.
type ConnectorTool struct {
	// Name is the method name: a JavaScript identifier (see
	// contract.CheckToolName).
	Name string
	// Description becomes the method's documentation for the agent; not
	// empty.
	Description string
	// InputSchema and OutputSchema are JSON Schema texts; nil accepts an
	// open object as input and any JSON value as output.
	InputSchema, OutputSchema json.RawMessage
	// RequiresApproval pauses the execution before the method runs, until a
	// person approves or rejects it.
	RequiresApproval bool
	// ApprovalFor, when set, decides per call instead of RequiresApproval:
	// it receives the call's arguments (as the program passed them) and
	// reports whether this call pauses for approval, for a method whose
	// effect depends on its arguments (an HTTP request's method). It must
	// be deterministic: a replay asks again.
	ApprovalFor func(args json.RawMessage) bool
	// Declared marks InputSchema and OutputSchema as declarations only
	// (contract.NewDeclaredTool): the host does not validate against them,
	// and Execute checks its own arguments, reporting a bad one as a
	// *contract.ToolValidationError. Their fragment references resolve in
	// the connector's Definitions.
	Declared bool
	// Replay is the replay policy: ReplayLog (default) or ReplayReexecute.
	// ReplayReexecute with RequiresApproval is refused by New: replaying
	// would apply an approved effect twice.
	Replay Replay
	// Execute runs the method on validated JSON arguments and returns its
	// result as JSON. ExecutionIDFrom(ctx) gives the durable execution ID,
	// stable across passes, as a key for resources that span passes.
	Execute func(ctx context.Context, args json.RawMessage) (json.RawMessage, error)
	// Revert, optional, compensates an applied call during a rollback: it
	// receives the call's arguments and recorded result.
	Revert func(ctx context.Context, args, result json.RawMessage) error
}

// FuncTool defines a connector method from a Go function: the input and
// output schemas are reflected from In and Out as contract.NewTool does
// (structs closed, fields without omitempty required), arguments are decoded
// into In and the result encoded from Out.
//
//	list, err := durable.FuncTool("list_pull_requests", "Open pull requests of a repository.",
//		func(ctx context.Context, in ListInput) ([]PullRequest, error) { … })
//
// It returns an error for an invalid name, an empty description, a nil fn or
// a type without a JSON Schema. Set RequiresApproval, Replay and Revert on
// the result (FuncRevert makes a typed Revert).
func FuncTool[In, Out any](name, description string, fn func(ctx context.Context, input In) (Out, error)) (ConnectorTool, error) {
	t, err := contract.NewTool(name, description, fn)
	if err != nil {
		return ConnectorTool{}, fmt.Errorf("durable: %w", err)
	}
	return ConnectorTool{
		Name:         name,
		Description:  description,
		InputSchema:  t.InputSchema().JSON(),
		OutputSchema: t.OutputSchema().JSON(),
		Execute:      t.Invoke,
	}, nil
}

// FuncRevert adapts a typed compensation to ConnectorTool.Revert: the
// recorded arguments and result are decoded into In and Out.
func FuncRevert[In, Out any](fn func(ctx context.Context, input In, result Out) error) func(ctx context.Context, args, result json.RawMessage) error {
	return func(ctx context.Context, args, result json.RawMessage) error {
		var in In
		if err := json.Unmarshal(args, &in); err != nil {
			return fmt.Errorf("decoding the recorded arguments: %w", err)
		}
		var out Out
		if len(result) > 0 {
			if err := json.Unmarshal(result, &out); err != nil {
				return fmt.Errorf("decoding the recorded result: %w", err)
			}
		}
		return fn(ctx, in, out)
	}
}

var identifier = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)

// sdkNamespace is the contract namespace of the durable layer's own host
// tools (codemode.step's two halves); programs reach it only through the
// codemode object the prelude defines.
const sdkNamespace = "__codemode"

// checkConnectors validates the connector set.
func checkConnectors(cs []Connector) error {
	seen := map[string]bool{}
	for i, c := range cs {
		switch {
		case !identifier.MatchString(c.Name):
			return fmt.Errorf("durable: connector %d: name %q is not a JavaScript identifier", i, c.Name)
		case c.Name == StepConnector || strings.HasPrefix(c.Name, "__"):
			return fmt.Errorf("durable: connector name %q is reserved (codemode and names starting with __)", c.Name)
		case c.Name == "input" || c.Name == "console" || c.Name == "result":
			return fmt.Errorf("durable: connector name %q is reserved by the program scope", c.Name)
		case seen[c.Name]:
			return fmt.Errorf("durable: two connectors are named %s", c.Name)
		}
		seen[c.Name] = true
		tools := map[string]bool{}
		for _, t := range c.Tools {
			if err := contract.CheckToolName(t.Name); err != nil {
				return fmt.Errorf("durable: connector %s: %w", c.Name, err)
			}
			if tools[t.Name] {
				return fmt.Errorf("durable: connector %s: two tools are named %s", c.Name, t.Name)
			}
			tools[t.Name] = true
			switch t.Replay {
			case "", ReplayLog:
			case ReplayReexecute:
				if t.RequiresApproval || t.ApprovalFor != nil {
					return fmt.Errorf("durable: %s.%s: replay %q cannot be combined with requiresApproval: a replay would apply the approved effect again", c.Name, t.Name, ReplayReexecute)
				}
			default:
				return fmt.Errorf("durable: %s.%s: replay %q is not %q or %q", c.Name, t.Name, t.Replay, ReplayLog, ReplayReexecute)
			}
			if t.Execute == nil {
				return fmt.Errorf("durable: %s.%s: Execute is nil", c.Name, t.Name)
			}
		}
	}
	return nil
}

type executionIDKey struct{}

// ExecutionIDFrom returns the durable execution ID a connector method,
// revert or hook runs for, or "" outside one.
func ExecutionIDFrom(ctx context.Context) string {
	id, _ := ctx.Value(executionIDKey{}).(string)
	return id
}

func withExecutionID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, executionIDKey{}, id)
}
