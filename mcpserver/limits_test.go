package mcpserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/quickjs"
	"github.com/codemode-go/codemode/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// gatedServer serves a code tool over one tool, wait, that returns once
// release is closed; started receives one value per call.
func gatedServer(t *testing.T, opts mcpserver.Options, started chan<- struct{}, release <-chan struct{}) *mcp.Server {
	t.Helper()
	wait, err := contract.NewRawTool("wait", "Waits for the test.", json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`),
		json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`),
		func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
			started <- struct{}{}
			select {
			case <-release:
				return json.RawMessage(`{}`), nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		})
	if err != nil {
		t.Fatal(err)
	}
	c, err := contract.New(wait)
	if err != nil {
		t.Fatal(err)
	}
	d := quickjs.New(quickjs.Options{Timeout: 20 * time.Second})
	t.Cleanup(func() { d.Close() })
	rt, err := client.NewRuntime(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	srv, err := mcpserver.New(client.New(rt, c), opts)
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

func connect(t *testing.T, srv *mcp.Server) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func callText(cs *mcp.ClientSession, code string) (string, bool, error) {
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: codetool.Name, Arguments: map[string]any{"code": code}})
	if err != nil {
		return "", false, err
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError, nil
}

// TestBusyServerAnswersAtOnce: with one program running and one queued, a
// third is answered at once that the server is busy, and the queued one
// runs once the first ends.
func TestBusyServerAnswersAtOnce(t *testing.T) {
	started, release := make(chan struct{}, 4), make(chan struct{})
	srv := gatedServer(t, mcpserver.Options{MaxExecutions: 1, MaxQueued: 1, Timeout: 30 * time.Second}, started, release)
	cs := connect(t, srv)
	var wg sync.WaitGroup
	answers := make([]string, 2)
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			text, isErr, err := callText(cs, `await codemode.wait({}); "done"`)
			answers[i] = fmt.Sprint(text, isErr, err)
		}()
		if i == 0 {
			<-started // the first runs; the second will queue
		}
	}
	time.Sleep(200 * time.Millisecond) // let the second reach the queue
	text, isErr, err := callText(cs, `"third"`)
	if err != nil || !isErr || !strings.Contains(text, "busy") {
		t.Fatalf("third program: %q isError=%v err=%v, want a busy answer", text, isErr, err)
	}
	close(release)
	wg.Wait()
	for i, a := range answers {
		if !strings.Contains(a, "done") {
			t.Errorf("program %d: %s", i, a)
		}
	}
}

// TestOneSessionCannotTakeEveryTurn: with two slots and the default share
// of one per session, a client whose first program holds a slot queues its
// second, and another client's program runs at once instead of waiting.
func TestOneSessionCannotTakeEveryTurn(t *testing.T) {
	started, release := make(chan struct{}, 4), make(chan struct{})
	srv := gatedServer(t, mcpserver.Options{MaxExecutions: 2, Timeout: 30 * time.Second}, started, release)
	greedy, other := connect(t, srv), connect(t, srv)
	var wg sync.WaitGroup
	answers := make([]string, 2)
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			text, isErr, err := callText(greedy, `await codemode.wait({}); "done"`)
			answers[i] = fmt.Sprint(text, isErr, err)
		}()
	}
	<-started
	select {
	case <-started:
		t.Fatal("the greedy session's second program started: it took both slots")
	case <-time.After(300 * time.Millisecond):
	}
	text, isErr, err := callText(other, `"other ran"`)
	if err != nil || isErr || !strings.Contains(text, "other ran") {
		t.Fatalf("the other session: %q isError=%v err=%v", text, isErr, err)
	}
	close(release)
	wg.Wait()
	for i, a := range answers {
		if !strings.Contains(a, "done") {
			t.Errorf("greedy program %d: %s", i, a)
		}
	}
}

