// Package membudget holds byte budgets: bounds on the memory a host holds
// for the tool calls of one execution (client.Limits.MaxInFlightBytes), and
// of a server's executions together, taken as reservations before the
// memory is allocated rather than tallied once it is.
//
// A Budget is shared by an execution's calls; each call reserves through an
// Account of its own, which gives back everything it holds when the call
// ends. The client puts a call's Account in the context its handler
// receives (WithAccount); code that reads large bodies on a handler's
// behalf (fetch, the OpenAPI connector) reads through ReadAll, which
// reserves each buffer before it allocates it.
package membudget

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
)

// DefaultLimit is the default bound, in bytes, of a program's tool calls
// in flight (client.Limits.MaxInFlightBytes) and of an MCP server's
// programs together (mcpserver.Options.MaxInFlightBytes): 256 MiB.
const DefaultLimit = 256 << 20

// ExceededError is a reservation that would take a budget past its bound.
// Programs see it as a RangeError (an ErrorName method; see package client).
type ExceededError struct {
	Limit int64  // the budget's bound, in bytes
	What  string // what sets the bound, as the user names it: "Limits.MaxInFlightBytes"
}

// Error names the bound and what sets it.
func (e *ExceededError) Error() string {
	return fmt.Sprintf("the tool calls in flight would hold more than %d bytes of input and output (%s)", e.Limit, e.What)
}

// ErrorName is the JavaScript error name programs see: RangeError, as for
// the host's other limits.
func (e *ExceededError) ErrorName() string { return "RangeError" }

// Budget is a bound on the bytes held at once. Reservations on a budget
// with a parent reserve on the parent too, so one execution's budget can
// share a server's. Its methods are safe for concurrent use.
type Budget struct {
	limit  int64
	what   string
	parent *Budget

	mu     sync.Mutex
	held   int64
	closed bool
}

// New returns a budget of limit bytes whose errors name what sets it;
// parent, when not nil, is a wider budget every reservation is also taken
// from (nil: none).
func New(limit int64, what string, parent *Budget) *Budget {
	return &Budget{limit: limit, what: what, parent: parent}
}

// Take reserves n bytes (n ≥ 0) on b and its parents. When that would take
// any of them past its bound it reserves nothing and returns an
// *ExceededError naming that bound. A closed budget reserves nothing more.
func (b *Budget) Take(n int64) error {
	b.mu.Lock()
	if b.closed || b.held+n > b.limit {
		b.mu.Unlock()
		return &ExceededError{Limit: b.limit, What: b.what}
	}
	b.held += n
	b.mu.Unlock()
	if b.parent == nil {
		return nil
	}
	if err := b.parent.Take(n); err != nil {
		b.mu.Lock()
		b.held -= n // the parent has not had them
		b.mu.Unlock()
		return err
	}
	return nil
}

// Give returns n bytes that Take reserved. Once b is closed, its parent
// has had them back already.
func (b *Budget) Give(n int64) {
	b.mu.Lock()
	b.held -= n
	closed := b.closed
	b.mu.Unlock()
	if b.parent != nil && !closed {
		b.parent.Give(n)
	}
}

// Held returns the bytes reserved now.
func (b *Budget) Held() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.held
}

// Close gives the parent back everything b holds and makes later Take
// calls fail: the execution it bounds has ended, and calls still winding
// down no longer count against the wider budget.
func (b *Budget) Close() {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return
	}
	b.closed = true
	held := b.held
	b.mu.Unlock()
	if b.parent != nil && held > 0 {
		b.parent.Give(held)
	}
}

// Account is one call's reservations on a budget. A nil *Account reserves
// nothing and never fails: code outside an execution reads unbounded by
// it.
type Account struct {
	b  *Budget
	mu sync.Mutex
	n  int64
}

// Open returns a new account on b.
func (b *Budget) Open() *Account { return &Account{b: b} }

// Take reserves n bytes for the call; see Budget.Take.
func (a *Account) Take(n int64) error {
	if a == nil || n <= 0 {
		return nil
	}
	if err := a.b.Take(n); err != nil {
		return err
	}
	a.mu.Lock()
	a.n += n
	a.mu.Unlock()
	return nil
}

// Close gives back everything the account holds. The client closes a
// call's account once the call's answer is written.
func (a *Account) Close() {
	if a == nil {
		return
	}
	a.mu.Lock()
	n := a.n
	a.n = 0
	a.mu.Unlock()
	if n > 0 {
		a.b.Give(n)
	}
}

type accountKey struct{}
type budgetKey struct{}

// WithAccount returns ctx carrying a call's account.
func WithAccount(ctx context.Context, a *Account) context.Context {
	return context.WithValue(ctx, accountKey{}, a)
}

// AccountFrom returns the call's account in ctx, or nil.
func AccountFrom(ctx context.Context) *Account {
	a, _ := ctx.Value(accountKey{}).(*Account)
	return a
}

// WithShared returns ctx carrying a budget that the executions started
// under it share: each execution's budget takes its reservations from it
// as well (a server's total over its executions).
func WithShared(ctx context.Context, b *Budget) context.Context {
	return context.WithValue(ctx, budgetKey{}, b)
}

// SharedFrom returns the shared budget in ctx, or nil.
func SharedFrom(ctx context.Context) *Budget {
	b, _ := ctx.Value(budgetKey{}).(*Budget)
	return b
}

// ErrTooLarge is ReadAll's error for a reader that yields more than its
// max bytes.
var ErrTooLarge = errors.New("membudget: more bytes than the limit")

// firstRead is the buffer ReadAll starts with when it has no size hint.
const firstRead = 4 << 10

// ReadAll reads r to its end and returns what it read: at most max bytes,
// else ErrTooLarge. Each buffer is reserved on a before it is allocated,
// and stays reserved until the account closes, outgrown buffers included:
// memory a call has dropped is still memory until the collector takes it.
// hint, when positive and at most max, is the expected size (a
// Content-Length), allocated at once. A reservation that fails ends the
// read with the *ExceededError; a read error is returned as is.
func ReadAll(a *Account, r io.Reader, max, hint int64) ([]byte, error) {
	size := int64(firstRead)
	if hint > 0 && hint <= max {
		size = hint
	}
	size = min(size, max+1)
	if err := a.Take(size); err != nil {
		return nil, err
	}
	buf := make([]byte, 0, size)
	for {
		if len(buf) == cap(buf) {
			// A body that fills the buffer exactly may be complete: one
			// byte read tells before the buffer doubles.
			var probe [1]byte
			n, err := io.ReadFull(r, probe[:])
			if n == 0 && err == io.EOF {
				return buf, nil
			}
			if err != nil {
				return nil, err
			}
			if int64(len(buf)) >= max {
				return nil, ErrTooLarge
			}
			next := min(2*int64(cap(buf)), max+1)
			if err := a.Take(next); err != nil {
				return nil, err
			}
			grown := make([]byte, len(buf), next)
			copy(grown, buf)
			buf = append(grown, probe[0])
			continue
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > max {
			return nil, ErrTooLarge
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}
