package client

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers"
	"github.com/codemode-go/codemode/internal/errname"
	"github.com/codemode-go/codemode/internal/esbuildchild"
	"github.com/codemode-go/codemode/internal/ijson"
	"github.com/codemode-go/codemode/internal/membudget"
	"github.com/codemode-go/codemode/internal/wire"
	"github.com/codemode-go/codemode/runner"
)

// Errors returned by Runtime.Execute and Client.Run; test with errors.Is.
var (
	// ErrRuntimeClosed: the runtime was closed before or during the execution.
	ErrRuntimeClosed = errors.New("codemode: runtime closed")
	// ErrRuntimeFailed: the runtime's environment or channel failed; the
	// wrapped error says how.
	ErrRuntimeFailed = errors.New("codemode: runtime failed")
)

// errRuntimeDone is what a write gives up with when the runtime ends; the
// caller reports the runtime's own error instead.
var errRuntimeDone = errors.New("codemode: runtime ended")

// runtimeState says whether a runtime is serving, and how it ended.
type runtimeState int

// The states of a runtime.
const (
	stateRunning runtimeState = iota // serving executions
	stateClosed                      // closed by its owner
	stateFailed                      // the environment or channel failed; see ending.Err
)

// ending describes the end of a runtime.
type ending struct {
	State runtimeState
	Err   error // the failure, for stateFailed
}

// err is f as Runtime.Err reports it.
func (f ending) err() error {
	switch f.State {
	case stateClosed:
		return ErrRuntimeClosed
	case stateFailed:
		return f.Err
	}
	return nil
}

// Runtime is a connected execution environment: one runner that
// multiplexes many executions (NewRuntime), or a pool of such runners made
// by one driver (NewPool). It is an Executor, safe for concurrent use.
// Close it when done.
//
// One tenant cannot stall another: the goroutine reading a runner's
// messages never waits for an execution to take them (each execution has
// its own queue), writes go through one writer goroutine while every caller
// waits on its own context, and a cancel is queued without blocking the
// canceller.
type Runtime struct {
	impl runtimeImpl
	// erasers bounds the esbuild processes of every client's runs on this
	// runtime (Client.startErasure): one per core.
	erasers *esbuildchild.Limit
}

// erasureLimit is the bound a Client made on rt shares with the other
// clients of rt.
func (rt *Runtime) erasureLimit() *esbuildchild.Limit { return rt.erasers }

// runtimeImpl is what a Runtime runs on: one runner (*runnerConn) or a
// pool of them (*pool).
type runtimeImpl interface {
	Executor
	Close() error
	Done() <-chan struct{}
	Err() error
	stripsTypeScript() bool
}

// NewRuntime boots a runtime with driver: it connects, passing the
// version-matched runner source, and waits for the runner's ready message.
// ctx governs boot only; afterwards the runtime lives until Close. If boot
// fails, whatever the driver started is closed before NewRuntime returns.
func NewRuntime(ctx context.Context, driver drivers.Driver) (*Runtime, error) {
	c, err := dialRunner(ctx, driver)
	if err != nil {
		return nil, err
	}
	return &Runtime{impl: c, erasers: esbuildchild.NewLimit(runtime.NumCPU())}, nil
}

// NewPool boots a runtime that spreads executions over opts.Size runners
// made by driver. Each execution goes to the runner with the fewest
// running executions; when every runner is at its PerRuntime cap, Execute
// waits for a free slot (or for ctx). A runner that fails is replaced by a
// fresh one before the next execution, so the pool's Done and Err report
// only its Close. ctx governs boot; if one runner fails to boot, the others
// are closed and the error returned.
func NewPool(ctx context.Context, driver drivers.Driver, opts PoolOptions) (*Runtime, error) {
	p, err := newPool(ctx, driver, opts)
	if err != nil {
		return nil, err
	}
	return &Runtime{impl: p, erasers: esbuildchild.NewLimit(runtime.NumCPU())}, nil
}

// Description is the environment's description for an agent (the
// driver's).
func (rt *Runtime) Description() string { return rt.impl.Description() }

// TypeDefinitionFiles are the environment's checker-only declarations
// (drivers.Driver.TypeDefinitionFiles: for Node.js, @types/node).
func (rt *Runtime) TypeDefinitionFiles(ctx context.Context) ([]drivers.TypeDefinitionFile, error) {
	return rt.impl.TypeDefinitionFiles(ctx)
}

// Execute runs one execution and returns its raw outcome (a program's own
// failure is an Outcome, not an error). Cancelling ctx cancels only this
// execution (the runner is told to stop it and its tool handlers'
// contexts end) and returns context.Cause(ctx). A closed or failed runtime
// returns an error wrapping ErrRuntimeClosed or ErrRuntimeFailed. Past the
// deadline (req.Limits.Timeout) plus a grace period, if the runner has not
// ended the execution, the host gives up on it: a ProgramFailed
// TimeoutError outcome.
func (rt *Runtime) Execute(ctx context.Context, req ExecuteRequest) (*Outcome, error) {
	return rt.impl.Execute(ctx, req)
}

// Close ends the runtime: in-flight executions return ErrRuntimeClosed,
// the driver's environments are stopped, and Close returns once every
// goroutine the runtime started (readers, writers, tool handlers) has
// stopped. It is safe to call more than once.
func (rt *Runtime) Close() error { return rt.impl.Close() }

// Done is closed when Err stops being nil.
func (rt *Runtime) Done() <-chan struct{} { return rt.impl.Done() }

