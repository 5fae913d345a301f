package client

import (
	"fmt"
	"runtime"
)

// maxPanicStack bounds the stack a PanicError keeps: a panic deep in a
// recursion would otherwise keep megabytes per failed call.
const maxPanicStack = 64 << 10

// PanicError is the error of a tool call whose handler or Middleware
// panicked: the call fails like any other, and the program reads Error()
// alone, "tool <namespace>.<tool> panicked: <value>". The stack is the
// embedder's, for telemetry: the tool-call-failed Event's Err, the error
// a Middleware's next returns, and the tool call's span (its exception
// event's exception.stacktrace) hold it; the program, the journal and the
// model never see it, since a Go stack names the host's files and
// functions.
//
//	var pe *client.PanicError
//	if errors.As(ev.Err, &pe) {
//		logger.Error("tool panicked", "tool", pe.Tool, "value", pe.Value, "stack", string(pe.Stack))
//	}
//
// # Notes
//   - It has no Unwrap, ErrorName or ErrorProperties: a panic's value that
//     is an error (a Halt's, a named one) neither halts the execution nor
//     names the program's Error; the program's Error is named "Error".
//   - Stack is runtime.Stack of the panicking goroutine taken as the panic
//     was recovered, so its first frames are the panic's; at most 64 KiB.
type PanicError struct {
	Namespace, Tool string
	Value           any    // what was passed to panic
	Stack           []byte // the panicking goroutine's stack, as runtime.Stack formats it
	msg             string
}

// Error is what the program reads: "tool <namespace>.<tool> panicked:
// <value>".
func (e *PanicError) Error() string { return e.msg }

// newPanicError is the PanicError of call, whose handler or middleware
// panicked with r; it must be called in the deferred function that
// recovered r, on the panicking goroutine, for the stack to be the
// panic's.
func newPanicError(call ToolCall, r any) *PanicError {
	buf := make([]byte, maxPanicStack)
	buf = buf[:runtime.Stack(buf, false)]
	return &PanicError{Namespace: call.Namespace, Tool: call.Tool, Value: r, Stack: buf,
		msg: fmt.Sprintf("tool %s.%s panicked: %v", call.Namespace, call.Tool, r)}
}
