package node_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
)

// TestClockValuesPastTheFrameLimit: the clock values a program read since
// its previous tool call travel with the call (kept for a durable replay),
// so a call whose input fits may not fit with them. The execution fails
// with a RangeError that names them, rather than the bare frame limit, and
// the runtime serves the next program.
func TestClockValuesPastTheFrameLimit(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	rt, err := client.NewRuntime(ctx, driver(t))
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	schema := json.RawMessage(`{"type":"object","properties":{"value":{"type":"string"}},"required":["value"],"additionalProperties":false}`)
	echo, err := contract.NewRawTool("echo", "Echo.", schema, schema, func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) { return in, nil })
	if err != nil {
		t.Fatal(err)
	}
	k, err := contract.New(echo)
	if err != nil {
		t.Fatal(err)
	}
	c := client.New(rt, k)
	out, err := c.Run(ctx, `export default async function ({ codemode }) {
  const value = "x".repeat(16 * 1024 * 1024 - 64 * 1024 - 12); for (let i = 0; i < 10000; i++) Date.now();
  try { await codemode.echo({ value }); } catch {}
  return "caught";
}`, client.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if out.Kind != client.ProgramFailed || out.Error.Name != "RangeError" || !strings.Contains(out.Error.Message, "the call of codemode.echo does not fit in a message with the 10000 clock values") {
		t.Fatalf("%s %+v, want a RangeError naming the call and its 10000 clock values", out.Kind, out.Error)
	}
	out, err = c.Run(ctx, `export default async function ({ codemode }) { return (await codemode.echo({ value: "next" })).value; }`, client.RunOptions{})
	if err != nil || out.Kind != client.Success || string(out.Value) != `"next"` {
		t.Fatalf("the next program: %+v %v", out, err)
	}
}
