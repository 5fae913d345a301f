package client_test

import (
	"context"
	"errors"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/quickjs"
)

// RunOptions.MeterProvider counts runs by outcome and tool calls by tool
// and how they ended, with their durations.
func TestRunMetrics(t *testing.T) {
	type io struct {
		N int `json:"n"`
	}
	ok, _ := contract.NewTool("ok", "Answers.", func(ctx context.Context, in io) (io, error) { return in, nil })
	bad, _ := contract.NewTool("bad", "Fails.", func(ctx context.Context, in io) (io, error) { return io{}, errors.New("no") })
	c, err := contract.New(ok, bad)
	if err != nil {
		t.Fatal(err)
	}
	d := quickjs.New(quickjs.Options{InProcess: true})
	t.Cleanup(func() { d.Close() })
	rt, err := client.NewRuntime(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	reader := sdkmetric.NewManualReader()
	opts := client.RunOptions{MeterProvider: sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))}
	cl := client.New(rt, c)
	for _, code := range []string{`await codemode.ok({ n: 1 }); await codemode.ok({ n: 2 }); 1`, `await codemode.bad({ n: 1 })`} {
		if _, err := cl.RunCode(context.Background(), code, opts); err != nil {
			t.Fatal(err)
		}
	}
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	durations := map[string]uint64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch data := m.Data.(type) {
			case metricdata.Sum[int64]:
				for _, p := range data.DataPoints {
					got[m.Name+" "+attrs(p.Attributes)] += p.Value
				}
			case metricdata.Histogram[float64]:
				for _, p := range data.DataPoints {
					durations[m.Name] += p.Count
				}
			}
		}
	}
	want := map[string]int64{
		"codemode.executions outcome=success":                                       1,
		"codemode.executions outcome=program-failed":                                1,
		"codemode.tool.calls codemode.tool=codemode.ok,codemode.tool.end=completed": 2,
		"codemode.tool.calls codemode.tool=codemode.bad,codemode.tool.end=failed":   1,
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %d, want %d (all: %v)", k, got[k], v, got)
		}
	}
	if durations["codemode.execution.duration"] != 2 || durations["codemode.tool.call.duration"] != 3 {
		t.Errorf("durations recorded %v", durations)
	}
}

func attrs(s attribute.Set) string {
	out := ""
	for _, kv := range s.ToSlice() {
		if out != "" {
			out += ","
		}
		out += string(kv.Key) + "=" + kv.Value.String()
	}
	return out
}
