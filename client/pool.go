package client

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/codemode-go/codemode/drivers"
)

// PoolOptions configure NewPool.
type PoolOptions struct {
	// Size is how many runtimes the pool keeps; default 1.
	Size int
	// PerRuntime caps the executions running at once on one runtime; 0
	// means no cap. With the QuickJS driver every execution has an engine
	// of its own anyway; a cap of 1 on a Node.js pool keeps a busy program
	// from stalling others on its process.
	PerRuntime int
	// RecycleAfter, when positive, replaces a runtime after it has taken
	// that many executions: a fresh runtime boots in the background while
	// the old one keeps serving, then takes the old one's place, and the
	// old one is closed once its last execution ends. No execution waits
	// for the boot or is cut short. It bounds what a runtime can retain
	// across executions, such as what programs leave in a Node.js process's
	// global state (the drivers themselves retain nothing measurable per
	// execution: see docs/speed.md).
	RecycleAfter int
}

// pool spreads executions over several runners made by one driver (see
// NewPool).
type pool struct {
	driver drivers.Driver
	opts   PoolOptions

	mu      sync.Mutex
	wg      sync.WaitGroup // replacement boots
	free    *sync.Cond
	members []*member
	closed  bool
	done    chan struct{}

	stripsTypes bool // the first runtime's runner strips TypeScript (wire 1.4)

	inflight map[*runnerConn]int  // executions running on each runtime
	draining map[*runnerConn]bool // recycled runtimes to close when their last execution ends
}

type member struct {
	rt        *runnerConn // nil while being replaced
	active    int
	bootErr   error // why the last replacement failed to boot, or nil
	served    int   // executions taken since this runtime took the place
	recycling bool  // a successor is booting (RecycleAfter)
}

// newPool boots opts.Size runners with driver; ctx governs boot. If one
// fails to boot, the others are closed and the error returned.
func newPool(ctx context.Context, driver drivers.Driver, opts PoolOptions) (*pool, error) {
	if opts.Size <= 0 {
		opts.Size = 1
	}
	p := &pool{driver: driver, opts: opts, done: make(chan struct{}), inflight: map[*runnerConn]int{}, draining: map[*runnerConn]bool{}}
	p.free = sync.NewCond(&p.mu)
	for i := 0; i < opts.Size; i++ {
		rt, err := dialRunner(ctx, driver)
		if err != nil {
			p.Close()
			return nil, fmt.Errorf("codemode: booting pool runtime %d of %d: %w", i+1, opts.Size, err)
		}
		p.members = append(p.members, &member{rt: rt})
		p.stripsTypes = p.stripsTypes || rt.stripsTypes
	}
	return p, nil
}

// Description is the driver's description.
func (p *pool) Description() string { return p.driver.Description() }

// TypeDefinitionFiles are the driver's checker-only declarations.
func (p *pool) TypeDefinitionFiles(ctx context.Context) ([]drivers.TypeDefinitionFile, error) {
	return p.driver.TypeDefinitionFiles(ctx)
}

// Done is closed when the pool is closed.
func (p *pool) Done() <-chan struct{} { return p.done }

// ended reports stateRunning, or stateClosed after Close. (A failed runtime is
// replaced, so a pool does not fail.)
func (p *pool) ended() ending {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return ending{State: stateClosed}
	}
	return ending{State: stateRunning}
}

// Err is nil until the pool is closed, then ErrRuntimeClosed (a failed
// runtime is replaced, so a pool does not fail). Done is closed when Err
// stops being nil.
func (p *pool) Err() error { return p.ended().err() }

// Execute runs one execution on the least busy runtime. Errors are those of
// Runtime.Execute; after Close it returns ErrRuntimeClosed. An execution that
// never reached its runtime because that runtime had failed or closed is run
// on another (at most once per runtime of the pool), and the runtime is
// replaced; one the runtime refused (its limits, its wire version) or whose
// caller gave up first is not.
func (p *pool) Execute(ctx context.Context, req ExecuteRequest) (*Outcome, error) {
	for attempt := 0; ; attempt++ {
		m, rt, err := p.acquire(ctx)
		if err != nil {
			return nil, err
		}
		out, err := rt.Execute(ctx, req)
		p.release(m, rt)
		var ns *notStartedError
		// Only a runtime that failed or closed before the execution reached
		// it is replaced and the execution tried elsewhere. A request the
		// runtime refused (its limits, its version) would be refused by every
		// runtime, and replacing a healthy one would end the executions it
		// was running.
		if err != nil && errors.As(err, &ns) && (errors.Is(err, ErrRuntimeFailed) || errors.Is(err, ErrRuntimeClosed)) && ctx.Err() == nil && attempt < len(p.members) {
			p.mu.Lock()
			if m.rt == rt && !p.closed {
				p.replace(m)
			}
			p.mu.Unlock()
			continue
		}
		return out, err
	}
}

