package client

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/evanw/esbuild/pkg/api"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers"
	"github.com/codemode-go/codemode/internal/codeform"
	"github.com/codemode-go/codemode/internal/errname"
	"github.com/codemode-go/codemode/internal/esbuildchild"
	"github.com/codemode-go/codemode/internal/runctx"
	"github.com/codemode-go/codemode/internal/wire"
)

// Client runs programs against one contract on one runtime. It is safe for
// concurrent use; many runs multiplex on the runtime.
type Client struct {
	rt       Executor
	contract *contract.Contract
	erased   *eraseCache
	// setup is the scope setup: the SDK's (sdkSetup) or an Extension's.
	setup *scopeSetup
	// declarations are an Extension's declarations, or empty.
	declarations string
	// defaults are Execute's run options (WithDefaults).
	defaults RunOptions
	// scopes are the contract's namespaces as runs send them.
	scopes *scopeLists
	// sdk holds the SDK's host tools (search, describe), shared by the
	// clients of one contract.
	sdk *sdk
	// sessions are the code tool's sessions by key (codetool.WithSession),
	// shared by the clients made from one New.
	sessions *sessionTable
	// erasers bounds the esbuild processes of the runs (startErasure): the
	// Runtime's, shared by every client on it, or one per core of the
	// clients made from one New over another Executor.
	erasers *esbuildchild.Limit
}

// scopeSetup is a client's scope setup: its TypeScript text, and how runs
// apply it. A runner that speaks wire 1.3 receives it erased, apart from
// the program (ExecuteRequest.Setup), and compiles it once; for an older
// runner, or a setup esbuild cannot erase, each program's module calls it
// inline (normalize), compiled with every program.
type scopeSetup struct {
	text string

	once  sync.Once
	js    string // the erased function expression; empty when it failed to erase
	plain atomic.Bool
}

// erasedText returns the setup as JavaScript for ExecuteRequest.Setup, or
// "" when runs must apply it inline.
func (s *scopeSetup) erasedText() string {
	if s.plain.Load() {
		return ""
	}
	s.once.Do(func() {
		r := api.Transform("(\n"+s.text+"\n)", api.TransformOptions{Loader: api.LoaderTS, Target: api.ESNext, Charset: api.CharsetUTF8})
		if len(r.Errors) > 0 || len(r.Code) > wire.MaxSetupSize {
			s.plain.Store(true)
			return
		}
		s.js = strings.TrimRight(strings.TrimSpace(string(r.Code)), ";")
	})
	if s.plain.Load() {
		return ""
	}
	return s.js
}

// Executor is what a Client runs programs on: a *Runtime (one runner, or a
// pool of runners).
type Executor interface {
	// Description is the environment's description for an agent.
	Description() string
	// TypeDefinitionFiles are the environment's checker-only declarations.
	TypeDefinitionFiles(ctx context.Context) ([]drivers.TypeDefinitionFile, error)
	// Execute runs one execution (see Runtime.Execute).
	Execute(ctx context.Context, req ExecuteRequest) (*Outcome, error)
}

// New binds an executor (a *Runtime) and a contract. The client
// does not own the executor: close it yourself.
func New(rt Executor, c *contract.Contract) *Client {
	return &Client{rt: rt, contract: c, erased: newEraseCache(eraseCacheBytes), scopes: &scopeLists{contract: c}, sdk: &sdk{},
		setup: &scopeSetup{text: withUnavailable(sdkSetup, c)}, sessions: &sessionTable{}, erasers: erasureLimit(rt)}
}

// erasureLimit is rt's bound on esbuild processes when rt is a *Runtime
// (shared by every client on it: a server that makes a client per contract
// it sees keeps one bound), else a new one of one per core.
func erasureLimit(rt Executor) *esbuildchild.Limit {
	if r, ok := rt.(interface{ erasureLimit() *esbuildchild.Limit }); ok && r.erasureLimit() != nil {
		return r.erasureLimit()
	}
	return esbuildchild.NewLimit(runtime.NumCPU())
}

