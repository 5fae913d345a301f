package quickjs_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/quickjs"
	"github.com/codemode-go/codemode/internal/fixtures"
)

// TestPoolStopsABusyProgramAlone: on a pool of QuickJS runtimes with one
// execution per runtime, a CPU-bound and a memory-bound program are each
// stopped by their own limit while a program on the third runtime, running
// meanwhile (a timer, then a tool call), finishes normally; the pool then
// serves on.
func TestPoolStopsABusyProgramAlone(t *testing.T) {
	ctx := context.Background()
	d := newDriver(quickjs.Options{Timeout: 6 * time.Second, MemoryLimit: 16 << 20})
	defer d.Close()
	pool, err := client.NewPool(ctx, d, client.PoolOptions{Size: 3, PerRuntime: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	tools, err := fixtures.Tools(nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := contract.New(tools...)
	if err != nil {
		t.Fatal(err)
	}
	cl := client.New(pool, c)

	programs := []struct {
		name, src, wantName, wantText string
	}{
		{"busy", `export default async function () { while (true) {} }`, "TimeoutError", ""},
		{"memory", `export default async function () { const a = []; while (true) a.push("x".repeat(1 << 16) + a.length); }`, "RangeError", ""},
		{"calm", `export default async function ({ codemode, result }) {
  await new Promise((resolve) => setTimeout(resolve, 300));
  const r = await codemode.echo({ value: "still here" });
  result.appendText(r.value);
}`, "", "still here"},
	}
	var wg sync.WaitGroup
	outs := make([]*client.Outcome, len(programs))
	errs := make([]error, len(programs))
	for i, p := range programs {
		wg.Go(func() { outs[i], errs[i] = cl.Run(ctx, p.src, client.RunOptions{}) })
	}
	wg.Wait()
	for i, p := range programs {
		if errs[i] != nil {
			t.Fatalf("%s: %v", p.name, errs[i])
		}
		out := outs[i]
		if p.wantName != "" {
			if out.Kind != client.ProgramFailed || out.Error.Name != p.wantName {
				t.Fatalf("%s: outcome %+v", p.name, out)
			}
			continue
		}
		if out.Kind != client.Success || len(out.Content) != 1 || out.Content[0].Text != p.wantText {
			t.Fatalf("%s: outcome %+v %+v", p.name, out, out.Error)
		}
	}
	for i := 0; i < 3; i++ {
		out, err := cl.Run(ctx, `export default async function ({ result }) { result.appendText("again"); }`, client.RunOptions{})
		if err != nil || out.Kind != client.Success || !strings.Contains(out.Content[0].Text, "again") {
			t.Fatalf("after the limits: %+v %v", out, err)
		}
	}
}
