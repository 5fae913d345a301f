package mcpserver

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// turnsOptions are the limits of a turns; zero fields take the defaults of
// Options (8 executions, 64 queued, half the executions per session).
type turnsOptions struct {
	// MaxExecutions caps the programs running at once.
	MaxExecutions int
	// MaxQueued caps the programs waiting for a turn.
	MaxQueued int
	// MaxExecutionsPerSession caps the programs one MCP session runs at
	// once; at most MaxExecutions.
	MaxExecutionsPerSession int
}

// turns bounds the programs an MCP server runs: at most MaxExecutions at
// once, at most MaxExecutionsPerSession of them for one session (so one
// client cannot make another's program wait behind all of its own), and
// at most MaxQueued waiting; past that a program is answered at once that
// the server is busy. One server's code tools share one. Safe for
// concurrent use.
type turns struct {
	opts   turnsOptions
	slots  chan struct{} // one per running program
	queued atomic.Int64  // programs waiting for a slot

	mu       sync.Mutex
	sessions map[any]*sessionSlots // by MCP session (its *mcp.ServerSession)
}

// newTurns returns the turns of one server.
func newTurns(o turnsOptions) *turns {
	if o.MaxExecutions <= 0 {
		o.MaxExecutions = defaultMaxExecutions
	}
	if o.MaxQueued <= 0 {
		o.MaxQueued = defaultMaxQueued
	}
	if o.MaxExecutionsPerSession <= 0 {
		o.MaxExecutionsPerSession = max(1, o.MaxExecutions/2)
	}
	o.MaxExecutionsPerSession = min(o.MaxExecutionsPerSession, o.MaxExecutions)
	return &turns{opts: o, slots: make(chan struct{}, o.MaxExecutions), sessions: map[any]*sessionSlots{}}
}

// sessionSlots are one session's share of the slots; refs counts the calls
// holding or waiting for one, and the entry goes when it drops to zero.
type sessionSlots struct {
	slots chan struct{}
	refs  int
}

func (t *turns) session(id any) *sessionSlots {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.sessions[id]
	if s == nil {
		s = &sessionSlots{slots: make(chan struct{}, t.opts.MaxExecutionsPerSession)}
		t.sessions[id] = s
	}
	s.refs++
	return s
}

func (t *turns) leave(id any, s *sessionSlots) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if s.refs--; s.refs == 0 {
		delete(t.sessions, id)
	}
}

// acquire waits for one of the session's slots and then for a free server
// slot: at once when both are free, else in the queue while it has room,
// for at most wait in all (0: until ctx ends). session identifies the
// caller's MCP session (the request's Session; nil for one shared share).
// It returns release, to call when the program ends, or a busy message
// for the agent when the program gets no turn.
func (t *turns) acquire(ctx context.Context, session any, wait time.Duration) (release func(), busy string) {
	serverBusy := fmt.Sprintf("The server is busy: %d programs are running and %d are waiting, its limits. Nothing ran; send the program again later.", t.opts.MaxExecutions, t.opts.MaxQueued)
	sessionBusy := fmt.Sprintf("This session already runs %d programs, its share of the server, and none ended in time. Nothing ran; send the program again when one has finished.", t.opts.MaxExecutionsPerSession)
	var timeout <-chan time.Time
	if wait > 0 {
		tm := time.NewTimer(wait)
		defer tm.Stop()
		timeout = tm.C
	}
	queued := false
	defer func() {
		if queued {
			t.queued.Add(-1)
		}
	}()
	// take waits for a token of slots, joining the queue if it must wait.
	take := func(slots chan struct{}, busy string) string {
		select {
		case slots <- struct{}{}:
			return ""
		default:
		}
		if !queued {
			if t.queued.Add(1) > int64(t.opts.MaxQueued) {
				t.queued.Add(-1)
				return serverBusy
			}
			queued = true
		}
		select {
		case slots <- struct{}{}:
			return ""
		case <-timeout:
			return busy
		case <-ctx.Done():
			return "Cancelled while waiting for a turn: " + context.Cause(ctx).Error()
		}
	}
	s := t.session(session)
	if busy = take(s.slots, sessionBusy); busy != "" {
		t.leave(session, s)
		return nil, busy
	}
	if busy = take(t.slots, serverBusy); busy != "" {
		<-s.slots
		t.leave(session, s)
		return nil, busy
	}
	return func() {
		<-t.slots
		<-s.slots
		t.leave(session, s)
	}, ""
}
