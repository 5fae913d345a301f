// Command sidebyside measures codemode-go's drivers side by side, and the
// TypeScript reference implementation (torkbot/code-mode, its Host Node
// runtime) when given a built checkout of it, interleaved round by round so
// that a loaded machine slows every contender alike. It prints the median
// of each figure and its ratio to the reference (or, without one, to the
// QuickJS sandbox).
//
//	go run ./bench/sidebyside                              # our drivers only
//	go run ./bench/sidebyside -reference /path/to/code-mode # and the reference
//	go run ./bench/sidebyside -reference /path/to/code-mode -markdown docs/speed.md
//
// -markdown writes the table, with the machine and the date, into the file
// between its "<!-- sidebyside:begin -->" and "<!-- sidebyside:end -->"
// lines, so that docs/speed.md carries the figures of the run itself.
//
// The rows are issue 16's: warm execution of a fresh program with one tool
// call; the tool call round trip inside a program; 64 concurrent one-call
// programs (executions per second); a 1 MB tool result filtered, grouped and
// sorted by the program; and memory retained per execution over 5,000
// executions. Issue 33 added the rest of its goals table (rows.go,
// durable.go): 64 concurrent programs on a pool of one runtime per core;
// the wall time of `codemode run` in a new process; a one-call program
// against 10,000 tools and against 10; and the durable layer's journal
// overhead per call, replay of 1,000 recorded calls and overhead on a
// program without calls. The reference measures the rows it has an
// equivalent for (the table shows "—" elsewhere). After the table, a goal
// line per row says which of issue 33's goals the run met. Every execution
// sends a fresh program source, as an agent would, so no erase cache
// answers it.
//
// The reference checkout is built with `npm install && npm run build`; its
// package is not on the npm registry (https://github.com/torkbot/code-mode).
// Node.js 24 must be on PATH, or named with -node.
package main

import (
	"bufio"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers"
	"github.com/codemode-go/codemode/drivers/node"
	"github.com/codemode-go/codemode/drivers/quickjs"
)

//go:embed reference.mjs
var referenceScript []byte

// Programs, with __SEQ__ (a fresh number per execution, so every source is
// new) and __N__ (a loop count) filled in per execution. The same TypeScript
// runs on every contender; console output is what the reference's scope has.
const (
	warmProgram = `export default async function ({ codemode, console }: AgentProgramScope) {
  const r = await codemode.echo({ value: "hello __SEQ__" });
  console.log(r.value);
}
`
	loopProgram = `export default async function ({ codemode }: AgentProgramScope) {
  // __SEQ__
  for (let i = 0; i < __N__; i++) await codemode.echo({ value: "x" });
}
`
	bigProgram = `export default async function ({ codemode, console }: AgentProgramScope) {
  const { items } = await codemode.rows({});
  const groups: Record<string, typeof items> = {};
  for (const it of items.filter((x) => x.active && x.score > 20)) (groups[it.group] ??= []).push(it);
  const summary = Object.entries(groups)
    .map(([group, list]) => ({ group, count: list.length, top: list.sort((a, b) => b.score - a.score || a.name.localeCompare(b.name))[0].name }))
    .sort((a, b) => b.count - a.count || a.group.localeCompare(b.group));
  console.log(JSON.stringify(summary.slice(0, 3)) + " __SEQ__");
}
`
	// heapProgram reports the V8 heap in use after two forced collections
	// (Node.js drivers only).
	heapProgram = `import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
export default async function ({ console }: AgentProgramScope) {
  // __SEQ__
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc");
  gc(); gc();
  const used = process.memoryUsage().heapUsed;
  console.log(String(used));
  return used;
}
`
)

const (
	echoSchema  = `{"type":"object","properties":{"value":{"type":"string"}},"required":["value"],"additionalProperties":false}`
	emptySchema = `{"type":"object","properties":{},"additionalProperties":false}`
	rowsSchema  = `{"type":"object","properties":{"items":{"type":"array","items":{"type":"object","properties":{` +
		`"id":{"type":"integer"},"name":{"type":"string"},"group":{"type":"string"},"score":{"type":"number"},` +
		`"active":{"type":"boolean"},"tags":{"type":"array","items":{"type":"string"}},"note":{"type":"string"}},` +
		`"required":["id","name","group","score","active","tags","note"],"additionalProperties":false}}},` +
		`"required":["items"],"additionalProperties":false}`
)

