package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/codemode-go/codemode/drivers"
	"github.com/codemode-go/codemode/runner"
	"github.com/codemode-go/codemode/wire"
)

// Errors returned by Runtime.Execute and Client.Run; test with errors.Is.
var (
	// ErrRuntimeClosed: the runtime was closed before or during the execution.
	ErrRuntimeClosed = errors.New("codemode: runtime closed")
	// ErrRuntimeFailed: the runtime's environment or channel failed; the
	// wrapped error says how.
	ErrRuntimeFailed = errors.New("codemode: runtime failed")
)

// FinishState says how a runtime ended.
type FinishState int

// The states of a finished runtime.
const (
	Running FinishState = iota // not finished
	Closed                     // closed by its owner
	Failed                     // the environment or channel failed; see Finished.Err
)

// Finished describes the end of a runtime.
type Finished struct {
	State FinishState
	Err   error // the failure, for State Failed
}

// Runtime is a connected execution environment: one runner that multiplexes
// many executions. It is safe for concurrent use. Close it when done.
type Runtime struct {
	driver drivers.Driver
	conn   drivers.Connection
	r      *wire.Reader
	w      *wire.Writer
	desc   string

	nextID atomic.Uint64

	mu       sync.Mutex
	execs    map[uint64]*pending
	finished Finished
	done     chan struct{}

	closing   atomic.Bool
	closeOnce sync.Once
	loop      sync.WaitGroup // the reader goroutine
	calls     sync.WaitGroup // tool handler goroutines
	probing   atomic.Bool    // a liveness probe after a cancel is running
	probes    sync.WaitGroup // that probe's goroutine
}

// CancelGrace is how long a runtime may take, after an execution was
// cancelled, to run a trivial probe execution. A runner that cannot (a
// Node.js process stuck in a busy loop, which no cancel can interrupt) is
// failed with an error saying so and its environment stopped, so that a Pool
// replaces it instead of sending it more work.
const CancelGrace = 10 * time.Second

// probeSource is the trivial module of a liveness probe.
const probeSource = "export default () => {};\n"

// probeAfterCancel starts a liveness probe unless one is running or the
// runtime has ended.
func (rt *Runtime) probeAfterCancel() {
	if !rt.probing.CompareAndSwap(false, true) {
		return
	}
	rt.mu.Lock()
	if rt.finished.State != Running {
		rt.mu.Unlock()
		rt.probing.Store(false)
		return
	}
	rt.probes.Add(1) // under mu, so it happens before Close's Wait
	rt.mu.Unlock()
	go func() {
		defer rt.probes.Done()
		defer rt.probing.Store(false)
		ctx, cancel := context.WithTimeout(context.Background(), CancelGrace)
		defer cancel()
		_, err := rt.Execute(ctx, ExecuteRequest{Source: probeSource, Filename: "codemode-probe.js"})
		if errors.Is(err, context.DeadlineExceeded) {
			rt.finish(Finished{State: Failed, Err: fmt.Errorf("%w: the runner did not run a trivial execution within %s after an execution was cancelled; it is stuck (a program that never yields?)", ErrRuntimeFailed, CancelGrace)})
			_ = rt.conn.Close()
		}
	}()
}

// pending is an execution waiting for runner messages.
type pending struct {
	msgs chan *wire.Message
	stop chan struct{} // closed when Execute returns
}

