package quickjs

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// procs fits a sandbox process's GOMAXPROCS to its executions: one
// processor while it runs at most one execution, the process's own count
// (runtime.GOMAXPROCS at boot) while it runs several, or while one would
// leave the process's other goroutines no turn (busy).
//
// With two processors and one execution, every hand-off inside the process
// wakes a thread on the other CPU: the reader that takes the host's answer
// readies the execution's goroutine, and the runtime starts a thread for the
// idle processor to run it (runtime.wakep, in runtime/proc.go's ready and
// Gosched), which on the project's virtual machines is an interrupt to
// another CPU (RATIONALE.md, "One processor for one execution"). With one
// processor the readied goroutine runs on the reader's thread. Several
// executions need every processor: a process held to one ran 64 concurrent
// one-call programs a quarter slower.
//
// Changing GOMAXPROCS stops the world, which waits for every running
// goroutine to reach a safe point; compiled wasm reaches one only when it
// calls into Go (the interrupt polls, patch.go), and a stuck program never
// might. Going from one processor to several waits for nobody: the
// goroutine that does it holds the only processor, so no other runs. Going
// back to one is done only when no goroutine may be running guest code:
// guest is held for reading by each goroutine that may (an execution from
// its engine to its outcome, except while it waits for the host; a scope's
// build), and lower takes it for writing with TryLock, never waiting; a
// change it cannot make now is made at a later call of fit (the next
// request, wait or outcome).
//
// One processor must not leave the other goroutines without a turn: an
// engine that does not wait, or a program that waits on its own timers,
// kept the reader from the next request and the deadline's watch from
// firing until the process was killed (TestBusyProgramDoesNotDelayOthers,
// TestTimerLoopDoesNotStarveOthers). Those give the process every
// processor (busy).
//
// A nil *procs does nothing: in process, GOMAXPROCS is the host's.
type procs struct {
	max    int
	guest  sync.RWMutex
	change sync.Mutex // held while GOMAXPROCS changes
	// active counts the executions between their request and their
	// outcome; cur is the GOMAXPROCS set last; crowded is when the process
	// last needed every processor (several executions, or busy), as
	// time.Now().UnixNano().
	active  atomic.Int32
	cur     atomic.Int32
	crowded atomic.Int64
}

// procsHold is how long a process keeps every processor after it last
// needed them: work that comes in bursts does not stop the world at every
// execution.
const procsHold = 100 * time.Millisecond

// procsBusy is how long an engine runs without waiting before it gives the
// process every processor (pollEngineRun): a warm execution's engine runs
// for tenths of a millisecond at a time.
const procsBusy = 2 * time.Millisecond

// newProcs returns a fitter that starts the process on one processor.
func newProcs() *procs {
	p := &procs{max: runtime.GOMAXPROCS(0)}
	p.cur.Store(int32(p.max))
	p.fit()
	return p
}

// enter and leave bracket what a goroutine does that may run guest code.
func (p *procs) enter() {
	if p != nil {
		p.guest.RLock()
	}
}

func (p *procs) leave() {
	if p != nil {
		p.guest.RUnlock()
	}
}

// begin and end bracket an execution, from its request to its outcome.
// The caller calls fit after either, outside enter and leave.
func (p *procs) begin() {
	if p != nil {
		p.active.Add(1)
	}
}

func (p *procs) end() {
	if p != nil {
		p.active.Add(-1)
	}
}

// fit sets GOMAXPROCS to what the executions in flight use, or leaves it
// for a later call when it cannot change it now. The caller must not be
// between enter and leave.
func (p *procs) fit() {
	if p == nil || p.max <= 1 {
		return
	}
	switch want, cur := p.want(), p.cur.Load(); {
	case want > cur:
		p.raise()
	case want < cur:
		p.lower()
	}
}

// raise gives the process every processor. At one processor the caller is
// the only goroutine running, so the stop-the-world waits for nobody.
func (p *procs) raise() {
	p.change.Lock()
	defer p.change.Unlock()
	if p.cur.Load() == 1 {
		runtime.GOMAXPROCS(p.max)
		p.cur.Store(int32(p.max))
	}
}

// lower holds the process to one processor, when no goroutine may be
// running guest code.
func (p *procs) lower() {
	if !p.guest.TryLock() {
		return
	}
	defer p.guest.Unlock()
	p.change.Lock()
	defer p.change.Unlock()
	if p.cur.Load() > 1 && p.want() == 1 {
		runtime.GOMAXPROCS(1)
		p.cur.Store(1)
	}
}

// want is the GOMAXPROCS for the executions in flight now.
func (p *procs) want() int32 {
	now := time.Now().UnixNano()
	if p.active.Load() > 1 {
		p.crowded.Store(now)
		return int32(p.max)
	}
	if p.cur.Load() > 1 && now-p.crowded.Load() < int64(procsHold) {
		return p.cur.Load()
	}
	return 1
}

// engineRun is what an engine's interrupt poll needs to give the process
// every processor (procsBusy): the process's procs and when the engine last
// began to run. It travels in the context of the calls into the engine, as
// stopSite does, and only the goroutine running the engine touches it.
type engineRun struct {
	p     *procs
	since time.Time
}

// engineRunKey is the context key of an engine's *engineRun.
type engineRunKey struct{}

// withEngineRun returns ctx carrying an engineRun for p, begun now; ctx
// itself when p is nil (in process).
func withEngineRun(ctx context.Context, p *procs) (context.Context, *engineRun) {
	if p == nil {
		return ctx, nil
	}
	r := &engineRun{p: p, since: time.Now()}
	return context.WithValue(ctx, engineRunKey{}, r), r
}

// resumed notes that the engine runs again after a wait.
func (r *engineRun) resumed() {
	if r != nil {
		r.since = time.Now()
	}
}

// pollEngineRun is the interrupt poll's part (host.go): an engine that has
// run procsBusy without waiting, on a process at one processor, gives it
// every processor.
func pollEngineRun(ctx context.Context) {
	r, ok := ctx.Value(engineRunKey{}).(*engineRun)
	if !ok || r.p.cur.Load() != 1 || time.Since(r.since) < procsBusy {
		return
	}
	r.p.busy()
}

// busyFor is busy for the process of the engine whose call ctx is, if any:
// before the interrupt poll calls into the engine again (stopSite).
func busyFor(ctx context.Context) {
	if r, ok := ctx.Value(engineRunKey{}).(*engineRun); ok {
		r.p.busy()
	}
}

// busy gives the process every processor, now and for procsHold after the
// last call: for what would leave the other goroutines no turn at one
// processor. An engine that runs without waiting is one (pollEngineRun).
// A program that waits on its own timers is another: the timer readies the
// execution's goroutine, which runs at once on the only processor (the
// runtime's runnext), arms the next timer and waits, and the goroutines
// queued behind (the deadline's watch) or waiting in the poller (the
// reader) never run. The runtime's monitor thread, which would preempt the
// pair after 10 ms and poll the network, sleeps once every processor has
// idled, and only a stop-the-world or a system call through the scheduler
// wakes it, which the wire's raw reads and writes avoid (rawfile_linux.go):
// a setTimeout(0) loop ran past its deadline until its process was killed,
// with the executions beside it (TestTimerLoopDoesNotStarveOthers). Calls
// into an engine to read a stopped program's stack are others.
func (p *procs) busy() {
	if p == nil || p.max <= 1 {
		return
	}
	p.crowded.Store(time.Now().UnixNano())
	if p.cur.Load() == 1 {
		p.raise()
	}
}