// rowsJSON is the 1 MB tool result: items of about 200 bytes each.
func rowsJSON(size int) []byte {
	type item struct {
		ID     int      `json:"id"`
		Name   string   `json:"name"`
		Group  string   `json:"group"`
		Score  float64  `json:"score"`
		Active bool     `json:"active"`
		Tags   []string `json:"tags"`
		Note   string   `json:"note"`
	}
	var items []item
	n := 0
	for i := 0; n < size; i++ {
		it := item{ID: i, Name: fmt.Sprintf("item-%05d", i), Group: fmt.Sprintf("g%02d", (i*7)%23),
			Score: float64((i*37)%1000) / 10, Active: i%3 != 0, Tags: []string{"alpha", "beta", fmt.Sprintf("t%d", i%5)},
			Note: "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore."}
		raw, _ := json.Marshal(it)
		n += len(raw) + 1
		items = append(items, it)
	}
	raw, _ := json.Marshal(map[string]any{"items": items})
	return raw
}

func fill(tpl string, seq, n int) string {
	return strings.ReplaceAll(strings.ReplaceAll(tpl, "__SEQ__", strconv.Itoa(seq)), "__N__", strconv.Itoa(n))
}

// row is one figure of the table.
type row struct {
	key, title, unit string
	higherIsBetter   bool
	n                int    // executions (or calls) per measurement
	fixed            bool   // n is part of what the row measures: -scale leaves it
	goals            []goal // issue 33's goals for the row (goals.go)
}

// compared reports whether the row's figures are put as ratios to the
// base: not memory, which may be negative, nor a figure that is itself a
// ratio.
func (r row) compared() bool { return r.key != "retained" && r.unit != "x" }

// contender runs the rows on one implementation.
type contender interface {
	name() string
	// measure returns one measurement of r, or errNoEquivalent when the
	// contender has nothing that row measures.
	measure(r row, seq int) (float64, error)
	close()
}

// errNoEquivalent is a contender's answer for a row it cannot measure (the
// reference's durable rows; the command line for QuickJS in process); the
// table shows "—" there.
var errNoEquivalent = errors.New("no equivalent")

// ours is one of our drivers behind a client.
type ours struct {
	label string
	d     drivers.Driver
	rt    *client.Runtime
	k     *contract.Contract // echo and rows
	c     *client.Client
	pid   int    // the process running the engines (for retained memory)
	cli   string // the built codemode command, for the firstrun row ("" when not built)

	// Made by the first measurement of a row that needs them, closed with
	// the contender.
	pool      *client.Runtime   // conc64pool: one runtime per core
	catalogue [2]*client.Client // catalogue: 10 and 10,000 tools on rt
	durable   *durableRig       // the durable rows
}

func newOurs(label string, d drivers.Driver, rows []byte, cli string) (*ours, error) {
	before := childPIDs()
	rt, err := client.NewRuntime(context.Background(), d)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", label, err)
	}
	pid := os.Getpid()
	for _, p := range childPIDs() {
		if !slices.Contains(before, p) {
			pid = p
		}
	}
	echo, err := contract.NewRawTool("echo", "Return the value it was given.", json.RawMessage(echoSchema), json.RawMessage(echoSchema),
		func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) { return in, nil })
	if err != nil {
		return nil, err
	}
	big, err := contract.NewRawTool("rows", "Return the rows.", json.RawMessage(emptySchema), json.RawMessage(rowsSchema),
		func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) { return rows, nil })
	if err != nil {
		return nil, err
	}
	k, err := contract.New(echo, big)
	if err != nil {
		return nil, err
	}
	return &ours{label: label, d: d, rt: rt, k: k, c: client.New(rt, k), pid: pid, cli: cli}, nil
}

func (o *ours) name() string { return o.label }

