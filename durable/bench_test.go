package durable_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/drivers/quickjs"
	"github.com/codemode-go/codemode/durable"
)

func benchConnector() connector {
	get := must(funcTool("get", "Returns its input.", func(ctx context.Context, in repoInput) (repoInput, error) { return in, nil }))
	put := must(funcTool("put", "Needs approval.", func(ctx context.Context, in repoInput) (repoInput, error) { return in, nil }))
	put.RequiresApproval = true
	return connector{Name: "svc", Tools: []connectorTool{get, put}}
}

// The machine these run on is shared and loaded, so each benchmark runs the
// plain and the durable variant back to back in every iteration and reports
// the medians of both (wall time and this process's CPU time) and of their
// difference: the ratio is measured under the same load.

// cost is one measured run.
type cost struct{ wall, cpu time.Duration }

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func measure(f func()) cost {
	c0, t0 := cpuTime(), time.Now()
	f()
	return cost{time.Since(t0), cpuTime() - c0}
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}

// paired collects plain and durable costs and reports medians divided by
// per (calls per run), in microseconds.
type paired struct{ plain, durable, dWall, dCPU []time.Duration }

func (p *paired) add(plain, durable cost) {
	p.plain = append(p.plain, plain.wall)
	p.durable = append(p.durable, durable.wall)
	p.dWall = append(p.dWall, durable.wall-plain.wall)
	p.dCPU = append(p.dCPU, durable.cpu-plain.cpu)
}

func (p *paired) report(b *testing.B, per int, unit string) {
	us := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(per) / 1000 }
	b.ReportMetric(us(median(p.plain)), "plain-us/"+unit)
	b.ReportMetric(us(median(p.durable)), "durable-us/"+unit)
	b.ReportMetric(us(median(p.dWall)), "overhead-us/"+unit)
	b.ReportMetric(us(median(p.dCPU)), "overhead-cpu-us/"+unit)
}

const hundredCalls = `for (let i = 0; i < 100; i++) await svc.get({ repo: "r" + i }); 1`

// BenchmarkCallOverhead: a program of 100 connector calls run plainly
// (client.RunCode on the same contract) and with the journal (Execute: each
// call recorded executing, then applied, in SQLite). overhead-us/call is
// the median difference per call (target: <= 100 us).
func BenchmarkCallOverhead(b *testing.B) { benchCallOverhead(b, executor(b)) }

// BenchmarkCallOverheadInProcess is BenchmarkCallOverhead on QuickJS in
// the host process (quickjs.Options.InProcess): no sandbox process round
// trip per call.
func BenchmarkCallOverheadInProcess(b *testing.B) { benchCallOverhead(b, inProcessExecutor(b)) }

func benchCallOverhead(b *testing.B, ex client.Executor) {
	st := openStore(b, filepath.Join(b.TempDir(), "j.db"))
	h := newHandleOn(b, ex, st, durable.Options{}, benchConnector())
	pc := client.New(ex, h.Contract())
	ctx := context.Background()
	var p paired
	for b.Loop() {
		plain := measure(func() {
			if out, err := pc.RunCode(ctx, hundredCalls, client.RunOptions{}); err != nil || out.Kind != client.Success {
				b.Fatal(err, out)
			}
		})
		journal := measure(func() {
			if out, err := h.Execute(ctx, hundredCalls); err != nil || out.Status != codetool.StatusCompleted {
				b.Fatal(err, out)
			}
		})
		p.add(plain, journal)
	}
	p.report(b, 100, "call")
}

// BenchmarkReplay1000 approves an execution whose first pass made 1,000
// calls and paused: the approval's pass replays the 1,000 from the journal
// and runs the approved write. plain-us/run is the same program run plainly
// (1,000 calls to the connector), durable-us/run the approval (target: <=
// 100 ms), in the same iteration.
func BenchmarkReplay1000(b *testing.B) { benchReplay1000(b, executor(b)) }

// BenchmarkReplay1000InProcess is BenchmarkReplay1000 on QuickJS in the
// host process: a replayed call is the engine's round trip to the host
// and a map lookup, so the sandbox process's round trip (some 280 us
// against 67 in process, quiet machine) bounds the other.
func BenchmarkReplay1000InProcess(b *testing.B) { benchReplay1000(b, inProcessExecutor(b)) }

