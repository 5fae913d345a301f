package runnertest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/codemode-go/codemode/drivers"
	"github.com/codemode-go/codemode/internal/wire"
	"github.com/codemode-go/codemode/runner"
)

// Conn is a test's end of a runner: it sends execute messages and collects
// what the runner sends back for each.
type Conn struct {
	t    *testing.T
	d    drivers.Driver
	c    drivers.Connection
	r    *wire.Reader
	w    *wire.Writer
	next uint64
	// Ready is the runner's ready message.
	Ready *wire.Message
	// Answer, when set, gives the messages Exec answers a tool call with,
	// in order; nil answers with its input (an echo).
	Answer func(call *wire.Message) []*wire.Message
}

// Dial connects d and reads the ready message.
func Dial(t *testing.T, d drivers.Driver) *Conn {
	t.Helper()
	c, err := d.Connect(context.Background(), drivers.ConnectRequest{RunnerSource: runner.Source})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	conn := &Conn{t: t, d: d, c: c, r: wire.NewReader(c.Channel()), w: wire.NewWriter(c.Channel())}
	m, err := conn.r.Read()
	if err != nil || m.Kind != wire.KindReady {
		t.Fatalf("ready: %+v %v", m, err)
	}
	conn.Ready = m
	return conn
}

// Result is what one execution sent: its tool calls, output and result.
type Result struct {
	Calls  []*wire.Message
	Stdout string
	Stderr string
	Result *wire.Message
}

// Exec runs source with the execute message's fields from m (Execution,
// Source and Filename are set here; without a Scope, nil Namespaces are
// codemode.echo) and answers every tool call with its input (an echo),
// until the result.
func (c *Conn) Exec(source string, m wire.Message) *Result {
	c.t.Helper()
	c.next++
	m.Kind, m.Execution, m.Source, m.Filename = wire.KindExecute, c.next, source, "agent.js"
	if m.Namespaces == nil && m.Scope == "" {
		m.Namespaces = []wire.Namespace{{Name: "codemode", Tools: []string{"echo"}}}
	}
	if err := c.w.Write(&m); err != nil {
		c.t.Fatal(err)
	}
	run := &Result{}
	deadline := time.AfterFunc(60*time.Second, func() { _ = c.c.Close() })
	defer deadline.Stop()
	for {
		got, err := c.r.Read()
		if err != nil {
			select {
			case <-c.c.Done():
			case <-time.After(2 * time.Second):
			}
			c.t.Fatalf("reading execution %d: %v (runtime: %v)", m.Execution, err, c.c.Err())
		}
		if got.Execution != m.Execution {
			c.t.Fatalf("a message for execution %d during %d: %+v", got.Execution, m.Execution, got)
		}
		switch got.Kind {
		case wire.KindToolCall:
			run.Calls = append(run.Calls, got)
			if got.Prefilled {
				continue // answered in the runner (wire 1.3 prefill)
			}
			answers := []*wire.Message{{Kind: wire.KindToolResult, Execution: got.Execution, Seq: got.Seq, Output: got.Input}}
			if c.Answer != nil {
				answers = c.Answer(got)
			}
			for _, a := range answers {
				if err := c.w.Write(a); err != nil {
					c.t.Fatal(err)
				}
			}
		case wire.KindOutput:
			if got.Stream == wire.StreamStdout {
				run.Stdout += got.Text
			} else {
				run.Stderr += got.Text
			}
		case wire.KindResult:
			run.Result = got
			return run
		default:
			c.t.Fatalf("unexpected %s", got.Kind)
		}
	}
}

// Texts returns the text content of a successful result, failing the test
// with the error of a failed one.
func (r *Result) Texts(t *testing.T) []string {
	t.Helper()
	if r.Result.Outcome != wire.OutcomeSuccess {
		t.Fatalf("program failed: %+v", r.Result.Error)
	}
	var out []string
	for _, c := range r.Result.Content {
		out = append(out, c.Text)
	}
	return out
}

// Failed checks that r failed with name and a message matching pattern.
func (r *Result) Failed(t *testing.T, name, pattern string) {
	t.Helper()
	if r.Result.Outcome != wire.OutcomeProgramFailed {
		t.Fatalf("outcome %s, content %+v, want a %s", r.Result.Outcome, r.Result.Content, name)
	}
	e := r.Result.Error
	if e.Name != name || !regexp.MustCompile(pattern).MatchString(e.Message) {
		t.Fatalf("error %s: %s, want %s matching %q", e.Name, e.Message, name, pattern)
	}
}

// seed returns a 16-byte seed made from b.
func seed(b byte) []byte { return bytes.Repeat([]byte{b}, wire.SeedSize) }

// Options describes the driver under test: the caps its options set.
type Options struct {
	// MaxOutput is the driver's MaxOutput (a cap on the execute message's).
	MaxOutput int
}

// Run runs every runner test on d.
func Run(t *testing.T, d drivers.Driver, o Options) {
	c := Dial(t, d)
	t.Run("ReadyCarriesVersions", func(t *testing.T) {
		if v := c.Ready.Versions; v == nil || *v != wire.Supported {
			t.Fatalf("ready versions %+v, want %v", v, wire.Supported)
		}
	})
	t.Run("TamperedBuiltinsCannotReachTheRunner", func(t *testing.T) { tampering(t, c) })
	t.Run("ValueIsTheResolvedJSON", func(t *testing.T) { value(t, c) })
	t.Run("ToolWithTwoArguments", func(t *testing.T) {
		run := c.Exec(`export default async function ({ codemode }) { await codemode.echo({ value: "a" }, 2); }`, wire.Message{})
		run.Failed(t, "TypeError", `^codemode\.echo takes one argument .* called with 2$`)
		if len(run.Calls) != 0 {
			t.Fatalf("the call reached the host: %+v", run.Calls)
		}
	})
	t.Run("SeededRandom", func(t *testing.T) { random(t, c) })
	t.Run("ReplayedClock", func(t *testing.T) { clock(t, c) })
	t.Run("TimerLimit", func(t *testing.T) { timers(t, c) })
	t.Run("ExecuteLimits", func(t *testing.T) { limits(t, c, o) })
	t.Run("Scopes", func(t *testing.T) { scopes(t, fresh(t, c)) })
	t.Run("ScopeSetup", func(t *testing.T) { setups(t, c) })
	t.Run("PrefilledResults", func(t *testing.T) { prefilled(t, c) })
	t.Run("RandomUse", func(t *testing.T) { randomUse(t, c) })
	t.Run("HeldResults", func(t *testing.T) { heldResults(t, c) })
	t.Run("ToolErrorClasses", func(t *testing.T) { toolErrorClasses(t, c) })
	t.Run("ToolErrorData", func(t *testing.T) { toolErrorData(t, c) })
	t.Run("UncaughtErrorData", func(t *testing.T) { uncaughtErrorData(t, c) })
	t.Run("UnhandledRejections", func(t *testing.T) { unhandledRejections(t, c) })
	t.Run("CallsRunningAtTheEnd", func(t *testing.T) { runningAtTheEnd(t, c) })
	t.Run("UnhandledRejectionsHostile", func(t *testing.T) { unhandledHostile(t, c) })
	t.Run("RunnerServesOn", func(t *testing.T) {
		if got := c.Exec(`export default async function ({ result }) { result.appendText("ok"); }`, wire.Message{}).Texts(t); len(got) != 1 || got[0] != "ok" {
			t.Fatalf("got %q", got)
		}
	})
}