func (o *ours) close() {
	if o.durable != nil {
		o.durable.close()
	}
	if o.pool != nil {
		_ = o.pool.Close()
	}
	_ = o.rt.Close()
}

func (o *ours) run(src string) (*client.Outcome, error) { return o.runOn(o.c, src) }

// runOn runs src on c and fails unless the program succeeded.
func (o *ours) runOn(c *client.Client, src string) (*client.Outcome, error) {
	out, err := c.Run(context.Background(), src, client.RunOptions{Limits: client.Limits{MaxToolCalls: 1 << 20}})
	if err != nil {
		return nil, err
	}
	if out.Kind != client.Success {
		return nil, fmt.Errorf("%s: %s", o.label, out.Error)
	}
	return out, nil
}

func (o *ours) measure(r row, seq int) (float64, error) {
	switch r.key {
	case "warm", "big":
		tpl := warmProgram
		if r.key == "big" {
			tpl = bigProgram
		}
		start := time.Now()
		for i := range r.n {
			if _, err := o.run(fill(tpl, seq+i, 0)); err != nil {
				return 0, err
			}
		}
		return float64(time.Since(start).Microseconds()) / 1000 / float64(r.n), nil
	case "roundtrip":
		t0 := time.Now()
		if _, err := o.run(fill(loopProgram, seq, 0)); err != nil {
			return 0, err
		}
		t1 := time.Now()
		if _, err := o.run(fill(loopProgram, seq+1, r.n)); err != nil {
			return 0, err
		}
		t2 := time.Now()
		return float64((t2.Sub(t1) - t1.Sub(t0)).Nanoseconds()) / 1000 / float64(r.n), nil
	case "conc64":
		return o.concurrent(o.c, r, seq)
	case "conc64pool":
		return o.concurrentPool(r, seq)
	case "catalogue":
		return o.catalogueRatio(r, seq)
	case "firstrun":
		return o.firstRun(r, seq)
	case "journal", "replay1000", "nocall":
		return o.measureDurable(r, seq)
	case "retained":
		return o.retained(r, seq)
	case "boot":
		// A second runtime while the first lives, after a pause in which a
		// QuickJS sandbox's spare process has booted.
		time.Sleep(1500 * time.Millisecond)
		start := time.Now()
		rt, err := client.NewRuntime(context.Background(), o.d)
		if err != nil {
			return 0, err
		}
		ms := float64(time.Since(start).Microseconds()) / 1000
		_ = rt.Close()
		return ms, nil
	}
	return 0, fmt.Errorf("unknown row %s", r.key)
}

// concurrent runs r.n one-call programs on c, 64 at a time, and returns
// executions per second.
func (o *ours) concurrent(c *client.Client, r row, seq int) (float64, error) {
	var next atomic.Int64
	var wg sync.WaitGroup
	var failed sync.Once
	var first error
	start := time.Now()
	for range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= r.n {
					return
				}
				if _, err := o.runOn(c, fill(warmProgram, seq+i, 0)); err != nil {
					failed.Do(func() { first = err })
					return
				}
			}
		}()
	}
	wg.Wait()
	if first != nil {
		return 0, first
	}
	return float64(r.n) / time.Since(start).Seconds(), nil
}

// retained: growth per execution after a warm-up of 500. On QuickJS it is
// the resident memory of the process running the engines (the sandbox
// process, or this one in process, after a Go collection); on Node.js the V8
// heap after forced collections, as the program itself reports it.
func (o *ours) retained(r row, seq int) (float64, error) {
	warm := func(k int) error {
		for i := range k {
			if _, err := o.run(fill(warmProgram, seq, 0)); err != nil {
				return err
			}
			seq++
			_ = i
		}
		return nil
	}
	measure := func() (float64, error) {
		if strings.HasPrefix(o.label, "node") {
			out, err := o.run(fill(heapProgram, seq, 0))
			seq++
			if err != nil {
				return 0, err
			}
			return strconv.ParseFloat(string(out.Value), 64)
		}
		runtime.GC()
		debug.FreeOSMemory()
		return float64(rss(o.pid)), nil
	}
	if err := warm(500); err != nil {
		return 0, err
	}
	m0, err := measure()
	if err != nil {
		return 0, err
	}
	if err := warm(r.n); err != nil {
		return 0, err
	}
	m1, err := measure()
	if err != nil {
		return 0, err
	}
	return (m1 - m0) / float64(r.n), nil
}

