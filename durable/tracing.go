package durable

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/codemode-go/codemode/client"
)

// Revertible reports whether connector.method is configured on this handle
// with a Revert, so that an applied call of it can be rolled back here.
func (h *Handle) Revertible(connector, method string) bool {
	t := h.tools[connector][method]
	return t != nil && t.Revert != nil
}

// Configured reports whether a connector of that name is configured on
// this handle (approving or rolling back a run needs every connector it
// started with).
func (h *Handle) Configured(connector string) bool { return h.byName[connector] != nil }

// Span attributes of the journal (Options.TracerProvider), beside the
// client's (client.AttrExecutionID, …).
const (
	// AttrRuntime is the runtime name.
	AttrRuntime = attribute.Key("codemode.durable.runtime")
	// AttrStatus is the execution's durable status after the pass or
	// transition.
	AttrStatus = attribute.Key("codemode.durable.status")
	// AttrPass is the pass number (1 for Execute, one more per approval).
	AttrPass = attribute.Key("codemode.durable.pass")
	// AttrCall says what the journal did with a tool call, on its
	// "execute_tool" span: "executed" (the connector ran and its result was
	// recorded), "replayed" (the recorded result was returned without
	// calling the connector), "reexecuted" (a reexecute entry ran again),
	// "paused" (it awaits approval), "recorded-error" (a recorded failure
	// was returned again).
	AttrCall = attribute.Key("codemode.durable.call")
	// AttrReplayed is true when a tool call was answered from the journal.
	AttrReplayed = attribute.Key("codemode.durable.replayed")
	// AttrSeq is the tool log entry a transition is about (reject).
	AttrSeq = attribute.Key("codemode.tool.seq")
	// AttrCount is how many actions a rollback reverted, or how many
	// executions an expiry ended.
	AttrCount = attribute.Key("codemode.durable.count")
)

// span starts a journal span (a no-op span without a TracerProvider).
func (h *Handle) span(ctx context.Context, name, id string, attrs ...attribute.KeyValue) (context.Context, trace.Span) {
	if h.opts.TracerProvider == nil {
		return ctx, trace.SpanFromContext(context.Background()) // non-recording
	}
	attrs = append(attrs, AttrRuntime.String(h.name))
	if id != "" {
		attrs = append(attrs, client.AttrExecutionID.String(id))
	}
	return h.opts.TracerProvider.Tracer(client.TracerName).Start(ctx, name, trace.WithAttributes(attrs...))
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
func endPassSpan(span trace.Span, out Output, err error) {
	if out.Status != "" {
		st := StatusCompleted
		switch out.Status {
		case OutputPaused:
			st = StatusPaused
		case OutputError:
			st = StatusError
		}
		span.SetAttributes(AttrStatus.String(string(st)))
		if out.Status == OutputError && err == nil {
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
	span.SetAttributes(AttrCall.String(how), AttrReplayed.Bool(how == "replayed" || how == "recorded-error"))
}