// Extension is what a layer above the client adds to the programs it runs:
// a scope setup, and the declarations of what the setup adds. A runner that
// records executions extends the client this way with its own codemode.step
// and codemode.run.
type Extension struct {
	// Setup is a TypeScript function expression, written on one line, that
	// receives the program's scope (AgentProgramScope) and returns the scope
	// the code sees, for example one whose namespace wraps a tool's result
	// in a Proxy. It runs inside the program (in the sandbox), before the
	// code, on every run, in every form (a module's default export receives
	// its scope). It replaces the client's own setup, which gives the
	// codemode namespace step and run: an extension that keeps that
	// namespace provides them itself. The type checker checks it with the
	// code, so it must type-check on its own (annotate its parameter).
	// Empty keeps the client's own setup.
	Setup string
	// Declarations are TypeScript declarations beside the contract's: what
	// Setup adds, merged into the contract's interfaces by TypeScript's
	// declaration merging (an `interface Tools { run(...): ... }` adds a
	// member to the codemode namespace). TypeDefinitions, Validate and
	// ValidateCode include them.
	Declarations string
}

// Extend returns a client for the same executor and contract that runs
// programs with e (see Extension). A runner that speaks wire 1.3 receives
// the setup erased, apart from the program (ExecuteRequest.Setup), compiles
// it before the program's module and keeps it compiled, so a long setup
// costs a run little (2,800 characters cost 0.9 ms of QuickJS compilation
// per run inside the module, about 0.15 ms this way). For an older runner,
// or a setup esbuild cannot erase on its own, the program's module applies
// it inline, on the wrapper's own lines (modules then see the scope as it
// is). Either way the program's positions are its own.
func (c *Client) Extend(e Extension) *Client {
	setup := c.setup
	if e.Setup != "" {
		setup = &scopeSetup{text: withUnavailable(e.Setup, c.contract)}
	}
	return &Client{rt: c.rt, contract: c.contract, erased: newEraseCache(eraseCacheBytes), setup: setup, scopes: c.scopes, sdk: c.sdk,
		declarations: c.declarations + e.Declarations, defaults: c.defaults, sessions: c.sessions, erasers: c.erasers}
}

// TypeDefinitions returns the declarations programs are written against:
// the contract's TypeDefinitions and, after them, the Declarations of the
// client's Extension.
func (c *Client) TypeDefinitions() string {
	if c.declarations == "" {
		return c.contract.TypeDefinitions()
	}
	return c.contract.TypeDefinitions() + "\n" + c.declarations
}

// Contract returns the client's contract.
func (c *Client) Contract() *contract.Contract { return c.contract }

