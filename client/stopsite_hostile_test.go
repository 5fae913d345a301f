package client_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
)

// TestStopSiteSurvivesHostilePrograms: a program stopped at its deadline
// while it runs code that tampers with how QuickJS builds a stack (its
// Error.prepareStackTrace, Error.stackTraceLimit, a stack getter), or while
// it is inside one of QuickJS's C loops, fails alone as a TimeoutError whose
// text is valid UTF-8, within a bounded time, and the runtime runs the next
// program.
func TestStopSiteSurvivesHostilePrograms(t *testing.T) {
	c := echoContract(t)
	const spin = "\nlet n = 0;\nfunction spin() {\n  while (true) { n++; }\n}\nspin();"
	cases := []hostileCase{
		{"stackTraceLimit valueOf allocates", "const k = []; Error.stackTraceLimit = { valueOf() { while (true) k.push('x'.repeat(1 << 20)); } };" + spin},
		{"stackTraceLimit valueOf recurses", "const r = (d) => r(d + 1) + 1; Error.stackTraceLimit = { valueOf() { return r(0); } };" + spin},
		{"stackTraceLimit valueOf calls a tool", "Error.stackTraceLimit = { valueOf() { for (let i = 0; i < 1e5; i++) codemode.echo({ i }); console.log('x'.repeat(1e5)); return 10; } };" + spin},
		{"stackTraceLimit valueOf throws", "Error.stackTraceLimit = { valueOf() { throw new Error('no'); } };" + spin},
		{"stackTraceLimit valueOf lone surrogate name", "function f\u00e9() { while (true) {} } Error.stackTraceLimit = { valueOf() { Object.defineProperty(f\u00e9, 'name', { value: '\\ud800\\u001b[31m' }); return 10; } }; f\u00e9();"},
		{"lone surrogate function name", "function g() { while (true) {} }\nObject.defineProperty(g, 'name', { value: '\\ud800' });\ng();"},
		{"stack over 4 KiB of multibyte names", "Error.stackTraceLimit = 1e9; const \u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9 = (d) => { if (d < 500) return \u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9(d + 1) + 1; while (true) {} }; \u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9(0);"},
		{"stackTraceLimit 0 stack getter", "Error.stackTraceLimit = 0; Object.defineProperty(Error.prototype, 'stack', { get() { while (true) {} } });" + spin},
		{"stackTraceLimit huge", "Error.stackTraceLimit = 1e9; const f = (d) => { if (d < 3000) return f(d + 1) + 1; while (true) {} }; f(0);"},
		{"stackTraceLimit valueOf", "Error.stackTraceLimit = { valueOf() { while (true) {} } };" + spin},
		{"stackTraceLimit odd", "Error.stackTraceLimit = -1;" + spin},
		{"Object.prototype stack getter", "Object.defineProperty(Object.prototype, 'stack', { get() { while (true) {} } }); Error.stackTraceLimit = 0;" + spin},
		{"Error.prototype name getter", "Object.defineProperty(Error.prototype, 'name', { get() { while (true) {} } }); Object.defineProperty(Error.prototype, 'message', { get() { while (true) {} } });" + spin},
		{"Proxy frame", "const p = new Proxy(function () { while (true) {} }, {}); p();"},
		{"Proxy get trap", "const p = new Proxy({}, { get() { while (true) {} } }); p.x;"},
		{"sort comparator", "const a = Array.from({ length: 1e6 }, (_, i) => (i * 7919) % 1e6); while (true) a.sort((x, y) => { for (let i = 0; i < 10; i++); return x - y; });"},
		{"sort no comparator", "const a = Array.from({ length: 3e5 }, (_, i) => String((i * 7919) % 1e6)); while (true) { a.reverse(); a.sort(); }"},
		{"regexp backtracking", "/(a+)+b/.test('a'.repeat(40));"},
		{"JSON huge", "const o = Array.from({ length: 2e5 }, (_, i) => ({ i, s: 'x' + i })); while (true) JSON.parse(JSON.stringify(o));"},
		{"repeat", "let s = 'ab'; while (true) { s = s.repeat(2); if (s.length > 1 << 24) s = 'ab'; }"},
		{"GC cycles", "while (true) { let a = []; for (let i = 0; i < 1e5; i++) { const o = {}; o.o = o; a.push(o); } }"},
		{"memory limit", "const k = []; while (true) { try { k.push('x'.repeat(1 << 20) + k.length); } catch { k.length = 0; } }"},
		{"deep recursion", "const f = (d) => { try { return f(d + 1) + 1; } catch { while (true) {} } }; f(0);"},
		{"getter loops at the end", "const e = new Error('x'); Object.defineProperty(e, 'p', { enumerable: true, get() { while (true) {} } }); throw e;"},
	}
	for _, mode := range []string{"inprocess", "sandbox"} {
		t.Run(mode, func(t *testing.T) {
			rt := driverRuntime(t, mode)
			cl := client.New(rt, c)
			runHostile(t, cl, cases, 300*time.Millisecond, nil, func(tc hostileCase, out *client.Outcome, took time.Duration) {
				if out.Error == nil || out.Error.Name != "TimeoutError" {
					t.Errorf("%s: outcome %s, error %+v", tc.name, out.Kind, out.Error)
					return
				}
				text := out.Error.Text()
				t.Logf("%s: %v\n%s", tc.name, took, text)
				if !utf8.ValidString(text) || strings.ContainsAny(text, "\x00\x1b") {
					t.Errorf("%s: the text holds invalid UTF-8 or control characters: %q", tc.name, text)
				}
				if took > 5*time.Second {
					t.Errorf("%s: took %v", tc.name, took)
				}
			})
		})
	}
}

