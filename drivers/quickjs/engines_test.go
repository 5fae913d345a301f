package quickjs_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/quickjs"
)

// TestMaxEnginesBoundsRunningExecutions: with MaxEngines 2, executions on
// two runtimes of one driver run at most two at a time (the others wait for
// an engine and then run), and one that waits past its deadline fails with a
// TimeoutError saying so.
func TestMaxEnginesBoundsRunningExecutions(t *testing.T) {
	ctx := context.Background()
	d := newDriver(quickjs.Options{MaxEngines: 2, Timeout: 60 * time.Second})
	defer d.Close()
	var running, peak atomic.Int32
	release := make(chan struct{})
	hold, err := contract.NewRawTool("hold", "Waits until released.", json.RawMessage(`{"type":"object","additionalProperties":false}`), json.RawMessage(`{"type":"null"}`),
		func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
			n := running.Add(1)
			defer running.Add(-1)
			for {
				if p := peak.Load(); n <= p || peak.CompareAndSwap(p, n) {
					break
				}
			}
			select {
			case <-release:
			case <-ctx.Done():
			}
			return json.RawMessage("null"), nil
		})
	if err != nil {
		t.Fatal(err)
	}
	c, err := contract.New(hold)
	if err != nil {
		t.Fatal(err)
	}
	var clients []*client.Client
	for range 2 {
		rt, err := client.NewRuntime(ctx, d)
		if err != nil {
			t.Fatal(err)
		}
		defer rt.Close()
		clients = append(clients, client.New(rt, c))
	}
	const src = `export default async function ({ codemode, result }) { await codemode.hold({}); result.appendText("done"); }`
	var wg sync.WaitGroup
	outs := make([]*client.Outcome, 6)
	for i := range outs {
		wg.Go(func() {
			out, err := clients[i%2].Run(ctx, src, client.RunOptions{})
			if err != nil {
				t.Error(err)
			}
			outs[i] = out
		})
	}
	// Two hold their engines; the others wait. Once two hold (however
	// slow the machine), give the others time to get past the bound if
	// they could, then let them through, two at a time.
	for deadline := time.Now().Add(30 * time.Second); running.Load() < 2 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond)
	close(release)
	wg.Wait()
	for i, out := range outs {
		if out == nil || out.Kind != client.Success {
			t.Fatalf("execution %d: %+v", i, out)
		}
	}
	if p := peak.Load(); p != 2 {
		t.Fatalf("at most %d executions held a tool call at once, want 2", p)
	}

	// A waiting execution that its caller cancels leaves quietly, and the
	// engine serves the next one once free.
	d2 := newDriver(quickjs.Options{MaxEngines: 1, Timeout: 2 * time.Second})
	defer d2.Close()
	rt, err := client.NewRuntime(ctx, d2)
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	cl := client.New(rt, c)
	hang := make(chan struct{})
	release = hang
	held := make(chan error, 1)
	go func() { _, err := cl.Run(ctx, src, client.RunOptions{}); held <- err }()
	time.Sleep(100 * time.Millisecond)
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	if _, err := cl.Run(short, `export default async function () {}`, client.RunOptions{}); err == nil {
		t.Fatal("an execution waiting for the only engine was not cancelled")
	}
	close(hang)
	if err := <-held; err != nil {
		t.Fatal(err)
	}
	out, err := cl.Run(ctx, `export default async function ({ result }) { result.appendText("next"); }`, client.RunOptions{})
	if err != nil || out.Kind != client.Success {
		t.Fatalf("next execution: %+v %v", out, err)
	}

	// One that waits past its deadline fails with a TimeoutError saying
	// so: the runner's host decides it, and in the sandbox delivers it
	// while the client is reading the process's socket, where nothing
	// else comes (the execution holding the engine has a long deadline).
	d3 := newDriver(quickjs.Options{MaxEngines: 1, Timeout: time.Minute})
	defer d3.Close()
	rt3, err := client.NewRuntime(ctx, d3)
	if err != nil {
		t.Fatal(err)
	}
	defer rt3.Close()
	cl = client.New(rt3, c)
	hang = make(chan struct{})
	release = hang
	go func() { _, err := cl.Run(ctx, src, client.RunOptions{}); held <- err }()
	for running.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	out, err = cl.Run(ctx, `export default async function () {}`, client.RunOptions{Limits: client.Limits{Timeout: 300 * time.Millisecond}})
	close(hang)
	if err != nil || out.Kind != client.ProgramFailed || out.Error.Name != "TimeoutError" || !strings.Contains(out.Error.Message, "waiting for an engine") {
		t.Fatalf("an execution waiting past its deadline: %+v %v", out, err)
	}
	if err := <-held; err != nil {
		t.Fatal(err)
	}
}