// ScopeList is the namespaces of scope name in the Scopes test: codemode
// with echo and a tool named after the scope.
func ScopeList(name string) []wire.Namespace {
	return []wire.Namespace{{Name: "codemode", Tools: []string{"echo", name + "_tool"}}}
}

// ScopeProgram lists the codemode namespace and calls its echo.
const ScopeProgram = `export default async function ({ codemode }) {
  const r = await codemode.echo({ v: 1 });
  return Object.keys(codemode).join(",") + ":" + r.v;
}`

// CheckScope checks that run listed the tools of scope name and called
// echo, or, with name "", that it was refused as scopeUnknown.
func CheckScope(t *testing.T, run *Result, name string) {
	t.Helper()
	if name == "" {
		if !run.Result.ScopeUnknown || run.Result.Outcome != wire.OutcomeProgramFailed || len(run.Calls) != 0 {
			t.Fatalf("got %+v (error %+v) after %d calls, want scopeUnknown before any", run.Result, run.Result.Error, len(run.Calls))
		}
		return
	}
	want := `"echo,` + name + `_tool:1"`
	if run.Result.Outcome != wire.OutcomeSuccess || string(run.Result.Value) != want || run.Result.ScopeUnknown {
		t.Fatalf("got %+v (error %+v, value %s), want the value %s", run.Result, run.Result.Error, run.Result.Value, want)
	}
}

// scopes: a runner keeps the namespaces an execute message carries under
// its scope, runs an execute that names the scope alone with them, and
// answers scopeUnknown (running nothing) for a scope it does not keep: never
// heard of, or evicted (it keeps 16, the least recently used going first).
func scopes(t *testing.T, c *Conn) {
	scope := func(name string) string { return "sha256:" + name }
	CheckScope(t, c.Exec(ScopeProgram, wire.Message{Scope: scope("never")}), "")
	CheckScope(t, c.Exec(ScopeProgram, wire.Message{Scope: scope("a"), Namespaces: ScopeList("a")}), "a")
	CheckScope(t, c.Exec(ScopeProgram, wire.Message{Scope: scope("b"), Namespaces: ScopeList("b")}), "b")
	CheckScope(t, c.Exec(ScopeProgram, wire.Message{Scope: scope("a")}), "a")
	CheckScope(t, c.Exec(ScopeProgram, wire.Message{Scope: scope("b")}), "b")
	// Without a scope the list is used and kept under nothing.
	CheckScope(t, c.Exec(ScopeProgram, wire.Message{Namespaces: ScopeList("c")}), "c")
	// The same scope sent again with its list replaces nothing else.
	CheckScope(t, c.Exec(ScopeProgram, wire.Message{Scope: scope("a"), Namespaces: ScopeList("a")}), "a")
	// a was used last: 15 more scopes evict b alone.
	for i := range 15 {
		name := fmt.Sprintf("n%d", i)
		CheckScope(t, c.Exec(ScopeProgram, wire.Message{Scope: scope(name), Namespaces: ScopeList(name)}), name)
	}
	CheckScope(t, c.Exec(ScopeProgram, wire.Message{Scope: scope("b")}), "")
	CheckScope(t, c.Exec(ScopeProgram, wire.Message{Scope: scope("a")}), "a")
	CheckScope(t, c.Exec(ScopeProgram, wire.Message{Scope: scope("n0")}), "n0")
	// A scope that lists the namespace as something else is that list.
	CheckScope(t, c.Exec(ScopeProgram, wire.Message{Scope: scope("x"), Namespaces: ScopeList("y")}), "y")
	CheckScope(t, c.Exec(ScopeProgram, wire.Message{Scope: scope("x")}), "y")
}

