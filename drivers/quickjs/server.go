package quickjs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/codemode-go/codemode/internal/wire"
)

// server is the Go runner: it speaks the wire protocol on one end of the
// driver's byte channel and runs each execution on its own engine.
type server struct {
	m     *machine
	opts  Options
	slots chan struct{} // the driver's engine slots; nil without MaxEngines
	r     *wire.Reader
	w     *wire.Writer
	// conn takes the frames an execution flushes, written whole.
	conn io.Writer

	// scopes are the namespaces kept per scope (wire 1.2).
	scopes scopeCache[*scopeNames]
	// setups are scope setups (wire 1.3) compiled to QuickJS bytecode, by
	// their text: an engine is restored from its template for every
	// execution, so what it compiled is gone; reading bytecode back costs a
	// fraction of compiling the text again.
	setups scopeCache[[]byte]
	// programs are programs compiled to bytecode, for one sent again.
	programs programCache

	// ctx is serve's: done when the channel ends (prebuild.go's builds
	// stop then).
	ctx   context.Context
	mu    sync.Mutex
	execs map[uint64]*execution
	wg    sync.WaitGroup
	// busy counts the goroutines that run an engine or are about to (an
	// execution until its engine is reset, a scope's build) and parked
	// the executions among them that wait for a host message
	// (waitsForHost).
	busy, parked atomic.Int32
	// procs fits the sandbox process's GOMAXPROCS to its executions (nil
	// in process).
	procs *procs
	// sendErr is the first write failure; after it the channel is dead.
	sendErr error
}

func (s *server) send(m *wire.Message) { s.sent(s.w.Write(m)) }

// sent records err, the result of a write, when it is the first failure.
func (s *server) sent(err error) {
	if err != nil {
		s.mu.Lock()
		if s.sendErr == nil {
			s.sendErr = err
		}
		s.mu.Unlock()
	}
}

// serve reads host messages until the channel ends, then cancels every
// execution and waits for their goroutines. It returns nil at a clean end of
// the channel and the fault otherwise.
func (s *server) serve(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer func() {
		cancel()
		s.wg.Wait()
	}()
	s.ctx = ctx
	s.send(&wire.Message{Kind: wire.KindReady, Version: wire.ProtocolVersion, Versions: &wire.Supported, Runner: "codemode-go quickjs"})
	for {
		msg, err := s.r.Read()
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe) {
				return nil
			}
			return fmt.Errorf("quickjs runner: %w", err)
		}
		switch msg.Kind {
		case wire.KindExecute:
			s.mu.Lock()
			if _, dup := s.execs[msg.Execution]; dup {
				s.mu.Unlock()
				s.send(failure(msg.Execution, "Error", "duplicate execution id"))
				continue
			}
			s.mu.Unlock()
			if msg.TypeScript {
				// This runner's ready does not offer to strip types (wire
				// 1.4): the host erases them itself and sends again.
				m := failure(msg.Execution, "SyntaxError", "the runner did not strip the program's types (this runner does not strip TypeScript); nothing ran (the host erases them itself)")
				m.StripRefused = true
				s.send(m)
				continue
			}
			// The scope is resolved here, in the order of the messages,
			// so that an execute naming it alone finds what an earlier one
			// carried.
			names, res := s.resolveScope(msg)
			if res != nil {
				s.send(res)
				continue
			}
			s.mu.Lock()
			exCtx, stop := context.WithCancelCause(ctx)
			ex := &execution{id: msg.Execution, wake: make(chan struct{}, 1), done: make(chan struct{}), base: exCtx, stop: stop}
			s.execs[ex.id] = ex
			s.mu.Unlock()
			s.wg.Add(1)
			s.busy.Add(1)
			s.procs.begin()
			go func() {
				defer s.wg.Done()
				defer s.busy.Add(-1)
				s.run(ex, msg, names)
				s.procs.end()
				s.procs.fit()
			}()
			s.procs.fit()
		case wire.KindToolResult:
			s.route(msg.Execution, event{seq: msg.Seq, ok: msg.Error == nil, output: msg.Output, err: msg.Error, held: msg.Held, release: msg.Release})
		case wire.KindCancel:
			s.mu.Lock()
			ex := s.execs[msg.Execution]
			s.mu.Unlock()
			if ex != nil {
				ex.cancel()
			}
			s.route(msg.Execution, event{cancel: true})
		default:
			slog.Debug("quickjs runner: ignoring message", "kind", msg.Kind)
			return fmt.Errorf("quickjs runner: %w: unexpected %s message from the host", wire.ErrMalformed, msg.Kind)
		}
	}
}

// waitsForHost reports whether the process runs one execution, which waits
// for a host message, and nothing else runs an engine: the sandbox's wire
// reader then keeps reading for a while rather than wait in the poller
// (rawFile's spin), so that the answer wakes no thread. With no execution
// the next request may be seconds away; with several, the host has several
// calls to answer, and a spinning reader would take a CPU from it (64
// concurrent one-call programs ran at 1,986-2,041 a second against
// 2,136-2,497 when every execution waiting was enough).
func (s *server) waitsForHost() bool {
	return s.parked.Load() == 1 && s.busy.Load() == 1
}

// resolveScope returns an execute message's namespaces: the message's,
// kept under its scope when it names one, or those kept under the scope it
// names alone. When it has none to give it returns the result to send
// instead: scopeUnknown for a scope it does not keep, an InternalError for
// names the engine cannot take.
func (s *server) resolveScope(msg *wire.Message) (*scopeNames, *wire.Message) {
	if msg.Scope != "" && msg.Namespaces == nil {
		if names, ok := s.scopes.get(msg.Scope); ok {
			return names, nil
		}
		return nil, scopeUnknown(msg.Execution, msg.Scope)
	}
	names, err := newScopeNames(msg.Namespaces)
	if err != nil {
		return nil, failure(msg.Execution, "InternalError", "the execute message's namespaces cannot be run: "+err.Error())
	}
	if msg.Scope != "" {
		s.scopes.put(msg.Scope, names, names.size)
	}
	return names, nil
}

// scopeUnknown is the answer to an execute message that names a scope the
// runner does not keep, without its namespaces: nothing ran.
func scopeUnknown(id uint64, scope string) *wire.Message {
	m := failure(id, "InternalError", "the runner keeps no namespaces for scope "+scope+"; nothing ran (the host sends them again)")
	m.ScopeUnknown = true
	return m
}

// end forgets an execution and sends its result (nil: none), in one write
// with what the execution has queued.
func (s *server) end(ex *execution, res *wire.Message) {
	s.mu.Lock()
	delete(s.execs, ex.id)
	s.mu.Unlock()
	close(ex.done)
	var err error
	if res != nil {
		err = s.queue(ex, res)
	}
	s.flush(ex)
	s.sent(err)
}

// queue adds m to the frames ex sends with its next flush. Errors are as
// for wire.Writer.Write; nothing is queued then.
func (s *server) queue(ex *execution, m *wire.Message) error {
	var err error
	ex.out, err = wire.AppendFrame(ex.out, m)
	return err
}

// flush writes the frames ex queued, in one write (whole, so that it does
// not interleave with other writers').
func (s *server) flush(ex *execution) {
	if len(ex.out) == 0 {
		return
	}
	_, err := s.conn.Write(ex.out)
	s.sent(err)
	ex.out = ex.out[:0]
}

// route hands an event to its execution without blocking; events for an
// execution that has already ended are dropped.
func (s *server) route(id uint64, ev event) {
	s.mu.Lock()
	ex := s.execs[id]
	s.mu.Unlock()
	if ex != nil {
		ex.post(ev)
	}
}