// NewRuntime boots a runtime with driver: it connects, passing the
// version-matched runner source, and waits for the runner's ready message.
// ctx governs boot only; afterwards the runtime lives until Close. If boot
// fails, whatever the driver started is closed before NewRuntime returns.
func NewRuntime(ctx context.Context, driver drivers.Driver) (*Runtime, error) {
	conn, err := driver.Connect(ctx, drivers.ConnectRequest{RunnerSource: runner.Source})
	if err != nil {
		return nil, fmt.Errorf("codemode: connecting the runtime: %w", err)
	}
	rt := &Runtime{
		driver: driver,
		conn:   conn,
		r:      wire.NewReader(conn.Channel()),
		w:      wire.NewWriter(conn.Channel()),
		desc:   driver.Description(),
		execs:  map[uint64]*pending{},
		done:   make(chan struct{}),
	}
	ready := make(chan error, 1)
	go func() {
		m, err := rt.r.Read()
		switch {
		case err != nil:
			ready <- fmt.Errorf("reading the ready message: %w", err)
		case m.Kind != wire.KindReady:
			ready <- fmt.Errorf("the runner sent %s before ready", m.Kind)
		case m.Version != wire.ProtocolVersion:
			ready <- fmt.Errorf("the runner speaks protocol version %d, this host %d", m.Version, wire.ProtocolVersion)
		default:
			ready <- nil
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
	rt.loop.Add(1)
	go rt.readLoop()
	return rt, nil
}

// Description is the driver's opaque description of the environment.
func (rt *Runtime) Description() string { return rt.desc }

// Done is closed when the runtime has become unusable.
func (rt *Runtime) Done() <-chan struct{} { return rt.done }

// Finished reports the runtime's state: Running, Closed, or Failed with the
// error.
func (rt *Runtime) Finished() Finished {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return rt.finished
}

// TypeDefinitionFiles returns the checker-only declarations of what the
// runtime's environment provides (the driver's files).
func (rt *Runtime) TypeDefinitionFiles(ctx context.Context) ([]drivers.TypeDefinitionFile, error) {
	return rt.driver.TypeDefinitionFiles(ctx)
}

func (rt *Runtime) readLoop() {
	defer rt.loop.Done()
	var err error
	for {
		var m *wire.Message
		m, err = rt.r.Read()
		if err != nil {
			break
		}
		switch m.Kind {
		case wire.KindToolCall, wire.KindOutput, wire.KindResult:
		default:
			err = fmt.Errorf("%w: unexpected %s message from the runner", wire.ErrMalformed, m.Kind)
		}
		if err != nil {
			break
		}
		rt.mu.Lock()
		p := rt.execs[m.Execution]
		rt.mu.Unlock()
		if p == nil {
			continue // an execution that was cancelled or already returned
		}
		select {
		case p.msgs <- m:
		case <-p.stop:
		}
	}
	if rt.closing.Load() {
		rt.finish(Finished{State: Closed})
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
	rt.finish(Finished{State: Failed, Err: fmt.Errorf("%w: %w", ErrRuntimeFailed, err)})
	_ = rt.conn.Close()
}

func (rt *Runtime) finish(f Finished) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.finished.State != Running {
		return
	}
	rt.finished = f
	close(rt.done)
}

// Close ends the runtime: in-flight executions return ErrRuntimeClosed, the
// driver's environment is stopped, and Close returns once the reader and
// every tool handler goroutine have stopped. It is safe to call more than
// once.
func (rt *Runtime) Close() error {
	var err error
	rt.closeOnce.Do(func() {
		rt.closing.Store(true)
		err = rt.conn.Close()
		rt.loop.Wait()
		rt.finish(Finished{State: Closed})
		rt.calls.Wait()
		rt.probes.Wait()
	})
	return err
}

// ToolCall is one call a program made, as the runtime hands it to a
// ToolCaller.
type ToolCall struct {
	Seq       uint64          // per-execution sequence number, 1-based, in the order the program issued calls
	Namespace string          // scope property, e.g. "codemode"
	Tool      string          // tool name
	Input     json.RawMessage // JSON text, already checked to be JSON in the guest
	Site      string          // "file:line:column" of the call in the executed source, when known
}

// ExecuteRequest is one execution on a runtime. The runtime knows nothing of
// schemas: Client builds these.
type ExecuteRequest struct {
	// Source is a JavaScript ES module (TypeScript already erased).
	Source string
	// Filename names the module in stack traces, e.g. "agent.ts".
	Filename string
	// Input is the program input as JSON text for an input-bearing
	// execution, and nil for an inputless one (the scope then has no input
	// property).
	Input json.RawMessage
	// Namespaces maps scope properties to the tool names under them.
	Namespaces map[string][]string
	// CallTool runs one tool call; its context ends with the execution.
	CallTool func(ctx context.Context, call ToolCall) (json.RawMessage, error)
	// OnOutput receives program output ("stdout" or "stderr") in order.
	OnOutput func(stream, text string)
}

// ErrorNamer is implemented by tool errors that want a JavaScript error name
// other than "Error" in the program.
type ErrorNamer interface {
	ErrorName() string
}

// Execute runs one execution and returns its raw outcome. Cancelling ctx
// cancels only this execution (the runner is told to stop it and its tool
// handlers' contexts end) and returns context.Cause(ctx). A closed or failed
// runtime returns an error wrapping ErrRuntimeClosed or ErrRuntimeFailed.
func (rt *Runtime) Execute(ctx context.Context, req ExecuteRequest) (*Outcome, error) {
	select {
	case <-rt.done:
		return nil, &notStartedError{rt.doneErr()}
	default:
	}
	id := rt.nextID.Add(1)
	p := &pending{msgs: make(chan *wire.Message, 64), stop: make(chan struct{})}
	rt.mu.Lock()
	rt.execs[id] = p
	rt.mu.Unlock()
	execCtx, cancelCalls := context.WithCancel(context.WithoutCancel(ctx))
	defer func() {
		cancelCalls()
		rt.mu.Lock()
		delete(rt.execs, id)
		rt.mu.Unlock()
		close(p.stop)
	}()

	msg := &wire.Message{Kind: wire.KindExecute, Execution: id, Source: req.Source, Filename: req.Filename}
	if req.Input != nil {
		msg.HasInput, msg.Input = true, req.Input
	}
	for _, name := range sortedKeys(req.Namespaces) {
		msg.Namespaces = append(msg.Namespaces, wire.Namespace{Name: name, Tools: req.Namespaces[name]})
	}
	if err := rt.w.Write(msg); err != nil {
		return nil, fmt.Errorf("%w: sending the execution: %w", ErrRuntimeFailed, &notStartedError{err})
	}
	for {
		select {
		case m := <-p.msgs:
			switch m.Kind {
			case wire.KindOutput:
				if req.OnOutput != nil {
					req.OnOutput(m.Stream, m.Text)
				}
			case wire.KindToolCall:
				rt.startCall(execCtx, id, req, m)
			case wire.KindResult:
				if rt.closing.Load() {
					return nil, ErrRuntimeClosed
				}
				return outcomeOf(m), nil
			}
		case <-ctx.Done():
			_ = rt.w.Write(&wire.Message{Kind: wire.KindCancel, Execution: id})
			rt.probeAfterCancel()
			return nil, context.Cause(ctx)
		case <-rt.done:
			return nil, rt.doneErr()
		}
	}
}

// notStartedError marks an execution that never reached the runner, so a
// pool may safely run it elsewhere.
type notStartedError struct{ err error }

func (e *notStartedError) Error() string { return e.err.Error() }
func (e *notStartedError) Unwrap() error { return e.err }

func (rt *Runtime) doneErr() error {
	f := rt.Finished()
	if f.State == Failed {
		return f.Err
	}
	return ErrRuntimeClosed
}

func (rt *Runtime) startCall(ctx context.Context, id uint64, req ExecuteRequest, m *wire.Message) {
	call := ToolCall{Seq: m.Seq, Namespace: m.Namespace, Tool: m.Tool, Input: m.Input, Site: m.Site}
	rt.calls.Add(1)
	go func() {
		defer rt.calls.Done()
		out, err := safeCall(ctx, req.CallTool, call)
		res := &wire.Message{Kind: wire.KindToolResult, Execution: id, Seq: m.Seq}
		if err == nil && len(out) > maxToolOutput {
			err = fmt.Errorf("the output of %s.%s is %d bytes; a tool result carries at most %d", call.Namespace, call.Tool, len(out), maxToolOutput)
		}
		if err != nil {
			name := "Error"
			var n ErrorNamer
			if errors.As(err, &n) {
				name = n.ErrorName()
			}
			res.Error = &wire.Error{Name: name, Message: boundText(err.Error(), maxErrorMessage)}
		} else {
			res.Output = out
		}
		if ctx.Err() != nil {
			return // the execution is over; nobody waits for this answer
		}
		if err := rt.w.Write(res); err != nil {
			// The channel is broken; the reader will see it and fail the runtime.
			return
		}
	}()
}

// Bounds on what a tool call sends back, in bytes: outputs must fit a frame
// with room to spare; error messages are cut like the runner cuts program
// errors.
const (
	maxToolOutput   = wire.MaxFrameSize - 64<<10
	maxErrorMessage = 8192
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
			out, err = nil, fmt.Errorf("tool %s.%s panicked: %v", call.Namespace, call.Tool, r)
		}
	}()
	out, err = f(ctx, call)
	if err == nil && !json.Valid(out) {
		return nil, fmt.Errorf("tool %s.%s returned a value that is not JSON", call.Namespace, call.Tool)
	}
	return out, err
}
