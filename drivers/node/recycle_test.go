package node_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
)

// TestPoolRecyclesNodeProcesses: with RecycleAfter, a Node.js pool moves to
// a fresh process after that many executions, while executions keep
// succeeding (sequential and concurrent ones alike), and Close ends every
// process.
func TestPoolRecyclesNodeProcesses(t *testing.T) {
	d := driver(t)
	before := map[int]bool{}
	for _, p := range nodeChildren() {
		before[p] = true
	}
	p, err := client.NewPool(context.Background(), d, client.PoolOptions{Size: 1, RecycleAfter: 4})
	if err != nil {
		t.Fatal(err)
	}
	k, err := contract.New()
	if err != nil {
		t.Fatal(err)
	}
	c := client.New(p, k)
	pids := map[string]int{}
	var mu sync.Mutex
	run := func(i int) {
		out, err := c.Run(context.Background(), fmt.Sprintf("export default async function () { return String(process.pid) + %q.slice(0, 0); }", fmt.Sprint(i)), client.RunOptions{})
		if err != nil || out.Kind != client.Success {
			t.Errorf("execution %d: %+v %v", i, out, err)
			return
		}
		mu.Lock()
		pids[string(out.Value)]++
		mu.Unlock()
	}
	// A successor boots in the background, so the old process serves on
	// until it is ready: run until three processes have served.
	deadline := time.Now().Add(90 * time.Second)
	for i := 0; ; i++ {
		run(i)
		mu.Lock()
		n := len(pids)
		mu.Unlock()
		if n >= 3 || time.Now().After(deadline) || t.Failed() {
			break
		}
	}
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() { defer wg.Done(); run(100 + i) }()
	}
	wg.Wait()
	if len(pids) < 3 {
		t.Errorf("executions with RecycleAfter 4 ran on %d processes: %v", len(pids), pids)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	for _, pid := range nodeChildren() {
		if !before[pid] {
			t.Errorf("node process %d outlived the pool's Close", pid)
		}
	}
}