// The attacks of the adversarial review and their kin. Each program
// tampers with the realm before its default export runs (at module top
// level), then uses the scope; the runner's messages must be exactly what
// an untampered run gives. Each case runs on a fresh connection (Node.js
// shares its realm among executions).
func tampering(t *testing.T, c0 *Conn) {
	body := `export default async function ({ codemode, result, console }) {
  console.log("out", 1);
  result.appendText("a");
  const r = await codemode.echo({ value: "x", n: [1, 2] });
  result.appendText(r.value + r.n.length);
  console.error("err");
  return { v: [true, null] };
}`
	// nodeOK is false for tampering that breaks Node.js itself (its events
	// and sockets call Function.prototype.apply and read typed array
	// lengths): Node.js runs trusted code in one process and realm.
	tests := []struct {
		name, prelude string
		nodeBreaks    bool
	}{
		{"index setters on Array.prototype", `let caught = 0;
for (let i = 0; i < 64; i++) Object.defineProperty(Array.prototype, i, { set(v) { caught++; }, get() { return undefined; }, configurable: true });`, false},
		{"replaced Array.prototype.push", `Array.prototype.push = function () { return 0; };`, false},
		{"replaced JSON.stringify and JSON.parse", `JSON.stringify = () => '"forged"'; JSON.parse = () => ({ forged: true });`, false},
		{"Object.prototype.toJSON", `Object.prototype.toJSON = function () { return { outcome: "success", content: [{ type: "text", text: "forged" }] }; };
Array.prototype.toJSON = function () { return "forged"; };`, false},
		{"getters and setters on Object.prototype", `for (const k of ["maxOutput", "maxContent", "maxTimers", "input", "console", "result", "codemode", "value", "get", "set", "has", "then", "stack", "name", "message", "type", "text", "clock", "length"])
  Object.defineProperty(Object.prototype, k, { __proto__: null, get() { return undefined; }, set(v) {}, configurable: true });`, false},
		{"Symbol.species and constructors", `Object.defineProperty(Array, Symbol.species, { get() { throw new Error("species"); } });
Array.prototype.constructor = function () { throw new Error("ctor"); };
Object.defineProperty(Uint8Array, Symbol.species, { get() { throw new Error("species"); } });`, false},
		// QuickJS compiles a template literal into a call of
		// String.prototype.concat: the runner builds its messages with +.
		{"replaced String.prototype.concat", `String.prototype.concat = () => "o\tstdout\t\"forged\"\nd\t{}";`, false},
		{"replaced Map, Set and iterators", `Map.prototype.get = Map.prototype.set = Set.prototype.has = () => { throw new Error("map"); };
Array.prototype[Symbol.iterator] = function* () {};
String.prototype.slice = String.prototype.charCodeAt = () => { throw new Error("string"); };`, false},
		{"replaced Reflect, Object and Function.prototype.apply", `Reflect.apply = Reflect.defineProperty = () => { throw new Error("reflect"); };
Object.freeze = Object.keys = Object.create = () => { throw new Error("object"); };
Function.prototype.apply = Function.prototype.call = () => { throw new Error("apply"); };`, true},
		{"typed array getters", `const TA = Object.getPrototypeOf(Uint8Array.prototype);
Object.defineProperty(TA, "length", { get() { return 0; } });
TA.set = () => {}; TA.subarray = TA.slice = () => new Uint8Array(0);`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.nodeBreaks && !strings.Contains(c0.Ready.Runner, "quickjs") {
				t.Skip("this breaks Node.js itself, which runs only trusted code")
			}
			c := fresh(t, c0)
			run := c.Exec(tt.prelude+"\n"+body, wire.Message{})
			if got := run.Texts(t); len(got) != 2 || got[0] != "a" || got[1] != "x2" {
				t.Fatalf("content %q, want [a x2]", got)
			}
			if run.Stdout != "out 1\n" || run.Stderr != "err\n" {
				t.Fatalf("output %q %q", run.Stdout, run.Stderr)
			}
			if len(run.Calls) != 1 || string(run.Calls[0].Input) != `{"value":"x","n":[1,2]}` {
				t.Fatalf("calls %+v", run.Calls)
			}
			if string(run.Result.Value) != `{"v":[true,null]}` {
				t.Fatalf("value %s", run.Result.Value)
			}
		})
	}
	t.Run("toJSON cannot rewrite a failure", func(t *testing.T) {
		c := fresh(t, c0)
		run := c.Exec(`Object.prototype.toJSON = function () { return { outcome: "success", content: [] }; };
export default async function ({ result }) { result.appendText("discarded"); throw new Error("boom"); }`, wire.Message{})
		run.Failed(t, "Error", "^boom$")
	})
}

// fresh returns c when its runner gives every execution a fresh realm
// (QuickJS), else a new connection (Node.js shares one realm).
func fresh(t *testing.T, c *Conn) *Conn {
	if strings.Contains(c.Ready.Runner, "quickjs") {
		return c
	}
	return Dial(t, c.d)
}

// setups runs programs with a scope setup (wire 1.3): applied to the
// scope, kept compiled between executions, its failures the program's.
func setups(t *testing.T, c *Conn) {
	const add = `(s) => ({ ...s, extra: 42 })`
	for round := range 2 {
		run := c.Exec(`export default async (s) => [s.extra, typeof s.codemode.echo]`, wire.Message{Setup: add})
		run.Texts(t)
		if string(run.Result.Value) != `[42,"function"]` {
			t.Fatalf("round %d: value %s", round, run.Result.Value)
		}
	}
	run := c.Exec(`export default async (s) => s.extra === undefined`, wire.Message{})
	if run.Texts(t); string(run.Result.Value) != `true` {
		t.Fatalf("an execution without the setup got its scope: %s", run.Result.Value)
	}
	c.Exec(`export default async () => 1`, wire.Message{Setup: `(s) => {`}).Failed(t, "SyntaxError", ``)
	run = c.Exec(`export default async () => 1`, wire.Message{Setup: `(s) => { throw new RangeError("no scope for you"); }`})
	run.Failed(t, "RangeError", `^no scope for you$`)
	if !strings.Contains(run.Result.Error.Stack, wire.SetupFilename) {
		t.Errorf("the setup's frame is not named %s: %q", wire.SetupFilename, run.Result.Error.Stack)
	}
	c.Exec(`export default async () => 1`, wire.Message{Setup: `42`}).Failed(t, "TypeError", `scope setup is number, not a function`)
	// A module's top level runs before the setup is called, but after it
	// was compiled: replacing globals changes nothing the setup's text
	// means (it uses none). They are put back for the executions after
	// (Node.js runs them in one realm).
	run = c.Exec(`const O = Object, R = Reflect; globalThis.Object = null; globalThis.Reflect = null;
export default async (s) => { globalThis.Object = O; globalThis.Reflect = R; return s.extra; }`, wire.Message{Setup: add})
	if run.Texts(t); string(run.Result.Value) != `42` {
		t.Fatalf("value %s", run.Result.Value)
	}
}

// prefilled runs a program whose first call's result the execute message
// carries (wire 1.3): answered in the runner, reported as prefilled.
func prefilled(t *testing.T, c *Conn) {
	run := c.Exec(`export default async ({ codemode }) => {
  const a = await codemode.echo({ value: "x" });
  const b = await codemode.echo({ value: "y" });
  return [a.value, b.value];
}`, wire.Message{Prefill: []wire.Prefilled{{Seq: 1, Output: []byte(`{"value":"prefilled"}`)}}})
	run.Texts(t)
	if string(run.Result.Value) != `["prefilled","y"]` {
		t.Fatalf("value %s", run.Result.Value)
	}
	if len(run.Calls) != 2 || !run.Calls[0].Prefilled || run.Calls[1].Prefilled || run.Calls[0].Seq != 1 || string(run.Calls[0].Input) != `{"value":"x"}` {
		t.Fatalf("calls %+v, want seq 1 prefilled with its input, then seq 2 asked", run.Calls)
	}
}