// Err is nil while the runtime serves executions; after Close it is
// ErrRuntimeClosed. A single runner (NewRuntime) whose environment or
// channel failed reports an error wrapping ErrRuntimeFailed that says why
// (an exit status, the end of the environment's stderr); a pool replaces
// a failed runner instead, so it ends only by Close.
func (rt *Runtime) Err() error { return rt.impl.Err() }

func (rt *Runtime) stripsTypeScript() bool { return rt.impl.stripsTypeScript() }

// runnerConn is one connected runner that multiplexes many executions.
type runnerConn struct {
	driver drivers.Driver
	conn   drivers.Connection
	r      *bufio.Reader
	out    *sender
	desc   string

	nextID atomic.Uint64
	// version is the wire protocol version agreed with the runner at boot.
	version wire.Version
	// stripsTypes: the runner's ready said typeScript (wire 1.4): it strips
	// a program's types itself (ExecuteRequest.Erase).
	stripsTypes bool
	// scopes are the scopes this runtime sent the runner with their
	// namespaces (wire 1.2): later executions send the scope alone.
	scopes scopeSet

	mu       sync.Mutex
	execs    map[uint64]*execution
	finished ending
	done     chan struct{}

	closing   atomic.Bool
	closeOnce sync.Once
	loops     sync.WaitGroup // the reader and writer goroutines
	calls     sync.WaitGroup // tool calls, and the goroutines that run them
	// idle hands a call to a handler goroutine waiting for one, of which
	// there are idleHandlers at most (see spawn).
	idle         chan func()
	idleHandlers atomic.Int32
	probing      atomic.Bool    // a liveness probe after a cancel is running
	probes       sync.WaitGroup // that probe's goroutine
}

// cancelGrace is how long a runtime may take, after an execution was
// cancelled or given up at its deadline, to run a trivial probe execution.
// A runner that cannot (a Node.js process stuck in a busy loop, which no
// cancel can interrupt) is failed with an error saying so and its
// environment stopped, so that a pool replaces it instead of sending it
// more work.
const cancelGrace = 10 * time.Second

// probeSource is the trivial module of a liveness probe.
const probeSource = "export default () => {};\n"

// probeAfterCancel starts a liveness probe unless one is running or the
// runtime has ended.
func (rt *runnerConn) probeAfterCancel() {
	if !rt.probing.CompareAndSwap(false, true) {
		return
	}
	rt.mu.Lock()
	if rt.finished.State != stateRunning {
		rt.mu.Unlock()
		rt.probing.Store(false)
		return
	}
	rt.probes.Add(1) // under mu, so it happens before Close's Wait
	rt.mu.Unlock()
	go func() {
		defer rt.probes.Done()
		defer rt.probing.Store(false)
		ctx, cancel := context.WithTimeout(context.Background(), cancelGrace)
		defer cancel()
		_, err := rt.Execute(ctx, ExecuteRequest{Source: probeSource, Filename: "codemode-probe.js"})
		if errors.Is(err, context.DeadlineExceeded) {
			rt.finish(ending{State: stateFailed, Err: fmt.Errorf("%w: the runner did not run a trivial execution within %s after an execution was cancelled; it is stuck (a program that never yields?)", ErrRuntimeFailed, cancelGrace)})
			_ = rt.conn.Close()
		}
	}()
}

// dialRunner boots a runner with driver (see NewRuntime).
func dialRunner(ctx context.Context, driver drivers.Driver) (*runnerConn, error) {
	conn, err := driver.Connect(ctx, drivers.ConnectRequest{RunnerSource: runner.Source})
	if err != nil {
		return nil, fmt.Errorf("codemode: connecting the runtime: %w", err)
	}
	rt := &runnerConn{
		driver: driver,
		conn:   conn,
		r:      bufio.NewReaderSize(conn.Channel(), 64<<10),
		out:    newSender(wire.NewWriter(conn.Channel())),
		desc:   driver.Description(),
		execs:  map[uint64]*execution{},
		done:   make(chan struct{}),
		idle:   make(chan func()),
	}
	ready := make(chan error, 1)
	go func() {
		m, err := rt.read()
		switch {
		case err != nil:
			ready <- fmt.Errorf("reading the ready message: %w", err)
		case m.Kind != wire.KindReady:
			ready <- fmt.Errorf("the runner sent %s before ready", m.Kind)
		default:
			rt.version, err = wire.Negotiate(wire.Supported, m.PeerVersions(), "this client", "the runner ("+m.Runner+")")
			rt.stripsTypes = m.TypeScript && rt.version.Major == wire.ProtocolVersion && rt.version.Minor >= 4
			ready <- err
		}
	}()
	select {
	case err = <-ready:
	case <-ctx.Done():
		err = context.Cause(ctx)
	case <-conn.Done():
		err = fmt.Errorf("the environment ended during boot: %v", conn.Err())
	}
	if err != nil {
		_ = conn.Close()
		return nil, fmt.Errorf("codemode: booting the runtime: %w", err)
	}
	rt.loops.Add(2)
	go func() {
		defer rt.loops.Done()
		rt.out.run()
	}()
	go rt.readLoop()
	return rt, nil
}

// read reads and decodes one message.
func (rt *runnerConn) read() (*wire.Message, error) {
	payload, err := wire.ReadFrame(rt.r, wire.MaxFrameSize)
	if err != nil {
		return nil, err
	}
	return wire.Unmarshal(payload)
}

// Description is the driver's opaque description of the environment.
func (rt *runnerConn) Description() string { return rt.desc }

