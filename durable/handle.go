package durable

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/typecheck"
)

// Options configure a Handle.
type Options struct {
	// Name is the runtime name: its executions are a separate history in
	// the store. Letters, digits, '_', '-' and '.'; "" means "default".
	Name string
	// MaxExecutions is how many terminal executions are kept when a new one
	// starts; 0 means DefaultMaxExecutions. Running and paused executions
	// are never pruned.
	MaxExecutions int
	// TransformResult, when set, shapes a completed result before the model
	// receives it (its output is not recorded: the journal keeps the
	// original, or a placeholder when that is too large). An error from it
	// makes the output an error.
	TransformResult func(ctx context.Context, result json.RawMessage) (json.RawMessage, error)
	// Logger receives the journal's decisions at debug level and hook
	// failures at warn level; nil is quiet.
	Logger *slog.Logger
	// Limits are each pass's limits (zero: the driver's defaults).
	Limits client.Limits
	// PauseSettle is how long a pass that has an action awaiting approval
	// waits, once every call in flight is awaiting approval, for further
	// calls (Promise.all siblings) before it pauses; 0 means 25 ms. All the
	// actions that arrive in that time are pending in the one pause.
	PauseSettle time.Duration
	// HookTimeout bounds each lifecycle hook and each revert; 0 means 30 s.
	HookTimeout time.Duration
	// TracerProvider, when set, records OpenTelemetry spans: each pass
	// ("codemode.durable.pass": execution ID, runtime name, pass number,
	// durable status) around the client's execution and tool call spans
	// (client.RunOptions.TracerProvider), each tool call marked executed
	// or replayed (AttrCall), and the journal's transitions
	// ("codemode.journal.approve", ".reject", ".rollback", ".expire"). Nil
	// records nothing.
	TracerProvider trace.TracerProvider
}

// Handle is a durable code-mode runtime: one runtime name's history in a
// store, an executor and the connectors. It is safe for concurrent use, and
// several handles (in one process or many) may share a store: every decision
// is read from and written to the store.
type Handle struct {
	store      Store
	client     *client.Client
	name       string
	connectors []Connector
	byName     map[string]*Connector
	tools      map[string]map[string]*ConnectorTool
	scope      []string
	decls      func() string // printed on first use
	catalog    *Catalog
	opts       Options
	log        *slog.Logger
}

// New builds a handle. It does not own the store or the executor: close
// them yourself. It returns an error for an invalid name, connector set
// (reserved or repeated names, reexecute with approval, a nil Execute) or a
// tool schema that does not compile.
func New(store Store, executor client.Executor, connectors []Connector, opts Options) (*Handle, error) {
	if store == nil || executor == nil {
		return nil, errors.New("durable: New needs a store and an executor")
	}
	if opts.Name == "" {
		opts.Name = DefaultName
	}
	if err := CheckName(opts.Name); err != nil {
		return nil, err
	}
	if err := checkConnectors(connectors); err != nil {
		return nil, err
	}
	if opts.MaxExecutions <= 0 {
		opts.MaxExecutions = DefaultMaxExecutions
	}
	if opts.PauseSettle <= 0 {
		opts.PauseSettle = 25 * time.Millisecond
	}
	if opts.HookTimeout <= 0 {
		opts.HookTimeout = 30 * time.Second
	}
	h := &Handle{
		store: store, name: opts.Name, connectors: slices.Clone(connectors), opts: opts, log: opts.Logger,
		byName: map[string]*Connector{}, tools: map[string]map[string]*ConnectorTool{},
	}
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	for i := range h.connectors {
		c := &h.connectors[i]
		h.byName[c.Name] = c
		h.tools[c.Name] = map[string]*ConnectorTool{}
		h.scope = append(h.scope, c.Name)
		for j := range c.Tools {
			h.tools[c.Name][c.Tools[j].Name] = &c.Tools[j]
		}
	}
	namespaces, err := declNamespaces(h.connectors)
	if err != nil {
		return nil, err
	}
	h.scope = append(h.scope, "console", "result")
	// The agent's declarations: the connectors and the codemode SDK, not
	// the journal's own __codemode tools behind codemode.step.
	decl, err := contract.NewNamespaced(namespaces...)
	if err != nil {
		return nil, fmt.Errorf("durable: %w", err)
	}
	h.decls = sync.OnceValue(func() string { return decl.TypeDefinitions() + "\n" + sdkDeclaration })
	h.catalog = newCatalog(h.connectors, decl)
	sdk, err := sdkTools()
	if err != nil {
		return nil, err
	}
	namespaces = append(namespaces, contract.Namespace{Name: sdkNamespace, Tools: sdk})
	c, err := contract.NewNamespaced(namespaces...)
	if err != nil {
		return nil, fmt.Errorf("durable: %w", err)
	}
	h.client = client.New(executor, c).WithScopeSetup(sdkSetup)
	return h, nil
}

