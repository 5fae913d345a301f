package client_test

import (
	"context"
	"encoding/json"
	"net"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/internal/wire"
)

// A tool call a runner sends after the execution's result is not run, and
// its clock values are not the outcome's: the result ends the execution (an
// adversarial review found calls started, and their clock values reported,
// once the reader started calls itself).
func TestCallAfterResultIsNotRun(t *testing.T) {
	d := &pipeDriver{serve: answerExecutes(func(m *wire.Message, w *wire.Writer, _ net.Conn) error {
		_ = w.Write(&wire.Message{Kind: wire.KindResult, Execution: m.Execution, Outcome: wire.OutcomeSuccess, Value: []byte(`1`), Clock: []float64{2}})
		return w.Write(&wire.Message{Kind: wire.KindToolCall, Execution: m.Execution, Seq: 1, Namespace: "codemode", Tool: "echo", Input: []byte(`{}`), Clock: []float64{99}})
	})}
	defer d.wg.Wait()
	rt, err := client.NewRuntime(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	var calls atomic.Int32
	for i := range 200 {
		out, err := rt.Execute(context.Background(), client.ExecuteRequest{
			Source: "export default () => 1", Filename: "agent.js",
			Namespaces: map[string][]string{"codemode": {"echo"}},
			CallTool: func(ctx context.Context, call client.ToolCall) (json.RawMessage, error) {
				calls.Add(1)
				return json.RawMessage(`{}`), nil
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(out.Clock, []float64{2}) {
			t.Fatalf("execution %d: clock %v, want [2]", i, out.Clock)
		}
	}
	if n := calls.Load(); n != 0 {
		t.Fatalf("%d tool calls sent after their execution's result were run", n)
	}
}
