package mcpconnector_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/codemode-go/codemode/connector/mcpconnector"
	"github.com/codemode-go/codemode/internal/runctx"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// failing serves one tool over streamable HTTP, and answers the method
// fail with a JSON-RPC error whose message is 5 MiB long.
func failing(t *testing.T, fail string) *httptest.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "verbose", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "t", Description: "Fails.", InputSchema: json.RawMessage(`{"type": "object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == fail {
				return nil, &jsonrpc.Error{Code: -32000, Message: "denied: " + strings.Repeat("blah ", 1<<20)}
			}
			return next(ctx, method, req)
		}
	})
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(ts.Close)
	return ts
}

// TestServerErrorsAreBounded: a server's error text reaches a down
// namespace's instructions and unavailable reason (which every program's
// scope carries: 15 MB of it made "1 + 1" take 3.7 s instead of 0.25), the
// logs and a call's error. A 5 MiB message is cut to a few KiB there,
// keeping its start and saying how long it was.
func TestServerErrorsAreBounded(t *testing.T) {
	const bound = 8 << 10
	for _, tc := range []struct {
		method string
		texts  func(*mcpconnector.Set) []string
	}{
		{"tools/list", func(set *mcpconnector.Set) []string {
			ns := set.Namespaces()[0]
			return []string{set.Down()["v"].Error(), ns.Instructions, ns.Unavailable}
		}},
		{"tools/call", func(set *mcpconnector.Set) []string {
			_, err := contractOf(t, set).Tool("v", "t").Call(context.Background(), json.RawMessage(`{}`))
			if err == nil {
				t.Fatal("the call did not fail")
			}
			return []string{err.Error()}
		}},
	} {
		t.Run(tc.method, func(t *testing.T) {
			ts := failing(t, tc.method)
			set, err := mcpconnector.Connect(context.Background(), []mcpconnector.Server{{Name: "v", URL: ts.URL, Approval: mcpconnector.ApprovalNever}}, mcpconnector.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer set.Close()
			for _, text := range tc.texts(set) {
				if len(text) > bound || !strings.Contains(text, "denied: blah") || !strings.Contains(text, "… (cut: the message is 52429") {
					t.Errorf("a text of %d bytes (at most %d, keeping the start and saying it was cut): %.300s", len(text), bound, text)
				}
			}
		})
	}
}

// TestDeclinedQuestionsAreLoggedBounded: a server (speaking the protocol
// of 2025-06-18, which lets it ask during a call) asks 20 questions of 1
// MiB each where nobody can answer: each is declined with a log line that
// quotes the question's start, not the whole (the review's 2,000 questions
// of 100 KB wrote 200 MB of log).
func TestDeclinedQuestionsAreLoggedBounded(t *testing.T) {
	const questions, size = 20, 1 << 20
	srv := mcp.NewServer(&mcp.Implementation{Name: "curious", Version: "1"}, &mcp.ServerOptions{SupportedProtocolVersions: []string{"2025-06-18"}})
	srv.AddTool(&mcp.Tool{Name: "ask", Description: "Asks.", InputSchema: json.RawMessage(`{"type": "object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			declined := 0
			for range questions {
				res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "Which? " + strings.Repeat("q", size),
					RequestedSchema: json.RawMessage(`{"type": "object", "properties": {"a": {"type": "string"}}}`)})
				if err == nil && res.Action == "decline" {
					declined++
				}
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strconv.Itoa(declined)}}}, nil
		})
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(ts.Close)
	var log logs
	c := contractOf(t, connectUp(t, mcpconnector.Options{Logger: log.logger()}, mcpconnector.Server{Name: "c", URL: ts.URL, Approval: mcpconnector.ApprovalNever}))
	out, err := c.Tool("c", "ask").Call(context.Background(), json.RawMessage(`{}`))
	if err != nil || string(out) != strconv.Itoa(questions) {
		t.Fatalf("call: %s, %v (want %d questions declined)", out, err, questions)
	}
	text := log.String()
	if n := strings.Count(text, "declined"); n != questions || len(text) > questions*(8<<10) || !strings.Contains(text, "Which? qqq") {
		t.Fatalf("%d lines saying declined, %d bytes of log (at most %d): %.300s", n, len(text), questions*(8<<10), text)
	}
}