// Done is closed when the runtime has become unusable.
func (rt *runnerConn) Done() <-chan struct{} { return rt.done }

// ended reports the runtime's state: stateRunning, stateClosed, or
// stateFailed with the error.
func (rt *runnerConn) ended() ending {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return rt.finished
}

// Err is nil while the runtime serves executions; after Close it is
// ErrRuntimeClosed, and after its environment or channel failed an error
// wrapping ErrRuntimeFailed that says why (an exit status, the end of the
// environment's stderr). Done is closed when Err stops being nil.
func (rt *runnerConn) Err() error { return rt.ended().err() }

// TypeDefinitionFiles returns the checker-only declarations of what the
// runtime's environment provides (the driver's files).
func (rt *runnerConn) TypeDefinitionFiles(ctx context.Context) ([]drivers.TypeDefinitionFile, error) {
	return rt.driver.TypeDefinitionFiles(ctx)
}

// readLoop hands each runner message to its execution's queue. It never
// waits for an execution: a slow consumer slows only itself. A message the
// host cannot accept (undecodable, of a kind a runner must not send) fails
// the execution it names, as an InternalError; only a broken stream (a cut,
// an oversized frame) fails the runtime.
func (rt *runnerConn) readLoop() {
	defer rt.loops.Done()
	var err error
	for {
		var payload []byte
		payload, err = wire.ReadFrame(rt.r, wire.MaxFrameSize)
		if err != nil {
			break
		}
		m, derr := wire.Unmarshal(payload)
		if derr != nil {
			if id, ok := wire.PeekExecution(payload); ok {
				rt.failExecution(id, internalFailure("the runner sent a malformed message: %v", derr))
				continue
			}
			// Naming no execution, it cannot be failed alone, and skipping
			// it left its execution waiting for a result until the deadline
			// (docs/runner-protocol.md: such a message ends the connection).
			err = fmt.Errorf("the runner sent a malformed message naming no execution: %w", derr)
			break
		}
		switch m.Kind {
		case wire.KindToolCall:
			if ex := rt.lookup(m.Execution); ex != nil {
				ex.call(m)
			}
		case wire.KindResult:
			if ex := rt.lookup(m.Execution); ex != nil {
				ex.result(m)
			}
		case wire.KindOutput:
			if ex := rt.lookup(m.Execution); ex != nil {
				ex.post(item{msg: m})
			}
		default:
			rt.failExecution(m.Execution, internalFailure("the runner sent a %s message, which only the host sends", m.Kind))
		}
	}
	if rt.closing.Load() {
		rt.finish(ending{State: stateClosed})
		return
	}
	// The channel usually breaks because the environment ended: give the
	// driver a moment to say why (an exit status, a stderr tail).
	select {
	case <-rt.conn.Done():
	case <-time.After(time.Second):
	}
	if cerr := rt.conn.Err(); cerr != nil {
		err = fmt.Errorf("%v (environment: %w)", err, cerr)
	}
	rt.finish(ending{State: stateFailed, Err: fmt.Errorf("%w: %w", ErrRuntimeFailed, err)})
	_ = rt.conn.Close()
}

func (rt *runnerConn) lookup(id uint64) *execution {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return rt.execs[id]
}

// failExecution ends execution id (if it is still running) with out.
func (rt *runnerConn) failExecution(id uint64, out *Outcome) {
	if ex := rt.lookup(id); ex != nil {
		ex.post(item{end: out})
	}
}

func (rt *runnerConn) finish(f ending) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.finished.State != stateRunning {
		return
	}
	rt.finished = f
	close(rt.done)
}

// Close ends the runtime: in-flight executions return ErrRuntimeClosed, the
// driver's environment is stopped, and Close returns once the reader, the
// writer and every tool handler goroutine have stopped. It is safe to call
// more than once.
func (rt *runnerConn) Close() error {
	var err error
	rt.closeOnce.Do(func() {
		rt.closing.Store(true)
		err = rt.conn.Close()
		rt.out.close()
		rt.loops.Wait()
		rt.finish(ending{State: stateClosed})
		rt.calls.Wait()
		rt.probes.Wait()
	})
	return err
}

// ToolCall is one call a program made, as the runtime hands it to the
// request's CallTool and a Client hands it to its Middleware.
type ToolCall struct {
	// ExecutionID names the execution: RunOptions.ExecutionID, or one the
	// client generated ("run_<ms>_<hex>").
	ExecutionID string
	// Seq numbers the execution's calls from 1 in the order the program
	// issued them, so concurrent calls (Promise.all) number the same way on
	// every run of the same program.
	Seq       uint64
	Namespace string          // scope property, e.g. "codemode"
	Tool      string          // tool name
	Input     json.RawMessage // JSON text; through a Client, validated against the tool's input schema
	Site      string          // "file:line:column" of the call in the executed source, when the runner sends it (wire key 12; neither shipped runner does: a tool call's position is found from its error's stack when it fails)
	// Clock counts the clock values (Date.now(), new Date(), Date()) the
	// program had observed when it issued the call, replayed ones
	// (RunOptions.Clock) included: the index of the next one.
	Clock int
	// RandomDraws and RandomBytes are how much of its random streams the
	// program had used when it issued the call: Math.random calls, and
	// bytes of crypto.getRandomValues and crypto.randomUUID (16 each), from
	// the execution's start. Zero from a runner older than wire 1.3.
	RandomDraws, RandomBytes uint64
}

