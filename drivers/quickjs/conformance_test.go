package quickjs_test

import (
	"context"
	"testing"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/drivers/quickjs"
	"github.com/codemode-go/codemode/testing/conformance"
)

// TestConformance runs the suite on the default mode: engines in a sandbox
// process per runtime.
func TestConformance(t *testing.T) {
	d := quickjs.New(quickjs.Options{})
	conformance.TestRuntime(t, func(ctx context.Context) (conformance.Runtime, error) {
		return client.NewRuntime(ctx, d)
	})
}

// TestConformanceInProcess runs the suite on the in-process mode.
func TestConformanceInProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("a long sweep; go test without -short runs it")
	}
	d := quickjs.New(quickjs.Options{InProcess: true})
	conformance.TestRuntime(t, func(ctx context.Context) (conformance.Runtime, error) {
		return client.NewRuntime(ctx, d)
	})
}

// TestPoolConformance runs the suite on a pool of QuickJS runtimes.
func TestPoolConformance(t *testing.T) {
	if testing.Short() {
		t.Skip("a long sweep; go test without -short runs it")
	}
	d := quickjs.New(quickjs.Options{})
	conformance.TestRuntime(t, func(ctx context.Context) (conformance.Runtime, error) {
		return client.NewPool(ctx, d, client.PoolOptions{Size: 3})
	})
}
