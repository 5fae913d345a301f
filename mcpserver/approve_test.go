package mcpserver_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/quickjs"
	"github.com/codemode-go/codemode/durable"
	"github.com/codemode-go/codemode/durable/store"
	"github.com/codemode-go/codemode/durable/store/sqlite"
	"github.com/codemode-go/codemode/mcpserver"
	"github.com/codemode-go/codemode/typecheck"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type noInput struct{}
type okOutput struct {
	OK bool `json:"ok"`
}

// connect serves h with NewServer over in-memory transports and returns the
// client session; caps are the client's capabilities (nil: none).
func connectRunner(t *testing.T, h codetool.Runner, opts mcpserver.Options, copts *mcp.ClientOptions) *mcp.ClientSession {
	return connectOn(t, h, opts, copts, "")
}

// connectOn is connectRunner for a client that asks for protocol version
// (the latest when "").
func connectOn(t *testing.T, h codetool.Runner, opts mcpserver.Options, copts *mcp.ClientOptions, version string) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	srv, err := mcpserver.New(h, opts)
	if err != nil {
		t.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, copts).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func callCode(t *testing.T, cs *mcp.ClientSession, code string) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "code", Arguments: map[string]any{"code": code}})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func testConnector(t *testing.T) contract.Namespace {
	t.Helper()
	ping, err := contract.NewTool("ping", "Answers ok.", func(ctx context.Context, _ noInput) (okOutput, error) { return okOutput{true}, nil })
	if err != nil {
		t.Fatal(err)
	}
	act, err := contract.NewTool("act", "Needs approval.", func(ctx context.Context, _ noInput) (okOutput, error) { return okOutput{true}, nil })
	if err != nil {
		t.Fatal(err)
	}
	if act, err = act.WithPolicy(contract.Policy{RequiresApproval: true}); err != nil {
		t.Fatal(err)
	}
	return contract.Namespace{Name: "svc", Tools: []*contract.Tool{ping, act}}
}

