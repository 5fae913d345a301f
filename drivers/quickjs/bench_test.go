package quickjs_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/quickjs"
)

// benchModes runs a benchmark on both modes of the driver: "sandbox" (the
// default: engines in a sandbox process per runtime) and "in-process".
func benchModes(b *testing.B, bench func(b *testing.B, opts quickjs.Options)) {
	benchModesWith(b, quickjs.Options{}, bench)
}

func benchModesWith(b *testing.B, opts quickjs.Options, bench func(b *testing.B, opts quickjs.Options)) {
	b.Run("sandbox", func(b *testing.B) { bench(b, opts) })
	opts.InProcess = true
	b.Run("in-process", func(b *testing.B) { bench(b, opts) })
}

// BenchmarkReset compares the two ways an engine is reset after an
// execution: copying back the pages the kernel saw written (the default
// where Linux can track them) and copying the whole snapshot
// (Options.FullReset), on warm executions one at a time (the erase cache
// answers) and 64 at once on one runtime.
func BenchmarkReset(b *testing.B) {
	for _, full := range []bool{false, true} {
		name := "written-pages"
		if full {
			name = "full-copy"
		}
		opts := quickjs.Options{FullReset: full}
		b.Run("warm/"+name, func(b *testing.B) { benchModesWith(b, opts, benchWarmExecution) })
		b.Run("concurrent64/"+name, func(b *testing.B) {
			benchModesWith(b, opts, func(b *testing.B, opts quickjs.Options) { benchConcurrent64Sizes(b, opts, 0) })
		})
	}
}

func benchClient(b *testing.B, opts quickjs.Options, input *contract.Schema) *client.Client {
	b.Helper()
	rt, err := client.NewRuntime(context.Background(), quickjs.New(opts))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = rt.Close() })
	echo, err := contract.NewRawTool("echo", "Return the value it was given.",
		json.RawMessage(`{"type":"object","properties":{"value":{"type":"string"}},"required":["value"],"additionalProperties":false}`),
		json.RawMessage(`{"type":"object","properties":{"value":{"type":"string"}},"required":["value"],"additionalProperties":false}`),
		func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) { return in, nil })
	if err != nil {
		b.Fatal(err)
	}
	c, err := contract.New(echo)
	if err == nil && input != nil {
		c, err = c.WithInput(input)
	}
	if err != nil {
		b.Fatal(err)
	}
	return client.New(rt, c)
}

const oneCall = `export default async function ({ codemode, result }: AgentProgramScope) {
  const r = await codemode.echo({ value: "hello" });
  result.appendText(r.value);
}`

// usage is CPU time and context switches of this process and, where /proc
// lists them (Linux), of its child processes: a sandbox's engines.
type usage struct {
	cpu, childCPU time.Duration
	switches      int64 // voluntary and involuntary, every thread of every process
}

func usageNow() usage {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	u := usage{cpu: time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), switches: ru.Nvcsw + ru.Nivcsw}
	tasks, _ := filepath.Glob("/proc/self/task/*/children")
	for _, t := range tasks {
		raw, _ := os.ReadFile(t)
		for _, pid := range strings.Fields(string(raw)) {
			u.childCPU += childCPU(pid)
			u.switches += childSwitches(pid)
		}
	}
	return u
}

// childCPU is a process's user and system time from /proc/PID/stat
// (clock ticks of 10 ms).
func childCPU(pid string) time.Duration {
	raw, err := os.ReadFile("/proc/" + pid + "/stat")
	s := string(raw)
	i := strings.LastIndexByte(s, ')')
	if err != nil || i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond
}

// childSwitches sums the context switches of a process's threads.
func childSwitches(pid string) int64 {
	var n int64
	statuses, _ := filepath.Glob("/proc/" + pid + "/task/*/status")
	for _, st := range statuses {
		raw, _ := os.ReadFile(st)
		for _, l := range strings.Split(string(raw), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.HasSuffix(k, "ctxt_switches") {
				c, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
				n += c
			}
		}
	}
	return n
}

// report adds the metrics of what n operations used since u0: this
// process's CPU (cpu-ns/op), the sandbox processes' (sandbox-cpu-ns/op),
// and the context switches of both (switches/op), which a loaded machine
// moves less than it moves wall time.
func (u0 usage) report(b *testing.B, n int) {
	u := usageNow()
	b.ReportMetric(float64(u.cpu-u0.cpu)/float64(n), "cpu-ns/op")
	b.ReportMetric(float64(u.childCPU-u0.childCPU)/float64(n), "sandbox-cpu-ns/op")
	b.ReportMetric(float64(u.switches-u0.switches)/float64(n), "switches/op")
}

// BenchmarkWarmExecution: a fresh module with one tool call on a warm
// runtime (goal: median <= 0.5 ms). The source is the same every time, so
// the client's erase cache answers; BenchmarkWarmExecutionFresh does not.
func BenchmarkWarmExecution(b *testing.B) { benchModes(b, benchWarmExecution) }

