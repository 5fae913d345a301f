package client

import (
	"context"
	"errors"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/codemode-go/codemode/contract"
)

// TracerName is the instrumentation scope of the spans codemode records
// (RunOptions.TracerProvider, and the layers built on the client).
const TracerName = "github.com/codemode-go/codemode"

// Span attributes of a run (RunOptions.TracerProvider). The tool call
// span follows OpenTelemetry's GenAI conventions for tool execution
// (https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/#execute-tool-span):
// its name is "execute_tool {namespace.tool}" and gen_ai.tool.name holds
// namespace.tool.
const (
	AttrExecutionID = attribute.Key("codemode.execution.id")
	AttrDriver      = attribute.Key("codemode.driver")  // the first words of the executor's Description
	AttrOutcome     = attribute.Key("codemode.outcome") // success, program-failed, or error (the run returned an error)
	AttrErrorName   = attribute.Key("codemode.error.name")
	AttrToolName    = attribute.Key("gen_ai.tool.name")
	AttrToolSeq     = attribute.Key("codemode.tool.seq")
	AttrValidation  = attribute.Key("codemode.validation") // input or output: which schema check failed
)

// runTrace records one run's spans; a nil *runTrace records nothing.
type runTrace struct {
	tracer trace.Tracer
	span   trace.Span
}

// driverName is the first words of an executor's Description, up to its
// first parenthesis, colon or semicolon: "QuickJS-NG", "Node.js
// subprocess", "remote runner at unix:/run/r.sock".
func driverName(desc string) string {
	if i := strings.IndexAny(desc, "(:;"); i > 0 && !strings.HasPrefix(desc[i:], "://") {
		desc = desc[:i]
	}
	return strings.TrimSpace(desc)
}

// startRun starts the execution span "codemode.execution" when tp is set.
func startRun(ctx context.Context, tp trace.TracerProvider, execID string, rt Executor) (context.Context, *runTrace) {
	if tp == nil {
		return ctx, nil
	}
	t := tp.Tracer(TracerName)
	ctx, span := t.Start(ctx, "codemode.execution", trace.WithAttributes(
		AttrExecutionID.String(execID), AttrDriver.String(driverName(rt.Description()))))
	return ctx, &runTrace{tracer: t, span: span}
}

// validateInput records the program input's validation as the span
// "codemode.validate".
func (r *runTrace) validateInput(ctx context.Context, err error) {
	if r == nil {
		return
	}
	_, span := r.tracer.Start(ctx, "codemode.validate", trace.WithAttributes(AttrValidation.String("program input")))
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}

// end ends the execution span with the outcome.
func (r *runTrace) end(out *Outcome, err error) {
	if r == nil {
		return
	}
	switch {
	case err != nil:
		r.span.SetAttributes(AttrOutcome.String("error"))
		r.span.RecordError(err)
		r.span.SetStatus(codes.Error, err.Error())
	case out != nil:
		r.span.SetAttributes(AttrOutcome.String(string(out.Kind)))
		if out.Kind != Success && out.Error != nil {
			r.span.SetAttributes(AttrErrorName.String(out.Error.Name))
			r.span.SetStatus(codes.Error, out.Error.Name+": "+out.Error.Message)
		}
	}
	r.span.End()
}

// startTool starts a tool call's span, a child of the execution span.
func (r *runTrace) startTool(ctx context.Context, call ToolCall) (context.Context, trace.Span) {
	if r == nil {
		return ctx, nil
	}
	ctx = trace.ContextWithSpan(ctx, r.span)
	name := call.Namespace + "." + call.Tool
	return r.tracer.Start(ctx, "execute_tool "+name, trace.WithAttributes(
		attribute.String("gen_ai.operation.name", "execute_tool"),
		AttrToolName.String(name), AttrToolSeq.Int64(int64(call.Seq)), AttrExecutionID.String(call.ExecutionID)))
}

// endTool ends a tool call's span with its error, if any: a schema
// violation names the check that failed (codemode.validation).
func endTool(span trace.Span, err error) {
	if span == nil {
		return
	}
	if err != nil {
		var tv *contract.ToolValidationError
		if errors.As(err, &tv) {
			span.SetAttributes(AttrValidation.String(tv.Phase), attribute.String("error.type", string(contract.ErrorToolValidation)))
		} else {
			span.SetAttributes(attribute.String("error.type", "tool_error"))
		}
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}