// RunOptions are the per-run settings.
type RunOptions struct {
	// Input is the program input: required for an input-bearing contract
	// (any value that encodes to JSON, or a json.RawMessage), and must be nil
	// for an inputless one.
	Input any
	// OnTelemetry observes the run. It is called from the run's goroutines,
	// one event at a time per run; a panic in it is recovered and ignored. A
	// slow observer slows only its own run. Output events arrive in the
	// order the program wrote, and each tool call's events in order (started,
	// then completed or failed; Seq numbers the calls as the program made
	// them), but the two are not ordered against each other: a tool call
	// starts as soon as the host reads it, while output is delivered on the
	// run's goroutine, so output written before a call may arrive after the
	// call's started event.
	OnTelemetry func(Event)
	// ExecutionID names the run to Middleware and tool handlers
	// (ToolCall.ExecutionID, CallFromContext). When empty the client
	// generates one, "run_<unix ms>_<12 hex digits>".
	ExecutionID string
	// Middleware wraps every tool call of the run (see Middleware); nil
	// means none. Compose several with Chain.
	Middleware Middleware
	// Limits bound the run: deadline, memory, output, content, timers and
	// tool calls. Zero fields take their defaults (see Limits).
	Limits Limits
	// Seed seeds Math.random: 16 bytes, or nil for a random seed. With the
	// same Seed and Clock a program sees the same randomness and time.
	Seed []byte
	// Clock holds the values Date.now() and new Date() return, in order,
	// before the real clock (a previous run's Outcome.Clock, to replay it).
	Clock []float64
	// Prefill holds the results the run's tool calls will receive, by seq,
	// when the caller knows them already (recorded calls run again): a
	// runner that speaks wire 1.3 answers such a call at once,
	// without a round trip to the host, and the host still runs the call
	// through Middleware and the tool, in order, before anything the
	// program did after it, and ends the run when the answer differs from
	// the prefilled one (see ExecuteRequest.Prefill). An older runner
	// ignores it.
	Prefill map[uint64]json.RawMessage
	// Fetch, when not nil, lets the program's fetch reach the origins it
	// allows, through the host (see FetchPolicy); nil leaves fetch off. A
	// policy that does not parse fails the run before it starts.
	Fetch *FetchPolicy
	// Approve decides each call whose tool's policy needs approval
	// (contract.Policy.NeedsApproval), after Middleware and just before
	// the handler: nil lets the call run, an error refuses it (the program
	// sees the error, and the handler does not run). It may block, for
	// example while a person is asked; ctx ends with the run. Nil refuses
	// every such call with an error naming the tool. A middleware that
	// gates approvals itself (one that can pause a run until a person
	// decides) sets an Approve that returns nil.
	Approve func(ctx context.Context, call ToolCall) error
	// TracerProvider, when set, records the run as OpenTelemetry spans of
	// the instrumentation scope "github.com/codemode-go/codemode",
	// children of the span in ctx: the execution ("codemode.execution",
	// with codemode.execution.id, codemode.driver, codemode.outcome and
	// codemode.error.name), the program input's validation
	// ("codemode.validate") and each tool call, named "execute_tool
	// {namespace.tool}" after OpenTelemetry's GenAI conventions
	// (https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/#execute-tool-span),
	// with gen_ai.tool.name, codemode.tool.seq, codemode.tool.end (how it
	// ended: completed, failed, cancelled (its context ended first) or
	// halted) and, when a schema
	// check failed, codemode.validation (input or output). Nil records
	// nothing.
	TracerProvider trace.TracerProvider
	// Session, when not nil, carries the top-level bindings of RunCode
	// programs from one run to the next (see Session); nil runs each
	// program on its own. Run refuses it (a module has no bindings to
	// carry).
	Session *Session
	// MeterProvider, when set, records the run's OpenTelemetry metrics, of
	// the instrumentation scope "github.com/codemode-go/codemode" and
	// named after OpenTelemetry's guidelines
	// (https://opentelemetry.io/docs/specs/semconv/general/metrics/):
	//   - codemode.executions (counter): runs, by outcome ("success",
	//     "program-failed", or "error" when no outcome was made: bad
	//     input, cancellation, a failed runtime).
	//   - codemode.execution.duration (histogram, seconds): each run, by
	//     outcome.
	//   - codemode.tool.calls (counter): tool calls, by codemode.tool
	//     ("namespace.tool") and codemode.tool.end (completed, failed,
	//     cancelled, timeout, runtime_unavailable or halted).
	//   - codemode.tool.call.duration (histogram, seconds): each call that
	//     ended by itself, by codemode.tool and codemode.tool.end.
	// Nil records nothing.
	MeterProvider metric.MeterProvider
}

// Run executes one agent-authored TypeScript ES module whose default
// export is called with the program's scope (`export default async ({
// codemode, input, console, result }) => { … }`: the namespaces are its
// members, not globals). It does not type-check. Input is validated first: input that breaks the contract's
// input schema returns a *contract.ValidationError (Phase "input") and
// nothing runs.
// The program's failures (syntax, throws, a missing default export, tool
// errors, tool validation failures, unknown tools, limits) are a
// ProgramFailed outcome; cancellation of ctx returns context.Cause(ctx); a
// closed or failed runtime returns an error wrapping ErrRuntimeClosed or
// ErrRuntimeFailed.
func (c *Client) Run(ctx context.Context, source string, opts RunOptions) (*Outcome, error) {
	return c.run(ctx, program{text: source, kind: moduleProgram}, opts)
}

