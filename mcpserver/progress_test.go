package mcpserver_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/mcpserver"
)

// progressClient records the progress notifications of its calls.
type progressClient struct {
	mu    sync.Mutex
	notes []*mcp.ProgressNotificationParams
}

func (p *progressClient) options(elicit func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)) *mcp.ClientOptions {
	return &mcp.ClientOptions{
		ElicitationHandler: elicit,
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			p.mu.Lock()
			p.notes = append(p.notes, req.Params)
			p.mu.Unlock()
		},
	}
}

func (p *progressClient) messages() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for i, n := range p.notes {
		if i > 0 && n.Progress <= p.notes[i-1].Progress {
			out = append(out, "NOT INCREASING")
		}
		out = append(out, n.Message)
	}
	return out
}

// callWithToken calls the code tool asking for progress.
func callWithToken(t *testing.T, cs *mcp.ClientSession, code string) *mcp.CallToolResult {
	t.Helper()
	params := &mcp.CallToolParams{Name: "code", Arguments: map[string]any{"code": code}}
	params.SetProgressToken("tok-1")
	res, err := cs.CallTool(context.Background(), params)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestProgressOfALongProgram: a client that asks for progress hears of a
// long program's tool calls while it runs (a few a second, increasing),
// and of a durable pause at once, before it is asked to approve; one that
// does not ask hears nothing.
func TestProgressOfALongProgram(t *testing.T) {
	slow, err := contract.NewTool("slow", "Takes a while.", func(ctx context.Context, _ noInput) (okOutput, error) {
		time.Sleep(300 * time.Millisecond)
		return okOutput{true}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	ns := testConnector(t)
	ns.Tools = append(ns.Tools, slow)
	var p progressClient
	cs := connectRunner(t, handle(t, ns), mcpserver.Options{}, p.options(func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: "accept"}, nil
	}))
	out := outputOf(t, callWithToken(t, cs, `for (let i = 0; i < 4; i++) await svc.slow(); await svc.act(); "done"`))
	got := p.messages()
	if string(out.Value) != `"done"` || len(got) < 3 || strings.Contains(strings.Join(got, "\n"), "NOT INCREASING") ||
		!strings.Contains(got[0], "tool call(s), the last svc.slow") || !slicesContain(got, "paused: svc.act waits for a person's approval") {
		t.Fatalf("answer %s, progress %q", out.Value, got)
	}

	var quiet progressClient
	cs = connectRunner(t, handle(t, ns), mcpserver.Options{}, quiet.options(nil))
	if out := outputOf(t, callCode(t, cs, `await svc.slow(); await svc.slow(); 1`)); string(out.Value) != "1" || len(quiet.messages()) != 0 {
		t.Fatalf("without a token: %s, progress %q", out.Value, quiet.messages())
	}
}

func slicesContain(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
