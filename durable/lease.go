package durable

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/durable/store"
)

// leaseOwner names this handle in leases: host, process and a random
// suffix (two handles in one process are two owners).
func leaseOwner() string {
	host, _ := os.Hostname()
	var b [4]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%s:%d:%s", host, os.Getpid(), hex.EncodeToString(b[:]))
}

// errLeaseLost ends a pass whose lease another process took over (the pass
// was thought dead: it renewed too late): its run goes on there.
var errLeaseLost = errors.New("the pass lost its lease: another process resumed the execution")

// lease is a pass's hold on its execution (store.Lease): renewed by a
// heartbeat goroutine the pass owns (stopped at the pass's end) and by the
// pass's actions once a third of it has passed. Losing it cancels the pass.
type lease struct {
	h      *Handle
	id     string
	cancel context.CancelCauseFunc // cancels the pass

	mu      sync.Mutex
	renewed time.Time // the last renewal (or the take)
	until   time.Time // when the lease ends unless renewed
	lost    bool

	stop    chan struct{}
	done    chan struct{}
	started atomic.Bool // the heartbeat runs (start), and closes done when it ends
}

// newLease is the lease the pass of id took at taken; cancel cancels the
// pass when the lease is lost. start starts its heartbeat (once the
// execution's record exists), end stops it.
func (h *Handle) newLease(id string, taken time.Time, cancel context.CancelCauseFunc) *lease {
	return &lease{h: h, id: id, cancel: cancel, renewed: taken, until: taken.Add(h.opts.Lease), stop: make(chan struct{}), done: make(chan struct{})}
}

// start starts the heartbeat.
func (l *lease) start() {
	l.started.Store(true)
	go l.heartbeat()
}

// interval is the time between renewals: a third of the lease, give or
// take a random tenth, so that replicas started together spread out.
func (l *lease) interval() time.Duration {
	third := l.h.opts.Lease / 3
	jitter := time.Duration(mrand.Int64N(int64(third)/5+1)) - third/10
	return third + jitter
}

func (l *lease) heartbeat() {
	defer close(l.done)
	t := time.NewTimer(l.interval())
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
			l.renew(context.Background())
			t.Reset(l.interval())
		}
	}
}

// renew renews the lease; a refusal (another process holds it) or a
// failure past the lease's end loses it. It reports whether the lease is
// still held.
func (l *lease) renew(ctx context.Context) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lost {
		return false
	}
	t := time.Now()
	ok, err := l.h.store.LeaseExecution(ctx, l.h.name, l.id, store.Lease{Owner: l.h.owner, Until: t.Add(l.h.opts.Lease).UnixMilli()}, t.UnixMilli())
	switch {
	case err != nil && t.Before(l.until):
		l.h.log.Warn("durable: renewing the lease failed; retrying", "execution", l.id, "err", err)
		return true
	case err != nil || !ok:
		l.lost = true
		l.h.log.Warn("durable: the pass lost its lease", "execution", l.id, "err", err)
		l.cancel(errLeaseLost)
		return false
	}
	l.renewed, l.until = t, t.Add(l.h.opts.Lease)
	return true
}

// held renews the lease when a third of it has passed (the pass is about
// to start an action), and reports whether it is still held.
func (l *lease) held(ctx context.Context) bool {
	l.mu.Lock()
	due, lost := time.Since(l.renewed) > l.h.opts.Lease/3, l.lost
	l.mu.Unlock()
	if lost {
		return false
	}
	if !due {
		return true
	}
	return l.renew(context.WithoutCancel(ctx))
}