// TestWaitingStackSurvivesHostilePrograms: a program that tampers with
// how stacks are read and then waits for a tool call at its deadline fails
// as a TimeoutError within a bounded time on every runner, and the runtime
// runs the next program.
func TestWaitingStackSurvivesHostilePrograms(t *testing.T) {
	c := contractOf(t, hangTool(t))
	cases := []hostileCase{
		{"stackTraceLimit 0, Object.prototype getter", "Error.stackTraceLimit = 0; Object.defineProperty(Object.prototype, 'stack', { get() { while (true) {} } });\nawait codemode.hang({});"},
		{"stackTraceLimit deleted, Object.prototype getter", "delete Error.stackTraceLimit; Object.defineProperty(Object.prototype, 'stack', { get() { while (true) {} } });\nawait codemode.hang({});"},
		{"stackTraceLimit deleted, Error.prototype getter", "delete Error.stackTraceLimit; Object.defineProperty(Error.prototype, 'stack', { get() { while (true) {} } });\nawait codemode.hang({});"},
		{"stackTraceLimit string, Error.prototype getter", "Error.stackTraceLimit = 'x'; Object.defineProperty(Error.prototype, 'stack', { get() { while (true) {} } });\nawait codemode.hang({});"},
		{"stack getter calls a tool", "Error.stackTraceLimit = 0; Object.defineProperty(Object.prototype, 'stack', { get() { codemode.hang({}); return 'at evil'; } });\nawait codemode.hang({});"},
		{"lone surrogate function name", "async function g() { await codemode.hang({}); }\nObject.defineProperty(g, 'name', { value: '\\ud800\\u001b[31m' });\nawait g();"},
		{"stackTraceLimit huge", "Error.stackTraceLimit = 1e9; const f = async (d) => { if (d < 2000) return f(d + 1); await codemode.hang({}); };\nawait f(0);"},
	}
	for _, mode := range []string{"inprocess", "sandbox", "node"} {
		t.Run(mode, func(t *testing.T) {
			rt := driverRuntime(t, mode)
			cl := client.New(rt, c)
			runHostile(t, cl, cases, 300*time.Millisecond, nil, func(tc hostileCase, out *client.Outcome, took time.Duration) {
				if out.Error != nil && mode == "node" && strings.Contains(out.Error.Message, "Cannot redefine property: stack") {
					return // V8 refuses the getter: nothing to test
				}
				if out.Error == nil || out.Error.Name != "TimeoutError" {
					t.Errorf("%s: outcome %s, error %+v", tc.name, out.Kind, out.Error)
					return
				}
				t.Logf("%s: %v\n%s", tc.name, took, out.Error.Text())
				if took > 5*time.Second {
					t.Errorf("%s: took %v", tc.name, took)
				}
			})
		})
	}
}

