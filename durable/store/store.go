package store

import (
	"context"
	"encoding/json"
	"errors"
)

// MaxValueLength is the largest value the journal keeps (a call's input or
// output, a step's value, an execution's code), in UTF-16 code units of its
// JSON text, as JavaScript measures a string's length (Cloudflare Code
// Mode's MAX_DURABLE_VALUE_BYTES). A Store keeps values up to it whole.
const MaxValueLength = 1_000_000

// ErrNotFound is returned (wrapped) for an execution that does not exist in
// the runtime's history.
var ErrNotFound = errors.New("execution not found")

// Store is the journal's persistence: executions and their tool logs, kept
// per runtime name (each name is a separate history in one store). Every
// state change is a conditional transition that succeeds for exactly one
// caller, so that a store shared by several processes (PostgreSQL:
// UPDATE … WHERE status = ANY(from) RETURNING) never lets two of them apply
// the same action or revive an ended run. Methods are safe for concurrent
// use. Package durable/store/storetest holds the contract test suite every Store
// passes.
//
// Timestamps (at, before) are Unix milliseconds chosen by the caller, so
// that hosts agree on one clock per decision and tests can control time.
type Store interface {
	// CreateExecution inserts a new execution (status running, or the state
	// its first pass ended in when that pass ended before the execution was
	// recorded), then, when keep >= 0, removes all but the keep newest
	// terminal executions (as PruneExecutions; a terminal e is one of
	// them), in one transaction, and returns how many it removed.
	// It returns an error when the ID already exists in runtime.
	CreateExecution(ctx context.Context, runtime string, e *Execution, keep int) (pruned int, err error)
	// Execution returns the execution with its tool log in seq order, or an
	// error wrapping ErrNotFound.
	Execution(ctx context.Context, runtime, id string) (*Execution, error)
	// Executions returns up to limit executions (limit <= 0: all), newest
	// first (by CreatedAt, then ID), each with its tool log.
	Executions(ctx context.Context, runtime string, limit int) ([]*Execution, error)
	// TransitionExecution moves the execution from one of the states in from
	// to the state to, applying u, and reports whether it did: false when
	// the execution is in another state or does not exist.
	TransitionExecution(ctx context.Context, runtime, id string, from []Status, to Status, u ExecutionUpdate) (bool, error)
	// ExpireExecutions moves every execution of runtime whose status is from,
	// whose UpdatedAt is before the cutoff and whose lease ended before at
	// (LeaseUntil < at: a running execution whose pass is alive is never
	// expired) to the state to with the error message, and returns their
	// IDs.
	ExpireExecutions(ctx context.Context, runtime string, from Status, before int64, to Status, message string, at int64) ([]string, error)
	// LeaseExecution gives a running execution's lease to l.Owner until
	// l.Until, and sets its UpdatedAt to at, when the lease is l.Owner's
	// already (a renewal) or ended before at (the takeover of an orphan,
	// whose pass died); it reports whether it did. Of two processes taking
	// over one orphan at once, exactly one succeeds.
	LeaseExecution(ctx context.Context, runtime, id string, l Lease, at int64) (bool, error)
	// Orphans returns the IDs of runtime's running executions whose lease
	// ended before at (their pass died), oldest first.
	Orphans(ctx context.Context, runtime string, at int64) ([]string, error)
	// DeleteExecution removes the execution and its log and returns what
	// was removed, or nil when it did not exist.
	DeleteExecution(ctx context.Context, runtime, id string) (*Execution, error)
	// PruneExecutions removes all but the keep newest terminal executions
	// (never running or paused ones) and returns how many it removed.
	PruneExecutions(ctx context.Context, runtime string, keep int) (int, error)
	// PruneOlder removes the terminal executions created before the
	// cutoff (never running or paused ones) and returns how many it
	// removed.
	PruneOlder(ctx context.Context, runtime string, before int64) (int, error)

	// Entry returns the tool log entry at seq, or ok false.
	Entry(ctx context.Context, runtime, id string, seq uint64) (e *Entry, ok bool, err error)
	// InsertEntry adds an entry to a running execution's log and reports
	// whether it did: false when the seq is taken or the execution is not
	// running (its status is the truth: a pass that was paused, rejected or
	// expired may add nothing more).
	InsertEntry(ctx context.Context, runtime, id string, e *Entry) (bool, error)
	// TransitionEntry moves the entry at seq from one of the states in from
	// to the state to, applying u, and reports whether it did. A transition
	// to executing (the claim of an approved action) also requires the
	// execution to be running, atomically with the move: an action is never
	// claimed after its run was paused, rejected or expired.
	TransitionEntry(ctx context.Context, runtime, id string, seq uint64, from []EntryState, to EntryState, u EntryUpdate) (bool, error)
	// Pending returns the pending entries of paused executions: of the one
	// execution id, or of every paused execution of runtime when id is "",
	// oldest execution first, each in seq order.
	Pending(ctx context.Context, runtime, id string) ([]PendingAction, error)

	// SaveSnippet inserts the snippet s.Name of runtime, or replaces the
	// one of that name.
	SaveSnippet(ctx context.Context, runtime string, s *Snippet) error
	// Snippet returns one snippet, or ok false when there is none.
	Snippet(ctx context.Context, runtime, name string) (s *Snippet, ok bool, err error)
	// Snippets returns runtime's snippets ordered by name (byte order).
	Snippets(ctx context.Context, runtime string) ([]Snippet, error)
	// DeleteSnippet removes a snippet and reports whether it existed.
	DeleteSnippet(ctx context.Context, runtime, name string) (bool, error)

	// Close releases the store's resources.
	Close() error
}