// RunCode runs code as models write it (normalizeCode in
// https://developers.cloudflare.com/agents/tools/codemode/api-reference/): a module
// with a default export, a function expression such as
// `async () => { … }` (called with the scope), or bare statements whose last
// expression is the value, each optionally inside a Markdown code fence. In
// the function and statement forms the scope's names (the namespaces,
// console, result and, when input-bearing, input) are in lexical scope, so
// `await codemode.getWeather({ location })` works without destructuring. The
// code's value (the returned value, the last expression, or what the
// default export resolves to) is the outcome's Value, as JSON; a value JSON
// cannot hold (a function, a BigInt, a cycle) fails the program with a
// TypeError naming where it was found. Positions in errors and excerpts are
// the code's own lines and columns, and so are those of the stack the code
// reads from an Error it catches, on a runner that speaks wire 1.8 (both
// drivers of this module). Errors are those of Run.
func (c *Client) RunCode(ctx context.Context, code string, opts RunOptions) (*Outcome, error) {
	return c.run(ctx, program{text: code, kind: modelCode}, opts)
}

// program is a program as a Run or RunCode call gives it.
type program struct {
	text  string
	kind  programKind
	carry *codeform.Carry // a session's bindings, for model-written code
}

// programKind says what form a program's text has.
type programKind uint8

const (
	moduleProgram programKind = iota // a whole module (Run)
	modelCode                        // code as a model writes it (RunCode)
)

// erase returns the erased program for p and the setup to send with it
// (ExecuteRequest.Setup; "" when the module applies the client's setup
// itself, or there is none).
func (c *Client) erase(p program, es *esbuildchild.Session) (*erased, string, error) {
	source := p.text
	setup := c.setup.erasedText()
	if p.kind == moduleProgram {
		// A module's default export receives the scope through the setup
		// when the runner takes it apart (wire 1.3); an older runner's
		// modules see the scope as it is.
		prog, err := c.erased.eraseWith(source, es, func() (string, *codeform.Normalized) { return source, nil })
		return prog, setup, err
	}
	key, inline := "\x00code\x00"+source, ""
	if setup == "" {
		key, inline = "\x00inline\x00"+source, c.setup.text
	}
	if p.carry != nil {
		// A session's module holds its bindings: made for this run only.
		n := codeform.NormalizeCarry(source, c.scopeNames(), inline, p.carry, es)
		prog, err := erase(n.Module, n, es)
		return prog, setup, err
	}
	prog, err := c.erased.eraseWith(key, es, func() (string, *codeform.Normalized) {
		n := codeform.Normalize(source, c.scopeNames(), inline, es)
		return n.Module, n
	})
	return prog, setup, err
}

// scopeNames are the scope properties a program receives: input when the
// contract is input-bearing, its namespaces, codemode (the SDK's, when the
// contract has no tools there), console and result.
func (c *Client) scopeNames() []string {
	var names []string
	if c.contract.HasInput() {
		names = append(names, "input")
	}
	sdk := false
	for _, ns := range c.contract.Namespaces() {
		names = append(names, ns.Name)
		sdk = sdk || ns.Name == sdkNamespace
	}
	if !sdk {
		names = append(names, sdkNamespace)
	}
	return append(names, "console", "result")
}

// maxNesting bounds how deep a program's brackets nest. Erasing and
// normalizing TypeScript takes more than linear time in the depth (esbuild
// took 17 s over 2,000 nested arrow parameters, 22 KB), in the host and
// before any deadline runs, so a deeper program is refused first.
const maxNesting = 256

// checkNesting returns the RangeError of a program nested deeper than
// maxNesting, or nil.
func checkNesting(text string) error {
	if d := codeform.MaxNesting(text); d > maxNesting {
		return &ProgramError{Name: "RangeError", Message: fmt.Sprintf("the program nests brackets %d deep, more than the %d allowed", d, maxNesting)}
	}
	return nil
}

// maxErasure bounds an erasure's time whatever the run's limits: esbuild
// erases a real program in milliseconds (a megabyte in well under a
// second), and runs that wait for a child slot (Client.erasers) should not
// wait out a hostile program's whole deadline (second review of
// 2026-12-06: two hostile programs made a benign one wait 4.75 s of a 5 s
// deadline).
const maxErasure = 10 * time.Second

