package node_test

import (
	"context"
	"testing"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/drivers/node"
)

// TestReplacedPushWhileTheSocketIsBusy: Node.js buffers a write to a busy
// socket with Array.prototype.push, which a program may replace. A program
// that flooded its output (so that the socket was busy) and then replaced
// push lost the runner's next frame (its tool call, or its result: the
// execution ended at its deadline) or ended the process with every
// execution on it. The runner now writes a frame only once the one before
// has left Node.js's buffer.
func TestReplacedPushWhileTheSocketIsBusy(t *testing.T) {
	driver(t) // skips without Node.js 24
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := echoClient(t, node.New(node.Options{MaxOutput: 1 << 20}))
	for i := range 3 {
		out, err := c.Run(ctx, `export default async function ({ codemode, console }) {
  for (let i = 0; i < 4000; i++) console.log("x".repeat(200));
  const push = Array.prototype.push;
  Array.prototype.push = function () { throw new Error("push replaced"); };
  try {
    return (await codemode.echo({ value: "called" })).value;
  } finally {
    Array.prototype.push = push;
  }
}`, client.RunOptions{Limits: client.Limits{Timeout: 10 * time.Second}})
		if err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
		if out.Kind != client.Success || string(out.Value) != `"called"` {
			t.Fatalf("run %d: %s %+v %s", i, out.Kind, out.Error, out.Value)
		}
	}
}
