package mcpserver

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemode-go/codemode/internal/runctx"
)

// progressEvery is the least time between two progress notifications of
// one call: a program making thousands of calls sends a few a second.
const progressEvery = 250 * time.Millisecond

// progress sends a call's progress notifications
// (https://modelcontextprotocol.io/specification/2025-06-18/basic/utilities/progress)
// when the client asked for them with a progress token: the tool calls the
// program made, its last one and the time it has run; and at once when
// the execution pauses for a person.
type progress struct {
	req   *mcp.CallToolRequest
	token any
	mu    sync.Mutex
	last  time.Time
	sent  float64 // the progress value sent last: it must increase
}

// newProgress returns the progress of req, or nil when its client did not
// ask for any.
func newProgress(req *mcp.CallToolRequest) *progress {
	if req == nil || req.Params == nil || req.Session == nil {
		return nil
	}
	token := req.Params.GetProgressToken()
	if token == nil {
		return nil
	}
	return &progress{req: req, token: token}
}

type progressKey struct{}

// withProgress returns ctx carrying the progress of req's call, which the
// run and a pause after it share (progress values only increase).
func withProgress(ctx context.Context, req *mcp.CallToolRequest) context.Context {
	if p := newProgress(req); p != nil {
		return context.WithValue(ctx, progressKey{}, p)
	}
	return ctx
}

// progressOf returns the progress ctx carries, or nil.
func progressOf(ctx context.Context) *progress {
	p, _ := ctx.Value(progressKey{}).(*progress)
	return p
}

// withRun returns ctx carrying the run's progress report, when p is not nil.
func (p *progress) withRun(ctx context.Context) context.Context {
	if p == nil {
		return ctx
	}
	return runctx.WithProgress(ctx, func(r runctx.Progress) {
		p.notify(ctx, float64(r.Calls), fmt.Sprintf("%d tool call(s), the last %s; running for %s", r.Calls, r.Last, r.Elapsed.Round(100*time.Millisecond)))
	})
}

// paused says at once that the execution waits for a person.
func (p *progress) paused(ctx context.Context, what string) {
	if p != nil {
		p.send(ctx, 0, "paused: "+what+" waits for a person's approval")
	}
}

// notify sends one notification, unless one went out less than
// progressEvery ago.
func (p *progress) notify(ctx context.Context, value float64, message string) {
	p.mu.Lock()
	due := time.Since(p.last) >= progressEvery
	p.mu.Unlock()
	if due {
		p.send(ctx, value, message)
	}
}

// send sends one notification. Progress only increases: a value not above
// the last one sent is raised past it.
func (p *progress) send(ctx context.Context, value float64, message string) {
	p.mu.Lock()
	if value <= p.sent {
		value = p.sent + 1
	}
	p.last, p.sent = time.Now(), value
	p.mu.Unlock()
	// A client gone away is not the program's failure: the error is dropped.
	_ = p.req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: p.token, Progress: value, Message: message})
}