// ExecuteRequest is one execution on a runtime. The runtime knows nothing of
// schemas: Client builds these.
type ExecuteRequest struct {
	// Source is a JavaScript ES module (TypeScript already erased), or,
	// when Erase is set, the TypeScript module itself.
	Source string
	// Erase, when set, makes Source TypeScript: a runtime whose runner
	// strips types in place (wire 1.4: the Node.js driver) sends it as it
	// is, and positions in the outcome are the source's own; otherwise, or
	// when the runner refuses to strip it (an enum, a syntax error; nothing
	// ran), the runtime sends the JavaScript Erase returns. An error from
	// Erase (a *ProgramError for a syntax error) is returned by Execute.
	Erase func() (string, error)
	// Filename names the module in stack traces, e.g. "agent.ts".
	Filename string
	// ExecutionID is copied into every ToolCall.
	ExecutionID string
	// Input is the program input as JSON text for an input-bearing
	// execution, and nil for an inputless one (the scope then has no input
	// property).
	Input json.RawMessage
	// Namespaces maps scope properties to the tool names under them.
	Namespaces map[string][]string
	// Scope, when set, names Namespaces for the runner (at most 128
	// bytes): a digest of the list, or any name
	// the caller never gives another list on the same runtime. A runner
	// that speaks wire 1.2 then receives the list with the first execution
	// that names it, and the name alone afterwards, so that a catalogue of
	// 10,000 tools is not carried and decoded per execution. Empty: the
	// list travels with every execution.
	Scope string
	// Setup, when set, is a scope setup the runner applies (wire 1.3,
	// docs/runner-protocol.md "Scope setup"): the JavaScript text of a function
	// expression, at most 1 MiB, that receives the scope;
	// the default export receives what it returns. The runner compiles it
	// apart from Source, before Source's module runs, and may keep it
	// compiled between executions. A runner older than 1.3 cannot take
	// it: Execute then returns an error saying the versions differ, and runs
	// nothing.
	Setup string
	// Prefill holds results the host promises for tool calls, by seq (wire
	// 1.3, docs/runner-protocol.md "Prefilled results"): the runner answers such a call
	// at once with the result and reports it. Execute then runs the call
	// through CallTool as any other, but on the execution's own goroutine,
	// in order, before it handles anything the runner sent after the call,
	// and sends the runner no result. An answer that differs from the
	// prefilled result (bytes compared), or an error, ends the execution:
	// a halt as a halt, otherwise a ProgramFailed outcome naming the call.
	// A runner older than 1.3 receives no prefill and asks for every call.
	Prefill map[uint64]json.RawMessage
	// Limits bound the execution (zero fields take their defaults).
	Limits Limits
	// Seed seeds the program's Math.random: 16 bytes, or nil
	// for a seed from the runner's CSPRNG. One seed gives one sequence.
	Seed []byte
	// Clock holds the values (ms since the Unix epoch) that Date.now() and
	// new Date() return, in order, before the real clock: for replay, the
	// Outcome.Clock of an earlier run.
	Clock []float64
	// CallTool runs one tool call; its context ends with the execution. An
	// error made by Halt ends the execution.
	CallTool func(ctx context.Context, call ToolCall) (json.RawMessage, error)
	// OnOutput receives program output ("stdout" or "stderr") in order. It
	// runs on the caller's goroutine: a slow OnOutput slows only this
	// execution.
	OnOutput func(stream, text string)
	// admitted, when set, hears of each tool call the runtime admits, on
	// the runtime's goroutine before the call starts (the client accounts
	// for every call this way: see Event).
	admitted func(ToolCall)
	// positions, when set, gives the execute message's positions (wire
	// 1.8): where the module's places lie in the program, for the stacks
	// the program reads. It is called as the message is made, after
	// Erase when that ran.
	positions func() *wire.Positions
}

// errorNamer is implemented by tool errors that want a JavaScript error name
// other than "Error" in the program (see the package doc).
type errorNamer interface {
	ErrorName() string
}

// Execute runs one execution and returns its raw outcome. Cancelling ctx
// cancels only this execution (the runner is told to stop it and its tool
// handlers' contexts end) and returns context.Cause(ctx). A closed or failed
// runtime returns an error wrapping ErrRuntimeClosed or ErrRuntimeFailed.
// Past the deadline (req.Limits.Timeout) plus hostGrace, if the runner has
// not ended the execution, the host gives up on it: a ProgramFailed
// TimeoutError outcome, and the runtime is probed as after a cancel. When
// req.Scope named the namespaces alone and the runner no longer keeps them
// (wire 1.2 scopeUnknown: nothing ran), the execution is sent once more,
// under a new id, with the list.
func (rt *runnerConn) Execute(ctx context.Context, req ExecuteRequest) (*Outcome, error) {
	if req.Erase != nil {
		if rt.stripsTypes {
			out, err := rt.executeScoped(ctx, sending{req: req, typeScript: true})
			if !errors.Is(err, errStripRefused) {
				return out, err
			}
			// The runner did not strip this program; nothing ran.
		}
		js, err := req.Erase()
		if err != nil {
			return nil, err
		}
		req.Source, req.Erase = js, nil
	}
	return rt.executeScoped(ctx, sending{req: req})
}

// sending is one execution as it is sent: the request, whether its Source
// is TypeScript for the runner to strip (wire 1.4), and whether its
// namespaces go with it even when the runner was sent them under its
// scope before.
type sending struct {
	req        ExecuteRequest
	typeScript bool
	fullScope  bool
}

