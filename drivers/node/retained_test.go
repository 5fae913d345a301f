package node_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
)

// TestProgramsAreCollected: a Node.js runtime does not keep the programs it
// has run. Each program is a module of its own, and V8's compilation cache
// held every module record (about 3.6 KiB of heap each, which forced
// collections did not free) until the driver turned the cache off. The
// heap is read inside the runtime after two forced collections, before and
// after 1,500 programs.
func TestProgramsAreCollected(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 2,000 programs")
	}
	d := driver(t)
	ctx := context.Background()
	rt, err := client.NewRuntime(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	k, err := contract.New()
	if err != nil {
		t.Fatal(err)
	}
	c := client.New(rt, k)
	heap := func(i int) float64 {
		t.Helper()
		src := fmt.Sprintf(`import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
export default async function () {
  // program %d
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc");
  gc(); gc();
  return process.memoryUsage().heapUsed;
}`, i)
		out, err := c.Run(ctx, src, client.RunOptions{})
		if err != nil || out.Kind != client.Success {
			t.Fatalf("heap program: %+v %v", out, err)
		}
		n, err := strconv.ParseFloat(string(out.Value), 64)
		if err != nil {
			t.Fatalf("heap program returned %s: %v", out.Value, err)
		}
		return n
	}
	run := func(from, to int) {
		t.Helper()
		for i := from; i < to; i++ {
			src := fmt.Sprintf("export default async function () { const v = { n: %d, list: [1, 2, 3] }; return v.n; }", i)
			out, err := c.Run(ctx, src, client.RunOptions{})
			if err != nil || out.Kind != client.Success {
				t.Fatalf("program %d: %+v %v", i, out, err)
			}
		}
	}
	run(0, 500) // warm-up: the runner's own code and V8's shapes
	before := heap(-1)
	const n = 1500
	run(500, 500+n)
	after := heap(-2)
	perProgram := (after - before) / n
	t.Logf("V8 heap %.0f -> %.0f bytes: %.0f bytes per program", before, after, perProgram)
	// 3.6 KiB per program with the cache; tens of bytes without it.
	if perProgram > 1024 {
		t.Errorf("the V8 heap grew by %.0f bytes per program over %d programs; the runtime keeps the programs it ran", perProgram, n)
	}
}
