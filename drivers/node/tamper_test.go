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

// TestBrokenNextTickBesideAnotherExecution: Node.js's stream calls
// process.nextTick after a write it completed at once; a program that
// replaced it for a moment made that write throw, and the frames queued
// after it in the same job (another execution's second tool call) were
// dropped: that execution waited until its deadline (an adversarial
// review). Each frame now goes out whatever the one before did.
func TestBrokenNextTickBesideAnotherExecution(t *testing.T) {
	c := echoClient(t, driver(t))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	hostile := make(chan error, 1)
	go func() {
		_, err := c.Run(ctx, `export default async function () {
  const nextTick = process.nextTick;
  process.nextTick = () => { throw new Error("nextTick replaced"); };
  await new Promise((resolve) => setTimeout(resolve, 300));
  process.nextTick = nextTick;
}`, client.RunOptions{})
		hostile <- err
	}()
	time.Sleep(50 * time.Millisecond)
	for i := range 3 {
		out, err := c.Run(ctx, `export default async function ({ codemode }) {
  const [a, b] = await Promise.all([codemode.echo({ value: "a" }), codemode.echo({ value: "b" })]);
  return a.value + b.value;
}`, client.RunOptions{Limits: client.Limits{Timeout: 5 * time.Second}})
		if err != nil || out.Kind != client.Success || string(out.Value) != `"ab"` {
			t.Fatalf("run %d beside the program: %+v %v", i, out, err)
		}
	}
	if err := <-hostile; err != nil {
		t.Fatal(err)
	}
}

// TestBootstrapBindingsStayPrivate: the bootstrap script runs in the
// programs' realm, where its top-level const and function declarations
// would be global bindings: a program's bare input (no input given, so a
// ReferenceError was due) once found the wire's pipe there, and the pipe
// and its write queue were reachable by name. They live in a block now.
func TestBootstrapBindingsStayPrivate(t *testing.T) {
	c := echoClient(t, driver(t))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := c.Run(ctx, `export default async function () {
  return ["input", "output", "socket", "receive", "queueFrame", "writeWaiting", "waiting", "linked", "importModule"]
    .filter((name) => { try { return (0, eval)(name) !== undefined; } catch { return false; } });
}`, client.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if out.Kind != client.Success || string(out.Value) != `[]` {
		t.Fatalf("bindings a program reaches: %s %+v %s", out.Kind, out.Error, out.Value)
	}
}
