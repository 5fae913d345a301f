package client

import (
	"context"
	"encoding/json"
	"errors"
)

// ToolCaller runs one tool call and returns its output as JSON. The
// innermost ToolCaller of a run invokes the contract's tool handler; a
// Middleware wraps it, as net/http middleware wraps a Handler.
type ToolCaller func(ctx context.Context, call ToolCall) (json.RawMessage, error)

// Middleware wraps every tool call of a run (RunOptions.Middleware): a
// recorder, an approval gate, an audit log, a rate limit. It sees the call
// after its input passed the tool's input schema, and what it returns is
// checked against the tool's output schema afterwards, so validation stays
// outside its reach. It may answer without calling next (a recorded result),
// fail the call with an error the program can catch, or end the whole
// execution with Halt. The context ends when the execution ends: a call
// still in flight then sees ctx.Done(), so a recorder can note it as
// ended.
//
//	logCalls := func(next client.ToolCaller) client.ToolCaller {
//		return func(ctx context.Context, call client.ToolCall) (json.RawMessage, error) {
//			log.Printf("%s #%d %s.%s", call.ExecutionID, call.Seq, call.Namespace, call.Tool)
//			return next(ctx, call)
//		}
//	}
type Middleware func(next ToolCaller) ToolCaller

// Chain composes middleware: the first is the outermost. Nil entries are
// skipped; Chain() is nil.
func Chain(ms ...Middleware) Middleware {
	var live []Middleware
	for _, m := range ms {
		if m != nil {
			live = append(live, m)
		}
	}
	if len(live) == 0 {
		return nil
	}
	return func(next ToolCaller) ToolCaller {
		for i := len(live) - 1; i >= 0; i-- {
			next = live[i](next)
		}
		return next
	}
}

type callKey struct{}

// CallFromContext returns the tool call a handler or middleware is serving:
// the execution ID, seq, namespace, tool and validated input. ok is false
// outside a tool call.
func CallFromContext(ctx context.Context) (call ToolCall, ok bool) {
	call, ok = ctx.Value(callKey{}).(ToolCall)
	return call, ok
}

func withCall(ctx context.Context, call ToolCall) context.Context {
	return context.WithValue(ctx, callKey{}, call)
}

// Halt wraps err so that returning it from a Middleware or a tool handler
// ends the execution at once: the program cannot catch it or continue past
// it, the runner is told to stop the execution, and Run returns a
// ProgramFailed outcome whose Halt field is err (test it with errors.As or
// errors.Is) and whose Error is named by err's ErrorName method, else
// "HaltError". A halt is not a cancellation: the runtime is not probed, and
// other executions carry on. A recording runner halts to stop a run that
// waits for a person's approval. Halt(nil) is nil.
func Halt(err error) error {
	if err == nil {
		return nil
	}
	return &haltError{Err: err}
}

// haltError is the error Halt returns; Err is the error the execution ends
// with.
type haltError struct{ Err error }

// Error returns Err's message.
func (e *haltError) Error() string { return e.Err.Error() }

// Unwrap returns Err.
func (e *haltError) Unwrap() error { return e.Err }

// asHalt finds a haltError in err's chain.
func asHalt(err error) (*haltError, bool) {
	var h *haltError
	if errors.As(err, &h) {
		return h, true
	}
	return nil, false
}
