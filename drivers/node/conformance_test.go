package node_test

import (
	"context"
	"os"
	"os/exec"
	"testing"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/drivers/node"
	"github.com/codemode-go/codemode/internal/cases"
	"github.com/codemode-go/codemode/testing/conformance"
)

// driver returns a Node.js driver, skipping the test when no Node.js 24 is
// on PATH, unless CODEMODE_REQUIRE_NODE is set (scripts/test sets it).
func driver(t *testing.T) *node.Driver {
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
	conformance.TestRuntime(t, func(ctx context.Context) (*client.Runtime, error) {
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
