package client

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/codemode-go/codemode/internal/spanattr"
)

// runMetrics records one run's metrics; its zero value records nothing.
type runMetrics struct {
	executions, calls      metric.Int64Counter
	duration, callDuration metric.Float64Histogram
	start                  time.Time
}

// startMetrics returns the instruments of mp (nil: none).
func startMetrics(mp metric.MeterProvider) runMetrics {
	if mp == nil {
		return runMetrics{}
	}
	m := mp.Meter(spanattr.Scope)
	// The SDK returns working no-op instruments with its error, so an
	// error here only means the metric is not recorded.
	executions, _ := m.Int64Counter("codemode.executions", metric.WithDescription("Program runs, by outcome."), metric.WithUnit("{execution}"))
	duration, _ := m.Float64Histogram("codemode.execution.duration", metric.WithDescription("How long each program run took."), metric.WithUnit("s"))
	calls, _ := m.Int64Counter("codemode.tool.calls", metric.WithDescription("Tool calls, by tool and how they ended."), metric.WithUnit("{call}"))
	callDuration, _ := m.Float64Histogram("codemode.tool.call.duration", metric.WithDescription("How long each tool call took."), metric.WithUnit("s"))
	return runMetrics{executions: executions, duration: duration, calls: calls, callDuration: callDuration, start: time.Now()}
}

// observe wraps a telemetry observer so that tool calls' terminal events
// are counted too.
func (m runMetrics) observe(fn func(Event)) func(Event) {
	if m.calls == nil {
		return fn
	}
	return func(e Event) {
		if e.Kind == EventToolCallCompleted || e.Kind == EventToolCallFailed {
			attrs := metric.WithAttributes(attribute.String("codemode.tool", e.Namespace+"."+e.Tool), attribute.String("codemode.tool.end", callEnd(e)))
			m.calls.Add(context.Background(), 1, attrs)
			if e.Duration > 0 {
				m.callDuration.Record(context.Background(), e.Duration.Seconds(), attrs)
			}
		}
		if fn != nil {
			fn(e)
		}
	}
}

// end records the run's outcome.
func (m runMetrics) end(out *Outcome, err error) {
	if m.executions == nil {
		return
	}
	outcome := "error"
	if err == nil && out != nil {
		outcome = string(out.Kind)
	}
	attrs := metric.WithAttributes(attribute.String("outcome", outcome))
	m.executions.Add(context.Background(), 1, attrs)
	m.duration.Record(context.Background(), time.Since(m.start).Seconds(), attrs)
}