// end stops the heartbeat, when it started, and reports whether the
// lease was lost.
func (l *lease) end() (lost bool) {
	close(l.stop)
	if l.started.Load() {
		<-l.done
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lost
}

// Resume takes over an orphaned execution, one whose pass died (its
// process crashed or was killed: the execution is running and its lease,
// Options.Lease, has ended), and replays it from the journal in a new
// pass: applied calls return their recorded results, an approved action
// that never started runs (once: its claim is conditional), a read
// (contract.Annotations.ReadOnly, or contract.Policy.Idempotent) whose
// outcome the dead pass left unknown runs again, and any other action
// whose outcome is unknown pauses the run as uncertain (codetool.Pending
// with Uncertain set) for a person to answer (Resolve, Approve, Reject).
//
//	answer, err := h.Resume(ctx, "exec_…")
//
// Of several processes resuming one orphan at once, one takes it over; the
// others get an error wrapping ErrRunning, as does a run whose lease is
// live (its pass is running somewhere). Other errors: one wrapping
// store.ErrNotFound, an error for a run that is not running (nothing to
// resume), one naming the namespaces the handle's contract lacks, or one
// wrapping ErrConfigurationChanged when the handle's Options.Configuration
// differs from the run's or a call it recorded names a tool that now calls
// another upstream tool (it stays orphaned).
func (h *Handle) Resume(ctx context.Context, id string) (codetool.Answer, error) {
	e, err := h.store.Execution(ctx, h.name, id)
	if err != nil {
		return codetool.Answer{}, fmt.Errorf("durable: %w", err)
	}
	return h.resume(ctx, e)
}

// resume is Resume of e, as read.
func (h *Handle) resume(ctx context.Context, e *store.Execution) (codetool.Answer, error) {
	id := e.ID
	if e.Status != store.StatusRunning {
		return codetool.Answer{}, fmt.Errorf("durable: execution %s is %s: only a running execution whose host died can be resumed", id, e.Status)
	}
	if missing := h.missing(e.Connectors); len(missing) > 0 {
		return codetool.Answer{}, fmt.Errorf("durable: execution %s needs the namespace(s) %s, which the handle's contract does not have", id, strings.Join(missing, ", "))
	}
	if err := h.checkConfiguration(e); err != nil {
		return codetool.Answer{}, err
	}
	t := time.Now()
	ok, err := h.store.LeaseExecution(ctx, h.name, id, store.Lease{Owner: h.owner, Until: t.Add(h.opts.Lease).UnixMilli()}, t.UnixMilli())
	if err != nil {
		return codetool.Answer{}, fmt.Errorf("durable: %w", err)
	}
	if !ok {
		return codetool.Answer{}, h.notOrphaned(ctx, id)
	}
	if e.Passes == 0 { // its lease is this handle's now
		return h.unapprovedOrphan(ctx, e)
	}
	passes := e.Passes + 1
	if _, err := h.store.TransitionExecution(ctx, h.name, id, []store.Status{store.StatusRunning}, store.StatusRunning, store.ExecutionUpdate{Passes: &passes}); err != nil {
		return codetool.Answer{}, fmt.Errorf("durable: %w", err)
	}
	// Read again now that this process holds it: the dead pass's last
	// writes are in.
	cur, err := h.store.Execution(ctx, h.name, id)
	if err != nil {
		return codetool.Answer{}, fmt.Errorf("durable: %w", err)
	}
	if err := h.startApprovedProgram(ctx, cur); err != nil { // approved (it had a pass) before its host died
		return codetool.Answer{}, err
	}
	h.log.Info("durable: resuming an orphaned execution", "execution", id, "pass", cur.Passes, "previous owner", e.LeaseOwner)
	return h.runPassFrom(ctx, cur, t, nil)
}

// notOrphaned says why a running execution could not be taken over.
func (h *Handle) notOrphaned(ctx context.Context, id string) error {
	cur, err := h.store.Execution(ctx, h.name, id)
	if err != nil {
		return fmt.Errorf("durable: %w", err)
	}
	if cur.Status != store.StatusRunning {
		return fmt.Errorf("durable: execution %s is %s now: another process resumed or ended it", id, cur.Status)
	}
	return fmt.Errorf("%w: %s: its pass holds the lease (%s, for another %s)", ErrRunning, id, cur.LeaseOwner,
		time.Until(time.UnixMilli(cur.LeaseUntil)).Round(time.Millisecond))
}

// ResumeOrphans resumes every orphaned execution of the runtime that the
// handle can run (its contract has every namespace the run started with,
// its Options.Configuration matches the run's, and each call the run
// recorded names the upstream tool it named then), one after the other,
// logging a line for each (Options.Logger, info), and returns their IDs.
// Runs another process takes over first are skipped, and so are runs
// whose configuration or tools differ: those are logged once (warn,
// naming the differences) and stay orphaned for a handle configured as
// they were, or a person (Expire). A server calls it now and then (every Options.Lease,
// say) so that runs whose host died go on without a person.
func (h *Handle) ResumeOrphans(ctx context.Context) ([]string, error) {
	ids, err := h.store.Orphans(ctx, h.name, now())
	if err != nil {
		return nil, fmt.Errorf("durable: %w", err)
	}
	defer h.skipped.endRound()
	var resumed []string
	for _, id := range ids {
		if ctx.Err() != nil {
			return resumed, ctx.Err()
		}
		e, err := h.store.Execution(ctx, h.name, id)
		if err != nil || len(h.missing(e.Connectors)) > 0 {
			continue
		}
		if diff := h.ConfigurationChanges(e); len(diff) > 0 {
			if h.skipped.first(id) {
				h.log.Warn("durable: not resuming an orphaned execution: the connectors are configured otherwise than when it started, or a name it called now calls another upstream tool",
					"execution", id, "differences", strings.Join(diff, "; "))
			}
			continue
		}
		answer, err := h.resume(ctx, e)
		if errors.Is(err, ErrRunning) {
			continue
		}
		if err != nil {
			h.log.Warn("durable: resuming an orphaned execution failed", "execution", id, "err", err)
			continue
		}
		h.log.Info("durable: resumed an orphaned execution", "execution", id, "status", answer.Status)
		resumed = append(resumed, id)
	}
	return resumed, nil
}

// Expire ends one execution: a paused one becomes rejected ("expired
// awaiting approval"), an orphaned running one (its lease ended) error
// ("expired while running: the host never completed the pass"). It
// returns an error wrapping ErrRunning for a running execution whose pass
// holds its lease (a live pass is never ended), one wrapping
// store.ErrNotFound, and an error for an execution that has ended.
func (h *Handle) Expire(ctx context.Context, id string) (err error) {
	ctx, span := h.span(ctx, "codemode.journal.expire", id)
	defer func() { endSpan(span, err) }()
	e, err := h.store.Execution(ctx, h.name, id)
	if err != nil {
		return fmt.Errorf("durable: %w", err)
	}
	at := now()
	switch e.Status {
	case store.StatusPaused:
		msg := "expired awaiting approval"
		ok, err := h.store.TransitionExecution(ctx, h.name, id, []store.Status{store.StatusPaused}, store.StatusRejected, store.ExecutionUpdate{At: at, Error: &msg})
		if err != nil {
			return fmt.Errorf("durable: %w", err)
		}
		if !ok {
			return fmt.Errorf("durable: execution %s changed while expiring it: look again", id)
		}
		h.closePending(ctx, id, "not run: the execution expired awaiting approval")
		h.dispose(ctx, id, store.StatusRejected)
		return nil
	case store.StatusRunning:
		// Take the lease first: only an orphan's can be taken, and no
		// resume can start while this process holds it.
		ok, err := h.store.LeaseExecution(ctx, h.name, id, store.Lease{Owner: h.owner, Until: at + h.opts.Lease.Milliseconds()}, at)
		if err != nil {
			return fmt.Errorf("durable: %w", err)
		}
		if !ok {
			return h.notOrphaned(ctx, id)
		}
		msg := "expired while running: the host never completed the pass"
		if _, err := h.store.TransitionExecution(ctx, h.name, id, []store.Status{store.StatusRunning}, store.StatusError,
			store.ExecutionUpdate{At: at, Error: &msg, Lease: &store.Lease{}}); err != nil {
			return fmt.Errorf("durable: %w", err)
		}
		h.closePending(ctx, id, "not run: the execution expired")
		h.dispose(ctx, id, store.StatusError)
		return nil
	}
	return fmt.Errorf("durable: execution %s has ended (%s): nothing to expire", id, e.Status)
}

// crashEnv names the fault-injection hook of bench/crash: set to a point
// of a pass ("pause": before the pause is recorded; "replay": when a
// recorded call is answered from the journal; "action": before an action
// runs; "recorded": after an action ran, before its result is recorded),
// optionally followed by ":N" for its Nth arrival in the process, it kills
// the process (SIGKILL) there. It is read once, by New; it is a test
// hook, never for production use.
const crashEnv = "CODEMODE_CRASH_AT"

// crashPoint is the parsed crashEnv of a handle: where to die, and after
// how many arrivals.
type crashPoint struct {
	point string
	nth   int64
	seen  atomic.Int64
}

func newCrashPoint(spec string) *crashPoint {
	if spec == "" {
		return nil
	}
	point, n, _ := strings.Cut(spec, ":")
	nth, err := strconv.ParseInt(n, 10, 64)
	if err != nil || nth < 1 {
		nth = 1
	}
	return &crashPoint{point: point, nth: nth}
}

// reached kills the process when c names point and this is its nth
// arrival (see crashEnv); nil does nothing.
func (c *crashPoint) reached(point string) {
	if c == nil || c.point != point || c.seen.Add(1) != c.nth {
		return
	}
	self, err := os.FindProcess(os.Getpid())
	if err == nil {
		_ = self.Kill() // SIGKILL: no deferred function, no flush
	}
	select {} // the signal is on its way
}
