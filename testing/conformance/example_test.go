package conformance_test

import (
	"context"
	"testing"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/drivers/quickjs"
	"github.com/codemode-go/codemode/testing/conformance"
)

// A driver's test file runs the suite against runtimes of that driver; the
// factory boots one runtime per call. (This example is compiled, not run:
// the suite needs a *testing.T.)
func ExampleTestRuntime() {
	// In drivers/mydriver/conformance_test.go:
	testConformance := func(t *testing.T) {
		conformance.TestRuntime(t, func(ctx context.Context) (conformance.Runtime, error) {
			return client.NewRuntime(ctx, quickjs.New(quickjs.Options{}))
		})
	}
	_ = testConformance
}