// ExecutionUpdate holds what a transition writes besides the status: nil
// fields are left as they are.
type ExecutionUpdate struct {
	At     int64           // UpdatedAt (Unix ms); 0 leaves it
	Value  json.RawMessage // the completed value's JSON
	Error  *string         // the error message
	Logs   []string        // console lines
	Seed   []byte          // Math.random's seed
	Clock  []float64       // the observed clock values
	Passes *int            // the pass count
	Lease  *Lease          // the lease (a zero Lease releases it)
	// Approved is the highest seq the approval that starts this pass
	// covers (Execution.Approved).
	Approved *uint64
}

// Lease is a pass's hold on a running execution: Owner (a process's
// identity, as the durable handle names it) runs its pass until Until
// (Unix ms), unless it renews the lease before then. A running execution
// whose lease ended is orphaned: any process may take it over
// (Store.LeaseExecution) and resume it.
type Lease struct {
	Owner string
	Until int64
}

// EntryUpdate holds what an entry transition writes besides the state: nil
// fields are left as they are.
type EntryUpdate struct {
	At     int64           // UpdatedAt (Unix ms); 0 leaves it
	Result json.RawMessage // the recorded result's JSON
	Error  *string         // the connector's error
	// ErrorName is the name of that error as the program saw it
	// (Entry.ErrorName); "" leaves it.
	ErrorName string
	// ErrorData are that error's properties (Entry.ErrorData); nil leaves
	// them.
	ErrorData json.RawMessage
	// Uncertain marks (or unmarks) the entry as an action whose outcome
	// was unknown (Entry.Uncertain).
	Uncertain *bool
	// End is how the call ended (Entry.End); "" leaves it.
	End string
}

// EntryMove is one entry transition of EntryBatcher.WriteEntries: the
// entry at Seq moves from one of the states in From to To, applying
// Update, as Store.TransitionEntry would move it.
type EntryMove struct {
	Seq    uint64
	From   []EntryState
	To     EntryState
	Update EntryUpdate
}

// EntryBatcher is an optional interface of a Store that writes several
// tool log changes in one transaction (one commit). The journal uses it to
// record a call's result together with the next entry the pass writes (the
// next call's executing mark): one commit per connector call instead of
// two. A Store without it gets the same writes one by one.
type EntryBatcher interface {
	// WriteEntries applies moves in order (each as TransitionEntry would,
	// a move that does not apply is skipped), then, when insert is not
	// nil, inserts it as InsertEntry would, in one transaction, and
	// reports whether insert was inserted. The moves are committed whether
	// or not the insert is refused. A move to EntryExecuting is not
	// allowed (a claim needs its own answer); WriteEntries returns an
	// error for one.
	WriteEntries(ctx context.Context, runtime, id string, moves []EntryMove, insert *Entry) (inserted bool, err error)
}

