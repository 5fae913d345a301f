package quickjs_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/drivers/quickjs"
)

// TestDiscardedEnginesUnmapTheirMemory: an engine's memory is unmapped by
// the driver, not when wazero closes its module (memory_unix.go), so every
// path that lets an engine go must unmap it. Engines halted, cancelled in a
// busy loop and failed by a throw are discarded or reset; the address
// space the process reserves (each engine its maximum memory) does not grow.
func TestDiscardedEnginesUnmapTheirMemory(t *testing.T) {
	c := echoClient(t, quickjs.Options{InProcess: true})
	halt := func(next client.ToolCaller) client.ToolCaller {
		return func(ctx context.Context, call client.ToolCall) (json.RawMessage, error) {
			if call.Seq == 5 {
				return nil, client.Halt(errors.New("stop"))
			}
			return next(ctx, call)
		}
	}
	run := func(n int) {
		for range n {
			_, _ = c.Run(context.Background(), `export default async function ({ codemode }) {
  const ps = [];
  for (let i = 0; i < 10; i++) ps.push(codemode.echo({ value: "x" }).catch(() => 0));
  await Promise.all(ps);
}`, client.RunOptions{Middleware: halt})
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Millisecond)
			_, _ = c.Run(ctx, `export default async function () { for (;;) {} }`, client.RunOptions{})
			cancel()
			_, _ = c.Run(context.Background(), `export default async function () { throw new Error("x"); }`, client.RunOptions{})
		}
	}
	// The address space reserved (VmSize): an engine's mapping is its
	// maximum memory, so a leaked one shows as tens of MiB.
	reserved := func() int {
		time.Sleep(100 * time.Millisecond) // let the last engine go
		b, err := os.ReadFile("/proc/self/status")
		if err != nil {
			t.Skip(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) == 3 && f[0] == "VmSize:" {
				kb, err := strconv.Atoi(f[1])
				if err != nil {
					t.Fatal(err)
				}
				return kb << 10
			}
		}
		t.Skip("no VmSize in /proc/self/status")
		return 0
	}
	run(20)
	before := reserved()
	run(100)
	if after := reserved(); after > before+256<<20 {
		t.Fatalf("the address space reserved grew from %d to %d MiB over 300 executions", before>>20, after>>20)
	}
}
