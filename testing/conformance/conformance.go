package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/internal/fixtures"
)

// Runtime is what the suite tests: a *client.Runtime (NewRuntime or NewPool).
type Runtime interface {
	client.Executor
	Close() error
	Done() <-chan struct{}
	Err() error
}

// Factory makes a fresh runtime; ctx governs its boot.
type Factory func(ctx context.Context) (Runtime, error)

// TestRuntime runs the conformance suite against runtimes made by factory.
func TestRuntime(t *testing.T, factory Factory) {
	s := &suite{factory: factory}
	rt := s.runtime(t)
	shared := &harness{rt: rt}

	t.Run("ToolCallWithStdoutAndStderr", func(t *testing.T) { shared.toolCallWithOutput(t) })
	t.Run("MissingDefaultExport", func(t *testing.T) { shared.missingDefault(t) })
	t.Run("Throw", func(t *testing.T) { shared.throws(t) })
	t.Run("FreshModuleStatePerExecution", func(t *testing.T) { shared.freshModule(t) })
	t.Run("CancellationIsExecutionLocal", func(t *testing.T) { shared.cancellation(t) })
	t.Run("ContentInOrderAndDiscardedOnFailure", func(t *testing.T) { shared.content(t) })
	t.Run("InputBearingAndInputless", func(t *testing.T) { shared.inputForms(t) })
	t.Run("ToolValidationOnHost", func(t *testing.T) { shared.toolValidation(t) })
	t.Run("NonJSONToolValuesFailOneProgram", func(t *testing.T) { shared.nonJSON(t) })
	t.Run("ProgramValuesAsJSON", func(t *testing.T) { shared.programValues(t) })
	t.Run("OversizedErrorMessageTruncated", func(t *testing.T) { shared.oversizedError(t) })
	t.Run("UnawaitedToolCallAtCompletion", func(t *testing.T) { shared.unawaited(t) })
	t.Run("UnknownTool", func(t *testing.T) { shared.unknownTool(t) })
	t.Run("ScopePerCatalogue", func(t *testing.T) { shared.scopes(t) })
	t.Run("HostileErrors", func(t *testing.T) { shared.hostileErrors(t) })
	t.Run("ScopeSetup", func(t *testing.T) { shared.scopeSetup(t) })
	t.Run("ProgramStacks", func(t *testing.T) { shared.programStacks(t) })
	t.Run("PrefilledResults", func(t *testing.T) { shared.prefill(t) })
	t.Run("ToolCallsNumberedInIssueOrder", func(t *testing.T) { shared.seqOrder(t) })
	t.Run("ConcurrentBlockedExecutions", func(t *testing.T) { shared.concurrent(t, 200) })
	t.Run("LimitsPerExecution", func(t *testing.T) { shared.limits(t) })
	t.Run("DeadlineOfABusyProgram", func(t *testing.T) { s.busyDeadline(t) })
	t.Run("CloseRejectsInFlightExecutions", func(t *testing.T) { s.closeRejects(t) })
}

type suite struct{ factory Factory }

func (s *suite) runtime(t *testing.T) Runtime {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	rt, err := s.factory(ctx)
	if err != nil {
		t.Fatalf("creating the runtime: %v", err)
	}
	t.Cleanup(func() { _ = rt.Close() })
	return rt
}

type harness struct {
	rt Runtime
}

// recorder collects one run's telemetry.
type recorder struct {
	mu     sync.Mutex
	stdout strings.Builder
	stderr strings.Builder
	calls  []string
}

func (r *recorder) observe(e client.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch e.Kind {
	case client.EventProgramOutput:
		if e.Stream == "stderr" {
			r.stderr.WriteString(e.Text)
		} else {
			r.stdout.WriteString(e.Text)
		}
	case client.EventToolCallStarted:
		r.calls = append(r.calls, e.Tool)
	}
}

func (h *harness) client(t *testing.T, input *contract.Schema, block chan<- struct{}, extra ...*contract.Tool) *client.Client {
	t.Helper()
	tools, err := fixtures.Tools(block)
	if err != nil {
		t.Fatal(err)
	}
	tools = append(tools, extra...)
	c, err := contract.New(tools...)
	if err == nil && input != nil {
		c, err = c.WithInput(input)
	}
	if err != nil {
		t.Fatal(err)
	}
	return client.New(h.rt, c)
}

func (h *harness) run(t *testing.T, source string, input any) (*client.Outcome, *recorder) {
	t.Helper()
	var schema *contract.Schema
	if input != nil {
		var err error
		schema, err = contract.NewSchema(json.RawMessage(`{"type":"object","properties":{"location":{"type":"string"}},"required":["location"],"additionalProperties":false}`))
		if err != nil {
			t.Fatal(err)
		}
	}
	rec := &recorder{}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := h.client(t, schema, nil).Run(ctx, source, client.RunOptions{Input: input, OnTelemetry: rec.observe})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return out, rec
}

func wantSuccess(t *testing.T, out *client.Outcome, content ...contract.Content) {
	t.Helper()
	if out.Kind != client.Success {
		t.Fatalf("outcome %s (%v), want success", out.Kind, out.Error)
	}
	if len(content) == 0 {
		content = []contract.Content{}
	}
	got, _ := json.Marshal(out.Content)
	want, _ := json.Marshal(content)
	if string(got) != string(want) {
		t.Fatalf("content %s, want %s", got, want)
	}
}

