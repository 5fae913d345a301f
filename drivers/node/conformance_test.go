package node_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/node"
	"github.com/codemode-go/codemode/internal/cases"
	"github.com/codemode-go/codemode/testing/conformance"
)

// driver returns a Node.js driver, skipping the test when no Node.js 24 is
// on PATH, unless CODEMODE_REQUIRE_NODE is set (scripts/test sets it, and
// installs the @types/node that the declaration tests then need).
func driver(t testing.TB) *node.Driver {
	t.Helper()
	d := node.New(node.Options{})
	_, err := exec.LookPath("node")
	if err == nil {
		_, err = d.Version(context.Background())
	}
	if err != nil {
		if os.Getenv("CODEMODE_REQUIRE_NODE") == "" {
			t.Skip(err)
		}
		t.Fatal(err)
	}
	return d
}

// TestConformance runs the JavaScript runner under Node.js against the
// black-box suite every driver passes.
func TestConformance(t *testing.T) {
	d := driver(t)
	conformance.TestRuntime(t, func(ctx context.Context) (conformance.Runtime, error) {
		return client.NewRuntime(ctx, d)
	})
}

func TestCases(t *testing.T) {
	all, err := cases.Load("../../testdata/cases")
	if err != nil {
		t.Fatal(err)
	}
	rt, err := client.NewRuntime(context.Background(), driver(t))
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	for _, c := range all {
		t.Run(c.Name, func(t *testing.T) { c.Check(t, rt) })
	}
}

// TestPoolReplacesAFailedRuntime: a pool of Node.js runtimes, one execution
// each; a killed child fails its execution, and the pool replaces it.
func TestPoolReplacesAFailedRuntime(t *testing.T) {
	d := driver(t)
	pool, err := client.NewPool(context.Background(), d, client.PoolOptions{Size: 2, PerRuntime: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	k, _ := contract.New()
	c := client.New(pool, k)
	errc := make(chan error, 1)
	go func() {
		_, err := c.Run(context.Background(), `export default async function () { await new Promise(() => setTimeout(() => {}, 60000)); }`, client.RunOptions{})
		errc <- err
	}()
	time.Sleep(500 * time.Millisecond)
	for _, pid := range nodeChildren() {
		// Kill only the busy child: the one whose execution is pending. Both
		// are killed here; the pool must replace both.
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	if err := <-errc; !errors.Is(err, client.ErrRuntimeFailed) {
		t.Fatalf("the killed execution returned %v", err)
	}
	// The idle runtime's death is noticed when its channel breaks; a run
	// sent in that instant would fail like the busy one. Give it a moment.
	time.Sleep(500 * time.Millisecond)
	for i := 0; i < 4; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		out, err := c.Run(ctx, `export default async function ({ result }) { result.appendText("alive"); }`, client.RunOptions{})
		cancel()
		if err != nil || out.Kind != client.Success {
			t.Fatalf("run %d after the kill: %+v %v", i, out, err)
		}
	}
}

// echoClient returns a client, on a new runtime of d (closed when the test
// ends), of a contract with one tool: codemode.echo, which returns its
// input {value: string}.
func echoClient(t testing.TB, d *node.Driver) *client.Client {
	t.Helper()
	rt, err := client.NewRuntime(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Close() })
	schema := json.RawMessage(`{"type":"object","properties":{"value":{"type":"string"}},"required":["value"],"additionalProperties":false}`)
	echo, err := contract.NewRawTool("echo", "Echo.", schema, schema, func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) { return in, nil })
	if err != nil {
		t.Fatal(err)
	}
	k, err := contract.New(echo)
	if err != nil {
		t.Fatal(err)
	}
	return client.New(rt, k)
}
