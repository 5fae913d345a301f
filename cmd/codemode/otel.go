package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// tracerProvider configures OTLP trace export from the standard
// environment variables (https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/
// and https://opentelemetry.io/docs/specs/otel/protocol/exporter/):
// export is on when OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set, and off when neither is, when
// OTEL_TRACES_EXPORTER is "none" or when OTEL_SDK_DISABLED is "true"; then
// it returns a nil provider and nothing is recorded. The exporter reads the
// other OTEL_EXPORTER_OTLP_* variables (headers, timeout, certificates)
// itself; the resource takes OTEL_SERVICE_NAME (default "codemode") and
// OTEL_RESOURCE_ATTRIBUTES. Only the http/protobuf protocol is built in:
// OTEL_EXPORTER_OTLP_PROTOCOL=grpc is an error rather than a silent miss.
// shutdown flushes the spans still buffered.
func tracerProvider(ctx context.Context) (tp trace.TracerProvider, shutdown func(context.Context) error, err error) {
	none := func(context.Context) error { return nil }
	if strings.EqualFold(os.Getenv("OTEL_SDK_DISABLED"), "true") || strings.EqualFold(os.Getenv("OTEL_TRACES_EXPORTER"), "none") {
		return nil, none, nil
	}
	if os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") == "" && os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") == "" {
		return nil, none, nil
	}
	if e := os.Getenv("OTEL_TRACES_EXPORTER"); e != "" && e != "otlp" {
		return nil, nil, fmt.Errorf("OTEL_TRACES_EXPORTER=%s: only otlp (or none) is supported", e)
	}
	proto := os.Getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
	if proto == "" {
		proto = os.Getenv("OTEL_EXPORTER_OTLP_PROTOCOL")
	}
	if proto != "" && proto != "http/protobuf" {
		return nil, nil, fmt.Errorf("OTEL_EXPORTER_OTLP_PROTOCOL=%s: only http/protobuf is supported (point the endpoint at the collector's OTLP/HTTP port, 4318)", proto)
	}
	exp, err := otlptracehttp.New(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("OpenTelemetry exporter: %w", err)
	}
	// Later options win: OTEL_SERVICE_NAME replaces the default name.
	res, err := resource.New(ctx, resource.WithAttributes(attribute.String("service.name", "codemode")), resource.WithFromEnv(), resource.WithTelemetrySDK())
	if err != nil {
		return nil, nil, fmt.Errorf("OpenTelemetry resource: %w", err)
	}
	p := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	return p, p.Shutdown, nil
}

// startTracing is tracerProvider for a command: the provider (nil when the
// OTEL_* variables leave export off) and a stop function that flushes the
// buffered spans (at most 5 s) and reports a failure on stderr.
func startTracing(ctx context.Context, stderr io.Writer) (trace.TracerProvider, func(), error) {
	tp, shutdown, err := tracerProvider(ctx)
	if err != nil {
		return nil, nil, err
	}
	return tp, func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if err := shutdown(sctx); err != nil {
			fmt.Fprintf(stderr, "codemode: flushing traces: %v\n", err)
		}
	}, nil
}
