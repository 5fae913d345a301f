package client

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/codemode-go/codemode/contract"
)

// BenchmarkToolDispatch measures what the middleware machinery adds to one
// tool call when no middleware is installed (issue goal: at most 1 µs):
// "handler" calls the tool's handler directly, as the client did before
// middleware existed; "no-middleware" takes the path Run takes today (the
// call and the tool put in the context, the innermost ToolCaller looking
// the tool up again); "one-middleware" adds one pass-through layer. The
// difference between the first two is the cost of the machinery.
func BenchmarkToolDispatch(b *testing.B) {
	type in struct {
		A float64 `json:"a"`
	}
	tool, err := contract.NewTool("echo", "Echo.", func(ctx context.Context, v in) (in, error) { return v, nil })
	if err != nil {
		b.Fatal(err)
	}
	input := json.RawMessage(`{"a":1}`)
	call := ToolCall{ExecutionID: "run_1", Seq: 1, Namespace: "codemode", Tool: "echo", Input: input}
	ctx := context.Background()
	pass := Middleware(func(next ToolCaller) ToolCaller {
		return func(ctx context.Context, call ToolCall) (json.RawMessage, error) {
			return next(ctx, call)
		}
	})
	b.Run("handler", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := tool.Handle(ctx, call.Input); err != nil {
				b.Fatal(err)
			}
		}
	})
	inner := func(ctx context.Context, call ToolCall) (json.RawMessage, error) { return handle(ctx, call, nil) }
	for _, tc := range []struct {
		name   string
		caller ToolCaller
	}{
		{"no-middleware", inner},
		{"one-middleware", pass(inner)},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				cctx := context.WithValue(withCall(ctx, call), toolKey{}, tool)
				if _, err := tc.caller(cctx, call); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
