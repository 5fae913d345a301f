package durable

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/internal/spanattr"
)

// Span attributes of the journal (Options.TracerProvider), beside the
// client's (spanattr.ExecutionID, …).
const (
	// attrRuntime is the runtime name.
	attrRuntime = attribute.Key("codemode.durable.runtime")
	// attrStatus is the execution's durable status after the pass or
	// transition.
	attrStatus = attribute.Key("codemode.durable.status")
	// attrPass is the pass number (1 for Execute, one more per approval).
	attrPass = attribute.Key("codemode.durable.pass")
	// attrCall says what the journal did with a tool call, on its
	// "execute_tool" span: "executed" (the connector ran and its result was
	// recorded), "replayed" (the recorded result was returned without
	// calling the connector), "reexecuted" (a reexecute entry ran again),
	// "paused" (it awaits approval), "recorded-error" (a recorded failure
	// was returned again).
	attrCall = attribute.Key("codemode.durable.call")
	// attrReplayed is true when a tool call was answered from the journal.
	attrReplayed = attribute.Key("codemode.durable.replayed")
	// attrSeq is the tool log entry a transition is about (reject).
	attrSeq = attribute.Key("codemode.tool.seq")
	// attrCount is how many actions a rollback reverted, or how many
	// executions an expiry ended.
	attrCount = attribute.Key("codemode.durable.count")
)

// span starts a journal span (a no-op span without a TracerProvider).
func (h *Handle) span(ctx context.Context, name, id string, attrs ...attribute.KeyValue) (context.Context, trace.Span) {
	if h.opts.TracerProvider == nil {
		return ctx, trace.SpanFromContext(context.Background()) // non-recording
	}
	attrs = append(attrs, attrRuntime.String(h.name))
	if id != "" {
		attrs = append(attrs, spanattr.ExecutionID.String(id))
	}
	return h.opts.TracerProvider.Tracer(spanattr.Scope).Start(ctx, name, trace.WithAttributes(attrs...))
}

// endSpan ends a journal span with err, if any.
func endSpan(span trace.Span, err error) {
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}

// endPassSpan ends a pass span with the outcome and the durable status.
func endPassSpan(span trace.Span, out codetool.Answer, err error) {
	if out.Status != "" {
		span.SetAttributes(attrStatus.String(string(out.Status)))
		if out.Status == codetool.StatusError && err == nil {
			span.SetStatus(codes.Error, out.Error)
		}
	}
	endSpan(span, err)
}

// markCall records on a tool call's span what the journal did with it.
func markCall(ctx context.Context, how string) {
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() {
		return
	}
	span.SetAttributes(attrCall.String(how), attrReplayed.Bool(how == "replayed" || how == "recorded-error"))
}