// handle is a durable handle over namespaces, on a SQLite journal and a
// QuickJS runtime of the test's own.
func handle(t *testing.T, namespaces ...contract.Namespace) *durable.Handle {
	t.Helper()
	d := quickjs.New(quickjs.Options{Timeout: 20 * time.Second})
	t.Cleanup(func() { d.Close() })
	rt, err := client.NewRuntime(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	return handleOn(t, rt, namespaces...)
}

// handleOn is handle on the runtime rt.
func handleOn(t *testing.T, rt *client.Runtime, namespaces ...contract.Namespace) *durable.Handle {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "journal.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	c, err := contract.NewNamespaced(namespaces...)
	if err != nil {
		t.Fatal(err)
	}
	h, err := durable.New(st, rt, c, durable.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// The code tool's completed answer carries what the program appended, as
// items after the output's JSON.
func TestServerAnswersWithAppendedContent(t *testing.T) {
	cs := connectRunner(t, handle(t, testConnector(t)), mcpserver.Options{}, nil)
	res := callCode(t, cs, `const r = await svc.ping({}); result.appendText("pinged " + r.ok); result.appendImage({ data: "aGk=", mimeType: "image/png" }); 1`)
	if res.IsError || len(res.Content) != 3 {
		t.Fatalf("answer %+v", res.Content)
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); !ok || tc.Text == "" || strings.Contains(tc.Text, "content") {
		t.Errorf("first item %#v: want the output's JSON without the content", res.Content[0])
	}
	if tc, ok := res.Content[1].(*mcp.TextContent); !ok || tc.Text != "pinged true" {
		t.Errorf("second item %#v, want the appended text", res.Content[1])
	}
	if ic, ok := res.Content[2].(*mcp.ImageContent); !ok || string(ic.Data) != "hi" || ic.MIMEType != "image/png" {
		t.Errorf("third item %#v, want the appended image", res.Content[2])
	}
}

// With a checker, a program that does not type-check is answered with the
// report and starts no execution; a valid one runs.
func TestServerTypeChecksPrograms(t *testing.T) {
	checker, err := typecheck.New(typecheck.Options{})
	if err != nil {
		t.Skip(err)
	}
	defer checker.Close()
	h := handle(t, testConnector(t))
	cs := connectRunner(t, h, mcpserver.Options{Tool: codetool.Options{Checker: checker}}, nil)
	res := callCode(t, cs, "const r = await svc.ping({});\nconst n: number = r.ok;\nn")
	text := res.Content[0].(*mcp.TextContent).Text
	if !res.IsError || !strings.Contains(text, "does not type-check") || !strings.Contains(text, "2:") {
		t.Fatalf("answer %v %q", res.IsError, text)
	}
	if list, err := h.Executions(context.Background(), 0); err != nil || len(list) != 0 {
		t.Fatalf("executions after a refused program: %d %v", len(list), err)
	}
	res = callCode(t, cs, "const s = await codemode.step(\"s\", () => 1);\nconst r = await svc.ping({});\nr.ok && s === 1")
	if res.IsError {
		t.Fatalf("valid program refused: %v", res.Content[0].(*mcp.TextContent).Text)
	}
}

// outputOf decodes the durable output at the head of an answer.
func outputOf(t *testing.T, res *mcp.CallToolResult) codetool.Answer {
	t.Helper()
	var out codetool.Answer
	if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &out); err != nil {
		t.Fatalf("answer %q: %v", res.Content[0].(*mcp.TextContent).Text, err)
	}
	return out
}

const pingThenAct = `const r = await svc.ping({});
const a = await svc.act({});
[r.ok, a.ok]`

// With a client that declared elicitation, a pause asks the person: accept
// approves and the same code call answers the completed outcome, decline
// rejects, cancel leaves the run paused; code_result reads the outcome.
func TestServerElicitsApproval(t *testing.T) {
	for _, c := range []struct {
		action string
		want   codetool.Status
		status store.Status
	}{
		{"accept", codetool.StatusCompleted, store.StatusCompleted},
		{"decline", codetool.StatusError, store.StatusRejected},
		{"cancel", codetool.StatusPaused, store.StatusPaused},
	} {
		t.Run(c.action, func(t *testing.T) {
			h := handle(t, testConnector(t))
			var asked []string
			cs := connectRunner(t, h, mcpserver.Options{Logger: slog.New(slog.NewTextHandler(os.Stderr, nil))}, &mcp.ClientOptions{
				ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					asked = append(asked, req.Params.Message)
					return &mcp.ElicitResult{Action: c.action}, nil
				}})
			res := callCode(t, cs, pingThenAct)
			out := outputOf(t, res)
			if out.Status != c.want || len(asked) != 1 || !strings.Contains(asked[0], "svc.act with {}") || !strings.Contains(asked[0], out.ExecutionID) {
				t.Fatalf("answer %+v after questions %q (%v)", out, asked, res.Content[len(res.Content)-1])
			}
			if c.action == "accept" && string(out.Value) != "[true,true]" {
				t.Errorf("result %s", out.Value)
			}
			e, err := h.Execution(context.Background(), out.ExecutionID)
			if err != nil || e.Status != c.status {
				t.Fatalf("journal status %v %v, want %s", e, err, c.status)
			}
			again, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "code_result", Arguments: map[string]any{"executionId": out.ExecutionID}})
			if err != nil {
				t.Fatal(err)
			}
			if got := outputOf(t, again); got.Status != c.want || string(got.Value) != string(out.Value) {
				t.Errorf("code_result %+v, want %+v", got, out)
			}
		})
	}
}

