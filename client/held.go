package client

import (
	"context"
	"encoding/json"

	"github.com/codemode-go/codemode/internal/membudget"
)

// holdMin is the smallest output a tool call sends held (wire 1.6,
// docs/runner-protocol.md "Held results"): before the host has checked it
// against the tool's output schema, so that the runner's parse of it
// overlaps the check. Outputs this large are written by the sender's
// goroutine anyway (directWriteMax); checking one costs more than the
// release message that a held output adds (the schema validator reads
// about 45 MB/s, QuickJS's JSON.parse about 25 MB/s).
const holdMin = directWriteMax

// callHooks is what a runtime offers the CallTool of one tool call, in its
// context: a Client's callTool uses it, other CallTool functions need not.
// The call's goroutine alone touches it. The context reaches the tool's
// handler too, and a handler may run a program of its own with it: the
// hooks serve only the call they name (callHooksFor), never a nested
// run's calls, whose outputs are not this call's answer.
type callHooks struct {
	// execution and seq name the call the hooks serve.
	execution string
	seq       uint64
	// runner sends a large output held, before it is checked
	// (runnerConn.hold, into ex's in-flight budget acct); nil when the
	// runner is older than wire 1.6.
	runner *runnerConn
	ex     *execution
	acct   *membudget.Account
	// held is the output sent held, queued: the runtime then answers the
	// call with a release or an error instead of the output.
	held *outgoing
	// checked is set when the output was checked to be JSON (a Client
	// checks every output against the tool's schema): the runtime need not
	// check it again.
	checked bool
}

type callHooksKey struct{}

func withCallHooks(ctx context.Context, h *callHooks) context.Context {
	return context.WithValue(ctx, callHooksKey{}, h)
}

// callHooksFor is the hooks in ctx when they serve call, else nil.
func callHooksFor(ctx context.Context, call ToolCall) *callHooks {
	h, _ := ctx.Value(callHooksKey{}).(*callHooks)
	if h == nil || h.execution != call.ExecutionID || h.seq != call.Seq {
		return nil
	}
	return h
}

// checkOutput checks call's output as t.CheckOutput does, first sending a
// large output held when ctx's runtime offers it for this call.
func checkOutput(ctx context.Context, call ToolCall, check func(json.RawMessage) error, out json.RawMessage) error {
	h := callHooksFor(ctx, call)
	if h == nil {
		return check(out)
	}
	if h.runner != nil && h.held == nil && len(out) >= holdMin {
		h.held = h.runner.hold(h.ex, h.seq, h.acct, out)
	}
	if err := check(out); err != nil {
		return err
	}
	h.checked = true
	return nil
}