// toolErrorClasses: a tool call's rejection is an instance of the class of
// its name where there is one, the runtime's own (ToolValidationError,
// MCPToolError, HTTPError; globals) and JavaScript's (TypeError, RangeError), and an
// Error of that name otherwise; a program can make one itself.
func toolErrorClasses(t *testing.T, c0 *Conn) {
	const program = `export default async ({ codemode }) => {
  const seen = [];
  for (const name of ["ToolValidationError", "MCPToolError", "TypeError", "RangeError", "HTTPError"]) {
    try {
      await codemode.echo({ value: name });
      seen.push(name + " fulfilled");
    } catch (e) {
      let kinds = e.name + ": " + e.message + " is";
      if (e instanceof Error) kinds += " Error";
      if (e instanceof ToolValidationError) kinds += " ToolValidationError";
      if (e instanceof MCPToolError) kinds += " MCPToolError";
      if (e instanceof HTTPError) kinds += " HTTPError";
      if (e instanceof TypeError) kinds += " TypeError";
      if (e instanceof RangeError) kinds += " RangeError";
      seen.push(kinds);
    }
  }
  const own = new MCPToolError("mine");
  seen.push(String(own) + " " + (own instanceof Error) + " " + MCPToolError.name);
  return seen.join("; ");
}`
	c0.Answer = func(call *wire.Message) []*wire.Message {
		var in struct{ Value string }
		_ = json.Unmarshal(call.Input, &in)
		return []*wire.Message{{Kind: wire.KindToolResult, Execution: call.Execution, Seq: call.Seq, Error: &wire.Error{Name: in.Value, Message: "m"}}}
	}
	defer func() { c0.Answer = nil }()
	run := c0.Exec(program, wire.Message{})
	run.Texts(t)
	want := "ToolValidationError: m is Error ToolValidationError; MCPToolError: m is Error MCPToolError; TypeError: m is Error TypeError; " +
		"RangeError: m is Error RangeError; HTTPError: m is Error HTTPError; MCPToolError: mine true MCPToolError"
	var got string
	if err := json.Unmarshal(run.Result.Value, &got); err != nil || got != want {
		t.Fatalf("value %s, want %q", run.Result.Value, want)
	}
}

// toolErrorData: an error's data (wire 1.7) gives the rejection own,
// enumerable properties beside its name and message; members that would
// replace the name, message or stack, or read as the object's wiring
// (constructor, __proto__, or a member of Error.prototype or
// Object.prototype, such as toString, whose string would make String(e)
// throw), are skipped; data that is not an object gives none.
func toolErrorData(t *testing.T, c0 *Conn) {
	const program = `export default async ({ codemode }) => {
  const seen = [];
  for (const value of ["object", "array"]) {
    try {
      await codemode.echo({ value });
    } catch (e) {
      seen.push([e.name, e.message, typeof e.status, e.status, e.nested?.list?.[1] ?? "-", Object.keys(e).join(),
        e instanceof HTTPError, Object.getPrototypeOf(e) === HTTPError.prototype, String(e.stack).includes("forged"), String(e), e.valueOf() === e].join(" "));
    }
  }
  return seen.join("; ");
}`
	c0.Answer = func(call *wire.Message) []*wire.Message {
		var in struct{ Value string }
		_ = json.Unmarshal(call.Input, &in)
		data := `{"status":404,"nested":{"list":[1,"two"]},"name":"Forged","message":"forged","stack":"forged","constructor":"forged","__proto__":{"forged":true},"toString":"forged","valueOf":1,"hasOwnProperty":"forged"}`
		if in.Value == "array" {
			data = `[1,2]`
		}
		return []*wire.Message{{Kind: wire.KindToolResult, Execution: call.Execution, Seq: call.Seq,
			Error: &wire.Error{Name: "HTTPError", Message: "HTTP 404 Not Found", Data: json.RawMessage(data)}}}
	}
	defer func() { c0.Answer = nil }()
	run := c0.Exec(program, wire.Message{})
	run.Texts(t)
	want := "HTTPError HTTP 404 Not Found number 404 two status,nested true true false HTTPError: HTTP 404 Not Found true; " +
		"HTTPError HTTP 404 Not Found undefined  -  true true false HTTPError: HTTP 404 Not Found true"
	var got string
	if err := json.Unmarshal(run.Result.Value, &got); err != nil || got != want {
		t.Fatalf("value %s, want %q", run.Result.Value, want)
	}
}

// uncaughtErrorData: the error a program ends with carries its own,
// enumerable properties as the result error's data (wire 1.7), those of a
// tool's rejection as those a program set: what JSON cannot hold, what
// throws when read and what would pass the bound are left out, and a
// Proxy whose traps throw, or a thrown object whose JSON is its message
// already, gives none.
func uncaughtErrorData(t *testing.T, c0 *Conn) {
	c0.Answer = func(call *wire.Message) []*wire.Message {
		return []*wire.Message{{Kind: wire.KindToolResult, Execution: call.Execution, Seq: call.Seq,
			Error: &wire.Error{Name: "QuotaError", Message: "quota of 100 calls exceeded", Data: json.RawMessage(`{"limit":100,"retryAfterSeconds":30}`)}}}
	}
	defer func() { c0.Answer = nil }()
	const own = `const e = new Error("mine");
  e.huge = new Array(1e6).fill(1);
  e.code = "E1"; e.fn = () => 1; e.none = undefined; e.when = new Date(0); e.big = "x".repeat(5000);
  e.cycle = {}; e.cycle.self = e.cycle; e.map = new Map();
  Object.defineProperty(e, "bad", { enumerable: true, get() { throw new Error("getter"); } });
  Object.defineProperty(e, "hidden", { value: 1, enumerable: false });
  e.list = [1, "two"];
  throw e;`
	for _, tc := range []struct {
		name, body, data string
	}{
		{"a tool's rejection", `await codemode.echo({});`, `{"limit":100,"retryAfterSeconds":30}`},
		{"a program's error", own, `{"code":"E1","when":"1970-01-01T00:00:00.000Z","list":[1,"two"]}`},
		{"a Proxy whose traps throw", `throw new Proxy(new Error("p"), { ownKeys() { throw new Error("trap"); } });`, ``},
		{"a thrown object", `throw { a: 1 };`, ``},
		{"an error without properties", `null.x;`, ``},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := c0.Exec(`export default async ({ codemode }) => { `+tc.body+` }`, wire.Message{})
			if run.Result.Outcome != wire.OutcomeProgramFailed || string(run.Result.Error.Data) != tc.data {
				t.Fatalf("outcome %s, error %+v, data %s; want data %s", run.Result.Outcome, run.Result.Error, run.Result.Error.Data, tc.data)
			}
		})
	}
	t.Run("bounded", func(t *testing.T) {
		run := c0.Exec(`export default async () => { const e = new RangeError("many"); for (let i = 0; i < 100; i++) e["k" + i] = "y".repeat(50); throw e; }`, wire.Message{})
		d := run.Result.Error.Data
		if len(d) < 1900 || len(d) > 2048 || !json.Valid(d) || !bytes.HasPrefix(d, []byte(`{"k0":"yy`)) {
			t.Fatalf("data of %d bytes: %.80s...", len(d), d)
		}
	})
}