func benchWarmExecution(b *testing.B, opts quickjs.Options) {
	c := benchClient(b, opts, nil)
	ctx := context.Background()
	for i := 0; i < 20; i++ {
		if _, err := c.Run(ctx, oneCall, client.RunOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	u0 := usageNow()
	for i := 0; i < b.N; i++ {
		out, err := c.Run(ctx, oneCall, client.RunOptions{})
		if err != nil || out.Kind != client.Success {
			b.Fatalf("%+v %v", out, err)
		}
	}
	u0.report(b, b.N)
}

// BenchmarkWarmExecutionFresh is BenchmarkWarmExecution with a fresh source
// every execution, as an agent sends it: no erase cache answers, so it
// includes the TypeScript erasure.
func BenchmarkWarmExecutionFresh(b *testing.B) { benchModes(b, benchWarmExecutionFresh) }

func benchWarmExecutionFresh(b *testing.B, opts quickjs.Options) {
	c := benchClient(b, opts, nil)
	ctx := context.Background()
	seq := 0
	fresh := func() string { seq++; return oneCall + "\n// " + strconv.Itoa(seq) + "\n" }
	for i := 0; i < 20; i++ {
		if _, err := c.Run(ctx, fresh(), client.RunOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	u0 := usageNow()
	for i := 0; i < b.N; i++ {
		out, err := c.Run(ctx, fresh(), client.RunOptions{})
		if err != nil || out.Kind != client.Success {
			b.Fatalf("%+v %v", out, err)
		}
	}
	u0.report(b, b.N)
}

// BenchmarkToolCallRoundTrip: one sequential tool call inside a running
// program, from the call to the resumed program (goal: <= 50 us).
func BenchmarkToolCallRoundTrip(b *testing.B) { benchModes(b, benchToolCallRoundTrip) }

func benchToolCallRoundTrip(b *testing.B, opts quickjs.Options) {
	schema, err := contract.NewSchema(json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"],"additionalProperties":false}`))
	if err != nil {
		b.Fatal(err)
	}
	c := benchClient(b, opts, schema)
	const src = `export default async function ({ input, codemode }: AgentProgramScope) {
  for (let i = 0; i < input.n; i++) await codemode.echo({ value: "x" });
}`
	ctx := context.Background()
	if _, err := c.Run(ctx, src, client.RunOptions{Input: map[string]int{"n": 100}}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	u0 := usageNow()
	out, err := c.Run(ctx, src, client.RunOptions{Input: map[string]int{"n": b.N}, Limits: client.Limits{MaxToolCalls: b.N + 1}})
	if err != nil || out.Kind != client.Success {
		b.Fatalf("%+v %v", out, err)
	}
	u0.report(b, b.N)
}

// BenchmarkBoot: a new runtime once QuickJS is compiled (goal: <= 20 ms).
// In the sandbox mode that is a new process, which loads QuickJS's machine
// code from the compilation cache and boots its own template engine.
func BenchmarkBoot(b *testing.B) { benchModes(b, benchBoot) }

func benchBoot(b *testing.B, opts quickjs.Options) {
	d := quickjs.New(opts)
	defer d.Close()
	ctx := context.Background()
	rt, err := client.NewRuntime(ctx, d) // compiles QuickJS into the driver's cache
	if err != nil {
		b.Fatal(err)
	}
	rt.Close()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rt, err := client.NewRuntime(ctx, d)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		rt.Close()
		b.StartTimer()
	}
}

// BenchmarkRetainedMemory runs b.N executions on one runtime after a
// warm-up and reports the growth of the Go heap and of the process's
// resident memory per execution (goal: no growth beyond noise). Run it with
// -benchtime=10000x for the 10,000-execution figure.
func BenchmarkRetainedMemory(b *testing.B) {
	benchModes(b, func(b *testing.B, opts quickjs.Options) { benchRetainedMemory(b, opts, false) })
}

// BenchmarkRetainedMemoryFresh is BenchmarkRetainedMemory with a fresh
// program source every execution, as an agent sends them: the client's
// erase cache fills (4 MiB of erased programs at most), so the growth per
// execution falls as b.N grows past it (-benchtime=5000x, then 20000x).
func BenchmarkRetainedMemoryFresh(b *testing.B) {
	benchModes(b, func(b *testing.B, opts quickjs.Options) { benchRetainedMemory(b, opts, true) })
}

func benchRetainedMemory(b *testing.B, opts quickjs.Options, fresh bool) {
	c := benchClient(b, opts, nil)
	ctx := context.Background()
	n := 0
	runN := func(k int) {
		for i := 0; i < k; i++ {
			src := oneCall
			if fresh {
				n++
				src += fmt.Sprintf("\n// %d", n)
			}
			if out, err := c.Run(ctx, src, client.RunOptions{}); err != nil || out.Kind != client.Success {
				b.Fatalf("%+v %v", out, err)
			}
		}
	}
	runN(500)
	heap0, rss0 := memory()
	b.ResetTimer()
	runN(b.N)
	b.StopTimer()
	heap1, rss1 := memory()
	b.ReportMetric(float64(int64(heap1)-int64(heap0))/float64(b.N), "heap-B/exec")
	b.ReportMetric(float64(int64(rss1)-int64(rss0))/float64(b.N), "rss-B/exec")
}

func memory() (heap, rss uint64) {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if raw, err := os.ReadFile("/proc/self/statm"); err == nil {
		if f := strings.Fields(string(raw)); len(f) > 1 {
			pages, _ := strconv.ParseUint(f[1], 10, 64)
			rss = pages * uint64(os.Getpagesize())
		}
	}
	return ms.HeapAlloc, rss
}

// BenchmarkConcurrent64 runs 64 programs at a time on one runtime and on a
// pool of two; the figure to compare is executions per second. The CPU
// metrics (see report) split an execution's cost between the host and the
// sandbox processes: with every core busy, the rate is what the two use.
func BenchmarkConcurrent64(b *testing.B) { benchModes(b, benchConcurrent64) }

func benchConcurrent64(b *testing.B, opts quickjs.Options) { benchConcurrent64Sizes(b, opts, 0, 2) }

// benchConcurrent64Sizes runs BenchmarkConcurrent64 on one runtime (size 0)
// and on pools of the given sizes.
func benchConcurrent64Sizes(b *testing.B, opts quickjs.Options, sizes ...int) {
	for _, size := range sizes {
		name := "runtime"
		if size > 0 {
			name = "pool-of-2"
		}
		b.Run(name, func(b *testing.B) {
			d := quickjs.New(opts)
			defer d.Close()
			var ex client.Executor
			if size == 0 {
				rt, err := client.NewRuntime(context.Background(), d)
				if err != nil {
					b.Fatal(err)
				}
				defer rt.Close()
				ex = rt
			} else {
				p, err := client.NewPool(context.Background(), d, client.PoolOptions{Size: size})
				if err != nil {
					b.Fatal(err)
				}
				defer p.Close()
				ex = p
			}
			k, err := contract.New()
			if err != nil {
				b.Fatal(err)
			}
			c := client.New(ex, k)
			src := `export default async function ({ result }: AgentProgramScope) { let s = 0; for (let i = 0; i < 1000; i++) s += i; result.appendText(String(s)); }`
			jobs := make(chan struct{})
			var wg sync.WaitGroup
			for w := 0; w < 64; w++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for range jobs {
						if out, err := c.Run(context.Background(), src, client.RunOptions{}); err != nil || out.Kind != client.Success {
							b.Errorf("%+v %v", out, err)
						}
					}
				}()
			}
			start := time.Now()
			b.ResetTimer()
			u0 := usageNow()
			for i := 0; i < b.N; i++ {
				jobs <- struct{}{}
			}
			close(jobs)
			wg.Wait()
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "exec/s")
			u0.report(b, b.N)
		})
	}
}

// BenchmarkErrorStacks: the Errors a program makes, each made five frames
// deep in one execution: made and dropped (new), made and their stack read
// (read: the runner writes the program's stack when it is first read), and
// an engine TypeError thrown and caught (caught). Per Error.
func BenchmarkErrorStacks(b *testing.B) {
	for _, tc := range []struct{ name, body string }{
		{"new", `new Error("x");`},
		{"read", `new Error("x").stack;`},
		{"caught", `try { null.x; } catch {}`},
	} {
		b.Run(tc.name, func(b *testing.B) {
			benchModes(b, func(b *testing.B, opts quickjs.Options) { benchErrorStacks(b, opts, tc.body) })
		})
	}
}

func benchErrorStacks(b *testing.B, opts quickjs.Options, body string) {
	schema, err := contract.NewSchema(json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"],"additionalProperties":false}`))
	if err != nil {
		b.Fatal(err)
	}
	c := benchClient(b, opts, schema)
	src := `export default async function ({ input }: AgentProgramScope) {
  const d = (k: number): void => { if (k > 0) return d(k - 1); for (let i = 0; i < input.n; i++) { ` + body + ` } };
  d(3);
}`
	ctx := context.Background()
	if _, err := c.Run(ctx, src, client.RunOptions{Input: map[string]int{"n": 100}}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	u0 := usageNow()
	out, err := c.Run(ctx, src, client.RunOptions{Input: map[string]int{"n": b.N}, Limits: client.Limits{Timeout: 10 * time.Minute}})
	if err != nil || out.Kind != client.Success {
		b.Fatalf("%+v %v", out, err)
	}
	u0.report(b, b.N)
}
