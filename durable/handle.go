package durable

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"regexp"
	"runtime"
	"time"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/durable/internal/sdk"
	"github.com/codemode-go/codemode/durable/store"
	"github.com/codemode-go/codemode/internal/discovery"
	"github.com/codemode-go/codemode/internal/esbuildchild"
	"github.com/codemode-go/codemode/internal/runctx"
	"github.com/codemode-go/codemode/typecheck"
)

// Options configure a Handle.
type Options struct {
	// Name is the runtime name: its executions are a separate history in
	// the store. 1 to 128 letters, digits, '_', '-' and '.'; "" means
	// "default".
	Name string
	// MaxExecutions, when positive, prunes ended executions beyond the
	// newest MaxExecutions each time a new one starts; 0 keeps every
	// execution (the journal forgets nothing on its own: an ended run's
	// record is the evidence of what it did, and what Rollback undoes).
	// Running and paused executions are never pruned.
	MaxExecutions int
	// KeepFor, when positive, prunes ended executions created more than
	// KeepFor ago each time a new one starts; 0 keeps them however old.
	KeepFor time.Duration
	// Lease is how long a pass holds its execution without renewing: the
	// pass renews its lease every third of it (with a random tenth of
	// jitter, so that replicas' renewals spread out) and when a call starts
	// an action after a third has passed. A running execution whose lease
	// has ended is orphaned (its host died): Resume, ResumeOrphans and
	// Approve take it over on any process, and ExpirePaused may end it; a
	// leased one is never touched. 0 means 15 s: shorter than a pass's
	// usual timeout, long enough that a busy store is not renewed in a
	// storm.
	Lease time.Duration
	// TransformResult, when set, shapes a completed value before the model
	// receives it (its output is not recorded: the journal keeps the
	// original, or a placeholder when that is too large). An error from it
	// makes the answer an error.
	TransformResult func(ctx context.Context, value json.RawMessage) (json.RawMessage, error)
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
	// OnPassEnd, when set, is called after every pass (paused included),
	// with the execution's status, to release what was held for one pass.
	// It should be idempotent and keep no state in memory: a paused
	// execution may continue in another process. Its errors are logged.
	OnPassEnd func(ctx context.Context, executionID string, status store.Status) error
	// OnEnd, when set, is called after an execution ends (completed,
	// error, rejected, rolled_back; after OnPassEnd) to release what was
	// held for the whole execution. It must be idempotent (a completed
	// execution may later be rolled back, and end again). Its errors are
	// logged.
	OnEnd func(ctx context.Context, executionID string, status store.Status) error
	// TracerProvider, when set, records OpenTelemetry spans: each pass
	// ("codemode.durable.pass": execution ID, runtime name, pass number,
	// status) around the client's execution and tool call spans
	// (client.RunOptions.TracerProvider), each tool call marked executed
	// or replayed, and the journal's transitions ("codemode.journal.approve",
	// ".reject", ".rollback", ".expire"). Nil records nothing.
	TracerProvider trace.TracerProvider
	// MeterProvider, when set, records each pass's OpenTelemetry metrics
	// as the client does (client.RunOptions.MeterProvider). Nil records
	// nothing.
	MeterProvider metric.MeterProvider
	// Configuration is the fingerprint of the configuration of the
	// connectors the handle's contract was built from: an item's name ->
	// its digest or summary ("petstore base URL" ->
	// "https://api.example.com/v3", "petstore headers" ->
	// "Authorization"), never a secret (a header's name, not its value).
	// Execute records it with the execution
	// (store.Execution.Configuration); Approve, ApprovePending,
	// ApproveShown and Resolve refuse to continue a paused execution one
	// of whose recorded items this one lacks or has with another value,
	// and leave it paused (an error wrapping ErrConfigurationChanged that
	// names them): an approved request must not go to another server, or
	// without the credentials the run had. Items the execution did not
	// record are not compared. Nil stands for GoProgramConfiguration: the
	// run was started by a Go program whose tools are its own, so that
	// only a handle also left at nil (that program, or a new release of
	// it) continues it, and the command line, whose tools come from files
	// and flags, refuses to (it would run another implementation of the
	// approved action under the same name). Set items of your own to
	// also refuse a release whose connectors differ (a base URL, the name
	// of a credential, a version); an empty map records nothing.
	// Whatever the configuration, they also refuse, with the same error,
	// a run one of whose recorded calls names a tool that now calls
	// another upstream tool (contract.Tool.Upstream, recorded as
	// store.Entry.Upstream): an MCP server's tool list changed and a new
	// tool took the name.
	Configuration map[string]string
	// ApprovePrograms has a person approve each program whole before it
	// runs: Execute records the execution and pauses it, before any call,
	// with the program as its one pending action (seq ProgramSeq,
	// codemode.program, arguments {"code": CODE}). Every approval surface
	// shows it as it shows an action, and approves it as one (Approve,
	// ApproveShown with its digest): the first pass then runs, pausing
	// only for the calls their policy still holds for approval. Reject of
	// ProgramSeq ends the execution rejected, nothing run. One decision
	// for a trusted script, kept in the journal: any process may make it.
	// The program's action records the upstream tool of each tool its code
	// names (contract.Tool.Upstream), and the approval is refused, as for a
	// recorded call (ErrConfigurationChanged), once one of those names
	// calls another upstream tool: the program was written and shown
	// against the tools named then.
	ApprovePrograms bool
}