// failingEcho answers echo calls with {"v": 1} with a ToolValidationError
// ("m"), those with {"v": 9} never, and the others with their input, each
// as the call arrives.
func failingEcho(call *wire.Message) []*wire.Message {
	var in struct{ V int }
	_ = json.Unmarshal(call.Input, &in)
	switch in.V {
	case 1:
		return []*wire.Message{{Kind: wire.KindToolResult, Execution: call.Execution, Seq: call.Seq, Error: &wire.Error{Name: "ToolValidationError", Message: "m"}}}
	case 9:
		return nil
	}
	return []*wire.Message{{Kind: wire.KindToolResult, Execution: call.Execution, Seq: call.Seq, Output: call.Input}}
}

// unhandled is the warning line for a promise left rejected with reason.
func unhandled(reason string) string {
	return "warning: a promise was rejected and nothing handled it: " + reason + " (did the program forget an await or a catch?)\n"
}

// unhandledRejections: a promise the program lets reject with no handler,
// and that has none when the program ends, is a warning line on stderr
// before the outcome, with its reason: a failed tool call it never
// awaited, a rejection it made. One it awaits, catches, hands to then with
// a rejection handler, to Promise.allSettled or to Promise.all whose
// promise it catches, or returns, is not, nor one it handles later (after
// ticks, or after a timer), nor the error it ends with.
func unhandledRejections(t *testing.T, c0 *Conn) {
	c0.Answer = failingEcho
	defer func() { c0.Answer = nil }()
	failed := unhandled("ToolValidationError: m")
	tests := []struct {
		name, body string
		stderr     string
	}{
		// A body with "throw" or "return Promise.reject" fails the program.
		{"a failed call never awaited", `codemode.echo({ v: 1 }); await codemode.echo({ v: 2 });`, failed},
		{"failed calls in a loop", `for (let i = 0; i < 3; i++) codemode.echo({ v: 1 }); await codemode.echo({ v: 2 });`, failed + failed + failed},
		{"the program fails too", `codemode.echo({ v: 1 }); await codemode.echo({ v: 2 }); throw new Error("x");`, failed},
		{"awaited", `try { await codemode.echo({ v: 1 }); } catch {}`, ""},
		{"awaited after it failed", `const p = codemode.echo({ v: 1 }); await codemode.echo({ v: 2 }); try { await p; } catch {}`, ""},
		{"caught", `codemode.echo({ v: 1 }).catch(() => {}); await codemode.echo({ v: 2 });`, ""},
		{"then with a rejection handler", `codemode.echo({ v: 1 }).then(() => {}, () => {}); await codemode.echo({ v: 2 });`, ""},
		{"finally, caught", `codemode.echo({ v: 1 }).finally(() => {}).catch(() => {}); await codemode.echo({ v: 2 });`, ""},
		{"all settled", `await Promise.allSettled([codemode.echo({ v: 1 }), codemode.echo({ v: 2 })]);`, ""},
		{"all, caught", `await Promise.all([codemode.echo({ v: 2 }), codemode.echo({ v: 1 })]).catch(() => {});`, ""},
		{"returned, caught", `const p = codemode.echo({ v: 1 }); await codemode.echo({ v: 2 }); return p.catch(() => "caught");`, ""},
		{"handled after ticks", `const p = codemode.echo({ v: 1 }); await codemode.echo({ v: 2 }); await null; await null; p.catch(() => {});`, ""},
		{"handled after a timer", `const p = Promise.reject(new Error("x")); await new Promise((r) => setTimeout(r, 20)); p.catch(() => {});`, ""},
		{"a rejection the program made", `Promise.reject(new Error("x"));`, unhandled("Error: x")},
		{"a rejection of a value", `Promise.reject(42); Promise.reject("no"); Promise.reject();`, unhandled("42") + unhandled("no") + unhandled("undefined")},
		{"an async function that threw", `(async () => { throw new TypeError("y"); })();`, unhandled("TypeError: y")},
		{"a then that threw", `codemode.echo({ v: 2 }).then(() => { throw new RangeError("z"); }); await codemode.echo({ v: 3 });`, unhandled("RangeError: z")},
		{"the rejection it returns", `return Promise.reject(new Error("x"));`, ""},
		{"the error it throws", `throw new Error("x");`, ""},
		{"a fulfilled call never awaited", `codemode.echo({ v: 2 }); await codemode.echo({ v: 3 });`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := c0.Exec("export default async ({ codemode }) => { "+tt.body+" }", wire.Message{})
			fails := strings.Contains(tt.body, "throw new Error") || strings.HasPrefix(tt.body, "return Promise.reject")
			if failed := run.Result.Outcome == wire.OutcomeProgramFailed; failed != fails {
				t.Fatalf("outcome %s, error %+v", run.Result.Outcome, run.Result.Error)
			}
			if run.Stderr != tt.stderr {
				t.Fatalf("stderr\n%q\nwant\n%q", run.Stderr, tt.stderr)
			}
		})
	}
	for _, module := range []string{
		`throw new Error("x"); export default async () => {};`,
		`await null; throw new Error("x"); export default async () => {};`,
		`export default async () => {}; await Promise.reject(new Error("x"));`,
	} {
		t.Run("a module that throws: "+module, func(t *testing.T) {
			run := c0.Exec(module, wire.Message{})
			run.Failed(t, "Error", "^x$")
			if run.Stderr != "" {
				t.Fatalf("stderr %q", run.Stderr)
			}
		})
	}
}

