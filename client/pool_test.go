package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/quickjs"
)

// TestPoolSaysWhenNoRuntimeCanStart: once every runtime of a pool has failed
// and none can be booted again (here the QuickJS driver is closed while its
// runtimes are open, as a runner host that went down), Execute returns the
// boot error instead of waiting for a runtime that will not come, and
// nothing crashes.
func TestPoolSaysWhenNoRuntimeCanStart(t *testing.T) {
	ctx := context.Background()
	d := quickjs.New(quickjs.Options{})
	pool, err := client.NewPool(ctx, d, client.PoolOptions{Size: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	c, err := contract.New()
	if err != nil {
		t.Fatal(err)
	}
	cl := client.New(pool, c)
	const src = `export default async function ({ result }) { result.appendText("ok"); }`
	if out, err := cl.Run(ctx, src, client.RunOptions{}); err != nil || out.Kind != client.Success {
		t.Fatalf("first run: %+v %v", out, err)
	}
	d.Close()
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	// The first runs may meet runtimes whose failure is not yet noticed;
	// then the pool has none left that can start.
	var runErr error
	for i := 0; i < 50 && !errors.Is(runErr, client.ErrRuntimeFailed); i++ {
		_, runErr = cl.Run(ctx, src, client.RunOptions{})
	}
	if !errors.Is(runErr, client.ErrRuntimeFailed) || ctx.Err() != nil {
		t.Fatalf("error %v (context %v)", runErr, ctx.Err())
	}
}

// TestPoolCallerWhoGivesUpFailsAlone: a caller whose context ends before its
// execution is sent gets its context's error, and the pool keeps the runtime:
// the execution running on it finishes. The pool used to take the unsent
// execution for a broken runtime, replace it and so end the executions it
// ran (an adversarial review). A request every runtime would refuse (here
// limits out of range) is refused once, without a replacement.
func TestPoolCallerWhoGivesUpFailsAlone(t *testing.T) {
	for _, mode := range []struct {
		name string
		opts quickjs.Options
	}{{"in-process", quickjs.Options{InProcess: true}}, {"sandbox", quickjs.Options{}}} {
		t.Run(mode.name, func(t *testing.T) {
			d := quickjs.New(mode.opts)
			defer d.Close()
			pool, err := client.NewPool(context.Background(), d, client.PoolOptions{Size: 1})
			if err != nil {
				t.Fatal(err)
			}
			defer pool.Close()
			schema := json.RawMessage(`{"type":"object","properties":{"value":{"type":"string"}},"additionalProperties":false}`)
			release, started := make(chan struct{}), make(chan struct{}, 1)
			slow, err := contract.NewRawTool("slow", "Waits to be released.", schema, schema, func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) {
				started <- struct{}{}
				select {
				case <-release:
					return json.RawMessage(`{"value":"done"}`), nil
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			k, err := contract.New(slow)
			if err != nil {
				t.Fatal(err)
			}
			c := client.New(pool, k)
			long := make(chan error, 1)
			go func() {
				out, err := c.Run(context.Background(), `export default async function ({ codemode }) { return (await codemode.slow({})).value; }`, client.RunOptions{})
				if err == nil && string(out.Value) != `"done"` {
					err = fmt.Errorf("outcome %+v", out)
				}
				long <- err
			}()
			<-started
			gaveUp := 0
			for i := range 300 {
				select {
				case err := <-long:
					t.Fatalf("the execution running on the pool's runtime ended early: %v (after %d callers gave up)", err, gaveUp)
				default:
				}
				ctx, cancel := context.WithTimeout(context.Background(), time.Duration(i%100)*time.Microsecond)
				_, err := c.Run(ctx, `export default async function () {}`, client.RunOptions{})
				cancel()
				if err != nil {
					if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, client.ErrRuntimeFailed) {
						t.Fatalf("run %d: %v, want the context's error alone", i, err)
					}
					gaveUp++
				}
			}
			if _, err := c.Run(context.Background(), `export default async function () {}`, client.RunOptions{Limits: client.Limits{MaxToolCalls: -1}}); err == nil {
				t.Fatal("a negative tool-call limit was accepted")
			}
			close(release)
			select {
			case err := <-long:
				if err != nil {
					t.Fatalf("the execution running on the pool's runtime: %v (after %d callers gave up)", err, gaveUp)
				}
			case <-time.After(time.Minute):
				t.Fatal("the execution running on the pool's runtime did not end")
			}
		})
	}
}
