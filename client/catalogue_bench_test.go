package client_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers"
	"github.com/codemode-go/codemode/drivers/node"
	"github.com/codemode-go/codemode/drivers/quickjs"
)

// Large catalogues stay cheap: these benchmarks compare a catalogue of 10
// tools with one of 10,000 (MCP-shaped foreign tools, the shape of the
// reference GitHub server's create_pull_request) on the same machine, back
// to back in every iteration, and report the medians and their ratio, so
// that the load of a shared machine weighs on both alike.

// catalogueSizes are the two catalogues compared.
var catalogueSizes = [2]int{10, 10_000}

// catalogue builds n foreign tools in the github namespace.
func catalogue(tb testing.TB, n int) *contract.Contract {
	tb.Helper()
	in := json.RawMessage(`{"type":"object","properties":{"owner":{"type":"string","description":"Repository owner"},"repo":{"type":"string","description":"Repository name"},"title":{"type":"string"},"body":{"type":"string"},"head":{"type":"string"},"base":{"type":"string"},"draft":{"type":"boolean"}},"required":["owner","repo","title","head","base"]}`)
	out := json.RawMessage(`{"type":"object","properties":{"number":{"type":"integer"},"url":{"type":"string"}}}`)
	answer := func(context.Context, json.RawMessage) (json.RawMessage, error) {
		return json.RawMessage(`{"number":1,"url":"https://example.com/1"}`), nil
	}
	tools := make([]*contract.Tool, n)
	for i := range tools {
		t, err := contract.NewForeignTool(fmt.Sprintf("create_pull_request_%d", i), "Create a new pull request in a GitHub repository.", in, out, answer)
		if err != nil {
			tb.Fatal(err)
		}
		tools[i] = t
	}
	c, err := contract.NewNamespaced(contract.Namespace{Name: "github", Tools: tools})
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// report puts the medians of both sizes, in unit, and their ratio on b.
func report(b *testing.B, samples [2][]float64, unit string) {
	med := func(s []float64) float64 {
		s = slices.Clone(s)
		slices.Sort(s)
		return s[len(s)/2]
	}
	small, large := med(samples[0]), med(samples[1])
	b.ReportMetric(small, fmt.Sprintf("%s/%d-tools", unit, catalogueSizes[0]))
	b.ReportMetric(large, fmt.Sprintf("%s/%d-tools", unit, catalogueSizes[1]))
	b.ReportMetric(large/small, "ratio")
	b.ReportMetric(0, "ns/op") // the pair's total time says nothing
}

// BenchmarkCatalogueBoot: what an embedder does before the first program
// runs, with each catalogue: build the tools and the contract, boot a
// QuickJS runtime and bind a client. Goal: the 10,000-tool boot at most
// twice the 10-tool boot.
func BenchmarkCatalogueBoot(b *testing.B) {
	ctx := context.Background()
	var samples [2][]float64
	for b.Loop() {
		for i, n := range catalogueSizes {
			start := time.Now()
			c := catalogue(b, n)
			rt, err := client.NewRuntime(ctx, quickjs.New(quickjs.Options{}))
			if err != nil {
				b.Fatal(err)
			}
			_ = client.New(rt, c)
			samples[i] = append(samples[i], float64(time.Since(start).Microseconds())/1000)
			rt.Close()
		}
	}
	report(b, samples, "ms")
}

// catalogueDrivers are the runtimes the per-execution benchmarks run on:
// QuickJS in its sandbox process (the default), QuickJS in this process,
// and Node.js when node is on PATH.
func catalogueDrivers(b *testing.B) []struct {
	name string
	make func() drivers.Driver
} {
	list := []struct {
		name string
		make func() drivers.Driver
	}{
		{"sandbox", func() drivers.Driver { return quickjs.New(quickjs.Options{}) }},
		{"inprocess", func() drivers.Driver { return quickjs.New(quickjs.Options{InProcess: true}) }},
	}
	if _, err := exec.LookPath("node"); err == nil {
		list = append(list, struct {
			name string
			make func() drivers.Driver
		}{"node", func() drivers.Driver { return node.New(node.Options{}) }})
	} else {
		b.Logf("node is not on PATH: no Node.js runs (%v)", err)
	}
	return list
}

// oneCall is a program that calls one tool of the catalogue.
const oneCall = `export default async function ({ github }: AgentProgramScope) {
  const pr = await github.create_pull_request_1({ owner: "o", repo: "r", title: "t", head: "h", base: "main" });
  return pr.number;
}`

// BenchmarkCatalogueOneCall: one program that calls one tool, on one
// runtime per driver, with each catalogue (the first run of each, which
// compiles the tool's schemas and erases the program, happens before the
// clock starts).
func BenchmarkCatalogueOneCall(b *testing.B) {
	for _, d := range catalogueDrivers(b) {
		b.Run(d.name, func(b *testing.B) {
			ctx := context.Background()
			rt, err := client.NewRuntime(ctx, d.make())
			if err != nil {
				b.Fatal(err)
			}
			defer rt.Close()
			var clients [2]*client.Client
			for i, n := range catalogueSizes {
				clients[i] = client.New(rt, catalogue(b, n))
				if out, err := clients[i].Run(ctx, oneCall, client.RunOptions{}); err != nil || out.Kind != client.Success || string(out.Value) != "1" {
					b.Fatalf("%d tools: %+v, %v", n, out, err)
				}
			}
			var samples [2][]float64
			for b.Loop() {
				for i, cl := range clients {
					start := time.Now()
					if _, err := cl.Run(ctx, oneCall, client.RunOptions{}); err != nil {
						b.Fatal(err)
					}
					samples[i] = append(samples[i], float64(time.Since(start).Microseconds())/1000)
				}
			}
			report(b, samples, "ms")
		})
	}
}

// BenchmarkCatalogueExecuteMessage: the bytes the host writes to the runner
// for a program that calls nothing (the execute message alone), with each
// catalogue, counted on the driver's channel; the first run of each is
// left out, as it is in BenchmarkCatalogueOneCall.
func BenchmarkCatalogueExecuteMessage(b *testing.B) {
	ctx := context.Background()
	d := &countingDriver{Driver: quickjs.New(quickjs.Options{})}
	rt, err := client.NewRuntime(ctx, d)
	if err != nil {
		b.Fatal(err)
	}
	defer rt.Close()
	const empty = `export default async function () { return 1; }`
	var clients [2]*client.Client
	for i, n := range catalogueSizes {
		clients[i] = client.New(rt, catalogue(b, n))
		if out, err := clients[i].Run(ctx, empty, client.RunOptions{}); err != nil || out.Kind != client.Success {
			b.Fatalf("%+v, %v", out, err)
		}
	}
	var samples [2][]float64
	for b.Loop() {
		for i, cl := range clients {
			before := d.written.Load()
			if out, err := cl.Run(ctx, empty, client.RunOptions{}); err != nil || out.Kind != client.Success {
				b.Fatalf("%+v, %v", out, err)
			}
			samples[i] = append(samples[i], float64(d.written.Load()-before))
		}
	}
	report(b, samples, "bytes")
}

// countingDriver counts the bytes the host writes on its connections.
type countingDriver struct {
	drivers.Driver
	written atomic.Int64
}

func (d *countingDriver) Connect(ctx context.Context, req drivers.ConnectRequest) (drivers.Connection, error) {
	c, err := d.Driver.Connect(ctx, req)
	if err != nil {
		return nil, err
	}
	return &countingConn{Connection: c, ch: &countingChannel{ReadWriteCloser: c.Channel(), n: &d.written}}, nil
}

type countingConn struct {
	drivers.Connection
	ch *countingChannel
}

func (c *countingConn) Channel() io.ReadWriteCloser { return c.ch }

type countingChannel struct {
	io.ReadWriteCloser
	n *atomic.Int64
}

func (c *countingChannel) Write(p []byte) (int, error) {
	n, err := c.ReadWriteCloser.Write(p)
	c.n.Add(int64(n))
	return n, err
}