// sdkTools are the host halves of codemode.step; the journal answers them.
func sdkTools() ([]*contract.Tool, error) {
	refuse := func(context.Context, json.RawMessage) (json.RawMessage, error) {
		return nil, errors.New("codemode.step is answered by the durable journal only")
	}
	begin, err := contract.NewForeignTool("step_begin", "Begins codemode.step: the recorded value, or a token.",
		json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`), nil, refuse)
	if err != nil {
		return nil, err
	}
	end, err := contract.NewForeignTool("step_end", "Ends codemode.step: records the value.",
		json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"},"token":{"type":"integer"},"failed":{"type":"boolean"}},"required":["name"]}`), nil, refuse)
	if err != nil {
		return nil, err
	}
	skip, err := contract.NewForeignTool("step_skip", "Takes the seq of a call a replayed step's function made.",
		json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`), nil, refuse)
	if err != nil {
		return nil, err
	}
	discovery, err := discoveryTools(refuse)
	if err != nil {
		return nil, err
	}
	return append([]*contract.Tool{begin, end, skip}, discovery...), nil
}

// Name returns the runtime name.
func (h *Handle) Name() string { return h.name }

// TypeDefinitions returns the declarations a program is written against:
// the connectors' namespaces and the codemode SDK (step).
func (h *Handle) TypeDefinitions() string { return h.decls() }

// ValidateCode type-checks code as Execute runs it (client.ValidateCode:
// any form models write) against the connectors and the codemode SDK, with
// checker. The result's positions are the code's own.
func (h *Handle) ValidateCode(ctx context.Context, checker *typecheck.Checker, code string) (*typecheck.Result, error) {
	return h.client.ValidateCodeWith(ctx, checker, unfence(code), typecheck.File{Name: "codemode-sdk.d.ts",
		Text: sdkDeclaration + "interface AgentProgramScope {\n  readonly codemode: typeof codemode;\n  /** The input of codemode.run when this program runs as a saved snippet; undefined in an execution. */\n  readonly input?: any;\n}\n" + inputDeclaration})
}

// inputDeclaration declares, for checking, the input a program saved as a
// snippet reads when codemode.run runs it (loadSnippet passes it as input,
// a variable in every form of the snippet, and the scope's input).
// Executions take no input (as upstream's execute(code)): at the top level
// of one, input is not defined, and typeof input is "undefined".
const inputDeclaration = "/** The input of codemode.run when this program runs as a saved snippet; not defined at the top level of an execution (test typeof input). */\ndeclare const input: any;\n"

// Client returns the client passes run on (its contract holds the
// connectors' namespaces and the journal's own __codemode tools).
func (h *Handle) Client() *client.Client { return h.client }

// NewExecutionID returns a fresh execution ID: exec_<Unix ms>_<16 hex digits>.
func NewExecutionID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("exec_%d_%s", time.Now().UnixMilli(), hex.EncodeToString(b[:]))
}

func now() int64 { return time.Now().UnixMilli() }

// Execute runs code (as models write it: see client.Client.RunCode) as a new
// durable execution: it records the run (status running), prunes terminal
// runs beyond MaxExecutions, and runs the first pass. Program failures,
// divergence and oversize values are an Output with Status OutputError; a
// method that needs approval makes it OutputPaused. Go errors are for the
// store and for ctx (a cancelled pass is recorded as error).
func (h *Handle) Execute(ctx context.Context, code string) (Output, error) {
	id := NewExecutionID()
	t := now()
	seed := make([]byte, 16)
	_, _ = rand.Read(seed)
	e := &Execution{ID: id, Code: code, Status: StatusRunning, Connectors: h.connectorNames(), CreatedAt: t, UpdatedAt: t, Seed: seed, Passes: 1}
	codeJSON, _ := json.Marshal(code)
	tooLarge := checkDurable("code", codeJSON)
	if tooLarge != nil {
		e.Code = fmt.Sprintf("[code omitted from the journal: %d characters of JSON, over the limit of %d]", len(codeJSON), MaxDurableValueLength)
		e.Status, e.Error = StatusError, tooLarge.Error()
	}
	if _, err := h.store.CreateExecution(ctx, h.name, e, h.opts.MaxExecutions); err != nil {
		return Output{}, fmt.Errorf("durable: %w", err)
	}
	if tooLarge != nil {
		h.hooks(ctx, id, StatusError, true)
		return Output{Status: OutputError, ExecutionID: id, Error: e.Error}, nil
	}
	return h.runPass(ctx, e)
}

// ConnectorNames returns the connectors' names (the program's namespaces)
// in configuration order.
func (h *Handle) ConnectorNames() []string { return h.connectorNames() }

func (h *Handle) connectorNames() []string {
	names := make([]string, len(h.connectors))
	for i, c := range h.connectors {
		names[i] = c.Name
	}
	return names
}

// ErrNotPaused is wrapped by Approve's error for an execution that is not
// paused.
var ErrNotPaused = errors.New("durable: execution is not paused")

// notPausedError is Approve's error for an execution that is not paused:
// "durable: execution exec_… is not paused (status: completed)", which is
// ErrNotPaused.
type notPausedError struct {
	id     string
	status Status
}

func (e *notPausedError) Error() string {
	return fmt.Sprintf("durable: execution %s is not paused (status: %s)", e.id, e.status)
}

func (e *notPausedError) Is(target error) bool { return target == ErrNotPaused }

// Approve approves every pending action of a paused execution and replays
// it: a new pass of the same code with the same execution ID, in which
// applied calls return their recorded results, the approved actions run,
// and the program goes on to completion, an error or the next pause. It
// returns an error wrapping ErrNotPaused ("execution exec_… is not paused
// (status: completed)") for any other status, even when another process
// approved it a moment earlier, an error wrapping ErrNotFound for an unknown
// ID, and an error naming them when connectors the execution started with
// are not configured.
func (h *Handle) Approve(ctx context.Context, id string) (out Output, err error) {
	return h.approve(ctx, id, nil)
}

// ErrPendingChanged is returned by ApprovePending when the actions the
// execution awaits approval for are not the ones the caller approved.
var ErrPendingChanged = errors.New("durable: the actions awaiting approval changed")

// ApprovePending is Approve for the pending actions a person saw: it
// approves and replays only when the paused execution awaits approval for
// exactly the actions seqs (in any order), and otherwise returns an error
// wrapping ErrPendingChanged that lists what it awaits now, and leaves it
// paused. Two people approving one pause at once, or an approval sent after
// another approval's replay paused again at the next action, would
// otherwise approve an action nobody has looked at. The check and the
// start of the replay are one step for every other approver: the execution
// is running (not paused) while it is made. Other errors are Approve's.
func (h *Handle) ApprovePending(ctx context.Context, id string, seqs []uint64) (out Output, err error) {
	if len(seqs) == 0 {
		return Output{}, fmt.Errorf("durable: approving execution %s: no actions named", id)
	}
	return h.approve(ctx, id, seqs)
}

// samePending reports whether the pending entries of log are the actions
// seqs, and describes those it has.
func samePending(log []ToolLogEntry, seqs []uint64) (bool, string) {
	want := map[uint64]bool{}
	for _, s := range seqs {
		want[s] = true
	}
	var now []string
	same := true
	n := 0
	for _, e := range log {
		if e.State != EntryPending {
			continue
		}
		n++
		now = append(now, fmt.Sprintf("%d (%s.%s %s)", e.Seq, e.Connector, e.Method, truncate(string(e.Args), 200)))
		if !want[e.Seq] {
			same = false
		}
	}
	if n != len(want) {
		same = false
	}
	if len(now) == 0 {
		return same, "no action"
	}
	return same, strings.Join(now, ", ")
}

// approve is Approve, or ApprovePending when seqs is not nil.
func (h *Handle) approve(ctx context.Context, id string, seqs []uint64) (out Output, err error) {
	ctx, span := h.span(ctx, "codemode.journal.approve", id)
	defer func() { endPassSpan(span, out, err) }()
	e, err := h.store.Execution(ctx, h.name, id)
	if err != nil {
		return Output{}, fmt.Errorf("durable: %w", err)
	}
	if e.Status != StatusPaused {
		return Output{}, &notPausedError{id: id, status: e.Status}
	}
	if missing := h.missing(e.Connectors); len(missing) > 0 {
		return Output{}, fmt.Errorf("durable: execution %s needs connector(s) %s, which are not configured", id, strings.Join(missing, ", "))
	}
	passes := e.Passes + 1
	ok, err := h.store.TransitionExecution(ctx, h.name, id, []Status{StatusPaused}, StatusRunning, ExecutionUpdate{At: now(), Passes: &passes})
	if err != nil {
		return Output{}, fmt.Errorf("durable: %w", err)
	}
	if !ok {
		cur, err := h.store.Execution(ctx, h.name, id)
		if err != nil {
			return Output{}, fmt.Errorf("durable: %w", err)
		}
		return Output{}, &notPausedError{id: id, status: cur.Status}
	}
	if seqs != nil {
		// Read again now that this approval holds the execution: another
		// one may have replayed it to its next pause since it was read.
		cur, err := h.store.Execution(ctx, h.name, id)
		if err != nil {
			return Output{}, fmt.Errorf("durable: %w", err)
		}
		if same, awaiting := samePending(cur.Log, seqs); !same {
			back := cur.Passes - 1
			if _, err := h.store.TransitionExecution(ctx, h.name, id, []Status{StatusRunning}, StatusPaused, ExecutionUpdate{At: now(), Passes: &back}); err != nil {
				return Output{}, fmt.Errorf("durable: %w", err)
			}
			return Output{}, fmt.Errorf("%w: execution %s awaits approval of %s, not of %s: review it and approve again", ErrPendingChanged, id, awaiting, seqList(seqs))
		}
		e = cur
		passes = cur.Passes
	}
	e.Status, e.Passes = StatusRunning, passes
	h.log.Debug("durable: approved", "execution", id, "pass", passes)
	return h.runPass(ctx, e)
}

// seqList prints seqs as "1, 2 and 3".
func seqList(seqs []uint64) string {
	parts := make([]string, len(seqs))
	for i, s := range seqs {
		parts[i] = strconv.FormatUint(s, 10)
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

func (h *Handle) missing(names []string) []string {
	var out []string
	for _, n := range names {
		if h.byName[n] == nil {
			out = append(out, n)
		}
	}
	return out
}

// Reject rejects the pending action at seq and ends the execution as
// rejected ("Action github.create_issue rejected by user"); earlier actions
// are not rolled back (Rollback does that). It returns false when that
// action is not pending (approved and executing already, rejected, or
// absent). A reject that wins against an approval's replay stops the replay
// at that action.
func (h *Handle) Reject(ctx context.Context, id string, seq uint64) (rejected bool, err error) {
	ctx, span := h.span(ctx, "codemode.journal.reject", id, AttrSeq.Int64(int64(seq)))
	defer func() {
		if rejected {
			span.SetAttributes(AttrStatus.String(string(StatusRejected)))
		}
		endSpan(span, err)
	}()
	entry, found, err := h.store.Entry(ctx, h.name, id, seq)
	if err != nil {
		return false, fmt.Errorf("durable: %w", err)
	}
	if !found || entry.State != EntryPending {
		return false, nil
	}
	msg := "rejected by user"
	ok, err := h.store.TransitionEntry(ctx, h.name, id, seq, []EntryState{EntryPending}, EntryError, EntryUpdate{At: now(), Error: &msg})
	if err != nil || !ok {
		return false, wrapStore(err)
	}
	runMsg := fmt.Sprintf("Action %s.%s rejected by user", entry.Connector, entry.Method)
	moved, err := h.store.TransitionExecution(ctx, h.name, id, []Status{StatusPaused, StatusRunning}, StatusRejected, ExecutionUpdate{At: now(), Error: &runMsg})
	if err != nil {
		return true, fmt.Errorf("durable: %w", err)
	}
	if moved {
		h.closePending(ctx, id, fmt.Sprintf("not run: the execution was rejected (action %d rejected by user)", seq))
		h.hooks(ctx, id, StatusRejected, false)
	}
	return true, nil
}

func wrapStore(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("durable: %w", err)
}

// Pending lists the actions awaiting approval: of the execution id, or of
// every paused execution when id is "".
func (h *Handle) Pending(ctx context.Context, id string) ([]PendingAction, error) {
	p, err := h.store.Pending(ctx, h.name, id)
	return p, wrapStore(err)
}

// Executions returns up to limit audit records (0: all), newest first.
func (h *Handle) Executions(ctx context.Context, limit int) ([]*Execution, error) {
	l, err := h.store.Executions(ctx, h.name, limit)
	return l, wrapStore(err)
}

// ErrRunning is returned (wrapped) by Output for an execution whose pass
// is still running: it has no output yet.
var ErrRunning = errors.New("durable: the execution is running")

// Output returns an execution's current output from the journal, as Execute
// or Approve answered it: completed (the recorded result, through
// TransformResult; appended content is not recorded, so there is none),
// paused (the pending actions), or error (the message of an error, a
// rejection, an expiry, or "the execution is rolled_back"). It runs
// nothing. Errors: one wrapping ErrNotFound, ErrRunning, or the store's.
func (h *Handle) Output(ctx context.Context, id string) (Output, error) {
	e, err := h.store.Execution(ctx, h.name, id)
	if err != nil {
		return Output{}, fmt.Errorf("durable: %w", err)
	}
	switch e.Status {
	case StatusRunning:
		return Output{}, fmt.Errorf("%w: %s", ErrRunning, id)
	case StatusPaused:
		pending, err := h.store.Pending(ctx, h.name, id)
		if err != nil {
			return Output{}, fmt.Errorf("durable: %w", err)
		}
		return Output{Status: OutputPaused, ExecutionID: id, Pending: pending, Logs: e.Logs}, nil
	case StatusCompleted:
		result := e.Result
		if len(result) == 0 {
			result = json.RawMessage("null")
		}
		if h.opts.TransformResult != nil {
			t, err := h.opts.TransformResult(ctx, result)
			if err != nil {
				return Output{Status: OutputError, ExecutionID: id, Error: "transforming the result: " + err.Error(), Logs: e.Logs}, nil
			}
			result = t
		}
		return Output{Status: OutputCompleted, ExecutionID: id, Result: result, Logs: e.Logs}, nil
	}
	msg := e.Error
	if msg == "" || e.Status == StatusRolledBack {
		msg = strings.TrimSpace("the execution is " + string(e.Status) + ". " + msg)
	}
	return Output{Status: OutputError, ExecutionID: id, Error: msg, Logs: e.Logs}, nil
}

// Execution returns one audit record with its tool log, or an error
// wrapping ErrNotFound.
func (h *Handle) Execution(ctx context.Context, id string) (*Execution, error) {
	e, err := h.store.Execution(ctx, h.name, id)
	return e, wrapStore(err)
}

// DeleteExecution removes an audit record and reports whether it existed.
// Deleting a running or paused execution also disposes its execution
// resources (DisposeExecution with the status it had).
func (h *Handle) DeleteExecution(ctx context.Context, id string) (bool, error) {
	e, err := h.store.DeleteExecution(ctx, h.name, id)
	if err != nil {
		return false, fmt.Errorf("durable: %w", err)
	}
	if e == nil {
		return false, nil
	}
	if !e.Status.Terminal() {
		h.dispose(ctx, id, e.Status)
	}
	return true, nil
}

// PruneExecutions removes all but the keep newest terminal executions and
// returns how many it removed (keep 0 removes every terminal one).
func (h *Handle) PruneExecutions(ctx context.Context, keep int) (int, error) {
	n, err := h.store.PruneExecutions(ctx, h.name, keep)
	return n, wrapStore(err)
}

// ExpirePaused ends executions last updated more than maxAge ago (0 means
// DefaultPausedTTL): paused ones become rejected ("expired awaiting
// approval") and running ones error ("expired while running: the host never
// completed the pass"), each by a conditional update so that a concurrent
// approval can neither be revived nor revive it. Their execution resources
// are disposed. It returns the IDs it ended.
func (h *Handle) ExpirePaused(ctx context.Context, maxAge time.Duration) (ended []string, err error) {
	ctx, span := h.span(ctx, "codemode.journal.expire", "")
	defer func() { span.SetAttributes(AttrCount.Int(len(ended))); endSpan(span, err) }()
	if maxAge <= 0 {
		maxAge = DefaultPausedTTL * time.Millisecond
	}
	t := now()
	cutoff := t - maxAge.Milliseconds()
	paused, err := h.store.ExpireExecutions(ctx, h.name, StatusPaused, cutoff, StatusRejected, "expired awaiting approval", t)
	if err != nil {
		return nil, fmt.Errorf("durable: %w", err)
	}
	running, err := h.store.ExpireExecutions(ctx, h.name, StatusRunning, cutoff, StatusError, "expired while running: the host never completed the pass", t)
	if err != nil {
		return paused, fmt.Errorf("durable: %w", err)
	}
	for _, id := range paused {
		h.closePending(ctx, id, "not run: the execution expired awaiting approval")
		h.dispose(ctx, id, StatusRejected)
	}
	for _, id := range running {
		h.dispose(ctx, id, StatusError)
	}
	return append(paused, running...), nil
}

// RollbackError reports the reverts that failed; the others were done.
type RollbackError struct {
	Reverted int
	Failures []error
}

// Error says how many actions were reverted and how many failed, and why.
func (e *RollbackError) Error() string {
	msgs := make([]string, len(e.Failures))
	for i, f := range e.Failures {
		msgs[i] = f.Error()
	}
	return fmt.Sprintf("rollback reverted %d action(s) but %d failed: %s", e.Reverted, len(e.Failures), strings.Join(msgs, "; "))
}

// Unwrap returns the failures.
func (e *RollbackError) Unwrap() []error { return e.Failures }

// Rollback compensates an execution's applied connector calls in reverse
// seq order, calling each method's Revert with the recorded arguments and
// result. Methods without a Revert, and connectors no longer configured,
// are skipped and stay applied. Every revert is attempted; a
// *RollbackError lists the failures after. The execution becomes
// rolled_back (and is disposed) only when at least one call was reverted.
// A running execution is refused: its pass may still apply actions.
//
// Each entry is claimed (applied -> reverted) before its Revert runs, so
// two concurrent rollbacks never revert one action twice; a failed revert
// moves it back to applied.
func (h *Handle) Rollback(ctx context.Context, id string) (err error) {
	ctx, span := h.span(ctx, "codemode.journal.rollback", id)
	defer func() { endSpan(span, err) }()
	e, err := h.store.Execution(ctx, h.name, id)
	if err != nil {
		return fmt.Errorf("durable: %w", err)
	}
	if e.Status == StatusRunning {
		return fmt.Errorf("durable: execution %s is running; roll it back once its pass has ended", id)
	}
	rb := &RollbackError{}
	defer func() { span.SetAttributes(AttrCount.Int(rb.Reverted)) }()
	for i := len(e.Log) - 1; i >= 0; i-- {
		entry := e.Log[i]
		if entry.State != EntryApplied || entry.IsStep() {
			continue
		}
		t := h.tools[entry.Connector][entry.Method]
		if t == nil || t.Revert == nil {
			continue
		}
		ok, err := h.store.TransitionEntry(ctx, h.name, id, entry.Seq, []EntryState{EntryApplied}, EntryReverted, EntryUpdate{At: now()})
		if err != nil {
			rb.Failures = append(rb.Failures, fmt.Errorf("%s.%s (seq %d): %w", entry.Connector, entry.Method, entry.Seq, err))
			continue
		}
		if !ok {
			continue // another rollback took it
		}
		if err := h.revert(ctx, id, t, entry); err != nil {
			rb.Failures = append(rb.Failures, fmt.Errorf("%s.%s (seq %d): %w", entry.Connector, entry.Method, entry.Seq, err))
			if _, err := h.store.TransitionEntry(ctx, h.name, id, entry.Seq, []EntryState{EntryReverted}, EntryApplied, EntryUpdate{At: now()}); err != nil {
				rb.Failures = append(rb.Failures, fmt.Errorf("restoring seq %d to applied: %w", entry.Seq, err))
			}
			continue
		}
		rb.Reverted++
	}
	if rb.Reverted > 0 {
		moved, err := h.store.TransitionExecution(ctx, h.name, id,
			[]Status{StatusPaused, StatusCompleted, StatusError, StatusRejected, StatusRolledBack}, StatusRolledBack, ExecutionUpdate{At: now()})
		if err != nil {
			rb.Failures = append(rb.Failures, err)
		} else if moved {
			span.SetAttributes(AttrStatus.String(string(StatusRolledBack)))
			h.dispose(ctx, id, StatusRolledBack)
		}
	}
	if len(rb.Failures) > 0 {
		return rb
	}
	return nil
}

func (h *Handle) revert(ctx context.Context, id string, t *ConnectorTool, e ToolLogEntry) (err error) {
	ctx, cancel := context.WithTimeout(withExecutionID(ctx, id), h.opts.HookTimeout)
	defer cancel()
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("revert panicked: %v", p)
		}
	}()
	return t.Revert(ctx, e.Args, e.Result)
}

// hooks runs OnPassEnd for every connector, then, when terminal,
// DisposeExecution for every connector.
func (h *Handle) hooks(ctx context.Context, id string, status Status, passEnded bool) {
	if passEnded {
		for _, c := range h.connectors {
			if c.OnPassEnd != nil {
				h.hook(ctx, c.Name, "OnPassEnd", id, status, c.OnPassEnd)
			}
		}
	}
	if status.Terminal() {
		h.dispose(ctx, id, status)
	}
}

// closePending records that the actions still pending in an execution
// that has ended will not run: each moves to error with reason. Without
// it, a run ended by a divergence, a rejection of one of several actions,
// or expiry showed its other actions as pending in the audit record, while
// nothing awaited them. Failures are logged: the execution's own end is
// recorded already.
func (h *Handle) closePending(ctx context.Context, id, reason string) {
	ctx = context.WithoutCancel(ctx)
	e, err := h.store.Execution(ctx, h.name, id)
	if err != nil {
		h.log.Warn("durable: closing pending actions", "execution", id, "err", err)
		return
	}
	for _, l := range e.Log {
		if l.State != EntryPending {
			continue
		}
		if _, err := h.store.TransitionEntry(ctx, h.name, id, l.Seq, []EntryState{EntryPending}, EntryError, EntryUpdate{At: now(), Error: &reason}); err != nil {
			h.log.Warn("durable: closing a pending action", "execution", id, "seq", l.Seq, "err", err)
		}
	}
}

func (h *Handle) dispose(ctx context.Context, id string, status Status) {
	for _, c := range h.connectors {
		if c.DisposeExecution != nil {
			h.hook(ctx, c.Name, "DisposeExecution", id, status, c.DisposeExecution)
		}
	}
}

// hook runs one lifecycle hook; its errors and panics are logged and
// ignored, so cleanup never turns a finished execution into a failed one.
func (h *Handle) hook(ctx context.Context, connector, name, id string, status Status, fn func(context.Context, string, Status) error) {
	ctx, cancel := context.WithTimeout(withExecutionID(context.WithoutCancel(ctx), id), h.opts.HookTimeout)
	defer cancel()
	defer func() {
		if p := recover(); p != nil {
			h.log.Warn("durable: lifecycle hook panicked", "connector", connector, "hook", name, "execution", id, "panic", p)
		}
	}()
	if err := fn(ctx, id, status); err != nil {
		h.log.Warn("durable: lifecycle hook failed", "connector", connector, "hook", name, "execution", id, "err", err)
	}
}

// logLines collects a pass's console output as lines.
type logLines struct {
	mu    sync.Mutex
	lines []string
	part  map[string]string
}

func (l *logLines) add(stream, text string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.part == nil {
		l.part = map[string]string{}
	}
	text = l.part[stream] + text
	parts := strings.Split(text, "\n")
	l.part[stream] = parts[len(parts)-1]
	for _, p := range parts[:len(parts)-1] {
		if stream == "stderr" {
			p = "[stderr] " + p
		}
		l.lines = append(l.lines, p)
	}
}

func (l *logLines) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := slices.Clone(l.lines)
	for _, s := range []string{"stdout", "stderr"} {
		if p := l.part[s]; p != "" {
			if s == "stderr" {
				p = "[stderr] " + p
			}
			out = append(out, p)
		}
	}
	return out
}
