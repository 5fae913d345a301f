package durable

import (
	"context"
	"encoding/json"
	"errors"
)

// ErrNotFound is returned (wrapped) for an execution that does not exist in
// the runtime's history.
var ErrNotFound = errors.New("durable: execution not found")

// Store is the journal's persistence: executions and their tool logs, kept
// per runtime name (each name is a separate history in one store). Every
// state change is a conditional transition that succeeds for exactly one
// caller, so that a store shared by several processes (PostgreSQL:
// UPDATE … WHERE status = ANY(from) RETURNING) never lets two of them apply
// the same action or revive an ended run. Methods are safe for concurrent
// use. Package durable/storetest holds the contract test suite every Store
// passes.
//
// Timestamps (at, before) are Unix milliseconds chosen by the caller, so
// that hosts agree on one clock per decision and tests can control time.
type Store interface {
	// CreateExecution inserts a new execution (status running), then, when
	// keep >= 0, removes all but the keep newest terminal executions (as
	// PruneExecutions), in one transaction, and returns how many it removed.
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
	// ExpireExecutions moves every execution of runtime whose status is from
	// and whose UpdatedAt is before the cutoff to the state to with the
	// error message, and returns their IDs.
	ExpireExecutions(ctx context.Context, runtime string, from Status, before int64, to Status, message string, at int64) ([]string, error)
	// DeleteExecution removes the execution and its log and returns what
	// was removed, or nil when it did not exist.
	DeleteExecution(ctx context.Context, runtime, id string) (*Execution, error)
	// PruneExecutions removes all but the keep newest terminal executions
	// (never running or paused ones) and returns how many it removed.
	PruneExecutions(ctx context.Context, runtime string, keep int) (int, error)

	// Entry returns the tool log entry at seq, or ok false.
	Entry(ctx context.Context, runtime, id string, seq uint64) (e *ToolLogEntry, ok bool, err error)
	// InsertEntry adds an entry to a running execution's log and reports
	// whether it did: false when the seq is taken or the execution is not
	// running (its status is the truth: a pass that was paused, rejected or
	// expired may add nothing more).
	InsertEntry(ctx context.Context, runtime, id string, e *ToolLogEntry) (bool, error)
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
	Result json.RawMessage // the completed value's JSON
	Error  *string         // the error message
	Logs   []string        // console lines
	Seed   []byte          // Math.random's seed
	Clock  []float64       // the observed clock values
	Passes *int            // the pass count

}

// EntryUpdate holds what an entry transition writes besides the state: nil
// fields are left as they are.
type EntryUpdate struct {
	At     int64           // UpdatedAt (Unix ms); 0 leaves it
	Result json.RawMessage // the recorded result's JSON
	Error  *string         // the connector's error
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
	WriteEntries(ctx context.Context, runtime, id string, moves []EntryMove, insert *ToolLogEntry) (inserted bool, err error)
}
