package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"runtime/pprof"
	"strings"
	"testing"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/drivers/quickjs"
)

// labelsOfThisCall answers a tool call with the profiler labels of the
// goroutine running it, as the goroutine profile prints them.
func labelsOfThisCall(ctx context.Context, call client.ToolCall) (json.RawMessage, error) {
	var buf bytes.Buffer
	_ = pprof.Lookup("goroutine").WriteTo(&buf, 1)
	for _, block := range strings.Split(buf.String(), "\n\n") {
		if strings.Contains(block, "labelsOfThisCall") {
			return json.Marshal(strings.SplitN(block, "\n", 3)[1])
		}
	}
	return json.RawMessage(`"not found"`), nil
}

// TestToolCallLabelsEndWithTheCall: profiler labels a tool handler sets on
// its goroutine do not reach a later execution's call on the same handler
// goroutine (handlers wait for the next call; a review found them carrying
// one execution's labels into another's).
func TestToolCallLabelsEndWithTheCall(t *testing.T) {
	rt := quickjsRuntime(t, quickjs.Options{Timeout: 20 * time.Second})
	req := func(f func(context.Context, client.ToolCall) (json.RawMessage, error)) client.ExecuteRequest {
		return client.ExecuteRequest{
			Source:     `export default async ({ codemode }) => await codemode.echo({})`,
			Filename:   "agent.js",
			Namespaces: map[string][]string{"codemode": {"echo"}},
			CallTool:   f,
		}
	}
	_, err := rt.Execute(context.Background(), req(func(ctx context.Context, call client.ToolCall) (json.RawMessage, error) {
		pprof.SetGoroutineLabels(pprof.WithLabels(ctx, pprof.Labels("tenant", "A-secret")))
		return json.RawMessage(`{}`), nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	out, err := rt.Execute(context.Background(), req(labelsOfThisCall))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("execution B's tool call ran with: %s", out.Value)
	if strings.Contains(string(out.Value), "A-secret") {
		t.Errorf("execution B's tool call ran on a goroutine labelled by execution A: %s", out.Value)
	}
}

// TestToolCallsRunUnderTheirExecutionsLabels: a call runs under the labels
// of its own execution's context (pprof.Do around Execute, per tenant),
// never under those of the execution whose call the handler goroutine ran
// before (with Prefill, calls start on the Execute caller's goroutine, whose
// labels a new handler inherited and kept).
func TestToolCallsRunUnderTheirExecutionsLabels(t *testing.T) {
	rt := quickjsRuntime(t, quickjs.Options{Timeout: 20 * time.Second})
	run := func(tenant string, f func(context.Context, client.ToolCall) (json.RawMessage, error)) (out *client.Outcome) {
		pprof.Do(context.Background(), pprof.Labels("tenant", tenant), func(ctx context.Context) {
			var err error
			out, err = rt.Execute(ctx, client.ExecuteRequest{
				Source:     `export default async ({ codemode }) => { await codemode.echo({}); return await codemode.echo({}); }`,
				Filename:   "agent.js",
				Namespaces: map[string][]string{"codemode": {"echo"}},
				Prefill:    map[uint64]json.RawMessage{1: json.RawMessage(`{}`)},
				CallTool:   f,
			})
			if err != nil {
				t.Fatal(err)
			}
		})
		return out
	}
	run("A-secret", func(ctx context.Context, call client.ToolCall) (json.RawMessage, error) {
		return json.RawMessage(`{}`), nil
	})
	out := run("B", func(ctx context.Context, call client.ToolCall) (json.RawMessage, error) {
		if call.Seq == 1 {
			return json.RawMessage(`{}`), nil
		}
		return labelsOfThisCall(ctx, call)
	})
	t.Logf("tenant B's tool call ran with: %s (err %+v)", out.Value, out.Error)
	if strings.Contains(string(out.Value), "A-secret") {
		t.Errorf("tenant B's tool call ran on a goroutine labelled for tenant A: %s", out.Value)
	}
}
