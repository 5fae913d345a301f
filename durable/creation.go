package durable

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/codemode-go/codemode/durable/store"
)

// creation is the record of a new execution (status running, its lease
// held), which Execute's first pass writes with its first journal write
// instead of before the program starts: at the program's first call
// (whose executing mark needs the record, and which waits for it), at the
// pass's end (then the record is written once, in its end state: a
// program without calls costs one commit, not two), or recordDelay
// (Handle.createDelay) after the pass began at the latest, so that a long program is listed as
// running and its lease is held. The record guards the program's actions,
// and every one of them reaches the host through a call; until the first,
// the program has done nothing outside its engine, so a crash before the
// record is written leaves nothing to account for (see RATIONALE.md,
// "Durable code mode", Speed). A nil creation is a record written before
// the pass began (Approve, Resume).
type creation struct {
	e    *store.Execution // the record as Execute made it
	keep int              // CreateExecution's keep

	// Set by arm, for write.
	h      *Handle
	ctx    context.Context // the pass's, without its cancellation
	lease  *lease
	cancel context.CancelCauseFunc // cancels the pass when the write fails

	mu      sync.Mutex
	timer   *time.Timer // writes the record Handle.createDelay after arm
	settled bool        // written, failed, or taken over by the pass's end
	written bool        // the running record is committed
	err     error       // the write's failure, or errPassEnded
}

// errPassEnded refuses a call that arrives after its pass ended without a
// record (the pass wrote it whole, in its end state).
var errPassEnded = errors.New("durable: the pass has ended")

// arm readies the creation for the pass whose lease l and cancellation
// cancel are made: a call or the timer writes the record, and the lease's
// heartbeat starts once it is written. On a nil creation (the record
// exists) it starts the heartbeat at once.
func (c *creation) arm(ctx context.Context, h *Handle, l *lease, cancel context.CancelCauseFunc) {
	if c == nil {
		l.start()
		return
	}
	c.h, c.ctx, c.lease, c.cancel = h, context.WithoutCancel(ctx), l, cancel
	c.mu.Lock()
	defer c.mu.Unlock()
	c.timer = time.AfterFunc(h.createDelay, func() { _ = c.write() })
}

// write commits the running record unless it was written, failed or
// taken over by the pass's end, and returns the outcome: a call may then
// be journalled. A failed write cancels the pass.
func (c *creation) write() error {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.settled {
		return c.err
	}
	c.settled = true
	c.timer.Stop()
	if _, err := c.h.store.CreateExecution(c.ctx, c.h.name, c.e, c.keep); err != nil {
		c.err = fmt.Errorf("durable: %w", err)
		c.cancel(c.err)
		return c.err
	}
	c.written = true
	c.lease.start()
	c.h.pruneOlder(c.ctx, c.e.CreatedAt)
	return nil
}

// claim is the pass's end: it reports whether the running record was
// written (then the end moves it as usual) or failed to be (its error).
// When neither, the end writes the record whole (ended), and no call may
// write it any more. A nil creation was written.
func (c *creation) claim() (written bool, err error) {
	if c == nil {
		return true, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.settled {
		return c.written, c.err
	}
	c.settled, c.err = true, errPassEnded
	c.timer.Stop()
	return false, nil
}

// ended returns the record of an execution whose only pass ended as to,
// with u (the update a running record would have had), and the keep its
// CreateExecution takes: one more than Execute's, since the record counts
// among the terminal executions the prune keeps, which the running record
// did not.
func (c *creation) ended(to store.Status, u store.ExecutionUpdate) (*store.Execution, int) {
	e := *c.e
	e.Status = to
	if u.At != 0 {
		e.UpdatedAt = u.At
	}
	if u.Value != nil {
		e.Value = u.Value
	}
	if u.Error != nil {
		e.Error = *u.Error
	}
	if u.Logs != nil {
		e.Logs = u.Logs
	}
	if u.Seed != nil {
		e.Seed = u.Seed
	}
	if u.Clock != nil {
		e.Clock = u.Clock
	}
	if u.Passes != nil {
		e.Passes = *u.Passes
	}
	if u.Approved != nil {
		e.Approved = *u.Approved
	}
	if u.Lease != nil {
		e.LeaseOwner, e.LeaseUntil = u.Lease.Owner, u.Lease.Until
	}
	keep := c.keep
	if keep >= 0 {
		keep++
	}
	return &e, keep
}

// pruneOlder prunes the ended executions created more than
// Options.KeepFor before at (when it is set), logging a failure.
func (h *Handle) pruneOlder(ctx context.Context, at int64) {
	if h.opts.KeepFor <= 0 {
		return
	}
	if _, err := h.store.PruneOlder(ctx, h.name, at-h.opts.KeepFor.Milliseconds()); err != nil {
		h.log.Warn("durable: pruning executions older than KeepFor", "err", err)
	}
}