// RuntimeLister is an optional interface of a Store that lists the runtime
// names that have executions, so that a reader looking under one name (a
// CLI's --name, durable.Options.Name) can be told where the runs are. A
// Store without it cannot say.
type RuntimeLister interface {
	// Runtimes returns the names of the runtimes that have at least one
	// execution, each once, in byte order.
	Runtimes(ctx context.Context) ([]string, error)
}

// Status is an execution's state.
type Status string

// The execution states. Running and Paused are not terminal; the others are.
const (
	StatusRunning    Status = "running"
	StatusPaused     Status = "paused"
	StatusCompleted  Status = "completed"
	StatusError      Status = "error"
	StatusRejected   Status = "rejected"
	StatusRolledBack Status = "rolled_back"
)

// Terminal reports whether s is an end state (completed, error, rejected,
// rolled_back): such executions may be pruned and never run again.
func (s Status) Terminal() bool {
	switch s {
	case StatusCompleted, StatusError, StatusRejected, StatusRolledBack:
		return true
	}
	return false
}

// Valid reports whether s is one of the six states.
func (s Status) Valid() bool { return s == StatusRunning || s == StatusPaused || s.Terminal() }

// EntryState is the state of one tool log entry.
type EntryState string

// The entry states. An entry is executing from just before its connector is
// called until its result is recorded (a crash in between leaves it
// executing, as evidence); pending while it awaits approval; applied once
// its result is recorded; reverted after a rollback; error when the
// connector failed or the action was rejected.
const (
	EntryExecuting EntryState = "executing"
	EntryApplied   EntryState = "applied"
	EntryPending   EntryState = "pending"
	EntryReverted  EntryState = "reverted"
	EntryError     EntryState = "error"
)

// The journal's own entries (codemode.step, codemode.run) are recorded
// under the namespace codemode, which no tool of that name can take (the
// SDK reserves step and run): "step" begins a step, "step_end" ends one
// whose function made calls, "run" looks up a saved program.
const (
	stepConnector = "codemode"
	stepMethod    = "step"
	stepEndMethod = "step_end"
)

// Execution is the audit record of one execution (Cloudflare's
// ExecutionState).
type Execution struct {
	ID         string          `json:"executionId"`
	Code       string          `json:"code"`
	Status     Status          `json:"status"`
	Log        []Entry         `json:"log"`
	Value      json.RawMessage `json:"value,omitempty"` // the completed value as JSON, or a placeholder when too large
	Error      string          `json:"error,omitempty"`
	Logs       []string        `json:"logs,omitempty"`       // console output lines
	Connectors []string        `json:"connectors,omitempty"` // every connector configured when the run started
	CreatedAt  int64           `json:"createdAt"`            // Unix milliseconds
	UpdatedAt  int64           `json:"updatedAt"`            // Unix milliseconds
	// Seed is the 16-byte seed of Math.random and crypto randomness, chosen
	// by the first pass and given to every later pass.
	Seed []byte `json:"seed,omitempty"`
	// Clock holds the Date.now()/new Date() values the passes observed, in
	// order; later passes receive them back.
	Clock []float64 `json:"clock,omitempty"`
	// Passes counts the passes started (1 after Execute; approvals and
	// resumes add one).
	Passes int `json:"passes"`
	// LeaseOwner is the process whose pass holds the running execution,
	// and LeaseUntil (Unix ms) when that lease ends unless renewed; both
	// are zero when no pass holds it (Lease).
	LeaseOwner string `json:"leaseOwner,omitempty"`
	LeaseUntil int64  `json:"leaseUntil,omitempty"`
	// Approved is the highest seq the last approval covered: a pending
	// entry at or below it was approved (a pass that died before running it
	// leaves it pending), one above it awaits approval.
	Approved uint64 `json:"approved,omitempty"`
	// Configuration is the fingerprint of the connectors' configuration
	// the run started with, as the caller of package durable described it
	// (durable.Options.Configuration): an item's name -> its digest or
	// summary ("petstore base URL" -> "https://api.example.com/v3"), never
	// a secret. A store keeps it as given; nil when none was given.
	Configuration map[string]string `json:"configuration,omitempty"`
}

