package client_test

import (
	"context"
	"errors"
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