// reference is torkbot/code-mode in a Node.js process running reference.mjs.
type reference struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Scanner
}

func newReference(nodePath, checkout string, rows []byte) (*reference, error) {
	dir, err := os.MkdirTemp("", "sidebyside")
	if err != nil {
		return nil, err
	}
	script := filepath.Join(dir, "reference.mjs")
	if err := os.WriteFile(script, referenceScript, 0o600); err != nil {
		return nil, err
	}
	cmd := exec.Command(nodePath, script, checkout)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the reference: %w", err)
	}
	ref := &reference{cmd: cmd, in: in, out: bufio.NewScanner(stdout)}
	ref.out.Buffer(nil, 1<<20)
	shared, _ := json.Marshal(map[string]any{
		"echoSchema": json.RawMessage(echoSchema), "emptySchema": json.RawMessage(emptySchema), "rowsSchema": json.RawMessage(rowsSchema),
		"rowsJSON": string(rows),
		"programs": map[string]string{"warm": warmProgram, "loop": loopProgram, "big": bigProgram, "heap": heapProgram},
	})
	if _, err := in.Write(append(shared, '\n')); err != nil {
		return nil, err
	}
	var ready struct{ Ready bool }
	if err := ref.answer(&ready); err != nil || !ready.Ready {
		ref.close()
		return nil, fmt.Errorf("the reference did not start: %v", err)
	}
	_ = os.RemoveAll(dir)
	return ref, nil
}

func (r *reference) answer(v any) error {
	if !r.out.Scan() {
		if err := r.out.Err(); err != nil {
			return err
		}
		return io.EOF
	}
	return json.Unmarshal(r.out.Bytes(), v)
}

func (r *reference) name() string { return "reference" }

// referenceRows are the rows reference.mjs measures; conc64pool is its
// one runtime again (it has no pool), measured in turn with our pools.
var referenceRows = []string{"warm", "roundtrip", "conc64", "conc64pool", "big", "retained", "boot"}

func (r *reference) measure(w row, seq int) (float64, error) {
	if !slices.Contains(referenceRows, w.key) {
		return 0, errNoEquivalent
	}
	req, _ := json.Marshal(map[string]any{"row": w.key, "n": w.n, "seq": seq})
	if _, err := r.in.Write(append(req, '\n')); err != nil {
		return 0, err
	}
	var a struct {
		Value *float64
		Error string
	}
	if err := r.answer(&a); err != nil {
		return 0, fmt.Errorf("reference: %w", err)
	}
	if a.Error != "" || a.Value == nil {
		return 0, fmt.Errorf("reference: %s", a.Error)
	}
	return *a.Value, nil
}

func (r *reference) close() {
	_ = r.in.Close()
	done := make(chan struct{})
	go func() { _ = r.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = r.cmd.Process.Kill()
		<-done
	}
}

// childPIDs lists this process's children.
func childPIDs() []int {
	var pids []int
	tasks, _ := filepath.Glob("/proc/self/task/*/children")
	for _, t := range tasks {
		raw, _ := os.ReadFile(t)
		for _, f := range strings.Fields(string(raw)) {
			if p, err := strconv.Atoi(f); err == nil {
				pids = append(pids, p)
			}
		}
	}
	return pids
}

