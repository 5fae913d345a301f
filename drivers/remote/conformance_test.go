package remote_test

import (
	"context"
	"os"
	"os/exec"
	"testing"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/drivers/node"
	"github.com/codemode-go/codemode/drivers/remote"
	"github.com/codemode-go/codemode/testing/conformance"
)

// TestConformance runs the black-box suite on remote runtimes: QuickJS on a
// runner host on loopback TCP, one host runtime per client runtime.
func TestConformance(t *testing.T) {
	d := startHost(t, quickjsDriver(t), remote.ServerOptions{}).driver(t)
	conformance.TestRuntime(t, func(ctx context.Context) (conformance.Runtime, error) {
		return client.NewRuntime(ctx, d)
	})
}

// TestConformanceNode runs the suite on a runner host whose runtimes are
// Node.js processes. It skips when no Node.js 24 is on PATH, unless
// CODEMODE_REQUIRE_NODE is set (scripts/test sets it).
func TestConformanceNode(t *testing.T) {
	d := startHost(t, nodeDriver(t), remote.ServerOptions{}).driver(t)
	conformance.TestRuntime(t, func(ctx context.Context) (conformance.Runtime, error) {
		return client.NewRuntime(ctx, d)
	})
}

// nodeDriver returns a Node.js driver, skipping the test when no Node.js 24
// is on PATH, unless CODEMODE_REQUIRE_NODE is set (scripts/test sets it).
func nodeDriver(t *testing.T) *node.Driver {
	t.Helper()
	local := node.New(node.Options{})
	_, err := exec.LookPath("node")
	if err == nil {
		_, err = local.Version(context.Background())
	}
	if err != nil {
		if os.Getenv("CODEMODE_REQUIRE_NODE") == "" {
			t.Skip(err)
		}
		t.Fatal(err)
	}
	return local
}
