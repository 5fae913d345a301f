package client_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/quickjs"
)

// TestDeadlineNamesTheCallsInFlight: an execution that reaches its
// deadline while tool calls are in flight fails with a TimeoutError that
// names them, so that the model knows which call was slow; one that
// waits on no call says nothing more.
func TestDeadlineNamesTheCallsInFlight(t *testing.T) {
	quick, err := contract.NewRawTool("quick", "Answers at once.", json.RawMessage(`{"type":"object","additionalProperties":false}`), json.RawMessage(`{}`),
		func(context.Context, json.RawMessage) (json.RawMessage, error) { return json.RawMessage(`1`), nil })
	if err != nil {
		t.Fatal(err)
	}
	hang, err := contract.NewRawTool("hang", "Answers when the execution ends.", json.RawMessage(`{"type":"object","additionalProperties":false}`), json.RawMessage(`{}`),
		func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		})
	if err != nil {
		t.Fatal(err)
	}
	c, err := contract.New(quick, hang)
	if err != nil {
		t.Fatal(err)
	}
	d := quickjs.New(quickjs.Options{})
	t.Cleanup(func() { d.Close() })
	rt, err := client.NewRuntime(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	cl := client.New(rt, c)
	const stopped = "the program was stopped: the execution deadline of 200ms was exceeded"
	tests := []struct{ name, code, want string }{
		{"one call", `await codemode.quick({}); await codemode.hang({});`, stopped + " while waiting for codemode.hang (tool call 2)"},
		{"five calls", `await codemode.quick({}); await Promise.all([1, 2, 3, 4, 5].map(() => codemode.hang({})));`,
			stopped + " while waiting for codemode.hang (tool call 2), codemode.hang (tool call 3), codemode.hang (tool call 4) and 2 more tool call(s)"},
		{"no call", `await codemode.quick({}); await new Promise(() => setTimeout(() => {}, 60_000));`, stopped},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := cl.RunCode(context.Background(), tc.code, client.RunOptions{Limits: client.Limits{Timeout: 200 * time.Millisecond}})
			if err != nil {
				t.Fatal(err)
			}
			if out.Error == nil || out.Error.Name != "TimeoutError" || out.Error.Message != tc.want {
				t.Fatalf("outcome %s, error %+v\nwant TimeoutError: %s", out.Kind, out.Error, tc.want)
			}
		})
	}
}