// runningAtTheEnd: the tool calls still running when the program ends
// (the host never answered them: the program never awaited them), whether
// it succeeds or fails, are one note on stderr naming their tools; a call
// the program let go on purpose (void) is named too, as the host drops it
// all the same.
func runningAtTheEnd(t *testing.T, c0 *Conn) {
	c0.Answer = failingEcho
	defer func() { c0.Answer = nil }()
	one := "note: 1 tool call (codemode.echo) was still running when the program ended; its result, or its error, was dropped (await a call whose outcome matters)\n"
	tests := []struct {
		name, body string
		stderr     string
	}{
		{"never awaited", `codemode.echo({ v: 9 }); return 1;`, one},
		{"let go on purpose", `void codemode.echo({ v: 9 }).catch(() => {});`, one},
		{"two, the program failed", `codemode.echo({ v: 9 }); codemode.echo({ v: 9 }); throw new Error("x");`,
			"note: 2 tool calls (codemode.echo) were still running when the program ended; their results, or errors, were dropped (await a call whose outcome matters)\n"},
		{"after a failed one", `codemode.echo({ v: 1 }); await codemode.echo({ v: 2 }); codemode.echo({ v: 9 });`, unhandled("ToolValidationError: m") + one},
		{"all answered", `codemode.echo({ v: 2 }); await codemode.echo({ v: 2 });`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := c0.Exec("export default async ({ codemode }) => { "+tt.body+" }", wire.Message{})
			if run.Stderr != tt.stderr {
				t.Fatalf("stderr\n%q\nwant\n%q", run.Stderr, tt.stderr)
			}
		})
	}
	t.Run("past the deadline", func(t *testing.T) {
		run := c0.Exec(`export default async ({ codemode }) => { codemode.echo({ v: 9 }); Promise.reject(new Error("x")); await new Promise(() => setTimeout(() => {}, 60000)); }`,
			wire.Message{Limits: &wire.Limits{TimeoutMs: 300}})
		run.Failed(t, "TimeoutError", "deadline")
		if run.Stderr != "" {
			t.Fatalf("stderr %q: a limit stopped the program, which left nothing behind it chose to", run.Stderr)
		}
	})
}

// unhandledHostile: rejections a program makes to hurt the host fail
// nothing but, at most, the program: thousands of them are ten lines and a
// count, and hold no memory past those ten (each reason here holds 64 KiB,
// and 2,000 of them are far past QuickJS's memory limit); a long reason
// is cut at 1,024 characters; a reason whose name, message and toString
// throw, a Proxy whose traps throw and a revoked Proxy read as "Error"; a
// reason's getter that rejects again while the warning is written adds
// nothing; a warning past the output limit is cut with the rest.
func unhandledHostile(t *testing.T, c0 *Conn) {
	t.Run("thousands", func(t *testing.T) {
		run := c0.Exec(`export default async () => {
  for (let i = 0; i < 2000; i++) {
    const e = new Error(String(i));
    e.held = new ArrayBuffer(1 << 16);
    Promise.reject(e);
  }
}`, wire.Message{})
		run.Texts(t)
		var want strings.Builder
		for i := range 10 {
			want.WriteString(unhandled(fmt.Sprintf("Error: %d", i)))
		}
		want.WriteString("warning: 1990 more promises were rejected and nothing handled them\n")
		if run.Stderr != want.String() {
			t.Fatalf("stderr\n%q\nwant\n%q", run.Stderr, want.String())
		}
	})
	t.Run("a long reason", func(t *testing.T) {
		run := c0.Exec(`export default async () => { Promise.reject(new Error("y".repeat(5000))); }`, wire.Message{})
		run.Texts(t)
		if want := unhandled("Error: " + strings.Repeat("y", 1024-len("Error: ")) + "…"); run.Stderr != want {
			t.Fatalf("stderr of %d bytes: %.100q, want %d bytes", len(run.Stderr), run.Stderr, len(want))
		}
	})
	tests := []struct {
		name, body string
		stderr     string
	}{
		{"getters and toString that throw", `Promise.reject({ get name() { throw 1; }, get message() { throw 2; }, toString() { throw 3; }, toJSON() { throw 4; } });`, unhandled("Error")},
		{"a Proxy whose traps throw", `Promise.reject(new Proxy({}, { get() { throw new Error("trap"); }, getPrototypeOf() { throw new Error("trap"); }, ownKeys() { throw new Error("trap"); } }));`, unhandled("Error")},
		{"a revoked Proxy", `const r = Proxy.revocable({}, {}); r.revoke(); Promise.reject(r.proxy);`, unhandled("Error")},
		{"a getter that rejects again", `Promise.reject({ get name() { Promise.reject(new Error("again")); return "Sly"; }, message: "m" });`, unhandled("Sly: m")},
		{"a getter that throws an error with a getter", `Promise.reject({ get message() { throw { get message() { throw 1; } }; } });`, unhandled("Error: [object Object]")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := c0.Exec("export default async () => { "+tt.body+" }", wire.Message{})
			run.Texts(t)
			if run.Stderr != tt.stderr {
				t.Fatalf("stderr\n%q\nwant\n%q", run.Stderr, tt.stderr)
			}
		})
	}
	t.Run("past the output limit", func(t *testing.T) {
		run := c0.Exec(`export default async ({ console }) => { console.error("e".repeat(90)); Promise.reject(new Error("x")); }`,
			wire.Message{Limits: &wire.Limits{MaxOutput: 100}})
		run.Texts(t)
		want := strings.Repeat("e", 90) + "\n" + unhandled("Error: x")[:9] + "\n[program output truncated at the limit of 100 characters]\n"
		if run.Stderr != want {
			t.Fatalf("stderr\n%q\nwant\n%q", run.Stderr, want)
		}
	})
	t.Run("the runner serves on", func(t *testing.T) {
		if got := c0.Exec(`export default async function ({ result }) { result.appendText("ok"); }`, wire.Message{}).Texts(t); len(got) != 1 || got[0] != "ok" {
			t.Fatalf("got %q", got)
		}
	})
}

