package client

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/codemode-go/codemode/drivers"
)

// PoolOptions configures a Pool.
type PoolOptions struct {
	// Size is how many runtimes the pool keeps; default 1.
	Size int
	// PerRuntime caps the executions running at once on one runtime; 0
	// means no cap. With the QuickJS driver every execution has an engine
	// of its own anyway; a cap of 1 on a Node.js pool keeps a busy program
	// from stalling others on its process.
	PerRuntime int
}

// Pool spreads executions over several runtimes made by one driver. Each
// execution goes to the runtime with the fewest running executions; when
// every runtime is at its PerRuntime cap, Execute waits for a free slot (or
// for ctx). A runtime that fails is replaced by a fresh one before the next
// execution. Pool is an Executor; it is safe for concurrent use.
type Pool struct {
	driver drivers.Driver
	opts   PoolOptions

	mu      sync.Mutex
	wg      sync.WaitGroup // replacement boots
	free    *sync.Cond
	members []*member
	closed  bool
	done    chan struct{}
}

type member struct {
	rt      *Runtime // nil while being replaced
	active  int
	bootErr error // why the last replacement failed to boot, or nil
}

// NewPool boots opts.Size runtimes with driver; ctx governs boot. If one
// fails to boot, the others are closed and the error returned.
func NewPool(ctx context.Context, driver drivers.Driver, opts PoolOptions) (*Pool, error) {
	if opts.Size <= 0 {
		opts.Size = 1
	}
	p := &Pool{driver: driver, opts: opts, done: make(chan struct{})}
	p.free = sync.NewCond(&p.mu)
	for i := 0; i < opts.Size; i++ {
		rt, err := NewRuntime(ctx, driver)
		if err != nil {
			p.Close()
			return nil, fmt.Errorf("codemode: booting pool runtime %d of %d: %w", i+1, opts.Size, err)
		}
		p.members = append(p.members, &member{rt: rt})
	}
	return p, nil
}

// Description is the driver's description.
func (p *Pool) Description() string { return p.driver.Description() }

// TypeDefinitionFiles are the driver's checker-only declarations.
func (p *Pool) TypeDefinitionFiles(ctx context.Context) ([]drivers.TypeDefinitionFile, error) {
	return p.driver.TypeDefinitionFiles(ctx)
}

// Done is closed when the pool is closed.
func (p *Pool) Done() <-chan struct{} { return p.done }

// Finished reports StateRunning, or StateClosed after Close. (A failed runtime is
// replaced, so a pool does not fail.)
func (p *Pool) Finished() Finished {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return Finished{State: StateClosed}
	}
	return Finished{State: StateRunning}
}

// Execute runs one execution on the least busy runtime. Errors are those of
// Runtime.Execute; after Close it returns ErrRuntimeClosed.
func (p *Pool) Execute(ctx context.Context, req ExecuteRequest) (*Outcome, error) {
	for attempt := 0; ; attempt++ {
		m, err := p.acquire(ctx)
		if err != nil {
			return nil, err
		}
		rt := m.rt
		out, err := rt.Execute(ctx, req)
		p.release(m)
		// A runtime that died before the execution reached it (its failure
		// not yet noticed) is replaced, and the execution tried elsewhere.
		var ns *notStartedError
		if err != nil && errors.As(err, &ns) && attempt < len(p.members) {
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

func (p *Pool) acquire(ctx context.Context) (*member, error) {
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
			return nil, ErrRuntimeClosed
		}
		if err := ctx.Err(); err != nil {
			return nil, context.Cause(ctx)
		}
		var best *member
		for _, m := range p.members {
			if m.rt == nil {
				continue
			}
			if m.rt.Finished().State != StateRunning {
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
			return best, nil
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
			return nil, fmt.Errorf("%w: no runtime in the pool could be started: %w", ErrRuntimeFailed, bootErr)
		}
		p.free.Wait()
	}
}

// replace boots a new runtime for a failed member, outside the lock. Called
// with p.mu held.
func (p *Pool) replace(m *member) {
	old := m.rt
	m.rt = nil
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		_ = old.Close()
		rt, err := NewRuntime(context.Background(), p.driver)
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

func (p *Pool) release(m *member) {
	p.mu.Lock()
	m.active--
	p.free.Broadcast()
	p.mu.Unlock()
}

// Close closes every runtime; in-flight executions return ErrRuntimeClosed.
func (p *Pool) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	close(p.done)
	members := p.members
	p.free.Broadcast()
	p.mu.Unlock()
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

var _ Executor = (*Pool)(nil)
var _ Executor = (*Runtime)(nil)