// rss is a process's resident memory in bytes (0 where /proc is missing).
func rss(pid int) int64 {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/statm", pid))
	if err != nil {
		return 0
	}
	f := strings.Fields(string(raw))
	if len(f) < 2 {
		return 0
	}
	pages, _ := strconv.ParseInt(f[1], 10, 64)
	return pages * int64(os.Getpagesize())
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func main() {
	var cfg config
	flag.StringVar(&cfg.refPath, "reference", "", "a built checkout of github.com/torkbot/code-mode (npm install && npm run build); empty skips the reference")
	flag.StringVar(&cfg.nodePath, "node", "node", "the Node.js 24 executable, for our Node driver and the reference")
	flag.IntVar(&cfg.rounds, "rounds", 5, "interleaved rounds per row; the median is printed")
	flag.StringVar(&cfg.rows, "rows", defaultRows(), "rows to run, comma-separated")
	flag.StringVar(&cfg.drivers, "drivers", "quickjs,quickjs-inprocess,node", "our drivers to run, comma-separated")
	flag.Float64Var(&cfg.scale, "scale", 1, "multiplies each row's executions per measurement")
	flag.StringVar(&cfg.markdown, "markdown", "", "also write the table, with the machine and date, into this Markdown file between its "+beginMarker+" and "+endMarker+" lines (docs/speed.md)")
	cpuProfile := flag.String("cpuprofile", "", "write a Go CPU profile of the whole run to this file (go tool pprof; see bench/PROFILING.md)")
	flag.Parse()
	if err := profiled(*cpuProfile, func() error { return run(cfg) }); err != nil {
		fmt.Fprintln(os.Stderr, "sidebyside:", err)
		os.Exit(1)
	}
}

// config is what the command line asks for.
type config struct {
	refPath, nodePath string
	rounds            int
	rows, drivers     string
	scale             float64
	markdown          string // the file to write the table into, or ""
	cli               string // the built codemode command (firstrun), or ""
}

// profiled runs f, under the Go CPU profiler writing to path when path is
// not empty. The profile covers this process only: the in-process QuickJS
// driver, the clients and the erasure, not a sandbox's or Node.js's
// processes.
func profiled(path string, f func() error) error {
	if path == "" {
		return f()
	}
	out, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("creating the CPU profile: %w", err)
	}
	if err := pprof.StartCPUProfile(out); err != nil {
		_ = out.Close()
		return fmt.Errorf("starting the CPU profile: %w", err)
	}
	err = f()
	pprof.StopCPUProfile()
	if cerr := out.Close(); cerr != nil && err == nil {
		err = fmt.Errorf("writing the CPU profile: %w", cerr)
	}
	return err
}

// allRows are the figures the harness can measure, in the table's order,
// with issue 33's goals (sandbox, the default, unless a goal names another
// driver; the pool's against the reference's one runtime).
var allRows = []row{
	{key: "warm", title: "warm execution, fresh program, one tool call", unit: "ms", n: 200,
		goals: []goal{{"quickjs", "reference", 0.7}, {"quickjs-inprocess", "reference", 0.5}}},
	{key: "roundtrip", title: "tool call round trip", unit: "us", n: 2000,
		goals: []goal{{"quickjs", "quickjs-inprocess", 1.3}, {"quickjs", "reference", 0.5}, {"quickjs-inprocess", "reference", 0.35}}},
	{key: "conc64", title: "64 concurrent one-call programs", unit: "exec/s", higherIsBetter: true, n: 640,
		goals: []goal{{"quickjs", "reference", 1.0}}},
	{key: "conc64pool", title: "64 concurrent one-call programs, a runtime per core (reference: one runtime)", unit: "exec/s", higherIsBetter: true, n: 640,
		goals: []goal{{"quickjs", "reference", 1.5}}},
	{key: "big", title: "1 MB tool result, filter/group/sort", unit: "ms", n: 5,
		goals: []goal{{"quickjs", "reference", 0.7}}},
	{key: "firstrun", title: "first `codemode run` of a one-call program, new process, compile cache warm", unit: "ms", n: 3,
		goals: []goal{{"quickjs", "", 150}}},
	{key: "catalogue", title: "one-call program, 10,000 tools against 10", unit: "x", n: 50,
		goals: []goal{{"quickjs", "", 1.2}}},
	{key: "journal", title: "durable journal overhead per tool call", unit: "us", n: 200,
		goals: []goal{{"quickjs", "", 100}}},
	{key: "replay1000", title: "durable replay of 1,000 recorded calls", unit: "ms", n: 1000, fixed: true,
		goals: []goal{{"quickjs", "", 150}}},
	{key: "nocall", title: "durable Execute overhead, program without calls", unit: "ms", n: 50,
		goals: []goal{{"quickjs", "", 0.3}}},
	{key: "retained", title: "retained memory per execution over 5,000", unit: "B/exec", n: 5000},
	{key: "boot", title: "new runtime beside a live one", unit: "ms", n: 1},
}

