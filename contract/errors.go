package contract

import "strings"

// ErrorName is the name property of an Error a program can see: one a tool
// call rejects with (the program can catch it), or the error of a
// program-failed outcome. [programErrors] lists every name the runtime
// itself produces, in one place, for descriptions and documentation; a tool
// handler's own error is an Error named "Error" unless it names itself
// (client.ErrorNamer).
type ErrorName string

// The error names programs can see. docs/runner-protocol.md carries them as the
// error's name.
const (
	// ErrorToolValidation: a tool's input broke its input schema (the
	// handler did not run) or its output broke its output schema; the
	// message has one "JSON-pointer: message" line per failure.
	ErrorToolValidation ErrorName = "ToolValidationError"
	// ErrorMCPTool: an MCP server's tool answered with isError; the message
	// is its text (package connector/mcpconnector).
	ErrorMCPTool ErrorName = "MCPToolError"
	// errorType: a tool called with a value that is not JSON (a function, a
	// BigInt, a cycle, a Uint8Array or another object that is not plain:
	// "input.data is not a plain object (Uint8Array)"), bad content given to
	// result, a missing default export, or the program's own TypeError.
	errorType ErrorName = "TypeError"
	// errorRange: a limit was reached (console output, content, the size of
	// a tool input or of the outcome), named in the message; also the
	// program's own RangeError (a stack overflow).
	errorRange ErrorName = "RangeError"
	// ErrorTimeout: the execution's deadline passed, or no engine was free
	// before it; the message names the limit.
	ErrorTimeout ErrorName = "TimeoutError"
	// errorInternal: the engine ran out of memory ("out of memory"), or the
	// program corrupted what the runner reports.
	errorInternal ErrorName = "InternalError"
	// ErrorHalt: a tool-call middleware ended the execution (for example a
	// recording runner that stops to wait for a person's approval); the
	// program cannot catch it or continue past it.
	ErrorHalt ErrorName = "HaltError"
	// errorRunnerDraining: the remote runner host is shutting down and did
	// not start the execution (package drivers/remote); retrying elsewhere
	// is safe.
	errorRunnerDraining ErrorName = "RunnerDrainingError"
)

// errorInfo describes one [ErrorName].
type errorInfo struct {
	Name ErrorName
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
		{ErrorToolValidation, true, "the input breaks the tool's schema (the tool did not run), or its output breaks its output schema"},
		{ErrorMCPTool, true, "the MCP tool reported an error; the message is its text"},
		{errorType, true, "the input is not JSON (a function, a BigInt, a cycle, or an object that is not plain such as a Uint8Array: pass bytes as base64 strings)"},
		{errorRange, false, "a limit was reached (console output, content, input or result size), named in the message"},
		{ErrorTimeout, false, "the execution's deadline passed"},
		{errorInternal, false, "the program ran out of memory"},
		{ErrorHalt, false, "the host ended the execution (for example to wait for an approval)"},
		{errorRunnerDraining, false, "the runner host is shutting down; the program did not start"},
	}
}

// ToolCallErrorsText describes the tool-call rejections of
// [programErrors] on one line, for a tool description (the code tool of
// package mcpserver uses it):
//
//	ToolValidationError: the input breaks the tool's schema (...); MCPToolError: ...
func ToolCallErrorsText() string {
	var parts []string
	for _, e := range programErrors() {
		if e.ToolCall {
			parts = append(parts, string(e.Name)+": "+e.Meaning)
		}
	}
	return strings.Join(parts, "; ")
}
