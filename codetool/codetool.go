package codetool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/codemode-go/codemode/internal/answercut"
	"github.com/codemode-go/codemode/internal/coderun"
	"github.com/codemode-go/codemode/internal/defaults"
	"github.com/codemode-go/codemode/internal/runctx"
	"github.com/codemode-go/codemode/typecheck"
)

// Name is the code tool's name, as the MCP server of this module also
// calls it.
const Name = "code"

// InputSchema is the JSON Schema of the code tool's arguments: an object
// with one required, non-empty string property, code.
const InputSchema = `{"type":"object","properties":{"code":{"type":"string","minLength":1,"description":"The TypeScript program: statements with top-level await whose last expression is the answer, an async arrow function, or a module with a default export."}},"required":["code"],"additionalProperties":false}`

// Tool is the code tool as a Go agent program hands it to a model: the
// descriptor the model sees and Call, which runs the model's arguments.
// Adapters in codetool/openaitool and codetool/anthropictool turn it into
// those SDKs' tool types. It is safe for concurrent use.
type Tool struct {
	Name string // Name ("code")
	// Description is Options.Description when given (with its
	// placeholders filled), else one that says what the tool does, lists
	// the namespaces with a hint each and the codemode SDK, shows an
	// example, says what a pause means when the runner is an Approver,
	// gives the answer's shape, and, in full mode, every declaration. In
	// discover mode the declarations are a codemode.describe away, so a
	// catalogue of thousands of tools costs a few hundred tokens here.
	Description string
	InputSchema json.RawMessage // InputSchema

	runner   Runner
	checker  *typecheck.Checker
	approve  func(ctx context.Context, code string) error
	maxChars int // the answer's budget (Options.MaxTokens), 0 for none
}

// New returns the code tool over r (a *client.Client or a
// *durable.Handle). It returns an error for a hint that names no namespace
// of r's contract, or that holds a newline, and for Options.Sessions over a
// runner whose executions pause (an Approver: durable runs replay their
// program from the start, so bindings cannot be carried in).
//
//	tool, err := codetool.New(cl, codetool.Options{Hints: map[string]string{"github": "issues of acme/*"}})
//	…
//	answer, err := tool.Call(ctx, toolCall.Arguments) // the answer's JSON, for the model
func New(r Runner, opts Options) (*Tool, error) {
	if _, pauses := r.(Approver); pauses && opts.Sessions {
		return nil, errors.New("codetool: Options.Sessions needs a runner whose executions do not pause (a *client.Client): a durable run replays its program from the start on every pass, and bindings carried in from outside its journal would make the replays differ")
	}
	desc, err := description(r, opts)
	if err != nil {
		return nil, err
	}
	maxChars := defaults.MCPMaxTokens * 4
	switch {
	case opts.MaxTokens > 0:
		maxChars = opts.MaxTokens * 4
	case opts.MaxTokens < 0:
		maxChars = 0
	}
	return &Tool{Name: Name, Description: desc, InputSchema: json.RawMessage(InputSchema), runner: r, checker: opts.Checker, approve: opts.ApproveProgram, maxChars: maxChars}, nil
}

// WithSession returns ctx with key naming the session the code tool's
// program continues: on a *client.Client runner, the top-level
// declarations of the programs run with the same key stay defined for
// the next ones (see client.Session; each key has its own session, with
// the bounds of the client's default RunOptions.Session). Keys are the
// host's: give each tenant, conversation or MCP session its own, never
// one to two of them. A durable runner refuses sessions.
func WithSession(ctx context.Context, key string) context.Context {
	return runctx.WithSession(ctx, key)
}

// ArgumentsError is arguments that are not the code tool's input: not a
// JSON object, code missing, not a string or empty, or a property other
// than code. Adapters answer it to the model as an error result so that it
// can correct the call.
type ArgumentsError struct {
	Reason string // what is wrong, e.g. `"code" is missing`
}

// Error says what is wrong and what the tool takes.
func (e *ArgumentsError) Error() string {
	return fmt.Sprintf(`codetool: bad arguments: %s; the code tool takes {"code": "<TypeScript program>"}`, e.Reason)
}

// Call decodes argumentsJSON ({"code": "…"}), type-checks the code when the
// tool has a checker, runs it and returns the Answer's JSON, cut to the
// budget of Options.MaxTokens (6,000 estimated tokens by default): cut
// structurally, it stays valid JSON, and markers say what was left out
// (a value's "… 4997 more items", a long string's "… [N more
// characters]", "…": "1 more key: logs"), so that a program that returns
// or prints a great deal does not fill the model's context. A program that
// does not type-check is answered as an error naming the compiler's
// diagnostics, and nothing runs. It returns an *ArgumentsError for
// arguments that are not the tool's input (nothing runs), and the runner's
// error when no answer could be made; a program that fails is an answer,
// not an error. An adapter whose SDK flags failed results reads the
// answer's status (Answer.UnmarshalJSON): StatusError is a failure, a
// paused execution is not.
func (t *Tool) Call(ctx context.Context, argumentsJSON json.RawMessage) (json.RawMessage, error) {
	code, reason := coderun.Code(argumentsJSON)
	if reason != "" {
		return nil, &ArgumentsError{Reason: reason}
	}
	if t.approve != nil {
		ctx = runctx.WithProgramApprover(ctx, t.approve)
	}
	answer, err := coderun.Run(ctx, t.runner, t.checker, code, refused)
	if err != nil {
		return nil, err
	}
	text, err := answer.MarshalJSON()
	if err != nil || t.maxChars == 0 {
		return text, err
	}
	return json.RawMessage(answercut.Cut(string(text), t.maxChars)), nil
}

// refused is the answer for a program that did not start: one that does
// not type-check, or that a person did not approve (message says which).
func refused(message string) Answer {
	return Answer{Status: StatusError, Error: message}
}