// executeScoped runs one execution, sending it once more with its
// namespaces when the runner answers that it no longer keeps the list its
// scope names (wire 1.2 scopeUnknown: nothing ran).
func (rt *runnerConn) executeScoped(ctx context.Context, s sending) (*Outcome, error) {
	out, err := rt.execute(ctx, s)
	if errors.Is(err, errScopeUnknown) {
		// The runner no longer keeps the list the scope names (it was
		// restarted or evicted it); nothing ran. Once more, with the list.
		s.fullScope = true
		out, err = rt.execute(ctx, s)
		if errors.Is(err, errScopeUnknown) {
			return internalFailure("the runner does not keep scope %s even after it was sent with its namespaces", s.req.Scope), nil
		}
	}
	return out, err
}

// errScopeUnknown is what execute returns when the runner answered that it
// does not keep the scope an execute message named without its namespaces.
var errScopeUnknown = errors.New("codemode: the runner does not keep the execution's scope")

// errStripRefused is what execute returns when the runner answered that it
// did not strip the types of a program sent as TypeScript.
var errStripRefused = errors.New("codemode: the runner did not strip the program's types")

// running is one execution between its execute message and its outcome.
type running struct {
	rt      *runnerConn
	s       sending
	id      uint64
	lim     Limits
	ex      *execution
	execCtx context.Context // the tool calls' context: ends with the execution
	bare    bool            // the message named the scope without its namespaces
}

// execute runs one execution.
func (rt *runnerConn) execute(ctx context.Context, s sending) (*Outcome, error) {
	req := s.req
	// A tool handler's run of a program of its own: the held-result hooks
	// of the call it serves are not this execution's.
	ctx = withCallHooks(ctx, nil)
	if err := req.Limits.check(); err != nil {
		return nil, &notStartedError{err}
	}
	select {
	case <-rt.done:
		return nil, &notStartedError{rt.doneErr()}
	default:
	}
	r := &running{rt: rt, s: s, id: rt.nextID.Add(1), lim: req.Limits.withDefaults()}
	r.ex = newExecution(r.id, r.lim, membudget.SharedFrom(ctx))
	rt.mu.Lock()
	rt.execs[r.id] = r.ex
	rt.mu.Unlock()
	execCtx, cancelCalls := context.WithCancel(context.WithoutCancel(ctx))
	r.execCtx = execCtx
	if len(req.Prefill) == 0 {
		// No prefilled result to check in order: the reader starts each
		// call itself (execution.call).
		r.ex.startCalls(func(m *wire.Message, clock int) { rt.startCall(execCtx, r.ex, req, m, clock) })
	}
	defer func() {
		r.ex.finish()
		cancelCalls()
		rt.mu.Lock()
		delete(rt.execs, r.id)
		rt.mu.Unlock()
	}()
	msg, scoped, err := r.message()
	if err != nil {
		return nil, err
	}
	deadline := time.NewTimer(r.lim.Timeout + hostGrace)
	defer deadline.Stop()
	if err := r.send(ctx, msg); err != nil {
		return nil, err
	}
	if scoped && !r.bare {
		// The runner reads messages in order: every execute written after
		// this one may name the scope alone.
		rt.scopes.add(req.Scope)
	}
	return r.await(ctx, deadline.C)
}

// message builds and checks the execute message; scoped says whether it
// names a scope (and r.bare whether without the namespaces).
func (r *running) message() (msg *wire.Message, scoped bool, err error) {
	rt, req := r.rt, r.s.req
	msg = &wire.Message{Kind: wire.KindExecute, Execution: r.id, Source: req.Source, Filename: req.Filename, Setup: req.Setup, TypeScript: r.s.typeScript}
	if req.Input != nil {
		msg.HasInput, msg.Input = true, req.Input
	}
	// A scope goes only to a runner that speaks 1.2 (an older one would
	// skip it and run the program with no namespaces), and alone only once
	// this runtime has sent it with its list. An empty list needs no name.
	scoped = req.Scope != "" && len(req.Namespaces) > 0 && rt.version.Major == wire.ProtocolVersion && rt.version.Minor >= 2
	r.bare = scoped && !r.s.fullScope && rt.scopes.has(req.Scope)
	if scoped {
		msg.Scope = req.Scope
	}
	if !r.bare {
		for _, name := range sortedKeys(req.Namespaces) {
			msg.Namespaces = append(msg.Namespaces, wire.Namespace{Name: name, Tools: req.Namespaces[name]})
		}
	}
	// The limits the runner applies: the others as asked (zero: the
	// runner's default), the deadline always, defaults included. The host
	// keeps that deadline whatever the runner's own default: a runner left
	// to a longer one (quickjs.Options.Timeout of a minute) had its program
	// cut at defaultTimeout by the host, as if it could not be stopped.
	// A 1.0 runner takes no limits: it is sent them only when asked, and
	// then refuses them (CheckVersion below).
	if l := req.Limits; rt.version.Minor >= 1 || l.Timeout > 0 || l.MemoryBytes > 0 || l.MaxOutput > 0 || l.MaxContent > 0 || l.MaxTimers > 0 {
		msg.Limits = &wire.Limits{TimeoutMs: uint64((r.lim.Timeout + time.Millisecond - 1) / time.Millisecond), MemoryBytes: l.MemoryBytes,
			MaxOutput: uint64(l.MaxOutput), MaxContent: uint64(l.MaxContent), MaxTimers: uint64(l.MaxTimers),
			CPUMs: uint64((l.CPUTime + time.Millisecond - 1) / time.Millisecond)}
	}
	msg.Seed, msg.Clock = req.Seed, req.Clock
	if req.positions != nil && rt.version.Major == wire.ProtocolVersion && rt.version.Minor >= 8 {
		msg.Positions = req.positions()
	}
	if len(req.Prefill) > 0 && rt.version.Major == wire.ProtocolVersion && rt.version.Minor >= 3 {
		for _, seq := range slices.Sorted(maps.Keys(req.Prefill)) {
			msg.Prefill = append(msg.Prefill, wire.Prefilled{Seq: seq, Output: req.Prefill[seq]})
		}
	}
	if err := msg.Check(); err != nil { // a seed of the wrong size, a clock value that is not finite, a scope too long
		return nil, false, &notStartedError{fmt.Errorf("codemode: %w", err)}
	}
	if err := msg.CheckVersion(rt.version); err != nil {
		return nil, false, &notStartedError{fmt.Errorf("codemode: %w", err)}
	}
	return msg, scoped, nil
}