// startErasure returns the esbuild session of a run's erasure, for what
// blank does not read (see erase), and the function that ends it. esbuild
// may take the run's deadline (Limits.Timeout, or CPUTime when shorter);
// past it the session's process is killed and the run fails with a
// TimeoutError naming the erasure. At most one run per core has an esbuild
// process at once (Client.erasers); the others wait, within their deadline.
func (c *Client) startErasure(ctx context.Context, l Limits) (*esbuildchild.Session, func()) {
	l = l.withDefaults()
	budget, which := min(l.Timeout, maxErasure), "Limits.Timeout"
	if l.CPUTime > 0 && l.CPUTime < budget {
		budget, which = l.CPUTime, "Limits.CPUTime"
	}
	if budget == maxErasure && l.Timeout > maxErasure {
		which = "the most erasure may take"
	}
	timedOut := &ProgramError{Name: "TimeoutError", Message: fmt.Sprintf("erasing the program's TypeScript took longer than %s (%s): esbuild was stopped", budget, which)}
	ectx, cancel := context.WithTimeoutCause(ctx, budget, timedOut)
	es := esbuildchild.New(ectx, c.erasers)
	return es, func() {
		es.Close()
		cancel()
	}
}

// maxProgram is the longest program, in bytes, a run reads: its execute
// message must fit a frame (wire.MaxFrameSize) with the rest of the
// message.
const maxProgram = wire.MaxFrameSize - 64<<10

// checkSize refuses a program longer than maxProgram before anything on
// the host reads it (it could not be sent anyway).
func checkSize(text string) error {
	if len(text) > maxProgram {
		return &ProgramError{Name: "RangeError", Message: fmt.Sprintf("the program is %d bytes, more than the %d a runner accepts", len(text), maxProgram)}
	}
	return nil
}

// run runs p.
func (c *Client) run(ctx context.Context, p program, opts RunOptions) (out *Outcome, err error) {
	metrics := startMetrics(opts.MeterProvider)
	tel := telemetry{fn: metrics.observe(withProgress(opts.OnTelemetry, runctx.ProgressFrom(ctx)))}
	execID := opts.ExecutionID
	if execID == "" {
		execID = newExecutionID()
	}
	ctx, tr := startRun(ctx, opts.TracerProvider, execID, c.rt)
	defer func() {
		tr.end(out, err)
		metrics.end(out, err)
	}()
	input, err := c.input(ctx, opts.Input, tr)
	if err != nil {
		tel.emit(Event{Kind: EventExecutionFailed, Err: err})
		return nil, err
	}
	if err := checkSize(p.text); err != nil {
		return syntaxOutcome(err, &tel), nil
	}
	if err := checkNesting(p.text); err != nil {
		return syntaxOutcome(err, &tel), nil
	}
	if opts.Session != nil {
		release, err := startSession(ctx, opts.Session, &p)
		if err != nil {
			tel.emit(Event{Kind: EventExecutionFailed, Err: err})
			return nil, err
		}
		defer release()
	}
	es, stopErasure := c.startErasure(ctx, opts.Limits)
	defer stopErasure()
	prepared, err := c.prepare(p, es)
	es.Release() // later uses (a runner's refusal to strip, an early error) start another child
	if err != nil {
		if out := syntaxOutcome(err, &tel); out != nil {
			return out, nil
		}
		return nil, err
	}
	req, err := c.request(prepared, execID, input, opts, tr, &tel)
	if err != nil {
		return nil, err
	}
	out, err = c.rt.Execute(ctx, req)
	var notStarted *notStartedError
	if err != nil && req.Setup != "" && errors.Is(err, wire.ErrVersion) && errors.As(err, &notStarted) {
		// A runner older than wire 1.3 takes no setup: from now on the
		// client's programs apply it in their own module.
		c.setup.plain.Store(true)
		var e *erased
		if e, _, err = c.erase(p, es); err == nil {
			prepared.positions, req.Source, req.Setup = e, e.js, ""
			out, err = c.rt.Execute(ctx, req)
		}
	}
	tel.endInFlight(endOfInFlight(out, err))
	if err != nil {
		if out := syntaxOutcome(err, &tel); out != nil { // found when the runtime erased the program (Erase)
			return out, nil
		}
		tel.emit(Event{Kind: EventExecutionFailed, Err: err})
		return nil, err
	}
	if out := syntaxOutcome(prepared.positions.earlyError(out, es), &tel); out != nil {
		return out, nil
	}
	if opts.Session != nil {
		finishSession(opts.Session, out, prepared.captures, p.carry.Capture)
	}
	mapError(out, prepared.positions)
	tel.emit(Event{Kind: EventExecutionCompleted, Outcome: cloneOutcome(out)})
	return out, nil
}

