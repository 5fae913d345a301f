package node_test

import (
	"context"
	"os/exec"
	"testing"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/drivers/node"
	"github.com/codemode-go/codemode/internal/cases"
	"github.com/codemode-go/codemode/testing/conformance"
)

func driver(t *testing.T) *node.Driver {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	return node.New(node.Options{})
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
