package quickjs

import (
	"context"
	"runtime"
	"testing"
	"time"
)

// TestProcsFit: a sandbox process runs on one processor while it runs at
// most one execution, on all of them while it runs several, keeps them for
// procsHold after, and never goes back to one while a goroutine may be
// running guest code.
func TestProcsFit(t *testing.T) {
	p, max := testProcs(t)
	check := func(step string, want int) {
		t.Helper()
		if got := runtime.GOMAXPROCS(0); got != want || int(p.cur.Load()) != want {
			t.Fatalf("%s: GOMAXPROCS %d (recorded %d), want %d", step, got, p.cur.Load(), want)
		}
	}
	check("booted", 1)

	p.begin()
	p.fit()
	check("one execution", 1)
	p.enter() // the first execution runs its engine

	p.begin()
	p.fit()
	check("two executions", max)

	p.end()
	p.fit()
	check("one execution again, within procsHold", max)

	p.crowded.Store(time.Now().Add(-2 * procsHold).UnixNano())
	p.fit()
	check("past procsHold, an engine running", max)

	p.leave() // it waits for the host
	p.fit()
	check("past procsHold, no engine running", 1)

	p.end()
	p.fit()
	check("no execution", 1)
}

// TestProcsNil: in process the server has no procs, and its calls do
// nothing.
func TestProcsNil(t *testing.T) {
	before := runtime.GOMAXPROCS(0)
	var p *procs
	p.begin()
	p.begin()
	p.enter()
	p.fit()
	p.leave()
	p.end()
	p.end()
	if got := runtime.GOMAXPROCS(0); got != before {
		t.Fatalf("GOMAXPROCS %d, was %d", got, before)
	}
}

// TestProcsBusyEngine: an engine that has run procsBusy without waiting
// gives a process at one processor every processor from its interrupt
// poll; one that began to run just now does not.
func TestProcsBusyEngine(t *testing.T) {
	p, max := testProcs(t)
	p.begin()
	p.fit()
	p.enter()
	defer p.leave()
	ctx, r := withEngineRun(context.Background(), p)
	pollEngineRun(ctx)
	if got := runtime.GOMAXPROCS(0); got != 1 {
		t.Fatalf("an engine that began now: GOMAXPROCS %d, want 1", got)
	}
	r.since = time.Now().Add(-2 * procsBusy)
	pollEngineRun(ctx)
	if got := runtime.GOMAXPROCS(0); got != max {
		t.Fatalf("an engine busy for %s: GOMAXPROCS %d, want %d", 2*procsBusy, got, max)
	}
	r.resumed()
	if time.Since(r.since) > procsBusy {
		t.Fatal("resumed did not restart the engine's run")
	}
	if c, r := withEngineRun(ctx, nil); c != ctx || r != nil {
		t.Fatal("withEngineRun without procs changed the context")
	}
	pollEngineRun(context.Background()) // no engineRun: nothing to do
}

// testProcs returns a fitter for the test process and its GOMAXPROCS at
// the start, which it restores when the test ends; it skips a test run on
// one processor.
func testProcs(t *testing.T) (*procs, int) {
	t.Helper()
	max := runtime.GOMAXPROCS(0)
	if max < 2 {
		t.Skip("needs GOMAXPROCS of 2 or more")
	}
	t.Cleanup(func() { runtime.GOMAXPROCS(max) })
	return newProcs(), max
}