// withProgress returns fn, also reporting each tool call's start to
// report (nil: fn alone). Telemetry delivers one event at a time.
func withProgress(fn func(Event), report func(runctx.Progress)) func(Event) {
	if report == nil {
		return fn
	}
	start, calls := time.Now(), 0
	return func(e Event) {
		if e.Kind == EventToolCallStarted {
			calls++
			report(runctx.Progress{Calls: calls, Last: e.Namespace + "." + e.Tool, Elapsed: time.Since(start)})
		}
		if fn != nil {
			fn(e)
		}
	}
}

// input checks a run's input against the contract, returning it as JSON
// (nil for an inputless contract).
func (c *Client) input(ctx context.Context, in any, tr *runTrace) (json.RawMessage, error) {
	switch {
	case c.contract.HasInput() && in == nil:
		return nil, errors.New("codemode: this contract is input-bearing; RunOptions.Input is required")
	case !c.contract.HasInput() && in != nil:
		return nil, errors.New("codemode: this contract is inputless; RunOptions.Input must be nil")
	case c.contract.HasInput():
		raw, err := c.contract.ValidateInput(in)
		tr.validateInput(ctx, err)
		return raw, err
	}
	return nil, nil
}

// syntaxOutcome is the program's failure when err is a syntax error that
// erasure found, or nil.
func syntaxOutcome(err error, tel *telemetry) *Outcome {
	var pe *ProgramError
	if !errors.As(err, &pe) {
		return nil
	}
	out := &Outcome{Kind: ProgramFailed, Error: pe}
	tel.emit(Event{Kind: EventExecutionCompleted, Outcome: out})
	return out
}

// prepared is a program ready to send: its JavaScript (or TypeScript for a
// runner that strips it, with erase as the fallback), the setup to send
// with it, and how to map the runner's positions back to the program's.
type prepared struct {
	positions positions
	js, setup string
	erase     func() (string, error)
	captures  bool // the module resolves to {value, session} (codeform.Carry)
}

// prepare erases p, or leaves it for a runner that strips types itself
// (wire 1.4).
func (c *Client) prepare(p program, es *esbuildchild.Session) (*prepared, error) {
	if p.kind == moduleProgram {
		if st := c.strippable(p.text, es); st != nil {
			return &prepared{positions: st, js: p.text, erase: st.erase, setup: c.setup.erasedText()}, nil
		}
	}
	e, setup, err := c.erase(p, es)
	if err != nil {
		return nil, err
	}
	return &prepared{positions: e, js: e.js, setup: setup, captures: e.back != nil && e.back.Captures()}, nil
}