func (p *pool) acquire(ctx context.Context) (*member, *runnerConn, error) {
	stop := context.AfterFunc(ctx, func() {
		p.mu.Lock()
		p.free.Broadcast()
		p.mu.Unlock()
	})
	defer stop()
	p.mu.Lock()
	defer p.mu.Unlock()
	for {
		if p.closed {
			return nil, nil, ErrRuntimeClosed
		}
		if err := ctx.Err(); err != nil {
			return nil, nil, context.Cause(ctx)
		}
		var best *member
		for _, m := range p.members {
			if m.rt == nil {
				continue
			}
			if m.rt.ended().State != stateRunning {
				p.replace(m)
				continue
			}
			if p.opts.PerRuntime > 0 && m.active >= p.opts.PerRuntime {
				continue
			}
			if best == nil || m.active < best.active {
				best = m
			}
		}
		if best != nil {
			best.active++
			p.inflight[best.rt]++
			best.served++
			if p.opts.RecycleAfter > 0 && best.served >= p.opts.RecycleAfter && !best.recycling {
				best.recycling = true
				p.recycle(best)
			}
			return best, best.rt, nil
		}
		// When no runtime can be booted (a runner host that is down), say
		// so instead of waiting for one; replacements go on in the
		// background, so a later execution may succeed.
		var bootErr error
		for _, m := range p.members {
			if m.bootErr == nil {
				bootErr = nil
				break
			}
			bootErr = m.bootErr
		}
		if bootErr != nil {
			return nil, nil, fmt.Errorf("%w: no runtime in the pool could be started: %w", ErrRuntimeFailed, bootErr)
		}
		p.free.Wait()
	}
}

// replace boots a new runtime for a failed member, outside the lock. Called
// with p.mu held.
func (p *pool) replace(m *member) {
	old := m.rt
	m.rt = nil
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		_ = old.Close()
		rt, err := dialRunner(context.Background(), p.driver)
		if err != nil {
			time.Sleep(100 * time.Millisecond) // a driver that cannot boot is retried, not spun on
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		if err == nil && p.closed {
			_ = rt.Close()
			return
		}
		if err == nil {
			m.rt, m.bootErr = rt, nil
		} else {
			// Keep the failed runtime in place; the next acquire retries.
			m.rt, m.bootErr = old, err
		}
		p.free.Broadcast()
	}()
}

func (p *pool) release(m *member, rt *runnerConn) {
	p.mu.Lock()
	m.active--
	p.inflight[rt]--
	if p.inflight[rt] <= 0 {
		delete(p.inflight, rt)
		if p.draining[rt] {
			delete(p.draining, rt)
			p.closeLater(rt)
		}
	}
	p.free.Broadcast()
	p.mu.Unlock()
}

// recycle boots m's successor in the background and puts it in m's place;
// the old runtime closes when its last execution ends. Called with p.mu
// held.
func (p *pool) recycle(m *member) {
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		rt, err := dialRunner(context.Background(), p.driver)
		p.mu.Lock()
		defer p.mu.Unlock()
		m.recycling = false
		if err != nil || p.closed || m.rt == nil {
			// Closed, or being replaced after a failure: that replacement
			// is the fresh runtime. A failed boot is tried again after
			// another RecycleAfter executions.
			m.served = 0
			if err == nil {
				p.closeLater(rt)
			}
			return
		}
		old := m.rt
		m.rt, m.served = rt, 0
		if p.inflight[old] == 0 {
			p.closeLater(old)
		} else {
			p.draining[old] = true
		}
		p.free.Broadcast()
	}()
}

// closeLater closes rt in the background. Called with p.mu held.
func (p *pool) closeLater(rt *runnerConn) {
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		_ = rt.Close()
	}()
}

// Close closes every runtime; in-flight executions return ErrRuntimeClosed.
func (p *pool) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	close(p.done)
	members := p.members
	var draining []*runnerConn
	for rt := range p.draining {
		draining = append(draining, rt)
	}
	p.draining = map[*runnerConn]bool{}
	p.free.Broadcast()
	p.mu.Unlock()
	for _, rt := range draining {
		_ = rt.Close()
	}
	var errs []error
	for _, m := range members {
		p.mu.Lock()
		rt := m.rt
		p.mu.Unlock()
		if rt != nil {
			errs = append(errs, rt.Close())
		}
	}
	p.wg.Wait()
	return errors.Join(errs...)
}

var _ Executor = (*pool)(nil)
var _ Executor = (*runnerConn)(nil)