// Without the capability (or with NoElicitation), a pause is answered as
// paused, and code_result reports the outcome once a person approved
// elsewhere; an unknown ID is an error answer.
func TestServerWithoutElicitation(t *testing.T) {
	h := handle(t, testConnector(t))
	cs := connectRunner(t, h, mcpserver.Options{}, nil)
	out := outputOf(t, callCode(t, cs, pingThenAct))
	if out.Status != codetool.StatusPaused {
		t.Fatalf("answer %+v", out)
	}
	ask := func(id string) *mcp.CallToolResult {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "code_result", Arguments: map[string]any{"executionId": id}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if got := outputOf(t, ask(out.ExecutionID)); got.Status != codetool.StatusPaused || len(got.Pending) != 1 {
		t.Fatalf("code_result while paused %+v", got)
	}
	if _, err := h.Approve(context.Background(), out.ExecutionID); err != nil {
		t.Fatal(err)
	}
	if got := outputOf(t, ask(out.ExecutionID)); got.Status != codetool.StatusCompleted || string(got.Value) != "[true,true]" {
		t.Fatalf("code_result after approval %+v", got)
	}
	if res := ask("exec_1_00"); !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "exec_1_00") {
		t.Fatalf("unknown ID: %+v", res.Content[0])
	}
	asked := 0
	cs = connectRunner(t, h, mcpserver.Options{NoElicitation: true}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked++
			return &mcp.ElicitResult{Action: "accept"}, nil
		}})
	if out := outputOf(t, callCode(t, cs, pingThenAct)); out.Status != codetool.StatusPaused || asked != 0 {
		t.Fatalf("NoElicitation: %+v, asked %d", out, asked)
	}
}

// An approval asked in a result (protocol 2026-07-28) carries a request
// state signed by the server: a client that alters it decides nothing.
func TestServerRefusesForgedApprovalState(t *testing.T) {
	h := handle(t, testConnector(t))
	cs := connectRunner(t, h, mcpserver.Options{}, &mcp.ClientOptions{
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept"}, nil
		}})
	ctx := context.Background()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "code", Arguments: map[string]any{"code": pingThenAct}})
	if err != nil || len(res.InputRequests) != 1 || res.RequestState == "" {
		t.Fatalf("first call: %+v %v", res, err)
	}
	body, sig, _ := strings.Cut(res.RequestState, ".")
	raw, _ := base64.RawURLEncoding.DecodeString(body)
	forged := base64.RawURLEncoding.EncodeToString([]byte(strings.Replace(string(raw), `"e":"exec_`, `"e":"exec_9`, 1))) + "." + sig
	accept := mcp.InputResponseMap{"approve": &mcp.ElicitResult{Action: "accept"}}
	for _, state := range []string{forged, "nonsense", res.RequestState + "x"} {
		bad, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "code", Arguments: map[string]any{"code": pingThenAct}, RequestState: state, InputResponses: accept})
		if err != nil || !bad.IsError || !strings.Contains(bad.Content[0].(*mcp.TextContent).Text, "does not verify") {
			t.Fatalf("state %q: %+v %v", state, bad, err)
		}
	}
	list, _ := h.Executions(ctx, 0)
	if len(list) != 1 || list[0].Status != store.StatusPaused {
		t.Fatalf("executions after forged answers: %d, %s", len(list), list[0].Status)
	}
	good, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "code", Arguments: map[string]any{"code": pingThenAct}, RequestState: res.RequestState, InputResponses: accept})
	if err != nil {
		t.Fatal(err)
	}
	if out := outputOf(t, good); out.Status != codetool.StatusCompleted || out.ExecutionID != list[0].ID {
		t.Fatalf("genuine answer: %+v", out)
	}
}

// The server runs at most MaxExecutions passes at once and queues at most
// MaxQueued: with one of each held by programs that wait on a tool, a third
// program is answered at once that the server is busy, and nothing of it
// runs.
func TestServerBoundsRunningPasses(t *testing.T) {
	entered, release := make(chan struct{}, 4), make(chan struct{})
	var ran atomicCount
	wait, err := contract.NewTool("wait", "Waits for the test.", func(ctx context.Context, _ noInput) (okOutput, error) {
		ran.add()
		entered <- struct{}{}
		select {
		case <-release:
			return okOutput{true}, nil
		case <-ctx.Done():
			return okOutput{}, ctx.Err()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	h := handle(t, contract.Namespace{Name: "svc", Tools: []*contract.Tool{wait}})
	cs := connectRunner(t, h, mcpserver.Options{MaxExecutions: 1, MaxQueued: 1, Timeout: 30 * time.Second}, nil)
	done := make(chan *mcp.CallToolResult, 2)
	for range 2 {
		go func() {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "code", Arguments: map[string]any{"code": `await svc.wait({}); "done"`}})
			if err != nil {
				res = &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}
			}
			done <- res
		}()
	}
	<-entered                          // the first runs; the second waits in the queue
	time.Sleep(200 * time.Millisecond) // let the second reach the queue
	res := callCode(t, cs, `await svc.wait({}); "third"`)
	if !res.IsError || !strings.Contains(textOf(res), "busy") {
		t.Fatalf("third program: %s (isError %v), want a busy answer", textOf(res), res.IsError)
	}
	close(release)
	for range 2 {
		if res := <-done; res.IsError || !strings.Contains(textOf(res), "done") {
			t.Errorf("queued program: %s", textOf(res))
		}
	}
	if n := ran.get(); n != 2 {
		t.Errorf("the tool ran %d times, want 2 (the busy program must not run)", n)
	}
}