// request is the execute request of a prepared program: its scope (with
// fetch when opts allow it) and the tool calls going through the
// middleware, the fetch policy and the run's spans.
func (c *Client) request(p *prepared, execID string, input json.RawMessage, opts RunOptions, tr *runTrace, tel *telemetry) (ExecuteRequest, error) {
	scope := c.scopes.plainRun()
	var fetch *fetcher
	if opts.Fetch != nil {
		var err error
		if fetch, err = newFetcher(opts.Fetch); err != nil {
			return ExecuteRequest{}, fmt.Errorf("codemode: RunOptions.Fetch: %w", err)
		}
		scope = c.scopes.fetchingRun()
	}
	inner := recovering(func(ctx context.Context, call ToolCall) (json.RawMessage, error) {
		return handle(ctx, call, opts.Approve)
	})
	if opts.Middleware != nil {
		inner = recovering(opts.Middleware(inner))
	}
	return ExecuteRequest{
		Source: p.js, Erase: p.erase, Filename: programFilename, ExecutionID: execID, Input: input,
		Namespaces: scope.namespaces, Scope: scope.digest, Setup: p.setup, Prefill: opts.Prefill,
		Limits: opts.Limits, Seed: opts.Seed, Clock: opts.Clock,
		OnOutput: func(stream, text string) {
			tel.emit(Event{Kind: EventProgramOutput, Stream: stream, Text: text})
		},
		admitted:  tel.admit,
		positions: func() *wire.Positions { return p.positions.stackPositions() },
		CallTool: func(ctx context.Context, call ToolCall) (json.RawMessage, error) {
			ctx, span := tr.startTool(ctx, call)
			var res json.RawMessage
			var cerr error
			if call.Namespace == fetchNamespace && fetch != nil {
				res, cerr = fetchCall(ctx, call, fetch, inner, tel)
			} else {
				res, cerr = c.callTool(ctx, call, inner, tel)
			}
			endTool(span, cerr)
			return res, cerr
		},
	}, nil
}

// mapError maps a failed outcome's positions back to the program's own
// lines, and gives it the excerpt of the failing line: a tool validation
// failure names the calling source in its message (the error was created
// at the call, so its stack's first program frame is the call).
func mapError(out *Outcome, prog positions) {
	if out.Error == nil {
		return
	}
	out.Error.Stack = prog.mapText(out.Error.Stack)
	out.Error.Message = prog.mapText(out.Error.Message)
	if out.Error.Name == string(errname.ToolValidation) {
		if x := prog.excerptAt(out.Error.Stack); x != "" {
			out.Error.Message += "\n" + x
		}
	} else {
		out.Error.excerpt = prog.excerptAt(out.Error.Stack)
	}
}

// recovering is next with a panic in it failing the call, with a
// *PanicError naming the tool and keeping the panic's stack, like any
// failure: the middleware around it sees the error, and the call's
// terminal event, span and metrics say it failed (the runtime's own
// recover, in safeCall, comes after them, when the call, still in flight
// for them, has been counted as cancelled).
func recovering(next ToolCaller) ToolCaller {
	return func(ctx context.Context, call ToolCall) (out json.RawMessage, err error) {
		defer func() {
			if r := recover(); r != nil {
				out, err = nil, newPanicError(call, r)
			}
		}()
		return next(ctx, call)
	}
}

// handle is the innermost ToolCaller: the contract tool's handler, once
// approve let a call that needs approval through, or for a fetch, the
// run's fetch policy.
func handle(ctx context.Context, call ToolCall, approve func(context.Context, ToolCall) error) (json.RawMessage, error) {
	if f, ok := ctx.Value(fetchKey{}).(*fetcher); ok && call.Namespace == fetchNamespace {
		return f.do(ctx, call.Input)
	}
	t := toolFromContext(ctx)
	if t.Policy().NeedsApproval(call.Input) {
		if approve == nil {
			return nil, &approvalError{what: call.Namespace + "." + call.Tool}
		}
		if err := approve(ctx, call); err != nil {
			return nil, err
		}
	}
	return t.Handle(ctx, call.Input)
}

// directToolError refuses a program's call of a tool the model calls
// directly (contract.CallersModel); the program sees a TypeError.
type directToolError struct{ what string }

func (e *directToolError) Error() string {
	return e.what + " is a tool the model calls directly, not programs: call it yourself, outside the program"
}

func (e *directToolError) ErrorName() string { return "TypeError" }

// approvalError refuses a call that needs approval in a run that cannot
// ask for it.
type approvalError struct{ what string }

func (e *approvalError) Error() string {
	return e.what + " needs a person's approval before it runs, and this run has no way to ask for it (the host may pass RunOptions.Approve, or give the tool a policy without approval)"
}

type fetchKey struct{}

