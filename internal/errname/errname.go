// Package errname lists the name property of every Error the runtime itself
// gives a program (a tool call's rejection, or the error of a program-failed
// outcome), in one place, for descriptions, documentation and the packages
// that produce them. docs/runner-protocol.md carries them as the error's name.
package errname

import (
	"encoding/json"
	"errors"
	"strings"

	"github.com/codemode-go/codemode/internal/wire"
)

// Name is the name property of an Error a program can see: one a tool call
// rejects with (the program can catch it), or the error of a program-failed
// outcome. [programErrors] lists every name the runtime itself produces; a
// tool handler's own error is an Error named "Error" unless it names itself
// (an ErrorName() string method; see package client).
type Name string

// The error names programs can see. docs/runner-protocol.md carries them as the
// error's name. A tool call's rejection is also an instance of the class of
// its name where there is one: the runner defines ToolValidation, MCPTool
// and HTTP as global classes (runner/src/core.ts, toolErrorClasses; the declarations
// declare them, internal/typegen), and typeError and rangeError are
// JavaScript's own.
const (
	// ToolValidation: a tool's input broke its input schema (the
	// handler did not run) or its output broke its output schema; the
	// message has one "JSON-pointer: message" line per failure.
	ToolValidation Name = "ToolValidationError"
	// MCPTool: an MCP server's tool answered with isError; the message
	// is its text (package connector/mcpconnector).
	MCPTool Name = "MCPToolError"
	// HTTP: an HTTP API answered with a status outside 2xx (package
	// connector/openapi); the Error's status, method, path and body are
	// properties of its own (wire.Error.Data).
	HTTP Name = "HTTPError"
	// typeError: a tool called with a value that is not JSON (a function, a
	// BigInt, a cycle, a Uint8Array or another object that is not plain:
	// "input.data is not a plain object (Uint8Array)"), bad content given to
	// result, a missing default export, or the program's own TypeError.
	typeError Name = "TypeError"
	// rangeError: a limit was reached (console output, content, the size of
	// a tool input or of the outcome), named in the message; also the
	// program's own RangeError (a stack overflow).
	rangeError Name = "RangeError"
	// Timeout: the execution's deadline passed, or no engine was free
	// before it, or the program used its CPU time limit; the message names
	// the limit (client.ErrCPUTimeLimit tells the last apart).
	Timeout Name = "TimeoutError"
	// internalError: the engine ran out of memory ("out of memory"), or the
	// program corrupted what the runner reports.
	internalError Name = "InternalError"
	// Halt: a tool-call middleware ended the execution (for example a
	// recording runner that stops to wait for a person's approval); the
	// program cannot catch it or continue past it.
	Halt Name = "HaltError"
	// runnerDraining: the remote runner host is shutting down and did
	// not start the execution (package drivers/remote); retrying elsewhere
	// is safe.
	runnerDraining Name = "RunnerDrainingError"
)

// errorInfo describes one [Name].
type errorInfo struct {
	Name Name
	// ToolCall is true when a tool call rejects with it, so the program can
	// catch it; otherwise it ends the program (a program-failed outcome).
	ToolCall bool
	// Meaning is one sentence for a reader (an agent or an embedder).
	Meaning string
}

// programErrors returns the error names the runtime produces, tool-call
// rejections first. The slice is new on each call.
func programErrors() []errorInfo {
	return []errorInfo{
		{ToolValidation, true, "the input breaks the tool's schema (the tool did not run), or its output breaks its output schema"},
		{MCPTool, true, "the MCP tool reported an error; the message is its text"},
		{HTTP, true, "the HTTP API answered with a status outside 2xx, in e.status"},
		{typeError, true, "the input is not JSON (a function, a BigInt, a cycle, or an object that is not plain such as a Uint8Array: pass bytes as base64 strings)"},
		{rangeError, false, "a limit was reached (console output, content, input or result size), named in the message"},
		{Timeout, false, "the execution's deadline or CPU time limit passed (the message says which)"},
		{internalError, false, "the program ran out of memory"},
		{Halt, false, "the host ended the execution (for example to wait for an approval)"},
		{runnerDraining, false, "the runner host is shutting down; the program did not start"},
	}
}

// Names returns every error name the runtime gives an error itself (a
// tool call's rejection or a program's failure), in the order of the
// package's constants; the slice is new on each call. Package typegen
// refuses them as the names of errors a tool declares.
func Names() []Name {
	all := programErrors()
	names := make([]Name, len(all))
	for i, e := range all {
		names[i] = e.Name
	}
	return names
}

// ToolCallText describes the tool-call rejections of
// [programErrors] on one line, for a tool description (the code tool of
// package mcpserver uses it):
//
//	ToolValidationError: the input breaks the tool's schema (...); MCPToolError: ...
func ToolCallText() string {
	var parts []string
	for _, e := range programErrors() {
		if e.ToolCall {
			parts = append(parts, string(e.Name)+": "+e.Meaning)
		}
	}
	return strings.Join(parts, "; ")
}

// Of is the name a program sees on the Error a tool call rejects with for
// err: the ErrorName() of the first error in err's chain (errors.As) that
// has that method, else fallback. Package client names a tool's failure
// with it; package durable records it with the failure, so that a replay
// rejects with the same name.
// A method that panics gives fallback: it runs in the host's goroutine
// that answers the call, outside the tool's own recover, where a panic
// would end the host's process.
func Of(err error, fallback string) (name string) {
	var n interface{ ErrorName() string }
	if errors.As(err, &n) {
		defer func() {
			if recover() != nil {
				name = fallback
			}
		}()
		return n.ErrorName()
	}
	return fallback
}

// Data is the JSON object of the properties err gives the Error a program
// sees (wire.Error.Data): the ErrorProperties() of the first error in err's
// chain that has that method, encoded; nil when there is none, when they
// are empty or do not encode, or when they would pass wire.MaxErrorData
// (the program then sees the name and message alone). Package client sends
// it with a tool's failure; package durable records it, so that a replay
// gives the same properties. A method that panics (ErrorProperties, or a
// MarshalJSON of a property) gives nil, as in Of.
func Data(err error) (data json.RawMessage) {
	var p interface{ ErrorProperties() map[string]any }
	if !errors.As(err, &p) {
		return nil
	}
	defer func() {
		if recover() != nil {
			data = nil
		}
	}()
	props := p.ErrorProperties()
	if len(props) == 0 {
		return nil
	}
	b, jerr := json.Marshal(props)
	if jerr != nil || len(b) > wire.MaxErrorData {
		return nil
	}
	return b
}
