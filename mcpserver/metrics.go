package mcpserver

import (
	"context"
	"fmt"

	"go.opentelemetry.io/otel/metric"

	"github.com/codemode-go/codemode/internal/spanattr"
)

// observeTurns registers the server's gauges with mp (Options.MeterProvider):
// codemode.mcp.programs.running (programs holding a turn) and
// codemode.mcp.programs.queued (programs waiting for one). Their
// callbacks live as long as mp does.
func (s *server) observeTurns(mp metric.MeterProvider) error {
	if mp == nil {
		return nil
	}
	m := mp.Meter(spanattr.Scope)
	running, err := m.Int64ObservableGauge("codemode.mcp.programs.running", metric.WithDescription("Programs of the code tool running now."), metric.WithUnit("{program}"))
	if err != nil {
		return fmt.Errorf("mcpserver: metrics: %w", err)
	}
	queued, err := m.Int64ObservableGauge("codemode.mcp.programs.queued", metric.WithDescription("Programs of the code tool waiting for a turn."), metric.WithUnit("{program}"))
	if err != nil {
		return fmt.Errorf("mcpserver: metrics: %w", err)
	}
	_, err = m.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		o.ObserveInt64(running, int64(len(s.turns.slots)))
		o.ObserveInt64(queued, s.turns.queued.Load())
		return nil
	}, running, queued)
	if err != nil {
		return fmt.Errorf("mcpserver: metrics: %w", err)
	}
	return nil
}