// Handle is a durable code-mode runtime: one runtime name's history in a
// store, an executor and a contract. It is safe for concurrent use, and
// several handles (in one process or many) may share a store: every
// decision is read from and written to the store. It is a
// codetool.Runner and a codetool.Approver.
type Handle struct {
	store      store.Store
	client     *client.Client
	contract   *contract.Contract // the user's: what the agent sees
	name       string
	namespaces []string
	tools      map[string]map[string]*contract.Tool
	catalog    *discovery.Catalog
	opts       Options
	log        *slog.Logger
	owner      string // this handle's identity in leases (host, process, random)
	crash      *crashPoint
	skipped    skippedOrphans // by ResumeOrphans, for their configuration
	// erasers bounds the esbuild processes erasing saved snippets at once
	// (loadSnippet): one per core.
	erasers *esbuildchild.Limit
	// compiled are the snippets' JavaScript, for loadSnippet.
	compiled compiledSnippets
	// createDelay is how long a new execution's record waits for its
	// pass's first journal write (creation): recordDelay, which tests
	// change.
	createDelay time.Duration
}

var runtimeName = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)

// New builds a handle that runs the programs of c on executor and keeps
// their journal in st; every tool of c is journaled under its namespace,
// governed by its contract.Policy. It does not own the store or the
// executor: close them yourself.
//
//	st, err := durable.OpenStore(ctx, "journal.db")
//	h, err := durable.New(st, rt, c, durable.Options{})
//	answer, err := h.Execute(ctx, `await github.create_issue({ title: "Crash on start" })`)
//	// answer.Status == codetool.StatusPaused: create_issue needs approval
//	answer, err = h.Approve(ctx, answer.ExecutionID)
//
// It returns an error for a nil argument, an invalid name, or an
// input-bearing contract (executions take no input).
func New(st store.Store, executor client.Executor, c *contract.Contract, opts Options) (*Handle, error) {
	if st == nil || executor == nil || c == nil {
		return nil, errors.New("durable: New needs a store, an executor and a contract")
	}
	if c.HasInput() {
		return nil, errors.New("durable: the contract takes program input; durable executions take none (a saved snippet reads the input codemode.run passes it)")
	}
	if opts.Name == "" {
		opts.Name = "default"
	}
	if !runtimeName.MatchString(opts.Name) {
		return nil, fmt.Errorf("durable: runtime name %q: use 1 to 128 letters, digits, '_', '-' or '.'", opts.Name)
	}
	if opts.Lease <= 0 {
		opts.Lease = 15 * time.Second
	}
	if opts.PauseSettle <= 0 {
		opts.PauseSettle = 25 * time.Millisecond
	}
	if opts.HookTimeout <= 0 {
		opts.HookTimeout = 30 * time.Second
	}
	if opts.Configuration == nil {
		opts.Configuration = GoProgramConfiguration()
	}
	h := &Handle{store: st, contract: c, name: opts.Name, opts: opts, log: opts.Logger, owner: leaseOwner(), crash: newCrashPoint(os.Getenv(crashEnv)), erasers: esbuildchild.NewLimit(runtime.NumCPU()),
		tools: map[string]map[string]*contract.Tool{}, catalog: discovery.New(c), createDelay: recordDelay}
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	namespaces := c.Namespaces()
	for _, ns := range namespaces {
		h.namespaces = append(h.namespaces, ns.Name)
		h.tools[ns.Name] = map[string]*contract.Tool{}
		for _, t := range ns.Tools {
			h.tools[ns.Name][t.Name()] = t
		}
	}
	journal, err := journalTools()
	if err != nil {
		return nil, err
	}
	inner, err := contract.NewNamespaced(append(namespaces[:len(namespaces):len(namespaces)], contract.Namespace{Name: journalNamespace, Tools: journal})...)
	if err != nil {
		return nil, fmt.Errorf("durable: %w", err)
	}
	h.client = client.New(executor, inner).Extend(client.Extension{Setup: sdk.Setup, Declarations: sdkDeclarations})
	return h, nil
}

// Name returns the runtime name.
func (h *Handle) Name() string { return h.name }

// Contract returns the contract the handle's programs run against.
func (h *Handle) Contract() *contract.Contract { return h.contract }

// TypeDefinitions returns the declarations a program is written against:
// the contract's, and the durable SDK's codemode.run.
func (h *Handle) TypeDefinitions() string {
	return h.contract.TypeDefinitions() + "\n" + sdkDeclarations
}

