package remote_test

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/node"
	"github.com/codemode-go/codemode/internal/runnerhost"
	"github.com/codemode-go/codemode/testing/conformance"
)

// TestConformance runs the black-box suite on remote runtimes: QuickJS on a
// runner host on loopback TCP, one host runtime per client runtime.
func TestConformance(t *testing.T) {
	d := startHost(t, quickjsDriver(t), runnerhost.ServerOptions{}).driver(t)
	conformance.TestRuntime(t, func(ctx context.Context) (conformance.Runtime, error) {
		return client.NewRuntime(ctx, d)
	})
}

// TestConformanceNode runs the suite on a runner host whose runtimes are
// Node.js processes. It skips when no Node.js 24 is on PATH, unless
// CODEMODE_REQUIRE_NODE is set (scripts/test sets it).
func TestConformanceNode(t *testing.T) {
	d := startHost(t, nodeDriver(t), runnerhost.ServerOptions{}).driver(t)
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

// TestHostWithoutDeclarationsServes: a Node.js host without @types/node
// runs programs; only the client's TypeDefinitionFiles fails, saying why.
func TestHostWithoutDeclarationsServes(t *testing.T) {
	nodeDriver(t) // skips without Node.js 24
	local := node.New(node.Options{TypesDir: t.TempDir()})
	h := startHost(t, local, runnerhost.ServerOptions{})
	rt := h.runtime(t)
	c, err := contract.New()
	if err != nil {
		t.Fatal(err)
	}
	out, err := client.New(rt, c).Run(context.Background(), `export default async function ({ result }) { result.appendText("ran"); }`, client.RunOptions{})
	if err != nil || out.Kind != client.Success || out.Content[0].Text != "ran" {
		t.Fatalf("run: %+v %v", out, err)
	}
	if _, err := h.driver(t).TypeDefinitionFiles(context.Background()); err == nil || !strings.Contains(err.Error(), "has no type definitions") {
		t.Fatalf("TypeDefinitionFiles error %v", err)
	}
}