// TestErrorDataSurvivesHostileErrors: an uncaught error whose own
// properties are hostile (getters that throw, loop or re-enter the runner,
// Proxies, cycles, huge values, lone surrogates) fails alone, with
// Properties a JSON object of valid UTF-8 when it has any, and the runtime
// runs the next program.
func TestErrorDataSurvivesHostileErrors(t *testing.T) {
	c := echoContract(t)
	cases := []hostileCase{
		{"lone surrogate value", "const e = new Error('x'); e.s = 'a\\ud800b'; e.t = '\\udfff'; throw e;"},
		{"lone surrogate key", "const e = new Error('x'); e['k\\ud800'] = 1; throw e;"},
		{"control chars", "const e = new Error('x'); e['\\u0000\\u001b[31m'] = '\\u0000\\n\\u2028'; throw e;"},
		{"throwing getter", "const e = new Error('x'); e.a = 1; Object.defineProperty(e, 'b', { enumerable: true, get() { throw new Error('no'); } }); e.c = 2; throw e;"},
		{"getter calls a tool", "const e = new Error('x'); Object.defineProperty(e, 'b', { enumerable: true, get() { codemode.echo({ a: 1 }).catch(() => {}); return 5; } }); throw e;"},
		{"getter rethrows later", "const e = new Error('x'); Object.defineProperty(e, 'b', { enumerable: true, get() { setTimeout(() => { throw new Error('later'); }); Promise.reject(new Error('r')); return 5; } }); throw e;"},
		{"getter logs", "const e = new Error('x'); Object.defineProperty(e, 'b', { enumerable: true, get() { console.log('from getter'); return 5; } }); throw e;"},
		{"toJSON", "const e = new Error('x'); e.b = { toJSON() { return 'y'.repeat(1e6); } }; e.c = { toJSON() { throw 1; } }; throw e;"},
		{"proxy", "throw new Proxy(new Error('x'), { ownKeys() { return ['a', 'b', 'a']; }, getOwnPropertyDescriptor() { return { value: 1, enumerable: true, configurable: true }; }, get(t, k) { if (k === 'a') throw 1; return t[k] ?? 7; } });"},
		{"proxy value", "const e = new Error('x'); e.p = new Proxy({}, { ownKeys() { throw 1; } }); e.q = new Proxy([], { get() { return 1e9; } }); throw e;"},
		{"cycle", "const e = new Error('x'); e.self = e; e.o = { e }; e.o.o = e.o; throw e;"},
		{"huge array", "const e = new Error('x'); e.a = new Array(1e7).fill(1); e.b = new Array(2 ** 32 - 1); throw e;"},
		{"many keys", "const e = new Error('x'); for (let i = 0; i < 1e5; i++) e['k' + i] = i; throw e;"},
		{"deep", "const e = new Error('x'); let o = {}; e.d = o; for (let i = 0; i < 1e5; i++) { o.n = {}; o = o.n; } throw e;"},
		{"symbol", "const e = new Error('x'); e[Symbol('s')] = 1; e.v = Symbol('v'); e.b = 10n; throw e;"},
		{"not an error", "throw { a: 1, get b() { throw 2; }, c: 'x'.repeat(5000) };"},
		{"getter loops", "const e = new Error('x'); Object.defineProperty(e, 'b', { enumerable: true, get() { while (true) {} } }); throw e;"},
		{"proxy ownKeys loops", "throw new Proxy(new Error('x'), { ownKeys() { while (true) {} } });"},
	}
	for _, mode := range []string{"inprocess", "sandbox", "node"} {
		t.Run(mode, func(t *testing.T) {
			rt := driverRuntime(t, mode)
			cl := client.New(rt, c)
			// Node's runner cannot stop a synchronous loop, a getter's no
			// more than `while (true) {}`: the runtime fails.
			nodeLoops := func(tc hostileCase) bool { return mode == "node" && strings.Contains(tc.name, "loops") }
			runHostile(t, cl, cases, 500*time.Millisecond, nodeLoops, func(tc hostileCase, out *client.Outcome, took time.Duration) {
				if out.Error == nil {
					t.Errorf("%s: outcome %s", tc.name, out.Kind)
					return
				}
				t.Logf("%s: %v %s: %.300q (%d bytes of properties)", tc.name, took, out.Kind, out.Error.Text(), len(out.Error.Properties))
				if p := out.Error.Properties; len(p) > 0 && (!utf8.Valid(p) || !json.Valid(p) || p[0] != '{') {
					t.Errorf("%s: properties %q", tc.name, p)
				}
				if !utf8.ValidString(out.Error.Text()) {
					t.Errorf("%s: text not UTF-8: %q", tc.name, out.Error.Text())
				}
			})
		})
	}
}