// send writes the execute message, saying what a failure means for the
// runtime: nothing sent (the runtime is as good as before), or sent in
// part (it failed).
func (r *running) send(ctx context.Context, msg *wire.Message) error {
	rt := r.rt
	written, err := rt.out.send(ctx, rt.done, msg)
	if err == nil {
		return nil
	}
	if errors.Is(err, errRuntimeDone) {
		err = rt.doneErr()
	}
	switch {
	case !written && ctx.Err() != nil && !errors.Is(err, ErrRuntimeFailed) && !errors.Is(err, ErrRuntimeClosed):
		// The caller gave up while the execution waited to be sent:
		// nothing ran, and the runtime is as good as before.
		return context.Cause(ctx)
	case !written && errors.Is(err, wire.ErrFrameTooLarge):
		// Nothing was written: the runtime is as good as before.
		return &notStartedError{fmt.Errorf("codemode: the execute message does not fit in a frame (a clock, a prefill or a source too large): %w", err)}
	case !written:
		return fmt.Errorf("%w: sending the execution: %w", ErrRuntimeFailed, &notStartedError{err})
	case ctx.Err() != nil:
		rt.cancelInRunner(r.id)
		return context.Cause(ctx)
	}
	return err
}

// await handles the runner's messages for the execution until its
// outcome, its cancellation, the runtime's end or the host's deadline.
// The clock values the program observed: each tool-call and the result
// carry those since the previous message (wire 1.1), so an execution that
// ends early (a halt) still reports every value seen until then
// (ex.observed).
func (r *running) await(ctx context.Context, deadline <-chan time.Time) (*Outcome, error) {
	rt, ex := r.rt, r.ex
	for {
		select {
		case <-ex.wake:
			for _, it := range ex.take() {
				if it.end != nil {
					return r.end(it.end), nil
				}
				if out, done, err := r.handle(it.msg); done {
					return out, err
				}
			}
		case <-ctx.Done():
			rt.cancelInRunner(r.id)
			rt.probeAfterCancel()
			return nil, context.Cause(ctx)
		case <-rt.done:
			return nil, rt.doneErr()
		case <-deadline:
			rt.cancelInRunner(r.id)
			rt.probeAfterCancel()
			return failure("TimeoutError", fmt.Sprintf("the execution ran past its deadline of %s (Limits.Timeout)%s and the runtime did not stop it within %s", r.lim.Timeout, ex.waitingFor(), hostGrace)), nil
		}
	}
}

// end ends the execution in the runner with the host's own outcome.
func (r *running) end(out *Outcome) *Outcome {
	r.rt.cancelInRunner(r.id)
	out.Clock = r.ex.observed()
	return out
}

// handle handles one message of the runner; done says the execution ended
// with out or err.
func (r *running) handle(m *wire.Message) (out *Outcome, done bool, err error) {
	req := r.s.req
	switch m.Kind {
	case wire.KindOutput:
		if req.OnOutput != nil {
			req.OnOutput(m.Stream, m.Text)
		}
	case wire.KindToolCall:
		clock, end := r.ex.admit(m)
		if end != nil {
			return r.end(end), true, nil
		}
		if m.Prefilled {
			if end := r.rt.checkPrefilled(r.execCtx, r.ex, req, m, clock); end != nil {
				return r.end(end), true, nil
			}
			return nil, false, nil
		}
		r.rt.startCall(r.execCtx, r.ex, req, m, clock)
	case wire.KindResult:
		out, err := r.result(m)
		return out, true, err
	}
	return nil, false, nil
}

// result is the execution's outcome from the runner's result message.
func (r *running) result(m *wire.Message) (*Outcome, error) {
	switch {
	case r.rt.closing.Load():
		return nil, ErrRuntimeClosed
	case m.StripRefused && !r.s.typeScript:
		return internalFailure("the runner answered that it did not strip the types of a program sent as JavaScript"), nil
	case m.StripRefused:
		return nil, errStripRefused
	case m.ScopeUnknown && !r.bare:
		return internalFailure("the runner answered that it does not keep scope %q, which the execution carried with its namespaces", r.s.req.Scope), nil
	case m.ScopeUnknown:
		r.rt.scopes.remove(r.s.req.Scope)
		return nil, errScopeUnknown
	}
	out := outcomeOf(m)
	if e := out.Error; e != nil && e.Name == "TimeoutError" && !e.cpuLimit && strings.Contains(e.Message, "deadline") {
		// Which calls the program still waited for: the model learns
		// which one was slow (the CPU time limit never counts waiting).
		e.Message += r.ex.waitingFor()
	}
	out.Clock = append(r.ex.observed(), m.Clock...)
	if len(out.Clock) == 0 {
		out.Clock = nil
	}
	return out, nil
}

