package quickjs_test

import (
	"context"
	"testing"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/drivers/quickjs"
	"github.com/codemode-go/codemode/internal/cputest"
)

// TestCPUTimeLimit runs the programs of internal/cputest on QuickJS, in its
// sandbox process and in process: waiting for tools does not count against
// the CPU time limit, busy loops (yielding or not) are stopped by it, and
// the deadline still fires by its own name.
func TestCPUTimeLimit(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts quickjs.Options
	}{{"sandbox", quickjs.Options{}}, {"in process", quickjs.Options{InProcess: true}}} {
		t.Run(tc.name, func(t *testing.T) {
			rt, err := client.NewRuntime(context.Background(), newDriver(tc.opts))
			if err != nil {
				t.Fatal(err)
			}
			defer rt.Close()
			cputest.Run(t, rt)
			cputest.Busy(t, rt)
		})
	}
}
