// Package ops is what an operator reads off a long-running codemode
// command: /healthz (the process serves), /readyz (what it needs is up)
// and /metrics (OpenTelemetry metrics in the Prometheus text format,
// through the OpenTelemetry Prometheus exporter), served on an admin
// address, and OTLP metric export when the standard environment variables
// ask for it.
package ops

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
)

// Metrics is a process's meter provider: read by /metrics (Handler), and
// pushed over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_METRICS_ENDPOINT is set (and neither
// OTEL_METRICS_EXPORTER=none nor OTEL_SDK_DISABLED=true says otherwise).
type Metrics struct {
	Provider *sdkmetric.MeterProvider
	scrape   http.Handler
}

// NewMetrics builds the meter provider; Shutdown flushes and stops it.
func NewMetrics(ctx context.Context) (*Metrics, error) {
	registry := prometheus.NewRegistry()
	exporter, err := otelprom.New(otelprom.WithRegisterer(registry))
	if err != nil {
		return nil, fmt.Errorf("metrics: Prometheus exporter: %w", err)
	}
	res, err := resource.New(ctx, resource.WithAttributes(attribute.String("service.name", "codemode")), resource.WithFromEnv(), resource.WithTelemetrySDK())
	if err != nil {
		return nil, fmt.Errorf("metrics: resource: %w", err)
	}
	opts := []sdkmetric.Option{sdkmetric.WithReader(exporter), sdkmetric.WithResource(res)}
	if OTLPWanted() {
		exp, err := otlpmetrichttp.New(ctx)
		if err != nil {
			return nil, fmt.Errorf("metrics: OTLP exporter: %w", err)
		}
		opts = append(opts, sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp)))
	}
	return &Metrics{Provider: sdkmetric.NewMeterProvider(opts...), scrape: promhttp.HandlerFor(registry, promhttp.HandlerOpts{})}, nil
}

// OTLPWanted reports whether the environment asks for OTLP metric export
// (https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/).
func OTLPWanted() bool {
	if strings.EqualFold(os.Getenv("OTEL_SDK_DISABLED"), "true") || strings.EqualFold(os.Getenv("OTEL_METRICS_EXPORTER"), "none") {
		return false
	}
	return os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || os.Getenv("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT") != ""
}

// Shutdown flushes what OTLP export holds and stops the provider.
func (m *Metrics) Shutdown(ctx context.Context) error { return m.Provider.Shutdown(ctx) }

// Check is one readiness condition: Ready returns nil when it holds, or
// why not.
type Check struct {
	Name  string
	Ready func(ctx context.Context) error
}

// checkTimeout bounds each readiness check.
const checkTimeout = 5 * time.Second

// Handler serves /healthz (200 while the process serves), /readyz (200
// when every check holds, else 503; a line per check either way) and,
// when m is not nil, /metrics.
func Handler(checks []Check, m *Metrics) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("ok\n"))
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		var b strings.Builder
		ready := true
		for _, c := range checks {
			ctx, cancel := context.WithTimeout(r.Context(), checkTimeout)
			err := c.Ready(ctx)
			cancel()
			if err != nil {
				ready = false
				fmt.Fprintf(&b, "%s: not ready: %s\n", c.Name, oneLine(err))
				continue
			}
			fmt.Fprintf(&b, "%s: ok\n", c.Name)
		}
		if !ready {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
		_, _ = w.Write([]byte(b.String()))
	})
	if m != nil {
		mux.Handle("GET /metrics", m.scrape)
	}
	return mux
}

func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}

// Serve serves h on addr (host:port; port 0 picks one) until stop is
// called, which shuts the server down (in-flight probes get 5 s) and
// waits for it. It returns the address it listens on; an address that
// cannot be listened on is an error at once. logf hears of a server that
// stopped by itself.
func Serve(addr string, h http.Handler, logf func(string, ...any)) (listening string, stop func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", nil, fmt.Errorf("admin address: %w", err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	done := make(chan struct{})
	go func() { // owned by stop, which shuts the server down and waits
		defer close(done)
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logf("the admin server stopped: %v", err)
		}
	}()
	return ln.Addr().String(), func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		<-done
	}, nil
}