func wantFailure(t *testing.T, out *client.Outcome, name, message string) {
	t.Helper()
	if out.Kind != client.ProgramFailed {
		t.Fatalf("outcome %s with content %+v, want program-failed", out.Kind, out.Content)
	}
	if name != "" && out.Error.Name != name {
		t.Errorf("error name %q, want %q (message %q)", out.Error.Name, name, out.Error.Message)
	}
	if !regexp.MustCompile(message).MatchString(out.Error.Message) {
		t.Errorf("error message %q does not match %q", out.Error.Message, message)
	}
}

func text(s string) contract.Content { return contract.Content{Type: "text", Text: s} }

func (h *harness) toolCallWithOutput(t *testing.T) {
	out, rec := h.run(t, `export default async function ({ codemode, console, result }) {
  console.log("log", 1, { a: [2] });
  const r = await codemode.echo({ value: "hi" });
  console.error("err", r.value);
  console.warn("warned");
  result.appendText(r.value);
}`, nil)
	wantSuccess(t, out, text("hi"))
	if got := rec.stdout.String(); got != "log 1 {\"a\":[2]}\n" {
		t.Errorf("stdout %q", got)
	}
	if got := rec.stderr.String(); got != "err hi\nwarned\n" {
		t.Errorf("stderr %q", got)
	}
	if strings.Join(rec.calls, ",") != "echo" {
		t.Errorf("tool calls %v", rec.calls)
	}
}

func (h *harness) missingDefault(t *testing.T) {
	for _, src := range []string{`export const x = 1;`, `export default 42;`} {
		out, _ := h.run(t, src, nil)
		wantFailure(t, out, "TypeError", `(?i)default export`)
	}
}

func (h *harness) throws(t *testing.T) {
	out, _ := h.run(t, `export default async function () { throw new RangeError("boom"); }`, nil)
	wantFailure(t, out, "RangeError", `^boom$`)
	out, _ = h.run(t, `throw new Error("at evaluation");
export default async function () {}`, nil)
	wantFailure(t, out, "Error", `^at evaluation$`)
	out, _ = h.run(t, `export default function () { throw "a string"; }`, nil)
	wantFailure(t, out, "", `a string`)
	out, _ = h.run(t, `export default async function ( {`, nil)
	wantFailure(t, out, "SyntaxError", `agent\.ts:1:`)
}