// ValidateCode type-checks code as Execute runs it (client.ValidateCode:
// any form models write) against TypeDefinitions, with checker. The
// result's positions are the code's own.
func (h *Handle) ValidateCode(ctx context.Context, checker *typecheck.Checker, code string) (*typecheck.Result, error) {
	return h.client.ValidateCode(ctx, checker, code)
}

// errNoSessions refuses a code tool session (codetool.WithSession): a
// durable run replays its program from the start on every pass, and
// bindings brought in from outside the journal would make replays differ.
var errNoSessions = errors.New("durable: sessions and durable runs do not mix: a durable run replays its program from the start on every pass, and bindings carried in from outside its journal would make the replays differ; run without sessions")

// Environment describes where the handle's programs run, for an agent.
func (h *Handle) Environment() string { return h.client.Environment() }

// Revertible reports whether namespace.tool is in the handle's contract
// with a revert (contract.Policy.Revert), so that an applied call of it
// can be rolled back here.
func (h *Handle) Revertible(namespace, tool string) bool {
	t := h.tools[namespace][tool]
	return t != nil && t.Policy().Revert != nil
}

// newExecutionID returns a fresh execution ID: exec_<Unix ms>_<16 hex digits>.
func newExecutionID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("exec_%d_%s", time.Now().UnixMilli(), hex.EncodeToString(b[:]))
}

func now() int64 { return time.Now().UnixMilli() }

// Execute runs code (as models write it: see client.Client.RunCode) as a new
// durable execution: it runs the first pass, which records the run (status
// running, before the program's first call; a program that ends first, within
// a few milliseconds, is recorded once, as it ended), prunes ended runs beyond
// MaxExecutions or older than KeepFor (when set), and holds the execution's
// lease (Options.Lease) while it runs. Program failures,
// divergence and oversize values are an Answer with codetool.StatusError;
// an action that needs approval makes it codetool.StatusPaused. Go errors
// are for the store and for ctx (a cancelled pass is recorded as error).
func (h *Handle) Execute(ctx context.Context, code string) (codetool.Answer, error) {
	if runctx.SessionFrom(ctx) != "" {
		return codetool.Answer{}, errNoSessions
	}
	id := newExecutionID()
	t := now()
	seed := make([]byte, 16)
	_, _ = rand.Read(seed)
	e := &store.Execution{ID: id, Code: code, Status: store.StatusRunning, Connectors: h.namespaces, Configuration: h.opts.Configuration, CreatedAt: t, UpdatedAt: t, Seed: seed, Passes: 1,
		LeaseOwner: h.owner, LeaseUntil: t + h.opts.Lease.Milliseconds()}
	codeJSON, _ := json.Marshal(code)
	tooLarge := checkDurable("code", codeJSON)
	if tooLarge != nil {
		e.Code = fmt.Sprintf("[code omitted from the journal: %d characters of JSON, over the limit of %d]", len(codeJSON), store.MaxValueLength)
		e.Status, e.Error = store.StatusError, tooLarge.Error()
	}
	if tooLarge != nil {
		e.LeaseOwner, e.LeaseUntil = "", 0
	}
	if h.opts.ApprovePrograms {
		e.Passes = 0 // none until the program is approved (awaitProgram)
	}
	keep := -1
	if h.opts.MaxExecutions > 0 {
		keep = h.opts.MaxExecutions
	}
	if err := ctx.Err(); err != nil {
		return codetool.Answer{}, fmt.Errorf("durable: %w", err)
	}
	if tooLarge == nil && !h.opts.ApprovePrograms {
		// The pass writes the record with its first journal write
		// (creation).
		return h.runPassFrom(ctx, e, time.UnixMilli(t), &creation{e: e, keep: keep})
	}
	if _, err := h.store.CreateExecution(ctx, h.name, e, keep); err != nil {
		return codetool.Answer{}, fmt.Errorf("durable: %w", err)
	}
	h.pruneOlder(ctx, t)
	if tooLarge != nil {
		h.hooks(ctx, id, store.StatusError, true)
		return codetool.Answer{Status: codetool.StatusError, ExecutionID: id, Error: e.Error}, nil
	}
	return h.awaitProgram(ctx, e)
}

// missing returns the namespaces of names the handle's contract lacks.
func (h *Handle) missing(names []string) []string {
	var out []string
	for _, n := range names {
		if h.tools[n] == nil {
			out = append(out, n)
		}
	}
	return out
}

type executionIDKey struct{}

// ExecutionIDFrom returns the durable execution ID a tool handler, a revert
// or a hook runs for, or "" outside one: stable across the passes of an
// execution, a key for resources that span them.
func ExecutionIDFrom(ctx context.Context) string {
	id, _ := ctx.Value(executionIDKey{}).(string)
	return id
}

func withExecutionID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, executionIDKey{}, id)
}