// hangTool is a tool that answers only when its execution ends.
func hangTool(t *testing.T) *contract.Tool {
	t.Helper()
	hang, err := contract.NewRawTool("hang", "Answers when the execution ends.", json.RawMessage(`{"type":"object","additionalProperties":false}`), json.RawMessage(`{}`),
		func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		})
	if err != nil {
		t.Fatal(err)
	}
	return hang
}

// contractOf is a contract of tools on codemode.
func contractOf(t *testing.T, tools ...*contract.Tool) *contract.Contract {
	t.Helper()
	c, err := contract.New(tools...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// echoContract is a contract of one tool, echo, that echoes objects of
// numbers.
func echoContract(t *testing.T) *contract.Contract {
	t.Helper()
	echo, err := contract.NewRawTool("echo", "Echoes.", json.RawMessage(`{"type":"object","additionalProperties":{"type":"number"}}`), json.RawMessage(`{}`),
		func(_ context.Context, in json.RawMessage) (json.RawMessage, error) { return in, nil })
	if err != nil {
		t.Fatal(err)
	}
	return contractOf(t, echo)
}

// hostileCase is a hostile program, by name.
type hostileCase struct{ name, code string }

// runHostile runs each case on cl under a deadline of limit (the call
// itself bounded to 20 s), hands check its outcome and how long it took
// (an error fails the case), and then checks that the runtime runs the
// next program. skip, when not nil, leaves a case out.
func runHostile(t *testing.T, cl *client.Client, cases []hostileCase, limit time.Duration, skip func(hostileCase) bool, check func(tc hostileCase, out *client.Outcome, took time.Duration)) {
	t.Helper()
	for _, tc := range cases {
		if skip != nil && skip(tc) {
			continue
		}
		start := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		out, err := cl.RunCode(ctx, tc.code, client.RunOptions{Limits: client.Limits{Timeout: limit}})
		cancel()
		took := time.Since(start)
		if err != nil {
			t.Errorf("%s: after %v: %v", tc.name, took, err)
			continue
		}
		check(tc, out, took)
		if out, err := cl.RunCode(context.Background(), "1 + 1", client.RunOptions{}); err != nil || out.Kind != client.Success {
			t.Fatalf("%s: the next program: %+v, %v", tc.name, out, err)
		}
	}
}