// defaultRows are every row, comma-separated (the -rows flag's default).
func defaultRows() string {
	keys := make([]string, len(allRows))
	for i, r := range allRows {
		keys[i] = r.key
	}
	return strings.Join(keys, ",")
}

// results are each row's measurements by contender name.
type results map[string]map[string][]float64

// run measures the rows cfg asks for on every contender and prints the
// table (and writes it into cfg.markdown).
func run(cfg config) error {
	rows := rowsJSON(1 << 20)
	table, err := selectRows(cfg.rows, cfg.scale)
	if err != nil {
		return err
	}
	if slices.ContainsFunc(table, func(r row) bool { return r.key == "firstrun" }) {
		dir, err := os.MkdirTemp("", "sidebyside-cli")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		fmt.Println("# building cmd/codemode for the firstrun row")
		if cfg.cli, err = buildCLI(dir); err != nil {
			return err
		}
	}
	cs, err := contenders(cfg, rows)
	defer func() {
		for _, c := range cs {
			c.close()
		}
	}()
	if err != nil {
		return err
	}
	m := machine{when: time.Now().UTC(), load: loadAverage(), rounds: cfg.rounds, reference: cfg.refPath}
	fmt.Printf("# sidebyside: %s, %d CPUs, GOMAXPROCS %d, %s/%s, %s\n", m.when.Format(time.DateTime), runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.GOOS, runtime.GOARCH, m.load)
	fmt.Printf("# rounds %d, contenders in rotating order each round; 1 MB result is %d bytes\n", cfg.rounds, len(rows))
	seq := 1
	if err := warmUp(cs, table, &seq); err != nil {
		return err
	}
	res, err := measureRows(cs, table, cfg.rounds, &seq)
	if err != nil {
		return err
	}
	base := cs[0].name()
	if cfg.refPath != "" {
		base = cs[len(cs)-1].name()
	}
	printTable(cs, table, res, base)
	for _, l := range goalLines(table, res) {
		fmt.Println("# goal:", l)
	}
	if cfg.markdown == "" {
		return nil
	}
	return writeMarkdown(cfg.markdown, markdownTable(m, cs, table, res, base))
}

// selectRows returns the rows named in only (comma-separated), in the
// table's order, their executions per measurement multiplied by scale. A
// name that is no row's is an error.
func selectRows(only string, scale float64) ([]row, error) {
	names := strings.Split(only, ",")
	for _, n := range names {
		if n != "" && !slices.ContainsFunc(allRows, func(r row) bool { return r.key == n }) {
			return nil, fmt.Errorf("-rows: no row %q (%s)", n, defaultRows())
		}
	}
	var table []row
	for _, r := range allRows {
		if slices.Contains(names, r.key) {
			if !r.fixed {
				r.n = max(1, int(float64(r.n)*scale))
			}
			table = append(table, r)
		}
	}
	return table, nil
}

// contenders starts our drivers named in cfg.drivers and, with
// cfg.refPath, the reference last. On error the contenders started so far
// are returned for the caller to close.
func contenders(cfg config, rows []byte) ([]contender, error) {
	var cs []contender
	for _, w := range strings.Split(cfg.drivers, ",") {
		var d drivers.Driver
		switch w {
		case "quickjs":
			d = quickjs.New(quickjs.Options{})
		case "quickjs-inprocess":
			d = quickjs.New(quickjs.Options{InProcess: true})
		case "node":
			d = node.New(node.Options{NodePath: cfg.nodePath})
		case "":
			continue
		default:
			return cs, fmt.Errorf("unknown driver %q (quickjs, quickjs-inprocess, node)", w)
		}
		o, err := newOurs(w, d, rows, cfg.cli)
		if err != nil {
			return cs, err
		}
		cs = append(cs, o)
	}
	if cfg.refPath != "" {
		ref, err := newReference(cfg.nodePath, cfg.refPath, rows)
		if err != nil {
			return cs, err
		}
		cs = append(cs, ref)
	}
	if len(cs) == 0 {
		return nil, errors.New("nothing to measure")
	}
	return cs, nil
}