// heldResults: a held output (wire 1.6) settles its call only when the
// host's verdict follows: a release fulfils it with the output, an error
// rejects it and the program never sees the output; a release with nothing
// held, and a second held output, change nothing.
func heldResults(t *testing.T, c0 *Conn) {
	const program = `export default async ({ codemode }) => {
  try {
    const r = await codemode.echo({ value: "x" });
    return "value " + JSON.stringify(r);
  } catch (e) {
    return "error " + e.name + ": " + e.message;
  }
}`
	result := func(call *wire.Message, m wire.Message) *wire.Message {
		m.Kind, m.Execution, m.Seq = wire.KindToolResult, call.Execution, call.Seq
		return &m
	}
	invalid := &wire.Error{Name: "ToolValidationError", Message: "codemode.echo output validation failed"}
	// Large outputs may take another road to the program's value (the
	// QuickJS runner reads them from the engine's own serialised form).
	large := []byte(`{"held":[` + strings.Repeat(`{"k":"v\u00e9","n":-0.5},`, 500) + `1]}`)
	largeValue := `value ` + strings.ReplaceAll(string(large), `\u00e9`, "é") // as JSON.stringify writes it
	tests := []struct {
		name   string
		answer func(call *wire.Message) []*wire.Message
		want   string
	}{
		{"released", func(call *wire.Message) []*wire.Message {
			return []*wire.Message{result(call, wire.Message{Output: []byte(`{"held":[1,2]}`), Held: true}), result(call, wire.Message{Release: true})}
		}, `value {"held":[1,2]}`},
		{"refused", func(call *wire.Message) []*wire.Message {
			return []*wire.Message{result(call, wire.Message{Output: []byte(`{"secret":"held"}`), Held: true}), result(call, wire.Message{Error: invalid})}
		}, `error ToolValidationError: codemode.echo output validation failed`},
		{"not JSON, refused", func(call *wire.Message) []*wire.Message {
			return []*wire.Message{result(call, wire.Message{Output: []byte(`{"a":`), Held: true}), result(call, wire.Message{Error: invalid})}
		}, `error ToolValidationError: codemode.echo output validation failed`},
		{"not JSON, released", func(call *wire.Message) []*wire.Message {
			return []*wire.Message{result(call, wire.Message{Output: []byte(`{"a":`), Held: true}), result(call, wire.Message{Release: true})}
		}, `error SyntaxError: `},
		{"release with nothing held", func(call *wire.Message) []*wire.Message {
			return []*wire.Message{result(call, wire.Message{Release: true}), result(call, wire.Message{Output: []byte(`{"plain":true}`)})}
		}, `value {"plain":true}`},
		{"large, released", func(call *wire.Message) []*wire.Message {
			return []*wire.Message{result(call, wire.Message{Output: large, Held: true}), result(call, wire.Message{Release: true})}
		}, largeValue},
		{"large, refused", func(call *wire.Message) []*wire.Message {
			return []*wire.Message{result(call, wire.Message{Output: large, Held: true}), result(call, wire.Message{Error: invalid})}
		}, `error ToolValidationError: codemode.echo output validation failed`},
		{"large, not held", func(call *wire.Message) []*wire.Message {
			return []*wire.Message{result(call, wire.Message{Output: large})}
		}, largeValue},
		{"held twice", func(call *wire.Message) []*wire.Message {
			return []*wire.Message{result(call, wire.Message{Output: []byte(`1`), Held: true}), result(call, wire.Message{Output: []byte(`2`), Held: true}), result(call, wire.Message{Release: true})}
		}, `value 1`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c0.Answer = tt.answer
			defer func() { c0.Answer = nil }()
			run := c0.Exec(program, wire.Message{})
			run.Texts(t)
			var got string
			if err := json.Unmarshal(run.Result.Value, &got); err != nil || !strings.HasPrefix(got, tt.want) {
				t.Fatalf("value %.300s (%d bytes), want a string starting %.300q", run.Result.Value, len(run.Result.Value), tt.want)
			}
		})
	}
}

// randomUse runs a program that uses the random streams between calls: each
// tool call says how much it had used (wire 1.3).
func randomUse(t *testing.T, c *Conn) {
	run := c.Exec(`export default async ({ codemode }) => {
  await codemode.echo({ value: "a" });
  Math.random(); Math.random(); crypto.randomUUID(); crypto.getRandomValues(new Uint8Array(10));
  await codemode.echo({ value: "b" });
  Math.random();
  await codemode.echo({ value: "c" });
}`, wire.Message{Seed: seed(7)})
	run.Texts(t)
	want := [][2]uint64{{0, 0}, {2, 26}, {3, 26}}
	if len(run.Calls) != len(want) {
		t.Fatalf("%d calls, want %d", len(run.Calls), len(want))
	}
	for i, w := range want {
		if got := [2]uint64{run.Calls[i].RandomDraws, run.Calls[i].RandomBytes}; got != w {
			t.Errorf("call %d: random use %v, want %v", i+1, got, w)
		}
	}
}

func value(t *testing.T, c *Conn) {
	tests := []struct {
		name, expr, want, errPattern string
	}{
		{"an object", `({ a: [1, "x", null, true], d: new Date(0), u: undefined, n: -0.5 })`, `{"a":[1,"x",null,true],"d":"1970-01-01T00:00:00.000Z","n":-0.5}`, ""},
		{"a string", `"s"`, `"s"`, ""},
		{"null", `null`, `null`, ""},
		{"undefined", `undefined`, ``, ""},
		{"a class with toJSON", `new (class { toJSON() { return 1; } })()`, ``, `^the program's value is not JSON: value is not a plain object`},
		{"a bigint deep inside", `({ a: [{ b: 1n }] })`, ``, `^the program's value is not JSON: value\.a\[0\]\.b is a bigint$`},
		{"a cycle", `(() => { const o = { k: {} }; o.k.self = o; return o; })()`, ``, `^the program's value is not JSON: value\.k\.self is a circular reference$`},
		{"a function", `({ f() {} })`, ``, `value\.f is a function`},
		{"a symbol", `[Symbol("s")]`, ``, `value\[0\] is a symbol`},
		{"NaN", `({ x: NaN })`, ``, `value\.x is NaN`},
		{"an invalid date", `new Date(NaN)`, ``, `value is an invalid Date`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := c.Exec(`export default async function () { return `+tt.expr+`; }`, wire.Message{})
			if tt.errPattern != "" {
				run.Failed(t, "TypeError", tt.errPattern)
				return
			}
			run.Texts(t)
			if string(run.Result.Value) != tt.want {
				t.Fatalf("value %q, want %q", run.Result.Value, tt.want)
			}
			if tt.want == "" && run.Result.Value != nil {
				t.Fatalf("value %q for undefined", run.Result.Value)
			}
		})
	}
}

