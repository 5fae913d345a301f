package mcpserver_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/mcpserver"
)

// lockedBuffer is a log destination the server's goroutines write to.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestClientCancelIsLoggedAsCancelled: a program the client cancels while
// it runs is logged as cancelled by the client, at INFO, not as a program
// that did not run (a warning an operator would chase).
func TestClientCancelIsLoggedAsCancelled(t *testing.T) {
	started := make(chan struct{}, 1)
	wait, err := contract.NewTool("wait", "Waits until cancelled.", func(ctx context.Context, in struct{}) (struct{}, error) {
		started <- struct{}{}
		<-ctx.Done()
		return struct{}{}, ctx.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	c, err := contract.New(wait)
	if err != nil {
		t.Fatal(err)
	}
	var logs lockedBuffer
	cs := connectRunner(t, client.New(runtimeOf(t, "quickjs"), c), mcpserver.Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-started
		cancel()
	}()
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "code", Arguments: map[string]any{"code": "await codemode.wait({})"}}); err == nil {
		t.Fatal("the cancelled call answered")
	}
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(logs.String(), "program cancelled by the client") {
		if time.Now().After(deadline) {
			t.Fatalf("no cancellation record in the log:\n%s", logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if s := logs.String(); strings.Contains(s, "program not run") || !strings.Contains(s, "level=INFO msg=\"program cancelled by the client\"") {
		t.Fatalf("log:\n%s", s)
	}
}