func benchReplay1000(b *testing.B, ex client.Executor) {
	st := openStore(b, filepath.Join(b.TempDir(), "j.db"))
	h := newHandleOn(b, ex, st, durable.Options{MaxExecutions: 5}, benchConnector())
	pc := client.New(ex, h.Contract())
	ctx := context.Background()
	code := `for (let i = 0; i < 1000; i++) await svc.get({ repo: "r" + i }); await svc.get({ repo: "x" }); 1`
	durableCode := `for (let i = 0; i < 1000; i++) await svc.get({ repo: "r" + i }); await svc.put({ repo: "x" }); 1`
	var p paired
	for b.Loop() {
		out, err := h.Execute(ctx, durableCode)
		if err != nil || out.Status != codetool.StatusPaused {
			b.Fatal(err, out)
		}
		plain := measure(func() {
			if out, err := pc.RunCode(ctx, code, client.RunOptions{}); err != nil || out.Kind != client.Success {
				b.Fatal(err, out)
			}
		})
		replay := measure(func() {
			if done, err := h.Approve(ctx, out.ExecutionID); err != nil || done.Status != codetool.StatusCompleted {
				b.Fatal(err, done)
			}
		})
		p.add(plain, replay)
	}
	p.report(b, 1, "run")
}

// BenchmarkNoCallProgram: Execute of a program without connector calls
// against a plain RunCode of the same code (target: <= 1 ms more).
func BenchmarkNoCallProgram(b *testing.B) { benchNoCallProgram(b, executor(b)) }

// BenchmarkNoCallProgramInProcess is BenchmarkNoCallProgram on QuickJS in
// the host process.
func BenchmarkNoCallProgramInProcess(b *testing.B) { benchNoCallProgram(b, inProcessExecutor(b)) }

func benchNoCallProgram(b *testing.B, ex client.Executor) {
	benchAgainstPlain(b, ex, func(i int) string { return fmt.Sprint(i % 7) })
}

// BenchmarkOneCallProgram: Execute of a program that makes one connector
// call against a plain RunCode of the same code: what the journal adds to
// the commonest durable run (the execution's record, the call's mark and
// result, the end).
func BenchmarkOneCallProgram(b *testing.B) { benchOneCallProgram(b, executor(b)) }

// BenchmarkOneCallProgramInProcess is BenchmarkOneCallProgram on QuickJS
// in the host process.
func BenchmarkOneCallProgramInProcess(b *testing.B) { benchOneCallProgram(b, inProcessExecutor(b)) }

func benchOneCallProgram(b *testing.B, ex client.Executor) {
	benchAgainstPlain(b, ex, func(i int) string { return fmt.Sprintf("(await svc.get({ repo: %q })).repo", fmt.Sprint(i%7)) })
}

// benchAgainstPlain reports what Execute of the code code(i) gives adds to a
// plain RunCode of it, on one journal file, the two in turns.
func benchAgainstPlain(b *testing.B, ex client.Executor, code func(i int) string) {
	st := openStore(b, filepath.Join(b.TempDir(), "j.db"))
	h := newHandleOn(b, ex, st, durable.Options{}, benchConnector())
	pc := client.New(ex, h.Contract())
	ctx := context.Background()
	var p paired
	for i := 0; b.Loop(); i++ {
		src := code(i)
		plain := measure(func() {
			if out, err := pc.RunCode(ctx, src, client.RunOptions{}); err != nil || out.Kind != client.Success {
				b.Fatal(err, out)
			}
		})
		run := measure(func() {
			if out, err := h.Execute(ctx, src); err != nil || out.Status != codetool.StatusCompleted {
				b.Fatal(err, out)
			}
		})
		p.add(plain, run)
	}
	p.report(b, 1, "run")
}

// inProcessExecutor is a QuickJS runtime in the host process for one
// benchmark, closed at its end.
func inProcessExecutor(b *testing.B) client.Executor {
	b.Helper()
	rt, err := client.NewRuntime(context.Background(), quickjs.New(quickjs.Options{Timeout: 10 * time.Second, InProcess: true}))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = rt.Close() })
	return rt
}