// TestHTTPSessionsAreCapped: past MaxSessions a new client is refused with
// 503; once idle sessions expire, a client is served again.
func TestHTTPSessionsAreCapped(t *testing.T) {
	srv := gatedServer(t, mcpserver.Options{}, make(chan struct{}, 1), nil)
	ts := httptest.NewServer(mcpserver.NewHTTPHandler(srv, mcpserver.HTTPOptions{MaxSessions: 2, SessionIdle: 500 * time.Millisecond}))
	defer ts.Close()
	dial := func() (*mcp.ClientSession, error) {
		return mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(context.Background(),
			&mcp.StreamableClientTransport{Endpoint: ts.URL, MaxRetries: -1, DisableStandaloneSSE: true}, nil)
	}
	for i := range 2 {
		cs, err := dial()
		if err != nil {
			t.Fatalf("session %d: %v", i, err)
		}
		defer cs.Close()
	}
	if cs, err := dial(); err == nil {
		cs.Close()
		t.Fatal("a third session was opened past MaxSessions 2")
	} else if !strings.Contains(err.Error(), "Service Unavailable") {
		t.Fatalf("third session: %v, want a 503", err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		cs, err := dial()
		if err == nil {
			cs.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("idle sessions did not expire: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestSlowRequestBodyIsCut: a client that sends a body slower than
// BodyTimeout has its connection closed, not held.
func TestSlowRequestBodyIsCut(t *testing.T) {
	srv := gatedServer(t, mcpserver.Options{}, make(chan struct{}, 1), nil)
	ts := httptest.NewUnstartedServer(mcpserver.NewHTTPHandler(srv, mcpserver.HTTPOptions{BodyTimeout: 500 * time.Millisecond}))
	ts.Config.ReadHeaderTimeout = 10 * time.Second
	ts.Start()
	defer ts.Close()
	conn, err := net.Dial("tcp", ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 100000\r\n\r\n{")
	start := time.Now()
	_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	done := make(chan struct{})
	go func() { // the slow sender: a byte every 100 ms
		defer close(done)
		for range 100 {
			if _, err := conn.Write([]byte(" ")); err != nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	}()
	_, _ = bufio.NewReader(conn).ReadString(0) // until the server closes
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("the slow body held the connection for %s", d)
	}
	conn.Close()
	<-done
}

// TestServerBoundsInFlightBytesAcrossPrograms: MaxInFlightBytes bounds what
// the server's programs hold together: with one program's 1.5 MB input held
// by a slow tool, another program's equal input would pass the server's 4
// MiB and fails with a RangeError naming the bound, though each is within
// its own client.Limits.MaxInFlightBytes.
func TestServerBoundsInFlightBytesAcrossPrograms(t *testing.T) {
	started, release := make(chan struct{}, 2), make(chan struct{})
	hold, err := contract.NewTool("hold", "Holds its input until the test releases it.", func(ctx context.Context, in struct {
		Value string `json:"value"`
	}) (struct{}, error) {
		started <- struct{}{}
		select {
		case <-release:
		case <-ctx.Done():
		}
		return struct{}{}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	c, err := contract.New(hold)
	if err != nil {
		t.Fatal(err)
	}
	d := quickjs.New(quickjs.Options{Timeout: 20 * time.Second})
	t.Cleanup(func() { d.Close() })
	rt, err := client.NewRuntime(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	srv, err := mcpserver.New(client.New(rt, c), mcpserver.Options{MaxInFlightBytes: 4 << 20, Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, srv)
	const program = `await codemode.hold({ value: "x".repeat(1_500_000) }); "held"`
	first := make(chan string, 1)
	go func() {
		text, isErr, err := codeText(cs, program)
		first <- fmt.Sprint(text, isErr, err)
	}()
	<-started
	text, _, err := codeText(cs, program)
	if err != nil || !strings.Contains(text, "RangeError") || !strings.Contains(text, "mcpserver.Options.MaxInFlightBytes") {
		t.Errorf("the second program: %q %v, want a RangeError naming the server's bound", text, err)
	}
	close(release)
	if a := <-first; !strings.Contains(a, "held") {
		t.Errorf("the first program: %s", a)
	}
	text, _, err = codeText(cs, program)
	if err != nil || !strings.Contains(text, "held") {
		t.Errorf("once the first ended, a program: %q %v", text, err)
	}
}

// codeText calls the code tool from any goroutine: the answer's first text,
// whether it is an error, and the call's error.
func codeText(cs *mcp.ClientSession, code string) (string, bool, error) {
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "code", Arguments: map[string]any{"code": code}})
	if err != nil {
		return "", false, err
	}
	text := ""
	if len(res.Content) > 0 {
		if tc, ok := res.Content[0].(*mcp.TextContent); ok {
			text = tc.Text
		}
	}
	return text, res.IsError, nil
}