// cancelInRunner tells the runner to stop execution id, without waiting.
func (rt *runnerConn) cancelInRunner(id uint64) {
	rt.out.post(&wire.Message{Kind: wire.KindCancel, Execution: id})
}

// notStartedError marks an execution that never reached the runner, so a
// pool may safely run it elsewhere.
type notStartedError struct{ err error }

func (e *notStartedError) Error() string { return e.err.Error() }
func (e *notStartedError) Unwrap() error { return e.err }

func (rt *runnerConn) doneErr() error {
	f := rt.ended()
	if f.State == stateFailed {
		return f.Err
	}
	return ErrRuntimeClosed
}

func (rt *runnerConn) startCall(ctx context.Context, ex *execution, req ExecuteRequest, m *wire.Message, clock int) {
	call := ToolCall{ExecutionID: req.ExecutionID, Seq: m.Seq, Namespace: m.Namespace, Tool: m.Tool, Input: m.Input, Site: m.Site, Clock: clock,
		RandomDraws: m.RandomDraws, RandomBytes: m.RandomBytes}
	if req.admitted != nil {
		req.admitted(call) // before the call's goroutine: the run accounts for it whatever happens next
	}
	rt.calls.Add(1)
	acct, err := ex.open(m)
	if err != nil {
		// Refused unrun: the input is not kept while the refusal waits
		// for the runner to read it.
		m.Input, call.Input = nil, nil
	}
	rt.spawn(func() {
		// The handler goroutine may have run another execution's call:
		// this one runs under its own execution's profiler labels (those
		// of a pprof.Do around Execute), never an earlier call's.
		pprof.SetGoroutineLabels(ctx)
		defer rt.calls.Done()
		defer ex.release(m.Seq, acct)
		hooks := &callHooks{execution: req.ExecutionID, seq: m.Seq, ex: ex, acct: acct}
		if rt.version.Major == wire.ProtocolVersion && rt.version.Minor >= 6 {
			hooks.runner = rt
		}
		var out json.RawMessage
		if err == nil { // else the input alone would pass MaxInFlightBytes: the call fails unrun
			out, err = safeCall(withCallHooks(membudget.WithAccount(ctx, acct), hooks), req.CallTool, call)
		}
		if h, ok := asHalt(err); ok {
			rt.out.abandon(hooks.held)
			ex.post(item{end: haltOutcome(h)})
			return
		}
		res := rt.toolResult(ex, m.Seq, call, acct, hooks.held != nil, out, err)
		if ctx.Err() != nil {
			rt.out.abandon(hooks.held)
			return // the execution is over; nobody waits for this answer
		}
		// A broken channel is seen by the reader, which fails the runtime.
		if len(res.Output) <= directWriteMax { // an error's message is bounded below it
			_, _ = rt.out.sendNow(ctx, rt.done, res)
		} else {
			_, _ = rt.out.send(ctx, rt.done, res)
		}
	})
}

// toolResult is the tool-result message that answers call seq with out or
// err: when the output went to the runner held already, the verdict on it
// (a release, or the error).
func (rt *runnerConn) toolResult(ex *execution, seq uint64, call ToolCall, acct *membudget.Account, held bool, out json.RawMessage, err error) *wire.Message {
	res := &wire.Message{Kind: wire.KindToolResult, Execution: ex.id, Seq: seq}
	if err == nil && !held && len(out) > maxToolOutput {
		err = fmt.Errorf("the output of %s.%s is %d bytes; a tool result carries at most %d", call.Namespace, call.Tool, len(out), maxToolOutput)
	}
	if err == nil && !held {
		// Writing the output makes two copies (its encoding, and
		// the frame), held until written, beside the output.
		err = acct.Take(2 * int64(len(out)))
	}
	switch {
	case err != nil:
		res.Error = &wire.Error{Name: errorName(err, "Error"), Message: boundText(err.Error(), maxErrorMessage)}
		if rt.version.Major == wire.ProtocolVersion && rt.version.Minor >= 7 {
			res.Error.Data = errname.Data(err) // the Error's properties (wire 1.7)
		}
	case held:
		res.Release = true
	default:
		res.Output = out
	}
	return res
}

// hold queues out for the runner as the held result of call seq (wire
// 1.6) and returns its place in the queue, or nil when out is too large
// for a tool result or for the execution's in-flight budget. The answer
// that follows (toolResult) is queued after it and the call's goroutine
// waits for that one to be written, or abandons both, so the budget taken
// here is given back only once the held output is written or dropped.
func (rt *runnerConn) hold(ex *execution, seq uint64, acct *membudget.Account, out json.RawMessage) *outgoing {
	if len(out) > maxToolOutput || acct.Take(2*int64(len(out))) != nil {
		return nil
	}
	return rt.out.post(&wire.Message{Kind: wire.KindToolResult, Execution: ex.id, Seq: seq, Output: out, Held: true})
}

// maxIdleHandlers is how many tool handler goroutines may wait for a call
// once theirs is done.
const maxIdleHandlers = 4

// spawn runs a tool call's f on a handler goroutine that ran a call before
// and waits for the next, when one does, or on a new one. A handler's stack
// has grown to what a call needs (validating the input recurses): on a new
// goroutine for each call it grew by copying every time, about 8 µs of CPU
// in a sequential round trip's 80. Waiting handlers end with the runtime
// (rt.done); rt.calls counts them, so Close waits for them.
func (rt *runnerConn) spawn(f func()) {
	select {
	case rt.idle <- f:
		return
	default:
	}
	rt.calls.Add(1)
	go rt.handle(f)
}

