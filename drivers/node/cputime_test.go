package node_test

import (
	"context"
	"testing"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/internal/cputest"
)

// TestCPUTimeLimit runs the programs of internal/cputest on Node.js: waiting
// for tools does not count against the CPU time limit, a busy program that
// yields to the event loop is stopped by it, and the deadline still fires
// by its own name. (A loop that never yields holds the event loop, and only
// the deadline ends it: cputest.Busy is QuickJS's.)
func TestCPUTimeLimit(t *testing.T) {
	rt, err := client.NewRuntime(context.Background(), driver(t))
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	cputest.Run(t, rt)
}
