package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
)

// The rows beyond issue 16's: a pool of runtimes, a large catalogue, the
// command line's first run, and (durable.go) the durable layer.

// concurrentPool is conc64 on a pool of one runtime per core
// (client.NewPool), made on first use.
func (o *ours) concurrentPool(r row, seq int) (float64, error) {
	if o.pool == nil {
		p, err := client.NewPool(context.Background(), o.d, client.PoolOptions{Size: runtime.NumCPU()})
		if err != nil {
			return 0, fmt.Errorf("%s: a pool of %d runtimes: %w", o.label, runtime.NumCPU(), err)
		}
		o.pool = p
	}
	return o.concurrent(client.New(o.pool, o.k), r, seq)
}

// catalogueSizes are the catalogues the catalogue row compares, as
// client's BenchmarkCatalogueOneCall does.
var catalogueSizes = [2]int{10, 10_000}

// catalogueProgram calls one tool of the catalogue.
const catalogueProgram = `export default async function ({ github }: AgentProgramScope) {
  const pr = await github.create_pull_request_1({ owner: "o", repo: "r", title: "t __SEQ__", head: "h", base: "main" });
  return pr.number;
}
`

// catalogue is n foreign tools in the github namespace, shaped as the
// GitHub MCP server's create_pull_request (the catalogue of client's
// catalogue_bench_test.go).
func catalogue(n int) (*contract.Contract, error) {
	in := json.RawMessage(`{"type":"object","properties":{"owner":{"type":"string","description":"Repository owner"},"repo":{"type":"string","description":"Repository name"},"title":{"type":"string"},"body":{"type":"string"},"head":{"type":"string"},"base":{"type":"string"},"draft":{"type":"boolean"}},"required":["owner","repo","title","head","base"]}`)
	out := json.RawMessage(`{"type":"object","properties":{"number":{"type":"integer"},"url":{"type":"string"}}}`)
	answer := func(context.Context, json.RawMessage) (json.RawMessage, error) {
		return json.RawMessage(`{"number":1,"url":"https://example.com/1"}`), nil
	}
	tools := make([]*contract.Tool, n)
	for i := range tools {
		t, err := contract.NewForeignTool(fmt.Sprintf("create_pull_request_%d", i), "Create a new pull request in a GitHub repository.", in, out, answer)
		if err != nil {
			return nil, err
		}
		tools[i] = t
	}
	return contract.NewNamespaced(contract.Namespace{Name: "github", Tools: tools})
}

// catalogueRatio runs the one-call program r.n times against 10 and
// against 10,000 tools on the contender's runtime, alternately, and
// returns the ratio of the times (10,000 to 10).
func (o *ours) catalogueRatio(r row, seq int) (float64, error) {
	if o.catalogue[0] == nil {
		for i, n := range catalogueSizes {
			k, err := catalogue(n)
			if err != nil {
				return 0, fmt.Errorf("a catalogue of %d tools: %w", n, err)
			}
			o.catalogue[i] = client.New(o.rt, k)
		}
	}
	var took [2]time.Duration
	for i := range r.n {
		for j, c := range o.catalogue {
			start := time.Now()
			if _, err := o.runOn(c, fill(catalogueProgram, seq+2*i+j, 0)); err != nil {
				return 0, fmt.Errorf("%d tools: %w", catalogueSizes[j], err)
			}
			took[j] += time.Since(start)
		}
	}
	return took[1].Seconds() / took[0].Seconds(), nil
}

// cliRuntimes are the --runtime values of `codemode run` for our drivers;
// QuickJS in process has none.
var cliRuntimes = map[string]string{"quickjs": "quickjs", "node": "node"}

// cliTools is the --tools file of the firstrun row: echo, a command.
const cliTools = `{"tools": [{"name": "echo", "description": "Return the value it was given.",
  "inputSchema": ` + echoSchema + `, "outputSchema": ` + echoSchema + `, "command": ["cat"]}]}`

// buildCLI builds the codemode command into dir and returns its path.
func buildCLI(dir string) (string, error) {
	bin := filepath.Join(dir, "codemode")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/codemode-go/codemode/cmd/codemode")
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("building cmd/codemode (run the harness inside the module): %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tools.json"), []byte(cliTools), 0o600); err != nil {
		return "", err
	}
	return bin, nil
}

// firstRun times r.n runs of `codemode run` of a fresh one-call program,
// each a new process (QuickJS's compile cache on disk is warm after the
// warm-up's run), in milliseconds of wall time per run. The command finds
// Node.js on PATH (-node does not reach it), and its echo tool is cat, so
// a run includes one fork and exec.
func (o *ours) firstRun(r row, seq int) (float64, error) {
	rt, ok := cliRuntimes[o.label]
	if !ok || o.cli == "" {
		return 0, errNoEquivalent
	}
	dir := filepath.Dir(o.cli)
	var took time.Duration
	for i := range r.n {
		prog := filepath.Join(dir, fmt.Sprintf("p%d.ts", seq+i))
		if err := os.WriteFile(prog, []byte(fill(warmProgram, seq+i, 0)), 0o600); err != nil {
			return 0, err
		}
		cmd := exec.Command(o.cli, "run", "--runtime", rt, "--tools", filepath.Join(dir, "tools.json"), prog)
		start := time.Now()
		out, err := cmd.CombinedOutput()
		took += time.Since(start)
		_ = os.Remove(prog)
		if err != nil {
			return 0, fmt.Errorf("codemode run: %w: %s", err, out)
		}
	}
	return float64(took.Microseconds()) / 1000 / float64(r.n), nil
}
