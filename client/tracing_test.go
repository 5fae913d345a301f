package client_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/quickjs"
)

type num struct {
	N int `json:"n"`
}

func spanAttrs(s sdktrace.ReadOnlySpan) map[attribute.Key]attribute.Value {
	m := map[attribute.Key]attribute.Value{}
	for _, kv := range s.Attributes() {
		m[kv.Key] = kv.Value
	}
	return m
}

func TestTracingRecordsTheRunItsToolCallsAndValidation(t *testing.T) {
	double, err := contract.NewTool("double", "Doubles n.", func(ctx context.Context, in num) (num, error) { return num{in.N * 2}, nil })
	if err != nil {
		t.Fatal(err)
	}
	fail, err := contract.NewTool("fail", "Always fails.", func(ctx context.Context, in num) (num, error) { return num{}, errors.New("upstream down") })
	if err != nil {
		t.Fatal(err)
	}
	input, err := contract.NewSchema([]byte(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"],"additionalProperties":false}`))
	if err != nil {
		t.Fatal(err)
	}
	c, err := contract.New(double, fail)
	if err == nil {
		c, err = c.WithInput(input)
	}
	if err != nil {
		t.Fatal(err)
	}
	d := quickjs.New(quickjs.Options{Timeout: 10 * time.Second})
	t.Cleanup(func() { d.Close() })
	rt, err := client.NewRuntime(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	cl := client.New(rt, c)

	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	t.Cleanup(func() { tp.Shutdown(context.Background()) })
	code := `async () => {
  const a = await codemode.double({ n: input.n });
  try { await codemode.double({ n: "x" }) } catch (e) {}
  try { await codemode.fail({ n: 1 }) } catch (e) {}
  return a.n;
}`
	out, err := cl.RunCode(context.Background(), code, client.RunOptions{Input: map[string]any{"n": 21}, TracerProvider: tp, ExecutionID: "run_1"})
	if err != nil || out.Kind != client.Success {
		t.Fatalf("run: %+v %v", out, err)
	}
	byName := map[string][]sdktrace.ReadOnlySpan{}
	for _, s := range rec.Ended() {
		byName[s.Name()] = append(byName[s.Name()], s)
	}
	run := byName["codemode.execution"]
	if len(run) != 1 {
		t.Fatalf("%d execution spans", len(run))
	}
	if a := spanAttrs(run[0]); a["codemode.execution.id"].AsString() != "run_1" || a["codemode.outcome"].AsString() != "success" || a["codemode.driver"].AsString() != "QuickJS-NG" {
		t.Errorf("execution span %v", a)
	}
	if v := byName["codemode.validate"]; len(v) != 1 || v[0].Status().Code == codes.Error || v[0].Parent().SpanID() != run[0].SpanContext().SpanID() {
		t.Errorf("input validation span: %v", v)
	}
	doubles := byName["execute_tool codemode.double"]
	if len(doubles) != 2 {
		t.Fatalf("%d spans of double", len(doubles))
	}
	for _, s := range doubles {
		if s.Parent().SpanID() != run[0].SpanContext().SpanID() {
			t.Errorf("tool span %s is not the execution's child", s.Name())
		}
	}
	if a := spanAttrs(doubles[0]); a["gen_ai.tool.name"].AsString() != "codemode.double" || a["codemode.tool.seq"].AsInt64() != 1 || doubles[0].Status().Code == codes.Error {
		t.Errorf("the first call: %v %v", a, doubles[0].Status())
	}
	if a := spanAttrs(doubles[1]); a["codemode.validation"].AsString() != "input" || a["error.type"].AsString() != "ToolValidationError" || doubles[1].Status().Code != codes.Error {
		t.Errorf("the invalid call: %v", a)
	}
	fails := byName["execute_tool codemode.fail"]
	if len(fails) != 1 || fails[0].Status().Code != codes.Error || fails[0].Status().Description != "upstream down" {
		t.Errorf("the failing tool's span: %v", fails)
	}

	// Input that breaks the input schema: the validation span says so and nothing runs.
	rec2 := tracetest.NewSpanRecorder()
	tp2 := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec2))
	t.Cleanup(func() { tp2.Shutdown(context.Background()) })
	if _, err := cl.RunCode(context.Background(), code, client.RunOptions{Input: map[string]any{"n": "nope"}, TracerProvider: tp2}); err == nil {
		t.Fatal("bad input ran")
	}
	names := map[string]sdktrace.ReadOnlySpan{}
	for _, s := range rec2.Ended() {
		names[s.Name()] = s
	}
	if v := names["codemode.validate"]; v == nil || v.Status().Code != codes.Error {
		t.Errorf("the failed validation span: %v", v)
	}
	if e := names["codemode.execution"]; e == nil || spanAttrs(e)["codemode.outcome"].AsString() != "error" {
		t.Errorf("the execution span of a refused input: %v", e)
	}
	if len(names) != 2 {
		t.Errorf("spans %v, want only the execution and the validation", names)
	}
}

// TestTracingRecordsAPanicsStack: the span of a call whose handler
// panicked holds the panic's stack as its exception event's
// exception.stacktrace (OpenTelemetry semantic conventions, Exceptions),
// naming the function that panicked, while its status says only what the
// program read.
func TestTracingRecordsAPanicsStack(t *testing.T) {
	read, err := contract.NewTool("read", "Reads.", explodeHandler)
	if err != nil {
		t.Fatal(err)
	}
	c, err := contract.New(read)
	if err != nil {
		t.Fatal(err)
	}
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	t.Cleanup(func() { tp.Shutdown(context.Background()) })
	code := `try { await codemode.read({ value: "boom" }) } catch (e) {} 1`
	if out, err := client.New(quickjsRuntime(t, quickjs.Options{}), c).RunCode(context.Background(), code, client.RunOptions{TracerProvider: tp}); err != nil || out.Kind != client.Success {
		t.Fatalf("run: %+v %v", out, err)
	}
	var span sdktrace.ReadOnlySpan
	for _, s := range rec.Ended() {
		if s.Name() == "execute_tool codemode.read" {
			span = s
		}
	}
	if span == nil {
		t.Fatal("no span of the call")
	}
	if d := span.Status().Description; d != "tool codemode.read panicked: handler bug" {
		t.Errorf("status %q", d)
	}
	var stack string
	for _, e := range span.Events() {
		for _, kv := range e.Attributes {
			if e.Name == "exception" && kv.Key == "exception.stacktrace" {
				stack = kv.Value.AsString()
			}
		}
	}
	if !strings.Contains(stack, "client_test.explodeHandler") {
		t.Errorf("the exception event's stack trace does not name the handler:\n%s", stack)
	}
}