// handle runs f, then calls spawn hands it until the runtime ends or more
// than maxIdleHandlers handlers would wait.
func (rt *runnerConn) handle(f func()) {
	defer rt.calls.Done()
	for {
		f()
		f = nil                                        // nothing of the call is kept while waiting,
		pprof.SetGoroutineLabels(context.Background()) // nor the labels it ran under (or set)
		if rt.idleHandlers.Add(1) > maxIdleHandlers {
			rt.idleHandlers.Add(-1)
			return
		}
		select {
		case f = <-rt.idle:
			rt.idleHandlers.Add(-1)
		case <-rt.done:
			rt.idleHandlers.Add(-1)
			return
		}
	}
}

// checkPrefilled runs a tool call the runner answered from the execution's
// prefilled results (ExecuteRequest.Prefill) and returns the execution's
// end when the host's answer is not that result.
func (rt *runnerConn) checkPrefilled(ctx context.Context, ex *execution, req ExecuteRequest, m *wire.Message, clock int) *Outcome {
	acct, err := ex.open(m)
	defer ex.release(m.Seq, acct)
	if err != nil {
		return failure("RangeError", err.Error())
	}
	ctx = membudget.WithAccount(ctx, acct)
	what := fmt.Sprintf("tool call %d (%s.%s)", m.Seq, m.Namespace, m.Tool)
	want, ok := req.Prefill[m.Seq]
	if !ok {
		return internalFailure("the runner answered %s from a prefilled result the host did not give", what)
	}
	call := ToolCall{ExecutionID: req.ExecutionID, Seq: m.Seq, Namespace: m.Namespace, Tool: m.Tool, Input: m.Input, Site: m.Site, Clock: clock,
		RandomDraws: m.RandomDraws, RandomBytes: m.RandomBytes}
	out, err := safeCall(ctx, req.CallTool, call)
	if h, ok := asHalt(err); ok {
		return haltOutcome(h)
	}
	if err != nil {
		return failure(errorName(err, "Error"), fmt.Sprintf("%s was answered from its prefilled result, but the host's answer is an error: %v", what, err))
	}
	if !bytes.Equal(out, want) {
		return failure("Error", fmt.Sprintf("%s was answered from its prefilled result, but the host's answer differs: %s", what, boundText(string(out), 1000)))
	}
	return nil
}

// errorName is the JavaScript error name for err: its errorNamer's, else
// fallback (errname.Of).
func errorName(err error, fallback string) string { return errname.Of(err, fallback) }

// haltOutcome is the outcome of an execution a middleware halted.
func haltOutcome(h *haltError) *Outcome {
	out := failure(errorName(h.Err, "HaltError"), h.Err.Error())
	out.Halt = h.Err
	return out
}

// failure is a ProgramFailed outcome the host decided.
func failure(name, message string) *Outcome {
	return &Outcome{Kind: ProgramFailed, Error: &ProgramError{Name: name, Message: boundText(message, maxErrorMessage)}}
}

// internalFailure is the outcome of an execution whose runner sent what the
// host cannot accept.
func internalFailure(format string, args ...any) *Outcome {
	return failure("InternalError", fmt.Sprintf(format, args...))
}

// Bounds on what a tool call sends back, in bytes: outputs must fit a frame
// with room to spare; error messages are cut like the runner cuts program
// errors.
const (
	maxToolOutput   = wire.MaxFrameSize - 64<<10
	maxErrorMessage = 8192
	// directWriteMax bounds the output of a tool result that the call's
	// goroutine writes itself (sender.sendNow): small enough for what a
	// socket or the in-process pipe buffers, so that the write does not
	// wait on the peer.
	directWriteMax = 16 << 10
)

// boundText cuts text to at most limit bytes (on a UTF-8 boundary), marking
// the cut.
func boundText(text string, limit int) string {
	if len(text) <= limit {
		return text
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… [truncated %d bytes]", text[:cut], len(text)-cut)
}

func safeCall(ctx context.Context, f func(context.Context, ToolCall) (json.RawMessage, error), call ToolCall) (out json.RawMessage, err error) {
	if f == nil {
		return nil, fmt.Errorf("unknown tool %s.%s", call.Namespace, call.Tool)
	}
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, newPanicError(call, r)
		}
	}()
	out, err = f(ctx, call)
	if err != nil {
		_ = err.Error() // an Error method that panics does so here, under the recover, not in the host's reader
	}
	if h := callHooksFor(ctx, call); h != nil && h.checked {
		return out, err // a Client checked it against the tool's schema
	}
	if err == nil {
		if cerr := ijson.Check(out); cerr != nil {
			return nil, outputCheckFailure(call, cerr)
		}
	}
	return out, err
}

// outputCheckFailure is the ToolValidationError of a call whose output
// ijson.Check refused (err): not JSON, or with a number beyond a double
// that the program would read as ±Infinity. It is what a Client's check
// against the tool's output schema reports for the same output.
func outputCheckFailure(call ToolCall, err error) error {
	line := "/: contract: value is not JSON: " + err.Error()
	var re *ijson.RangeError
	if errors.As(err, &re) {
		line = re.Error()
	}
	return &toolValidationFailure{err: &contract.ValidationError{Tool: call.Tool, Phase: "output", Lines: []string{line}}, namespace: call.Namespace}
}

var _ io.Closer = (*runnerConn)(nil)
