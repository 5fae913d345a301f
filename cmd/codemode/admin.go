package main

import (
	"context"
	"flag"
	"fmt"
	"net"

	"go.opentelemetry.io/otel/metric"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/durable"
	"github.com/codemode-go/codemode/internal/ops"
	"github.com/codemode-go/codemode/internal/runnerhost"
	"github.com/codemode-go/codemode/internal/spanattr"
)

// adminFlags are the operator endpoint of a long-running command: --admin
// serves /healthz, /readyz and /metrics.
type adminFlags struct {
	addr    string
	metrics *ops.Metrics // set by start: --admin, or OTLP metric export
}

func (a *adminFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&a.addr, "admin", "", "serve /healthz, /readyz and /metrics (Prometheus text format) on this address, e.g. 127.0.0.1:9464; metrics also go out over OTLP when OTEL_EXPORTER_OTLP_ENDPOINT is set")
}

// start builds the meter provider when --admin or the OTLP environment
// asks for metrics; stop flushes it.
func (a *adminFlags) start(ctx context.Context) (stop func(), err error) {
	if a.addr == "" && !ops.OTLPWanted() {
		return func() {}, nil
	}
	if a.metrics, err = ops.NewMetrics(ctx); err != nil {
		return nil, err
	}
	return func() { _ = a.metrics.Shutdown(context.WithoutCancel(ctx)) }, nil
}

// withMetrics is run with the meter provider, if any.
func (a *adminFlags) withMetrics(run client.RunOptions) client.RunOptions {
	if a.metrics != nil {
		run.MeterProvider = a.metrics.Provider
	}
	return run
}

// serve serves the endpoint with checks (nothing without --admin) and
// says where on logf.
func (a *adminFlags) serve(checks []ops.Check, logf func(string, ...any)) (stop func(), err error) {
	if a.addr == "" {
		return func() {}, nil
	}
	var kept []ops.Check
	for _, c := range checks {
		if c.Ready != nil {
			kept = append(kept, c)
		}
	}
	addr, stop, err := ops.Serve(a.addr, ops.Handler(kept, a.metrics), logf)
	if err != nil {
		return nil, usageError{"--admin: " + err.Error()}
	}
	if host, _, _ := net.SplitHostPort(addr); !net.ParseIP(host).IsLoopback() {
		logf("warning: the admin endpoint on %s is reachable beyond this machine; /metrics names tools and /readyz names upstream servers: restrict it to the cluster (or listen on 127.0.0.1)", addr)
	}
	logf("health, readiness and metrics on http://%s (/healthz, /readyz, /metrics)", addr)
	return stop, nil
}

// runtimeCheck is ready while the runtime runs a trivial execution: a
// pool over runner hosts whose hosts are all down is not (a pool replaces
// failed runners, so its Err stays nil).
func runtimeCheck(ex client.Executor) ops.Check {
	rt, ok := ex.(*client.Runtime)
	if !ok {
		return ops.Check{Name: "runtime"} // no programs run here
	}
	return ops.Check{Name: "runtime", Ready: func(ctx context.Context) error {
		if err := rt.Err(); err != nil {
			return err
		}
		out, err := rt.Execute(ctx, client.ExecuteRequest{Source: "export default () => {};\n", Filename: "codemode-readiness.js"})
		if err != nil {
			return err
		}
		if out.Kind != client.Success {
			return fmt.Errorf("a trivial execution failed: %v", out.Error)
		}
		return nil
	}}
}

// mcpServersCheck is ready while every configured MCP server is up
// (without servers, no check).
func mcpServersCheck(cf *contractFlags) ops.Check {
	if cf.set == nil {
		return ops.Check{Name: "mcp servers"}
	}
	return ops.Check{Name: "mcp servers", Ready: func(context.Context) error {
		down := cf.set.Down()
		if len(down) == 0 {
			return nil
		}
		var names []string
		for n := range down {
			names = append(names, n)
		}
		return fmt.Errorf("down: %v", names)
	}}
}

// journalCheck is ready while h's journal answers (without a journal,
// no check: serve leaves it out).
func journalCheck(h *durable.Handle) ops.Check {
	if h == nil {
		return ops.Check{Name: "journal"}
	}
	return ops.Check{Name: "journal", Ready: func(ctx context.Context) error {
		_, err := h.Executions(ctx, 1)
		return err
	}}
}

// serveRunner starts runner serve's metrics and endpoint: ready until the
// drain starts (ctx ends) and while it takes connections; the gauge
// codemode.runner.connections counts the connections with a runtime.
func (a *adminFlags) serveRunner(ctx context.Context, srv *runnerhost.Server, maxConns int, logf func(string, ...any)) (stop func(), err error) {
	stopMetrics, err := a.start(ctx)
	if err != nil {
		return nil, err
	}
	if a.metrics != nil {
		m := a.metrics.Provider.Meter(spanattr.Scope)
		if _, err := m.Int64ObservableGauge("codemode.runner.connections", metric.WithDescription("Connections with a runtime."), metric.WithUnit("{connection}"),
			metric.WithInt64Callback(func(_ context.Context, o metric.Int64Observer) error {
				o.Observe(int64(srv.ActiveConnections()))
				return nil
			})); err != nil {
			stopMetrics()
			return nil, fmt.Errorf("runner serve: metrics: %w", err)
		}
	}
	stopAdmin, err := a.serve([]ops.Check{{Name: "serving", Ready: func(context.Context) error {
		switch n := srv.ActiveConnections(); {
		case ctx.Err() != nil:
			return fmt.Errorf("draining")
		case maxConns > 0 && n >= maxConns:
			return fmt.Errorf("%d connections, the most it takes", n)
		}
		return nil
	}}}, logf)
	if err != nil {
		stopMetrics()
		return nil, err
	}
	return func() { stopAdmin(); stopMetrics() }, nil
}
