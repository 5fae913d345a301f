// Package spanattr holds the span attribute keys codemode's packages
// record (client runs, durable passes), so that each is spelt once. The
// tool call span follows OpenTelemetry's GenAI conventions for tool
// execution
// (https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/#execute-tool-span):
// its name is "execute_tool {namespace.tool}" and gen_ai.tool.name holds
// namespace.tool.
package spanattr

import "go.opentelemetry.io/otel/attribute"

// Scope is the instrumentation scope of codemode's spans and metrics
// (client.RunOptions.TracerProvider and MeterProvider, and the layers
// built on the client).
const Scope = "github.com/codemode-go/codemode"

// Span attribute keys.
const (
	ExecutionID = attribute.Key("codemode.execution.id")
	Driver      = attribute.Key("codemode.driver")  // the first words of the executor's Description
	Outcome     = attribute.Key("codemode.outcome") // success, program-failed, or error (the run returned an error)
	ErrorName   = attribute.Key("codemode.error.name")
	ToolName    = attribute.Key("gen_ai.tool.name")
	ToolSeq     = attribute.Key("codemode.tool.seq")
	Validation  = attribute.Key("codemode.validation") // input or output: which schema check failed
	ToolEnd     = attribute.Key("codemode.tool.end")   // how the call ended: completed, failed, cancelled, halted
)