// warmUp runs every contender on every row once, at a tenth of its size
// (not counted); seq advances past the programs it used.
func warmUp(cs []contender, table []row, seq *int) error {
	for _, c := range cs {
		for _, r := range table {
			if r.key == "retained" || r.key == "boot" {
				continue
			}
			w := r
			w.n = max(1, w.n/10)
			if _, err := c.measure(w, *seq); err != nil && !errors.Is(err, errNoEquivalent) {
				return fmt.Errorf("%s warm-up %s: %w", c.name(), r.key, err)
			}
			*seq += 2*w.n + 2
		}
	}
	return nil
}

// measureRows measures each row rounds times (retained memory once),
// the contenders taking turns in an order that rotates each round.
func measureRows(cs []contender, table []row, rounds int, seq *int) (results, error) {
	res := results{}
	for _, r := range table {
		res[r.key] = map[string][]float64{}
		k := rounds
		if r.key == "retained" {
			k = 1 // 5,000 executions each; one round
		}
		for round := range k {
			for i := range cs {
				c := cs[(i+round)%len(cs)]
				v, err := c.measure(r, *seq)
				*seq += 2*r.n + 2
				if errors.Is(err, errNoEquivalent) {
					continue
				}
				if err != nil {
					return nil, fmt.Errorf("%s %s: %w", c.name(), r.key, err)
				}
				res[r.key][c.name()] = append(res[r.key][c.name()], v)
			}
		}
	}
	return res, nil
}

// ratio is how many times better than base contender c did on row r
// (above 1 is better).
func ratio(res results, r row, c, base string) float64 {
	b, m := median(res[r.key][base]), median(res[r.key][c])
	if r.higherIsBetter {
		return m / b
	}
	return b / m
}

// hasRatio reports whether row r has a ratio of contender c to base: both
// measured it, and its figures are compared.
func hasRatio(res results, r row, c, base string) bool {
	return r.compared() && len(res[r.key][c]) > 0 && len(res[r.key][base]) > 0
}

// printTable prints the medians and each contender's ratio to base.
func printTable(cs []contender, table []row, res results, base string) {
	tw := tabwriter.NewWriter(os.Stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "figure\tunit")
	for _, c := range cs {
		fmt.Fprintf(tw, "\t%s", c.name())
	}
	fmt.Fprintf(tw, "\tbetter/worse than %s (x)\n", base)
	for _, r := range table {
		fmt.Fprintf(tw, "%s\t%s", r.title, r.unit)
		for _, c := range cs {
			cell := "—"
			if m := res[r.key][c.name()]; len(m) > 0 {
				cell = format(median(m))
			}
			fmt.Fprintf(tw, "\t%s", cell)
		}
		var ratios []string
		for _, c := range cs {
			if c.name() != base && hasRatio(res, r, c.name(), base) {
				ratios = append(ratios, fmt.Sprintf("%s %.3g", c.name(), ratio(res, r, c.name(), base)))
			}
		}
		fmt.Fprintf(tw, "\t%s\n", strings.Join(ratios, ", "))
	}
	_ = tw.Flush()
	fmt.Println("# ratios: how many times faster than the base (above 1 is better); retained memory is per execution (QuickJS: resident memory of the engine process; Node.js: V8 heap after forced GC)")
}

func format(v float64) string {
	switch a := max(v, -v); {
	case a >= 1000:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	default:
		return strconv.FormatFloat(v, 'f', 3, 64)
	}
}

func loadAverage() string {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "load unknown"
	}
	f := strings.Fields(string(raw))
	if len(f) < 3 {
		return "load unknown"
	}
	return "load average " + strings.Join(f[:3], " ")
}