func random(t *testing.T, c *Conn) {
	src := `export default async function () { return [Math.random(), Math.random(), Math.random()]; }`
	get := func(s []byte) string {
		run := c.Exec(src, wire.Message{Seed: s})
		run.Texts(t)
		return string(run.Result.Value)
	}
	a, b := get(seed(7)), get(seed(7))
	if a != b {
		t.Fatalf("one seed, two sequences: %s %s", a, b)
	}
	if other := get(seed(8)); other == a {
		t.Fatalf("two seeds, one sequence: %s", a)
	}
	if x, y := get(nil), get(nil); x == y {
		t.Fatalf("two unseeded executions gave one sequence: %s", x)
	}
	var xs []float64
	if err := json.Unmarshal([]byte(a), &xs); err != nil {
		t.Fatal(err)
	}
	for _, x := range xs {
		if x < 0 || x >= 1 {
			t.Fatalf("Math.random gave %v", x)
		}
	}
}

func clock(t *testing.T, c *Conn) {
	src := `export default async function ({ codemode }) {
  const a = Date.now();
  await codemode.echo({ value: "x" });
  const b = new Date().getTime();
  const fixed = new Date(5).getTime();
  const s = typeof Date();
  const c = Date.now();
  return [a, b, fixed, s, c > 1.7e12, new Date() instanceof Date];
}`
	run := c.Exec(src, wire.Message{Clock: []float64{1000, 2000.5, 3000}})
	run.Texts(t)
	// new Date(2000.5) is 2000: a Date holds whole milliseconds.
	if string(run.Result.Value) != `[1000,2000,5,"string",true,true]` {
		t.Fatalf("value %s", run.Result.Value)
	}
	if len(run.Calls) != 1 || fmt.Sprint(run.Calls[0].Clock) != "[1000]" {
		t.Fatalf("tool call clock %+v", run.Calls)
	}
	// Date() takes the last replayed value; the last Date.now() and new
	// Date() read the real clock.
	if got := run.Result.Clock; len(got) != 4 || got[0] != 2000.5 || got[1] != 3000 || got[2] < 1.7e12 || got[3] < 1.7e12 {
		t.Fatalf("result clock %v", got)
	}
	// performance.now() shares the sequence: replayed values, then the real
	// clock shifted so that it never goes back.
	run = c.Exec(`export default async function () {
  const a = performance.now(), b = Date.now(), c = performance.now(), d = performance.now();
  return [a, b, c, d >= c];
}`, wire.Message{Clock: []float64{5.25, 1000, 1e9}})
	run.Texts(t)
	if string(run.Result.Value) != `[5.25,1000,1000000000,true]` {
		t.Fatalf("performance.now: value %s", run.Result.Value)
	}
	if got := run.Result.Clock; len(got) != 4 || got[0] != 5.25 || got[2] != 1e9 || got[3] < 1e9 {
		t.Fatalf("performance.now: result clock %v", got)
	}
	// With no replay, the real clock, still recorded.
	run = c.Exec(`export default async function () { return Date.now(); }`, wire.Message{})
	run.Texts(t)
	var now float64
	if err := json.Unmarshal(run.Result.Value, &now); err != nil || len(run.Result.Clock) != 1 || run.Result.Clock[0] != now {
		t.Fatalf("clock %v, value %s", run.Result.Clock, run.Result.Value)
	}
}

func timers(t *testing.T, c *Conn) {
	run := c.Exec(`export default async function () { for (let i = 0; i < 5; i++) setTimeout(() => {}, 1e6); }`,
		wire.Message{Limits: &wire.Limits{MaxTimers: 3}})
	run.Failed(t, "RangeError", `3 timers are pending, the execution's limit \(maxTimers\)`)
	// Cleared timers free their slot and stop the host's timer.
	run = c.Exec(`export default async function ({ result }) {
  for (let i = 0; i < 20000; i++) clearTimeout(setTimeout(() => {}, 2e9));
  const ids = [];
  for (let i = 0; i < 3; i++) ids.push(setTimeout(() => {}, 2e9));
  for (const id of ids) clearTimeout(id);
  await new Promise((r) => setTimeout(r, 1));
  result.appendText("done");
}`, wire.Message{Limits: &wire.Limits{MaxTimers: 3}})
	if got := run.Texts(t); len(got) != 1 || got[0] != "done" {
		t.Fatalf("got %q", got)
	}
}

func limits(t *testing.T, c *Conn, o Options) {
	run := c.Exec(`export default async function () { await new Promise((r) => setTimeout(r, 20000)); }`,
		wire.Message{Limits: &wire.Limits{TimeoutMs: 300}})
	run.Failed(t, "TimeoutError", `deadline of 300ms was exceeded`)

	run = c.Exec(`export default async function ({ console }) { console.log("x".repeat(500)); }`,
		wire.Message{Limits: &wire.Limits{MaxOutput: 50}})
	if !strings.HasPrefix(run.Stdout, strings.Repeat("x", 50)+"\n[program output truncated at the limit of 50 characters]") {
		t.Fatalf("output %q", run.Stdout)
	}
	run = c.Exec(`export default async function ({ result }) { result.appendText("x".repeat(11)); }`,
		wire.Message{Limits: &wire.Limits{MaxContent: 10}})
	run.Failed(t, "RangeError", `limit of 10 characters`)
	run = c.Exec(`export default async function () { return "x".repeat(20); }`,
		wire.Message{Limits: &wire.Limits{MaxContent: 10}})
	run.Failed(t, "RangeError", `limit of 10 characters`)

	// A limit past the driver's cap is capped.
	if o.MaxOutput > 0 {
		run = c.Exec(fmt.Sprintf(`export default async function ({ console }) { console.log("x".repeat(%d)); }`, 2*o.MaxOutput),
			wire.Message{Limits: &wire.Limits{MaxOutput: uint64(10 * o.MaxOutput)}})
		if !strings.Contains(run.Stdout, fmt.Sprintf("truncated at the limit of %d characters", o.MaxOutput)) {
			t.Fatalf("output of %d bytes not capped at %d", len(run.Stdout), o.MaxOutput)
		}
	}
}