// TestOneQuestionAtATime: a server (protocol 2025-06-18) asks 20
// questions at once during a call whose person can answer. The person has
// one open at a time; three more wait their turn and are asked in turn,
// and the server is told the other 16 are declined. (The review's 200
// questions of 1 MB reached the person all at once, and took the heap of
// codemode mcp serve up by 812 MiB while they waited for an answer.)
func TestOneQuestionAtATime(t *testing.T) {
	const questions = 20
	allDeclined, release := make(chan struct{}), make(chan struct{})
	var releaseOnce sync.Once
	srv := mcp.NewServer(&mcp.Implementation{Name: "curious", Version: "1"}, &mcp.ServerOptions{SupportedProtocolVersions: []string{"2025-06-18"}})
	srv.AddTool(&mcp.Tool{Name: "ask", Description: "Asks at once.", InputSchema: json.RawMessage(`{"type": "object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var mu sync.Mutex
			actions := map[string]int{}
			var wg sync.WaitGroup
			for range questions {
				wg.Go(func() {
					res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "Which?", RequestedSchema: json.RawMessage(`{"type": "object", "properties": {"a": {"type": "string"}}}`)})
					mu.Lock()
					defer mu.Unlock()
					if err != nil {
						actions["error"]++
					} else if actions[res.Action]++; res.Action == "decline" && actions["decline"] == questions-4 {
						close(allDeclined)
					}
				})
			}
			wg.Wait()
			out, _ := json.Marshal(actions)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(out)}}}, nil
		})
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(ts.Close)
	go func() {
		<-allDeclined
		releaseOnce.Do(func() { close(release) })
	}()
	var open, most atomic.Int64
	person := &runctx.Asker{Ask: func(ctx context.Context, message string, schema json.RawMessage) (string, map[string]any, error) {
		n := open.Add(1)
		defer open.Add(-1)
		if n > most.Load() {
			most.Store(n)
		}
		if n > 1 {
			releaseOnce.Do(func() { close(release) }) // asked twice at once: the test has failed
		}
		<-release
		return "accept", map[string]any{"a": "x"}, nil
	}}
	c := contractOf(t, connectUp(t, mcpconnector.Options{}, mcpconnector.Server{Name: "c", URL: ts.URL, Approval: mcpconnector.ApprovalNever}))
	out, err := c.Tool("c", "ask").Call(runctx.WithAsker(context.Background(), person), json.RawMessage(`{}`))
	if err != nil || string(out) != `{"accept":4,"decline":16}` || most.Load() != 1 {
		t.Fatalf("the server saw %s (%v); the person had %d questions open at once", out, err, most.Load())
	}
}

// TestQuestionsToAPersonAreBounded: a server's question reaches the person
// with its message cut to 4 KiB (the start kept, saying how long it was),
// and a question whose form is larger than 16 KiB or has more than 64
// fields is declined with a log line and never reaches the person; before,
// a 1 MiB message and any form went to the person whole.
func TestQuestionsToAPersonAreBounded(t *testing.T) {
	manyFields := map[string]any{}
	for i := range 65 {
		manyFields["f"+strconv.Itoa(i)] = map[string]any{"type": "string"}
	}
	big := map[string]any{"a": map[string]any{"type": "string", "description": strings.Repeat("d", 16<<10)}}
	small := map[string]any{"a": map[string]any{"type": "string"}}
	cases := []struct {
		name       string
		message    string
		properties map[string]any
		asked      bool   // whether the person sees the question
		want       string // what the person reads (a prefix), or the log says
	}{
		{"short message", "Which colour?", small, true, "The MCP server c asks:\n> Which colour?"},
		{"1 MiB message", "Which? " + strings.Repeat("q", 1<<20), small, true, "The MCP server c asks:\n> Which? qqq"},
		{"form over 16 KiB", "Which?", big, false, "bytes, more than 16384"},
		{"65 fields", "Which?", manyFields, false, "its form has 65 fields, more than 64"},
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "curious", Version: "1"}, &mcp.ServerOptions{SupportedProtocolVersions: []string{"2025-06-18"}})
	srv.AddTool(&mcp.Tool{Name: "ask", Description: "Asks case i.", InputSchema: json.RawMessage(`{"type": "object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in struct{ I int }
			json.Unmarshal(req.Params.Arguments, &in)
			tc := cases[in.I]
			res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: tc.message, RequestedSchema: map[string]any{"type": "object", "properties": tc.properties}})
			if err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strconv.Quote(res.Action)}}}, nil
		})
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(ts.Close)
	var log logs
	c := contractOf(t, connectUp(t, mcpconnector.Options{Logger: log.logger()}, mcpconnector.Server{Name: "c", URL: ts.URL, Approval: mcpconnector.ApprovalNever}))
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var asked []string
			person := &runctx.Asker{Ask: func(_ context.Context, message string, schema json.RawMessage) (string, map[string]any, error) {
				asked = append(asked, message)
				return "accept", map[string]any{"a": "x"}, nil
			}}
			out, err := c.Tool("c", "ask").Call(runctx.WithAsker(context.Background(), person), json.RawMessage(`{"i":`+strconv.Itoa(i)+`}`))
			if err != nil {
				t.Fatal(err)
			}
			if !tc.asked {
				if len(asked) != 0 || string(out) != `"decline"` || !strings.Contains(log.String(), tc.want) {
					t.Fatalf("asked %d times, server saw %s, log %.300s; want declined unasked, the log saying %q", len(asked), out, log.String(), tc.want)
				}
				return
			}
			if len(asked) != 1 || string(out) != `"accept"` {
				t.Fatalf("asked %d times, server saw %s; want asked once and accepted", len(asked), out)
			}
			if q := asked[0]; !strings.HasPrefix(q, tc.want) || len(q) > 4<<10+200 {
				t.Errorf("the person read %d bytes: %.300s", len(q), q)
			}
			if cut := len(tc.message) > 4<<10; cut != strings.HasSuffix(asked[0], "… (cut: the question is "+strconv.Itoa(len(tc.message))+" bytes)") {
				t.Errorf("cut %v, but the question ends %q", cut, asked[0][max(0, len(asked[0])-60):])
			}
		})
	}
}
