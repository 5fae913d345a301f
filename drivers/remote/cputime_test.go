package remote_test

import (
	"testing"

	"github.com/codemode-go/codemode/internal/cputest"
	"github.com/codemode-go/codemode/internal/runnerhost"
)

// TestCPUTimeLimitCrossesTheHost runs the programs of internal/cputest
// through a runner host serving QuickJS: the execute message's CPU time
// limit reaches the host's engine, which stops busy programs by it and
// not waiting ones, and the deadline still fires by its own name.
func TestCPUTimeLimitCrossesTheHost(t *testing.T) {
	h := startHost(t, quickjsDriver(t), runnerhost.ServerOptions{})
	rt := h.runtime(t)
	cputest.Run(t, rt)
	cputest.Busy(t, rt)
}
