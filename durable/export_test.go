package durable

import (
	"context"
	"fmt"
	"time"

	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/durable/store"
)

// SetCreateDelay sets how long h's new executions' records wait for their
// pass's first journal write (recordDelay by default), so that a test
// decides which write makes the record, whatever the machine's speed.
func SetCreateDelay(h *Handle, d time.Duration) { h.createDelay = d }

// ReplayUnchecked takes the lease of the orphaned execution id and runs
// a pass of it on h, as Resume does but without Resume's checks (its
// namespaces, its configuration, its tools): what a pass does with a
// journal those checks did not see.
func ReplayUnchecked(ctx context.Context, h *Handle, id string) (codetool.Answer, error) {
	taken := time.Now()
	ok, err := h.store.LeaseExecution(ctx, h.name, id, store.Lease{Owner: h.owner, Until: taken.Add(h.opts.Lease).UnixMilli()}, taken.UnixMilli())
	if err != nil || !ok {
		return codetool.Answer{}, fmt.Errorf("taking the lease of %s: %v, %v", id, ok, err)
	}
	e, err := h.store.Execution(ctx, h.name, id)
	if err != nil {
		return codetool.Answer{}, err
	}
	return h.runPassFrom(ctx, e, taken, nil)
}

// Moved is what h's checks say of the recorded entry l (moved): "" when
// its tools still call what it recorded.
func Moved(h *Handle, l store.Entry) string { return h.moved(l) }
