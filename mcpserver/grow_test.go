package mcpserver_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/quickjs"
	"github.com/codemode-go/codemode/internal/fixtures"
	"github.com/codemode-go/codemode/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// growingRunner is a runner whose contract grows once: it serves first
// without, then with, the fixture tools' namespace, as codemode mcp serve's
// runner does when an MCP server joins.
type growingRunner struct {
	codetool.Runner
	changed chan struct{}
}

func (g *growingRunner) Changed() <-chan struct{} { return g.changed }

// TestGrowingRunnerIsDescribedAgain: after a value on the runner's
// Changed, the code tool's description is made again and the client is
// told the tool list changed.
func TestGrowingRunnerIsDescribedAgain(t *testing.T) {
	ctx := context.Background()
	tools, err := fixtures.Tools(nil)
	if err != nil {
		t.Fatal(err)
	}
	small, err := contract.NewNamespaced(contract.Namespace{Name: "down", Instructions: "Unavailable: it did not start."})
	if err != nil {
		t.Fatal(err)
	}
	grown, err := contract.NewNamespaced(contract.Namespace{Name: "down", Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	d := quickjs.New(quickjs.Options{Timeout: 2 * time.Second})
	t.Cleanup(func() { d.Close() })
	rt, err := client.NewRuntime(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	r := &growingRunner{Runner: client.New(rt, small), changed: make(chan struct{}, 1)}
	t.Cleanup(func() { close(r.changed) })
	srv, err := mcpserver.New(r, mcpserver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	listChanged := make(chan struct{}, 1)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { listChanged <- struct{}{} },
	}).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	description := func() string {
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		return res.Tools[0].Description
	}
	if d := description(); !strings.Contains(d, "- down: Unavailable: it did not start. (0 tools)") {
		t.Fatalf("description before:\n%s", d)
	}
	r.Runner = client.New(rt, grown) // before the signal, as the runner swaps
	r.changed <- struct{}{}
	select {
	case <-listChanged:
	case <-time.After(time.Minute):
		t.Fatal("the client was not told the tool list changed")
	}
	if d := description(); !strings.Contains(d, "- down: tools ") || !strings.Contains(d, "getWeather(") {
		t.Fatalf("description after:\n%s", d)
	}
}