type atomicCount struct{ n atomic.Int64 }

func (c *atomicCount) add()       { c.n.Add(1) }
func (c *atomicCount) get() int64 { return c.n.Load() }

type noteInput struct {
	Note string `json:"note"`
}

// A pause whose arguments do not fit the question in full is not put to the
// person in the client (a cut could hide the argument that matters); the
// answer stays paused and says where to review it.
func TestServerDoesNotAskWhatItCannotShow(t *testing.T) {
	send, err := contract.NewTool("send", "Sends a note.", func(ctx context.Context, _ noteInput) (okOutput, error) { return okOutput{true}, nil })
	if err != nil {
		t.Fatal(err)
	}
	if send, err = send.WithPolicy(contract.Policy{RequiresApproval: true}); err != nil {
		t.Fatal(err)
	}
	h := handle(t, contract.Namespace{Name: "svc", Tools: []*contract.Tool{send}})
	var asked int
	cs := connectRunner(t, h, mcpserver.Options{}, &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked++
			return &mcp.ElicitResult{Action: "accept"}, nil
		}})
	res := callCode(t, cs, `await svc.send({ note: "x".repeat(5000) })`)
	out := outputOf(t, res)
	if asked != 0 || out.Status != codetool.StatusPaused || !strings.Contains(textOf(res), "codemode pending") {
		t.Fatalf("asked %d times; answer %+v: %s", asked, out, textOf(res))
	}
	// Arguments that fit are asked about as before.
	res = callCode(t, cs, `await svc.send({ note: "short" })`)
	if out := outputOf(t, res); asked != 1 || out.Status != codetool.StatusCompleted {
		t.Fatalf("asked %d times; answer %+v", asked, out)
	}
}

// A plain runner has no pauses: over it, a call that needs approval is put
// to the person before it runs (accept lets it run, decline refuses it and
// the program sees why) by a request sent while the call is served, which
// protocols before 2026-07-28 allow; without elicitation, or on later
// protocols, it is refused.
func TestServerAsksAboutCallsOfAPlainRunner(t *testing.T) {
	ns := testConnector(t)
	c, err := contract.NewNamespaced(ns)
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
	cl := client.New(rt, c)
	for _, tc := range []struct {
		action, want string
		status       codetool.Status
	}{
		{"accept", "[true,true]", codetool.StatusCompleted},
		{"decline", "svc.act needs a person's approval, and they refused it (decline)", codetool.StatusError},
	} {
		var asked []string
		cs := connectOn(t, cl, mcpserver.Options{}, &mcp.ClientOptions{
			ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				asked = append(asked, req.Params.Message)
				return &mcp.ElicitResult{Action: tc.action}, nil
			}}, "2025-11-25")
		out := outputOf(t, callCode(t, cs, pingThenAct))
		if out.Status != tc.status || !strings.Contains(string(out.Value)+out.Error, tc.want) || len(asked) != 1 || !strings.Contains(asked[0], "svc.act with {}") {
			t.Errorf("%s: answer %+v after questions %q", tc.action, out, asked)
		}
	}
	cs := connectRunner(t, cl, mcpserver.Options{}, nil)
	if out := outputOf(t, callCode(t, cs, pingThenAct)); out.Status != codetool.StatusError || !strings.Contains(out.Error, "svc.act needs a person's approval before it runs, and this run has no way to ask for it") {
		t.Errorf("without elicitation: %+v", out)
	}
}
