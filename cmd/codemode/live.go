package main

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/durable/store"
	"github.com/codemode-go/codemode/typecheck"
)

// liveRunner is mcp serve's runner when MCP servers are configured: the
// runner over the contract as it is now, replaced by a runner over a
// grown contract when a server that was down comes up. A contract never
// changes; a new one is built, with a new client (or durable handle on
// the same journal), and Changed tells the MCP server to describe the
// code tool again. A program keeps the runner it started with.
type liveRunner struct {
	cur     atomic.Pointer[codetool.Runner]
	changed chan struct{}
}

func newLiveRunner(r codetool.Runner) *liveRunner {
	l := &liveRunner{changed: make(chan struct{}, 1)}
	l.cur.Store(&r)
	return l
}

func (l *liveRunner) current() codetool.Runner { return *l.cur.Load() }

// swap makes r the runner and says so on Changed (at most one value
// waits: a description made later sees the latest runner).
func (l *liveRunner) swap(r codetool.Runner) {
	l.cur.Store(&r)
	select {
	case l.changed <- struct{}{}:
	default:
	}
}

// Changed receives after each swap; it is closed by stop.
func (l *liveRunner) Changed() <-chan struct{} { return l.changed }

func (l *liveRunner) Execute(ctx context.Context, code string) (codetool.Answer, error) {
	return l.current().Execute(ctx, code)
}
func (l *liveRunner) Contract() *contract.Contract { return l.current().Contract() }
func (l *liveRunner) TypeDefinitions() string      { return l.current().TypeDefinitions() }
func (l *liveRunner) ValidateCode(ctx context.Context, checker *typecheck.Checker, code string) (*typecheck.Result, error) {
	return l.current().ValidateCode(ctx, checker, code)
}
func (l *liveRunner) Environment() string { return l.current().Environment() }

// liveApprover is a liveRunner over durable handles: approvals go to the
// newest handle, whose contract holds every tool an older one had.
type liveApprover struct{ *liveRunner }

func (a liveApprover) approver() codetool.Approver { return a.current().(codetool.Approver) }

func (a liveApprover) Answer(ctx context.Context, id string) (codetool.Answer, error) {
	return a.approver().Answer(ctx, id)
}
func (a liveApprover) ApprovePending(ctx context.Context, id string, seqs []uint64) (codetool.Answer, error) {
	return a.approver().ApprovePending(ctx, id, seqs)
}
func (a liveApprover) Reject(ctx context.Context, id string, seq uint64) (bool, error) {
	return a.approver().Reject(ctx, id, seq)
}

// Snippets are the journal's saved snippets (mcp serve --snippets-as-tools).
func (a liveApprover) Snippets(ctx context.Context) ([]store.Snippet, error) {
	return a.current().(interface {
		Snippets(context.Context) ([]store.Snippet, error)
	}).Snippets(ctx)
}

// followJoins serves r as a live runner while the MCP servers of cf may
// join: on each join it builds the contract and a runner over it again
// (s.runnerOver) and swaps them in. It returns the runner to serve and
// stop, which ends the goroutine it starts and closes Changed.
func followJoins(ctx context.Context, cf *contractFlags, s *session, logf func(string, ...any), joined func(codetool.Runner)) (codetool.Runner, func()) {
	l := newLiveRunner(s.runner())
	var served codetool.Runner = l
	if _, ok := s.runner().(codetool.Approver); ok {
		served = liveApprover{l}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-done:
				return
			case <-cf.joined:
			}
			c, err := cf.rebuild()
			if err != nil {
				logf("warning: the tools of an MCP server that came up are not served: %s", oneLine(err.Error()))
				continue
			}
			r, err := s.runnerOver(c)
			if err != nil {
				logf("warning: the tools of an MCP server that came up are not served: %s", oneLine(err.Error()))
				continue
			}
			l.swap(r)
			joined(r)
		}
	})
	return served, func() {
		close(done)
		wg.Wait()
		close(l.changed)
	}
}