// fetchCall serves a program's fetch like a tool call: through the
// middleware, with the same telemetry events.
func fetchCall(ctx context.Context, call ToolCall, f *fetcher, caller ToolCaller, tel *telemetry) (json.RawMessage, error) {
	start := time.Now()
	ev := Event{Kind: EventToolCallStarted, Namespace: call.Namespace, Tool: call.Tool, Seq: call.Seq, Input: call.Input}
	tel.emit(ev)
	ctx = context.WithValue(withCall(ctx, call), fetchKey{}, f)
	out, err := caller(ctx, call)
	if ctx.Err() != nil {
		return nil, context.Cause(ctx) // see callTool
	}
	ev.Duration = time.Since(start)
	if err != nil {
		ev.Kind, ev.Err = EventToolCallFailed, err
		tel.emit(ev)
		return nil, err
	}
	ev.Kind, ev.Output = EventToolCallCompleted, out
	tel.emit(ev)
	return out, nil
}

type toolKey struct{}

func toolFromContext(ctx context.Context) *contract.Tool {
	t, _ := ctx.Value(toolKey{}).(*contract.Tool)
	return t
}

// callTool checks the call's input, runs it through the middleware to the
// handler, and checks the output.
func (c *Client) callTool(ctx context.Context, call ToolCall, caller ToolCaller, tel *telemetry) (json.RawMessage, error) {
	start := time.Now()
	ev := Event{Namespace: call.Namespace, Tool: call.Tool, Seq: call.Seq, Input: call.Input}
	t := c.contract.Tool(call.Namespace, call.Tool)
	if t == nil && call.Namespace == sdkNamespace {
		t = c.sdk.tool(c.contract, call.Tool)
	}
	if t == nil {
		err := fmt.Errorf("unknown tool %s.%s", call.Namespace, call.Tool)
		ev.Kind, ev.Err = EventToolCallFailed, err
		tel.emit(ev)
		return nil, err
	}
	if t.Policy().Callers == contract.CallersModel {
		err := &directToolError{what: call.Namespace + "." + call.Tool}
		ev.Kind, ev.Err = EventToolCallFailed, err
		tel.emit(ev)
		return nil, err
	}
	fail := func(err error) (json.RawMessage, error) {
		var tv *contract.ValidationError
		if errors.As(err, &tv) && tv.Tool != "" {
			err = &toolValidationFailure{err: tv, namespace: call.Namespace}
		}
		ev.Kind, ev.Err, ev.Duration = EventToolCallFailed, err, time.Since(start)
		tel.emit(ev)
		return nil, err
	}
	if err := t.CheckInput(call.Input); err != nil {
		return fail(err)
	}
	ev.Kind = EventToolCallStarted
	tel.emit(ev)
	ctx = context.WithValue(withCall(ctx, call), toolKey{}, t)
	out, err := caller(ctx, call)
	if ctx.Err() != nil {
		// The execution ended while the call ran: the run gives it its
		// terminal event (telemetry.endInFlight), with how the run ended.
		return nil, context.Cause(ctx)
	}
	ev.Duration = time.Since(start)
	if err == nil {
		err = checkOutput(ctx, call, t.CheckOutput, out)
	}
	if err != nil {
		if _, ok := asHalt(err); ok {
			ev.Kind, ev.Err = EventToolCallFailed, err
			tel.emit(ev)
			return nil, err
		}
		return fail(err)
	}
	ev.Kind, ev.Output = EventToolCallCompleted, out
	tel.emit(ev)
	return out, nil
}

// toolValidationFailure is what the program sees when a tool value breaks
// its schema: name ToolValidationError, the report, and an excerpt of the
// calling source.
type toolValidationFailure struct {
	err       *contract.ValidationError
	namespace string
}

func (f *toolValidationFailure) ErrorName() string { return string(errname.ToolValidation) }
func (f *toolValidationFailure) Unwrap() error     { return f.err }
func (f *toolValidationFailure) Error() string {
	msg := f.namespace + "." + f.err.Error()
	return msg
}

func cloneOutcome(o *Outcome) *Outcome {
	c := *o
	if o.Content != nil {
		c.Content = append([]contract.Content{}, o.Content...)
	}
	if o.Error != nil {
		e := *o.Error
		c.Error = &e
	}
	return &c
}

// newExecutionID returns "run_<unix ms>_<12 hex digits>".
func newExecutionID() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("run_%d_%x", time.Now().UnixMilli(), b)
}