// programStacks: the stack a program reads from a failed call's Error names
// the code's own line (model-written code runs wrapped, a line below) and
// the program's default export as default, and no frame of the runner, the
// wrapper or a scope setup (wire 1.8 positions).
func (h *harness) programStacks(t *testing.T) {
	c := h.client(t, nil, nil)
	for _, tt := range []struct{ code, frame string }{
		{`let stack = "";
try {
  await codemode.echo({ value: 42 as any });
} catch (e) {
  stack = (e as Error).stack ?? "";
}
stack`, "agent.ts:3:"},
		{`export default async function ({ codemode }: any) {
  try { await codemode.echo({ value: 42 as any }); } catch (e) { return (e as Error).stack; }
}`, "default (agent.ts:2:"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		out, err := c.RunCode(ctx, tt.code, client.RunOptions{})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		var stack string
		if out.Kind != client.Success || json.Unmarshal(out.Value, &stack) != nil {
			t.Fatalf("%s: %+v %s", tt.code, out.Error, out.Value)
		}
		if !strings.Contains(stack, tt.frame) {
			t.Errorf("the stack does not name %s:\n%s", tt.frame, stack)
		}
		for _, bad := range []string{"agent.ts:4:", "codemode-runner", "[stdin]", "__codemode", "codemode-setup"} {
			if strings.Contains(stack, bad) {
				t.Errorf("the stack names %s:\n%s", bad, stack)
			}
		}
	}
}

func (h *harness) freshModule(t *testing.T) {
	// Module state is fresh per execution. (Whether the global object is
	// shared is the driver's business: QuickJS isolates it, Node does not.)
	src := `let n = 0; const seen = [];
export default async function ({ result }) { n++; seen.push(n); result.appendText(n + ":" + seen.length); }`
	for i := 0; i < 3; i++ {
		out, _ := h.run(t, src, nil)
		wantSuccess(t, out, text("1:1"))
	}
}

func (h *harness) cancellation(t *testing.T) {
	started := make(chan struct{}, 1)
	c := h.client(t, nil, started)
	cause := errors.New("the caller gave up")
	ctx, cancel := context.WithCancelCause(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := c.Run(ctx, `export default async function ({ codemode }) { await codemode.block({}); }`, client.RunOptions{})
		errc <- err
	}()
	// A second execution runs alongside and must be untouched.
	otherStarted := make(chan struct{}, 1)
	other := h.client(t, nil, otherStarted)
	otherCtx, otherCancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer otherCancel()
	type res struct {
		out *client.Outcome
		err error
	}
	otherc := make(chan res, 1)
	go func() {
		out, err := other.Run(otherCtx, `export default async function ({ codemode, result }) {
  try { await codemode.block({}); } catch (e) { result.appendText("unblocked"); }
  result.appendText("other done");
}`, client.RunOptions{})
		otherc <- res{out, err}
	}()
	<-started
	<-otherStarted
	cancel(cause)
	select {
	case err := <-errc:
		if !errors.Is(err, cause) {
			t.Fatalf("cancelled Run returned %v, want the caller's cause", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("cancelled Run did not return")
	}
	select {
	case r := <-otherc:
		t.Fatalf("the other execution ended when only the first was cancelled: %+v %v", r.out, r.err)
	case <-time.After(200 * time.Millisecond):
	}
	out, _ := h.run(t, `export default async function ({ result }) { result.appendText("still serving"); }`, nil)
	wantSuccess(t, out, text("still serving"))
	otherCancel()
	if r := <-otherc; r.err == nil {
		t.Fatalf("the other execution did not report its own cancellation: %+v", r.out)
	}
}

func (h *harness) content(t *testing.T) {
	out, _ := h.run(t, `export default async function ({ codemode, result }) {
  result.appendText("one");
  const img = await codemode.tinyImage({});
  result.appendImage(img);
  img.data = "mutated";
  result.appendText("three");
}`, nil)
	wantSuccess(t, out, text("one"), contract.Content{Type: "image", Data: fixtures.TinyPNG, MimeType: "image/png"}, text("three"))

	out, _ = h.run(t, `export default async function ({ result }) { result.appendText("partial"); throw new Error("late"); }`, nil)
	wantFailure(t, out, "Error", "late")
	if out.Content != nil {
		t.Errorf("content kept after failure: %+v", out.Content)
	}
	out, _ = h.run(t, `export default async function () {}`, nil)
	wantSuccess(t, out)
	if out.Content == nil {
		t.Error("success with nothing appended has nil content, want []")
	}
	out, _ = h.run(t, `export default async function ({ result }) { result.appendText(42); }`, nil)
	wantFailure(t, out, "TypeError", "appendText")
	out, _ = h.run(t, `export default async function ({ result }) { result.appendImage({ data: "not base64!", mimeType: "image/png" }); }`, nil)
	wantFailure(t, out, "TypeError", "base64")
}

func (h *harness) inputForms(t *testing.T) {
	out, _ := h.run(t, `export default async function (scope) { scope.result.appendText(JSON.stringify(Object.keys(scope)) + " " + scope.input.location); }`, map[string]any{"location": "Oslo"})
	wantSuccess(t, out, text(`["input","codemode","console","result"] Oslo`))
	out, _ = h.run(t, `export default async function (scope) { scope.result.appendText(JSON.stringify(Object.keys(scope)) + " " + ("input" in scope)); }`, nil)
	wantSuccess(t, out, text(`["codemode","console","result"] false`))

	schema, err := contract.NewSchema(json.RawMessage(`{"type":"object","properties":{"location":{"type":"string"}},"required":["location"],"additionalProperties":false}`))
	if err != nil {
		t.Fatal(err)
	}
	c := h.client(t, schema, nil)
	_, err = c.Run(context.Background(), `export default async function () {}`, client.RunOptions{Input: map[string]any{"location": 7}})
	var iv *contract.ValidationError
	if !errors.As(err, &iv) || iv.Tool != "" || iv.Phase != "input" || !strings.Contains(err.Error(), "/location") {
		t.Fatalf("bad input: got %v, want a program input ValidationError naming /location", err)
	}
	if _, err := c.Run(context.Background(), `export default async function () {}`, client.RunOptions{}); err == nil {
		t.Fatal("input-bearing run without input was accepted")
	}
}

func (h *harness) toolValidation(t *testing.T) {
	out, rec := h.run(t, `export default async function ({ codemode }) {
  await codemode.echo({ value: 42 });
}`, nil)
	wantFailure(t, out, "ToolValidationError", `(?s)input validation failed.*/value.*agent\.ts:2:`)
	if len(rec.calls) != 0 {
		t.Errorf("a handler ran on invalid input: %v", rec.calls)
	}
	out, _ = h.run(t, `export default async function ({ codemode }) { await codemode.badOutput({}); }`, nil)
	wantFailure(t, out, "ToolValidationError", `output validation failed`)
	out, _ = h.run(t, `export default async function ({ codemode, result }) {
  try { await codemode.echo({}); } catch (e) { result.appendText(e.name); }
}`, nil)
	wantSuccess(t, out, text("ToolValidationError"))
}

func (h *harness) nonJSON(t *testing.T) {
	for _, tc := range []struct{ arg, path string }{
		{`{ value: () => 1 }`, `input\.value is a function`},
		{`{ value: 1n }`, `bigint`},
		{`{ value: NaN }`, `NaN`},
		{`(() => { const o = {}; o.self = o; return o; })()`, `circular`},
		{`{ value: new Date(0) }`, `not a plain object`},
		{`{ value: new Uint8Array([1, 2]) }`, `input\.value is not a plain object`}, // bytes go as base64 strings (package contract)
		{`{ value: Symbol("s") }`, `symbol`},
		{`{ list: [1, { a: [0, undefined] }] }`, `input\.list\[1\]\.a\[1\] is undefined`},
		{`{ list: [1, , 3] }`, `input\.list\[1\] is a hole in an array`},
		{`{ deep: { "odd key": Infinity } }`, `input\.deep\.odd key is Infinity`},
	} {
		out, rec := h.run(t, `export default async function ({ codemode }) { await codemode.echo(`+tc.arg+`); }`, nil)
		wantFailure(t, out, "TypeError", tc.path)
		if len(rec.calls) != 0 {
			t.Errorf("%s reached the host: %v", tc.arg, rec.calls)
		}
	}
	out, _ := h.run(t, `export default async function ({ codemode, result }) { const r = await codemode.echo({ value: "ok", dropped: undefined }); result.appendText(r.value); }`, nil)
	wantSuccess(t, out, text("ok"))
	// A getter that calls tools while its object is being serialised: the
	// inner inputs are serialised inside the outer one's walk, and neither
	// walk sees the other's text or place (one that fails fails its own call).
	out, rec := h.run(t, `export default async function ({ codemode, result }) {
  let inner, bad;
  const input = { get value() {
    inner = codemode.echo({ value: "inner" });
    bad = codemode.echo({ value: [2n] });
    return "outer";
  } };
  const r = await codemode.echo(input);
  await bad.catch((e) => result.appendText(e.message));
  result.appendText((await inner).value);
  result.appendText(r.value);
}`, nil)
	wantSuccess(t, out, text("tool input is not JSON: input.value[0] is a bigint"), text("inner"), text("outer"))
	if got := strings.Join(rec.calls, ","); got != "echo,echo" {
		t.Errorf("calls %s, want two echo calls (the failed one never reaches the host)", got)
	}
}

// programValues: what a program's default export resolves to becomes the
// outcome's value as JSON, with Dates as ISO strings (a Date subclass too),
// key order kept and undefined properties left out; what JSON cannot hold
// fails the execution with a TypeError naming its place. The large value
// (20,000 items) is there because the value's JSON was once built by
// copying one string per item.
func (h *harness) programValues(t *testing.T) {
	for _, tc := range []struct{ value, want, fails string }{
		{`({ b: 1, a: [true, null, "x"], u: undefined })`, `{"b":1,"a":[true,null,"x"]}`, ""},
		{`new Date(0)`, `"1970-01-01T00:00:00.000Z"`, ""},
		{`{ when: new (class D extends Date {})(86400000) }`, `{"when":"1970-01-02T00:00:00.000Z"}`, ""},
		{`Object.assign(Object.create(null), { k: [] })`, `{"k":[]}`, ""},
		{`{ d: Object.setPrototypeOf(new Date(0), Object.prototype) }`, `{"d":{}}`, ""}, // as JSON.stringify: no toJSON on its chain
		{`{ when: new Date(NaN) }`, "", `value\.when is an invalid Date`},
		{`{ list: [{ f: () => 1 }] }`, "", `value\.list\[0\]\.f is a function`},
		{`{ m: new Map() }`, "", `value\.m is not a plain object`},
		{`Array.from({ length: 20000 }, (_, i) => ({ id: i }))`, "", ""},
	} {
		out, _ := h.run(t, `export default async function () { return `+tc.value+`; }`, nil)
		switch {
		case tc.fails != "":
			wantFailure(t, out, "TypeError", tc.fails)
		case tc.want != "":
			wantSuccess(t, out)
			if string(out.Value) != tc.want {
				t.Errorf("%s: value %s, want %s", tc.value, out.Value, tc.want)
			}
		default:
			wantSuccess(t, out)
			var items []struct{ ID int }
			if err := json.Unmarshal(out.Value, &items); err != nil || len(items) != 20000 || items[19999].ID != 19999 {
				t.Errorf("%s: value of %d bytes (%v), want 20,000 items in order", tc.value, len(out.Value), err)
			}
		}
	}
}

func (h *harness) oversizedError(t *testing.T) {
	out, _ := h.run(t, `export default async function () { throw new Error("x".repeat(1000000)); }`, nil)
	wantFailure(t, out, "Error", `^x+… \[truncated \d+ characters\]$`)
	if n := len(out.Error.Message); n > 10000 {
		t.Errorf("message of %d bytes", n)
	}
}

func (h *harness) unawaited(t *testing.T) {
	out, _ := h.run(t, `export default async function ({ codemode, result }) {
  void codemode.echo({ value: "fire and forget" });
  void codemode.block({});
  result.appendText("ok");
}`, nil)
	wantSuccess(t, out, text("ok"))
}

func (h *harness) unknownTool(t *testing.T) {
	out, rec := h.run(t, `export default async function ({ codemode }) { await codemode.sendEmail({ to: "x" }); }`, nil)
	wantFailure(t, out, "", `sendEmail`)
	if len(rec.calls) != 0 {
		t.Errorf("an unknown tool reached the host: %v", rec.calls)
	}
	out, _ = h.run(t, `export default async function ({ codemode, result }) {
  result.appendText([typeof codemode.then, typeof codemode.toString, typeof codemode.constructor, typeof codemode.__proto__].join(","));
}`, nil)
	wantSuccess(t, out, text("undefined,undefined,undefined,undefined"))
	// A namespace behaves as a frozen object of its tools, however the
	// runner makes their functions (on first read, for large catalogues).
	out, _ = h.run(t, `export default async function ({ codemode, result }) {
  const first = codemode.echo; // a module is strict code: refused writes throw
  const refused = [];
  try { codemode.echo = null; } catch (e) { refused.push("set:" + e.name); }
  try { codemode.extra = 1; } catch (e) { refused.push("add:" + e.name); }
  try { delete codemode.echo; } catch (e) { refused.push("delete:" + e.name); }
  try { Object.defineProperty(codemode, "x", { value: 1 }); } catch (e) { refused.push("define:" + e.name); }
  const d = Object.getOwnPropertyDescriptor(codemode, "block");
  result.appendText([first === codemode.echo, typeof first, "echo" in codemode, "sendEmail" in codemode,
    Object.keys(codemode).includes("echo"), Object.keys(codemode).length > 1, d.writable, d.configurable,
    codemode.echo === first, refused.join(" ")].join(","));
}`, nil)
	wantSuccess(t, out, text("true,function,true,false,true,true,false,false,true,set:TypeError add:TypeError delete:TypeError define:TypeError"))
}

// scopes runs programs of more catalogues than a runner keeps scopes for
// (wire 1.2: 16), twice round, each of them the same scope property with
// other tools: every program must see its own catalogue's tools, whether
// its runner kept the list, evicted it (and the host sent it again) or
// speaks an older version that is sent the list every time.
func (h *harness) scopes(t *testing.T) {
	const catalogues = 20
	in := json.RawMessage(`{"type":"object"}`)
	clients := make([]*client.Client, catalogues)
	for i := range clients {
		var tools []*contract.Tool
		for _, suffix := range []string{"a", "b"} {
			answer := json.RawMessage(fmt.Sprintf(`{"catalogue":%d}`, i))
			tool, err := contract.NewForeignTool(fmt.Sprintf("t%d_%s", i, suffix), "Answers with its catalogue.", in, nil,
				func(context.Context, json.RawMessage) (json.RawMessage, error) { return answer, nil })
			if err != nil {
				t.Fatal(err)
			}
			tools = append(tools, tool)
		}
		c, err := contract.NewNamespaced(contract.Namespace{Name: "cat", Tools: tools})
		if err != nil {
			t.Fatal(err)
		}
		clients[i] = client.New(h.rt, c)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for round := range 2 {
		for i, cl := range clients {
			src := fmt.Sprintf(`export default async function ({ cat }) {
  const got = await cat.t%d_a({});
  return [Object.keys(cat).join(","), got.catalogue, "t%d_b" in cat, "t%d_a" in cat];
}`, i, i, (i+1)%catalogues)
			out, err := cl.Run(ctx, src, client.RunOptions{})
			if err != nil {
				t.Fatalf("round %d, catalogue %d: %v", round, i, err)
			}
			want := fmt.Sprintf(`["t%d_a,t%d_b",%d,true,false]`, i, i, i)
			if out.Kind != client.Success || string(out.Value) != want {
				t.Fatalf("round %d, catalogue %d: got %+v (value %s), want the value %s", round, i, out, out.Value, want)
			}
		}
	}
}

// scopeSetup runs programs through a client's scope setup
// (client.Extension; wire 1.3 carries it apart from the program): the
// setup hides the tools namespace behind a wrapper, its errors fail the
// program, a module's top level, which runs before it, cannot reach what
// the setup hides by replacing globals, and define (its second argument)
// adds read-only members to a namespace only while it runs.
func (h *harness) scopeSetup(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	base := h.client(t, nil, nil)
	const hide = `(s: any): any => { const { codemode: hidden, ...rest } = s; ` +
		`return { ...rest, codemode: { add: async (a: any) => (await hidden.add(a)).sum * 10 }, marker: "set up" }; }`
	c := base.Extend(client.Extension{Setup: hide})
	tests := []struct {
		name, code, value string
	}{
		{"statements", `await codemode.add({ a: 1, b: 2 })`, `30`},
		{"function", `async () => [await codemode.add({ a: 2, b: 2 }), typeof codemode.echo]`, `[40,"undefined"]`},
		{"module", `export default async (s: any) => [s.marker, Object.keys(s).sort().join(",")]`, `["set up","codemode,console,marker,result"]`},
		// The globals are put back once the setup has run: on Node.js
		// executions share a realm.
		{"module replacing globals first", `const saved: any = {};
for (const k of ["eval", "Function", "Object", "Proxy", "Reflect", "JSON"]) { saved[k] = (globalThis as any)[k]; (globalThis as any)[k] = () => { throw new Error("hijacked " + k); }; }
export default async ({ codemode }: any) => { for (const k in saved) (globalThis as any)[k] = saved[k]; return [await codemode.add({ a: 1, b: 0 }), typeof codemode.echo]; }`, `[10,"undefined"]`},
	}
	for round := range 2 { // the second round runs the setup kept from the first
		for _, tt := range tests {
			out, err := c.RunCode(ctx, tt.code, client.RunOptions{})
			if err != nil {
				t.Fatalf("%s, round %d: %v", tt.name, round, err)
			}
			if out.Kind != client.Success || string(out.Value) != tt.value {
				t.Fatalf("%s, round %d: got %+v (value %s), want the value %s", tt.name, round, out, out.Value, tt.value)
			}
		}
	}
	for _, tt := range []struct{ name, setup, errName, message string }{
		{"a setup that throws", `(s: any): any => { throw new RangeError("setup refused"); }`, "RangeError", "setup refused"},
		{"a setup that is not a function", `(42 as any)`, "TypeError", ""},
	} {
		out, err := base.Extend(client.Extension{Setup: tt.setup}).RunCode(ctx, `1`, client.RunOptions{})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if out.Kind != client.ProgramFailed || out.Error == nil || out.Error.Name != tt.errName || !strings.Contains(out.Error.Message, tt.message) {
			t.Errorf("%s: got %+v, want a %s %q", tt.name, out, tt.errName, tt.message)
		}
	}
	// define adds members beside the tools, on the namespace itself, and
	// refuses a tool's name; kept for later, it refuses to work.
	const defining = `(s: any, define: any): any => { define("codemode", "twice", (n: any) => n * 2); ` +
		`let clash = ""; try { define("codemode", "echo", 1); } catch (e: any) { clash = e.name; } ` +
		`return { ...s, clash, later: () => define("codemode", "late", 1) }; }`
	out, err := base.Extend(client.Extension{Setup: defining}).RunCode(ctx, `export default async ({ codemode, clash, later }: any) => {
  let late = "";
  try { later(); } catch (e: any) { late = e.name; }
  const d = Object.getOwnPropertyDescriptor(codemode, "twice");
  return [codemode.twice(21), clash, late, d.writable, d.configurable, Object.keys(codemode).includes("twice"), typeof codemode.echo, "late" in codemode];
}`, client.RunOptions{})
	if err != nil || out.Kind != client.Success || string(out.Value) != `[42,"TypeError","TypeError",false,false,true,"function",false]` {
		t.Fatalf("define: %+v %s %v", out, out.Value, err)
	}
	// The plain client is unaffected by the setups its derived clients ran.
	out, err = base.RunCode(ctx, `[typeof codemode.echo, (await codemode.add({ a: 1, b: 2 })).sum]`, client.RunOptions{})
	if err != nil || out.Kind != client.Success || string(out.Value) != `["function",3]` {
		t.Fatalf("the plain client: %+v %v", out, err)
	}
}

// prefill runs programs whose first calls' results the host gives in
// advance (client.RunOptions.Prefill): the program receives them, the
// host still runs each call through the middleware, and an answer that
// differs, fails or halts ends the execution before the host handles any
// later call.
func (h *harness) prefill(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := h.client(t, nil, nil)
	const code = `const a = await codemode.add({ a: 1, b: 2 }); const b = await codemode.add({ a: a.sum, b: 10 }); [a.sum, b.sum]`
	var mu sync.Mutex
	var seen []uint64
	answer := func(seq uint64, out json.RawMessage, err error) client.Middleware {
		return func(next client.ToolCaller) client.ToolCaller {
			return func(ctx context.Context, call client.ToolCall) (json.RawMessage, error) {
				mu.Lock()
				seen = append(seen, call.Seq)
				mu.Unlock()
				if call.Seq == seq && (out != nil || err != nil) {
					return out, err
				}
				return next(ctx, call)
			}
		}
	}
	tests := []struct {
		name    string
		prefill map[uint64]json.RawMessage
		mw      client.Middleware
		value   string // on success
		fail    string // in the failure's message
		halt    bool
		seen    []uint64
	}{
		{"the host agrees", map[uint64]json.RawMessage{1: json.RawMessage(`{"sum":3}`)}, answer(0, nil, nil), `[3,13]`, "", false, []uint64{1, 2}},
		{"the host answers differently", map[uint64]json.RawMessage{1: json.RawMessage(`{"sum":30}`)}, answer(0, nil, nil), "", "tool call 1 (codemode.add) was answered from its prefilled result, but the host's answer differs", false, []uint64{1}},
		{"the host fails the call", map[uint64]json.RawMessage{1: json.RawMessage(`{"sum":3}`)}, answer(1, nil, errors.New("no such sum")), "", "no such sum", false, []uint64{1}},
		{"the host halts", map[uint64]json.RawMessage{1: json.RawMessage(`{"sum":3}`)}, answer(1, nil, client.Halt(errors.New("stop here"))), "", "stop here", true, []uint64{1}},
		{"a later seq", map[uint64]json.RawMessage{2: json.RawMessage(`{"sum":13}`)}, answer(0, nil, nil), `[3,13]`, "", false, []uint64{1, 2}},
	}
	for _, tt := range tests {
		mu.Lock()
		seen = nil
		mu.Unlock()
		out, err := c.RunCode(ctx, code, client.RunOptions{Prefill: tt.prefill, Middleware: tt.mw})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		mu.Lock()
		got := slices.Clone(seen)
		mu.Unlock()
		if !slices.Equal(got, tt.seen) {
			t.Errorf("%s: the middleware saw calls %v, want %v", tt.name, got, tt.seen)
		}
		if tt.value != "" {
			if out.Kind != client.Success || string(out.Value) != tt.value {
				t.Errorf("%s: got %+v (value %s), want the value %s", tt.name, out, out.Value, tt.value)
			}
			continue
		}
		if out.Kind != client.ProgramFailed || out.Error == nil || !strings.Contains(out.Error.Message, tt.fail) || (out.Halt != nil) != tt.halt {
			t.Errorf("%s: got %+v, want a failure saying %q (halt %v)", tt.name, out, tt.fail, tt.halt)
		}
	}
}

func (h *harness) hostileErrors(t *testing.T) {
	for _, src := range []string{
		`export default async function () { const e = new Error("x"); Object.defineProperty(e, "message", { get() { throw new Error("getter"); } }); throw e; }`,
		`export default async function () { throw { toString() { throw new Error("toString"); }, get name() { throw 1; } }; }`,
		`export default async function () { throw new Proxy({}, { get() { throw new Error("trap"); }, getPrototypeOf() { throw new Error("proto"); } }); }`,
		`export default async function () { const e = new Error("x"); e.name = { toString() { throw 1; } }; e.stack = Symbol("s"); throw e; }`,
		`export default async function () { throw Object.create(null); }`,
		`export default async function () { return Promise.reject(new Proxy(function () {}, { get() { throw 1; }, apply() { throw 2; } })); }`,
		`export default async function () { Promise.reject(new Error("unhandled")); throw null; }`,
	} {
		out, _ := h.run(t, src, nil)
		if out.Kind != client.ProgramFailed || out.Error == nil || out.Error.Name == "" {
			t.Errorf("%s: got %+v", src, out)
		}
	}
	out, _ := h.run(t, `export default async function ({ result }) { Promise.reject(new Error("ignored")); result.appendText("survived"); }`, nil)
	wantSuccess(t, out, text("survived"))
	// A throw from a timer's callback fails the program (it went on, on
	// Node.js).
	out, _ = h.run(t, `export default async function ({ result }) {
  setTimeout(() => { throw new RangeError("thrown in a timer"); }, 0);
  await new Promise((resolve) => setTimeout(resolve, 100));
  result.appendText("survived");
}`, nil)
	wantFailure(t, out, "RangeError", "thrown in a timer")
}

func (h *harness) seqOrder(t *testing.T) {
	seqs := make(chan string, 16)
	c := h.client(t, nil, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := c.Run(ctx, `export default async function ({ codemode, result }) {
  const a = codemode.add({ a: 1, b: 2 });
  const b = codemode.echo({ value: "x" });
  await Promise.all([a, b]);
  await codemode.add({ a: 0, b: 0 });
}`, client.RunOptions{OnTelemetry: func(e client.Event) {
		if e.Kind == client.EventToolCallStarted {
			seqs <- fmt.Sprintf("%d:%s", e.Seq, e.Tool)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	wantSuccess(t, out)
	close(seqs)
	got := map[string]bool{}
	for s := range seqs {
		got[s] = true
	}
	for _, want := range []string{"1:add", "2:echo", "3:add"} {
		if !got[want] {
			t.Errorf("missing tool call %s in %v", want, got)
		}
	}
}

// concurrent holds n executions in flight at once, each blocked in a tool
// call, then releases them all; every one must finish with its own result.
func (h *harness) concurrent(t *testing.T, n int) {
	started := make(chan struct{}, n)
	release := make(chan struct{})
	gate, err := contract.NewRawTool("gate", "Waits until the test releases every caller.",
		json.RawMessage(`{"type":"object","properties":{"value":{"type":"string"}},"required":["value"],"additionalProperties":false}`),
		json.RawMessage(`{"type":"object","properties":{"value":{"type":"string"}},"required":["value"],"additionalProperties":false}`),
		func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) {
			started <- struct{}{}
			select {
			case <-release:
				return in, nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		})
	if err != nil {
		t.Fatal(err)
	}
	c := h.client(t, nil, nil, gate)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			out, err := c.Run(ctx, fmt.Sprintf(`export default async function ({ codemode, result }) {
  const r = await codemode.gate({ value: "%d" });
  result.appendText(r.value);
}`, i), client.RunOptions{})
			if err != nil {
				errs <- err
				return
			}
			if out.Kind != client.Success || len(out.Content) != 1 || out.Content[0].Text != fmt.Sprint(i) {
				errs <- fmt.Errorf("execution %d: %+v %v", i, out, out.Error)
			}
		}(i)
	}
	for i := 0; i < n; i++ {
		select {
		case <-started:
		case err := <-errs:
			t.Fatalf("after %d blocked tool calls started: %v", i, err)
		case <-ctx.Done():
			t.Fatalf("only %d of %d blocked tool calls started", i, n)
		}
	}
	close(release)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func (s *suite) closeRejects(t *testing.T) {
	rt := s.runtime(t)
	h := &harness{rt: rt}
	started := make(chan struct{}, 3)
	c := h.client(t, nil, started)
	errc := make(chan error, 3)
	for i := 0; i < 3; i++ {
		go func() {
			_, err := c.Run(context.Background(), `export default async function ({ codemode }) { await codemode.block({}); }`, client.RunOptions{})
			errc <- err
		}()
	}
	for i := 0; i < 3; i++ {
		<-started
	}
	if err := rt.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	for i := 0; i < 3; i++ {
		if err := <-errc; !errors.Is(err, client.ErrRuntimeClosed) {
			t.Errorf("in-flight Run returned %v, want ErrRuntimeClosed", err)
		}
	}
	select {
	case <-rt.Done():
	default:
		t.Fatal("Done not closed after Close")
	}
	if f := rt.Err(); !errors.Is(f, client.ErrRuntimeClosed) {
		t.Fatalf("Err = %v, want ErrRuntimeClosed", f)
	}
	if _, err := c.Run(context.Background(), `export default async function () {}`, client.RunOptions{}); !errors.Is(err, client.ErrRuntimeClosed) {
		t.Fatalf("Run after Close returned %v", err)
	}
}

// limits: the per-execution limits of client.Limits mean the same on every
// driver. A deadline is a ProgramFailed TimeoutError naming it, whether the
// program waits on a timer or on a tool call; output past MaxOutput is
// dropped after a notice; content past MaxContent throws a RangeError the
// program can catch; and the runtime serves on.
func (h *harness) limits(t *testing.T) {
	c := h.client(t, nil, nil)
	run := func(t *testing.T, source string, lim client.Limits) (*client.Outcome, *recorder) {
		t.Helper()
		rec := &recorder{}
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		out, err := c.Run(ctx, source, client.RunOptions{Limits: lim, OnTelemetry: rec.observe})
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		return out, rec
	}
	deadline := client.Limits{Timeout: 300 * time.Millisecond}
	for _, tc := range []struct{ name, source string }{
		{"timer", `export default async function () { await new Promise((resolve) => setTimeout(resolve, 60000)); }`},
		{"tool call", `export default async function ({ codemode }) { await codemode.block({}); }`},
	} {
		t.Run("deadline while waiting on a "+tc.name, func(t *testing.T) {
			out, _ := run(t, tc.source, deadline)
			if out.Kind != client.ProgramFailed || out.Error.Name != "TimeoutError" || !strings.Contains(out.Error.Message, "300ms") {
				t.Fatalf("outcome %+v %+v, want a TimeoutError naming the 300ms deadline", out, out.Error)
			}
		})
	}
	t.Run("output", func(t *testing.T) {
		out, rec := run(t, `export default async function ({ console }) { for (let i = 0; i < 100; i++) console.log("0123456789"); }`, client.Limits{MaxOutput: 100})
		wantSuccess(t, out)
		rec.mu.Lock()
		stdout := rec.stdout.String()
		rec.mu.Unlock()
		if !strings.Contains(stdout, "truncated") || strings.Count(stdout, "0123456789") > 10 {
			t.Fatalf("stdout %q: want at most 100 characters of output and a notice", stdout)
		}
	})
	t.Run("content", func(t *testing.T) {
		out, _ := run(t, `export default async function ({ result }) {
  result.appendText("x".repeat(50));
  try { result.appendText("y".repeat(100)); } catch (e) { result.appendText(e.name); }
}`, client.Limits{MaxContent: 100})
		wantSuccess(t, out, text(strings.Repeat("x", 50)), text("RangeError"))
	})
	// A recursion that calls a tool at every level runs out of stack inside
	// the runner's tool call, where the outcome cannot be handed over: it
	// must still end as a RangeError (it ended as a program awaiting a
	// promise nothing could settle on QuickJS, at the deadline on Node.js).
	t.Run("stack exhausted inside tool calls", func(t *testing.T) {
		for i := range 3 {
			out, _ := run(t, `export default async function ({ codemode }) {
  function f(n) { codemode.echo({ value: "q" }); return f(n + 1); }
  return f(0);
}`, client.Limits{MaxInFlightCalls: 1 << 20, Timeout: 30 * time.Second})
			if out.Kind != client.ProgramFailed || out.Error.Name != "RangeError" || !strings.Contains(out.Error.Message, "stack") {
				t.Fatalf("run %d: %s %+v, want a RangeError for the stack", i, out.Kind, out.Error)
			}
		}
	})
	// The same, caught: wherever the stack ran out, a call that took a seq
	// and never reached the host ends the execution, with its error whole.
	// On Node.js the stack could run out inside the runner's promise
	// executor, which swallowed the throw (the program ended as a success
	// with a call lost, or its next call failed the execution as the
	// runner's fault, a seq skipped), or inside socket.write, which broke
	// the socket and the runtime with it; and the error read where no
	// stack was left came out as "Error" with no message.
	t.Run("stack exhausted inside tool calls, caught", func(t *testing.T) {
		// Where the stack runs out depends on the engine's frames: the
		// program first finds how deep f goes, then runs out of stack 30
		// times, each under k more frames, calling the tool only in the
		// last 200 levels. f's frame is large (its locals), so that those
		// levels hold the runner's whole call path.
		const attempts = `
  let depth = 0, from = Infinity;
  function f(n) {
    let a = n + 1, b = a + 1, c = b + 1, d = c + 1, e = d + 1, g = e + 1, h = g + 1, i = h + 1, j = i + 1, l = j + 1;
    let m = l + 1, o = m + 1, p = o + 1, q = p + 1, r = q + 1, s = r + 1, t = s + 1, u = t + 1, v = u + 1, w = v + 1;
    depth = n; if (n > from) codemode.echo({ value: "q" });
    return f(n + 1) + a + b + c + d + e + g + h + i + j + l + m + o + p + q + r + s + t + u + v + w;
  }
  function pad(k) { return k === 0 ? f(0) : pad(k - 1) + 1; }
  try { f(0); } catch {}
  from = depth - 200;
  for (let k = 0; k < 30; k++) try { pad(k); } catch {}`
		for i, source := range []string{
			`export default async function ({ codemode }) {` + attempts + `
  return "went on";
}`, `export default async function ({ codemode }) {` + attempts + `
  return (await codemode.echo({ value: "went on" })).value;
}`} {
			out, _ := run(t, source, client.Limits{MaxInFlightCalls: 1 << 20, Timeout: 30 * time.Second})
			if out.Kind != client.ProgramFailed || out.Error.Name != "RangeError" || out.Error.Message == "" {
				t.Fatalf("program %d: %s %+v %s, want a RangeError with its message", i, out.Kind, out.Error, out.Value)
			}
		}
	})
	out, _ := run(t, `export default async function ({ result }) { result.appendText("still serving"); }`, client.Limits{})
	wantSuccess(t, out, text("still serving"))
}

// busyDeadline: a program that never yields gets a TimeoutError naming its
// deadline on every driver: the runner stops it where it can (QuickJS), and
// the host gives up on it 2 s later where it cannot (a Node.js
// busy loop). Runs on a runtime of its own, which a pool would replace.
func (s *suite) busyDeadline(t *testing.T) {
	rt := s.runtime(t)
	h := &harness{rt: rt}
	c := h.client(t, nil, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := c.Run(ctx, `export default async function () { while (true) {} }`, client.RunOptions{Limits: client.Limits{Timeout: 300 * time.Millisecond}})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if out.Kind != client.ProgramFailed || out.Error.Name != "TimeoutError" || !strings.Contains(out.Error.Message, "300ms") {
		t.Fatalf("outcome %+v %+v, want a TimeoutError naming the 300ms deadline", out, out.Error)
	}
}