// Orphaned reports whether e is running with a lease that ran out before
// at (Unix milliseconds): the pass that held it died, and a resume may
// take it over (Store.Orphans lists such executions).
func (e *Execution) Orphaned(at int64) bool {
	return e.Status == StatusRunning && e.LeaseUntil < at
}

// Entry is one connector call or codemode.step in an execution's
// journal.
type Entry struct {
	Seq       uint64          `json:"seq"`
	Connector string          `json:"connector"`
	Method    string          `json:"method"`
	Args      json.RawMessage `json:"args"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     string          `json:"error,omitempty"` // the connector's error, for state error
	// ErrorName is the name of the Error the program saw for Error (its
	// ErrorName method's, as package client names a tool's failure, e.g.
	// "HTTPError"); "" for a plain Error. A replay rejects with the same
	// name, so that a program that tells failures apart by name or class
	// takes the branch it took before.
	ErrorName string `json:"errorName,omitempty"`
	// ErrorData are the properties that Error had beside its name and
	// message (a JSON object, wire.Error.Data: an HTTPError's status),
	// given to it again on a replay; nil when it had none.
	ErrorData        json.RawMessage `json:"errorData,omitempty"`
	RequiresApproval bool            `json:"requiresApproval"`
	Ephemeral        bool            `json:"ephemeral,omitempty"` // a reexecute entry: no result is kept
	State            EntryState      `json:"state"`
	UpdatedAt        int64           `json:"updatedAt"` // Unix milliseconds
	// Uncertain marks an action whose outcome was unknown: a pass died
	// between running it and recording its result. Pending and uncertain,
	// it awaits a person's answer (did it happen?) instead of an approval.
	Uncertain bool `json:"uncertain,omitempty"`
	// End is how the connector call ended in the program that ran it, as
	// its terminal telemetry event says (client.Event): "completed", "failed",
	// "cancelled" (the program ended before the call finished: it never
	// awaited it), "timeout" (in flight at the execution's deadline),
	// "runtime_unavailable" or "halted" (in flight when the journal
	// stopped the pass, or the call stopped it itself). It is "" until the
	// call ends (executing, or pending approval), for a codemode.step, and
	// for entries recorded before stores kept it. A call answered from
	// the journal on a replay keeps the end recorded when it ran.
	End string `json:"end,omitempty"`
	// Upstream is what the call's tool called when the call was recorded
	// (contract.Tool.Upstream: "MCP tool get-file", "operation GET
	// /pets/{petId}"), kept byte for byte: a later pass, approval or
	// rollback refuses to run, answer or revert the call when the tool of
	// that name now calls something else. For the program's own action
	// (codemode.program, approved whole) it is a JSON object from
	// "namespace.tool" to the Upstream of each tool the code names. It is
	// "" for a tool whose name is its identity, for a codemode.step, and
	// for entries recorded before stores kept it (nothing is compared then).
	Upstream string `json:"upstream,omitempty"`
}

// IsStep reports whether the entry records a codemode.step (its start, or
// the end of a step that made calls inside): not a connector call.
func (e *Entry) IsStep() bool {
	return e.Connector == stepConnector && (e.Method == stepMethod || e.Method == stepEndMethod)
}

// PendingAction is an action awaiting approval.
type PendingAction struct {
	ExecutionID string          `json:"executionId"`
	Seq         uint64          `json:"seq"`
	Connector   string          `json:"connector"`
	Method      string          `json:"method"`
	Args        json.RawMessage `json:"args"`
	// Uncertain: the action may have happened already (Entry.Uncertain);
	// a person says whether it did rather than approve it.
	Uncertain bool `json:"uncertain,omitempty"`
}

// Snippet is a saved program (Cloudflare Code Mode's Snippet): the code of
// an execution, kept under a name, that programs find with codemode.search,
// read with codemode.describe and run with codemode.run(name, input).
type Snippet struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Code        string          `json:"code"`
	SavedAt     int64           `json:"savedAt"`               // Unix milliseconds
	InputSchema json.RawMessage `json:"inputSchema,omitempty"` // JSON Schema of run's input, or nil
	// Connectors are every namespace configured when the source execution
	// started; running the snippet needs all of them.
	Connectors []string `json:"connectors,omitempty"`
}
