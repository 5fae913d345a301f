package client

import (
	"context"
	"errors"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/internal/callend"
	"github.com/codemode-go/codemode/internal/errname"
	"github.com/codemode-go/codemode/internal/spanattr"
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
	t := tp.Tracer(spanattr.Scope)
	ctx, span := t.Start(ctx, "codemode.execution", trace.WithAttributes(
		spanattr.ExecutionID.String(execID), spanattr.Driver.String(driverName(rt.Description()))))
	return ctx, &runTrace{tracer: t, span: span}
}

// validateInput records the program input's validation as the span
// "codemode.validate".
func (r *runTrace) validateInput(ctx context.Context, err error) {
	if r == nil {
		return
	}
	_, span := r.tracer.Start(ctx, "codemode.validate", trace.WithAttributes(spanattr.Validation.String("program input")))
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
		r.span.SetAttributes(spanattr.Outcome.String("error"))
		r.span.RecordError(err)
		r.span.SetStatus(codes.Error, err.Error())
	case out != nil:
		r.span.SetAttributes(spanattr.Outcome.String(string(out.Kind)))
		if out.Kind != Success && out.Error != nil {
			r.span.SetAttributes(spanattr.ErrorName.String(out.Error.Name))
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
		spanattr.ToolName.String(name), spanattr.ToolSeq.Int64(int64(call.Seq)), spanattr.ExecutionID.String(call.ExecutionID)))
}

// endTool ends a tool call's span with its error, if any: a schema
// violation names the check that failed (codemode.validation), and a
// panic's stack is the exception event's exception.stacktrace
// (OpenTelemetry semantic conventions, Exceptions).
func endTool(span trace.Span, err error) {
	if span == nil {
		return
	}
	end := callend.Completed
	switch _, halted := asHalt(err); {
	case halted:
		end = callend.Halted
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		end = callend.Cancelled
	case err != nil:
		end = callend.Failed
	}
	span.SetAttributes(spanattr.ToolEnd.String(end))
	if err != nil {
		var tv *contract.ValidationError
		if errors.As(err, &tv) && tv.Tool != "" {
			span.SetAttributes(spanattr.Validation.String(tv.Phase), attribute.String("error.type", string(errname.ToolValidation)))
		} else {
			span.SetAttributes(attribute.String("error.type", "tool_error"))
		}
		var opts []trace.EventOption
		var pe *PanicError
		if errors.As(err, &pe) {
			// The panic's own stack, not this function's (which
			// trace.WithStackTrace would record).
			opts = append(opts, trace.WithAttributes(attribute.String("exception.stacktrace", string(pe.Stack))))
		}
		span.RecordError(err, opts...)
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}
