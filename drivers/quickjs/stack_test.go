package quickjs_test

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/quickjs"
)

// clientFor is a client with no tools on a runtime the caller owns.
func clientFor(tb testing.TB, rt *client.Runtime) *client.Client {
	tb.Helper()
	c, err := contract.New()
	if err != nil {
		tb.Fatal(err)
	}
	return client.New(rt, c)
}

// depths are the nesting depths each recursive builtin is driven to: from
// well inside the engine's stack to far past it.
var depths = []int{100, 300, 1000, 3000, 4500, 6000, 8000, 12000, 20000, 50000}

// recursive are programs that recurse in C (or in the interpreter) to a
// depth D, each with the text it must produce when it succeeds.
var recursive = []struct {
	name, body string
	want       func(d int) string
}{
	{"JSON.parse arrays", `let x = JSON.parse("[".repeat(D) + "]".repeat(D)), n = 0; for (; Array.isArray(x); x = x[0]) n++; return n;`, strconv.Itoa},
	{"JSON.parse objects", `let x = JSON.parse('{"a":'.repeat(D) + "1" + "}".repeat(D)), n = 0; for (; typeof x === "object"; x = x.a) n++; return n + ":" + x;`,
		func(d int) string { return strconv.Itoa(d) + ":1" }},
	{"JSON.stringify", `let o = {}; for (let i = 1; i < D; i++) o = { a: o }; return JSON.stringify(o).length;`,
		func(d int) string { return strconv.Itoa(6*(d-1) + 2) }},
	{"regular expression groups", `return new RegExp("(?:".repeat(D) + "a" + ")".repeat(D)).exec("xa").index;`, func(int) string { return "1" }},
	{"regular expression backtracking", `return /^(?:a|b)*$/.test("ab".repeat(D)) + ":" + /^(a|ab)*c/.test("ab".repeat(D));`, func(int) string { return "true:false" }},
	{"sort comparator", `function f(n) { if (n === 0) return 0; let r = 0; [2, 1].sort((a, b) => { r = f(n - 1); return a - b; }); return r + 1; } return f(D);`, strconv.Itoa},
	{"toString chain", `let o = { toString() { return "x"; } }; for (let i = 0; i < D; i++) { const p = o; o = { toString() { return String(p); } }; } return String(o);`,
		func(int) string { return "x" }},
	{"valueOf chain", `let o = 0; for (let i = 0; i < D; i++) { const p = o; o = { valueOf() { return +p + 1; } }; } return +o;`, strconv.Itoa},
	{"nested arrays to string", `let o = ["y"]; for (let i = 0; i < D; i++) o = [o]; return String(o);`, func(int) string { return "y" }},
	{"parser", `return eval("(".repeat(D) + "7" + ")".repeat(D));`, func(int) string { return "7" }},
	{"JavaScript recursion", `function f(n) { return n === 0 ? 0 : 1 + f(n - 1); } return f(D);`, strconv.Itoa},
}

// engineFailure is what a clean failure must never say: a trap that is not
// the stack guard's, or a corrupted engine.
var engineFailure = regexp.MustCompile(`(?i)wasm error|invalid table|out of bounds|unreachable|engine failed|malformed|corrupt`)

// cleanFailure reports whether a failed outcome is one the sandbox
// promises for deep recursion or a long builtin: a RangeError, the
// deadline, or the regular expression compiler's own "stack overflow".
func cleanFailure(e *client.ProgramError) bool {
	if engineFailure.MatchString(e.Message) {
		return false
	}
	switch e.Name {
	case "RangeError", "TimeoutError":
		return true
	case "SyntaxError":
		return strings.Contains(e.Message, "stack overflow")
	}
	return false
}

// TestRecursionDepthSweep drives every recursive builtin to every depth on
// one runtime: each run ends in the right answer or a clean failure of its
// own (never a hang, a trap that is not the guard's, or a wrong answer),
// and a benign run on the same runtime works after each.
func TestRecursionDepthSweep(t *testing.T) {
	if testing.Short() {
		t.Skip("a long sweep; go test without -short runs it")
	}
	c := newClient(t, quickjs.Options{Timeout: time.Second})
	failed := map[string]int{}
	for _, r := range recursive {
		for _, d := range depths {
			src := fmt.Sprintf("export default async function ({ result }) { const D = %d; const v = (() => { %s })(); result.appendText(String(v)); }", d, r.body)
			start := time.Now()
			out := mustRun(t, c, src)
			if took := time.Since(start); took > 10*time.Second {
				t.Errorf("%s at depth %d took %v with a deadline of 1s", r.name, d, took)
			}
			switch out.Kind {
			case client.Success:
				if got := out.Content[0].Text; got != r.want(d) {
					t.Errorf("%s at depth %d: got %.80q, want %q", r.name, d, got, r.want(d))
				}
			case client.ProgramFailed:
				if !cleanFailure(out.Error) {
					t.Errorf("%s at depth %d: %s: %s", r.name, d, out.Error.Name, out.Error.Message)
				}
				failed[r.name]++
			default:
				t.Errorf("%s at depth %d: outcome %s", r.name, d, out.Kind)
			}
		}
	}
	// The engine's stack holds the shallow depths and refuses the deepest:
	// a sweep where nothing failed would mean no limit was reached.
	if failed["JavaScript recursion"] == 0 || failed["JavaScript recursion"] == len(depths) {
		t.Errorf("JavaScript recursion failed at %d of %d depths", failed["JavaScript recursion"], len(depths))
	}
}

// TestDeepRecursionIsCatchable checks that the RangeError QuickJS throws at
// its stack limit reaches the program, which can catch it and go on.
func TestDeepRecursionIsCatchable(t *testing.T) {
	c := newClient(t, quickjs.Options{Timeout: 5 * time.Second})
	for _, body := range []string{
		`function f(n) { return n === 0 ? 0 : 1 + f(n - 1); } f(1e6);`,
		`JSON.parse("[".repeat(1e6) + "]".repeat(1e6));`,
		`let o = []; for (let i = 0; i < 1e5; i++) o = [o]; String(o);`,
	} {
		out := mustRun(t, c, `export default async function ({ result }) {
  try { `+body+` result.appendText("no error"); }
  catch (e) { result.appendText(e.name + ": " + e.message); }
}`)
		if out.Kind != client.Success || out.Content[0].Text != "RangeError: Maximum call stack size exceeded" {
			t.Errorf("%s: %+v", body, out)
		}
	}
}

// TestMemoryExhaustionIsARangeError: memory exhaustion, including the
// cases where QuickJS cannot allocate its error and throws null, fails as
// a RangeError naming the limit.
func TestMemoryExhaustionIsARangeError(t *testing.T) {
	c := newClient(t, quickjs.Options{Timeout: 30 * time.Second, MemoryLimit: 16 << 20})
	for _, body := range []string{
		`const a = []; for (;;) a.push({});`,
		`const a = []; for (;;) a.push([a.length]);`,
		`const m = new Map(); for (let i = 0;; i++) m.set(i, { i });`,
		`let s = "x"; for (;;) s = s + s;`,
		`const a = []; for (;;) { a.push({}); await null; }`,
	} {
		out := mustRun(t, c, "export default async function () { "+body+" }")
		if out.Kind != client.ProgramFailed || out.Error.Name != "RangeError" || !strings.Contains(out.Error.Message, "memory limit of 16 MiB") {
			t.Errorf("%s: %+v %v", body, out, out.Error)
		}
	}
	// A program's own `throw null` is reported as it is.
	out := mustRun(t, c, "export default async function () { throw null; }")
	if out.Kind != client.ProgramFailed || out.Error.Name != "Error" || out.Error.Message != "null" {
		t.Errorf("throw null: %+v", out.Error)
	}
}

// FuzzNesting runs generated deeply nested JSON, regular expressions and
// recursive programs with a short deadline, and checks that each ends in
// an answer or a clean failure and that the runtime still answers a benign
// program quickly.
func FuzzNesting(f *testing.F) {
	f.Add(uint8(0), uint16(6000), "[{")
	f.Add(uint8(1), uint16(5000), "(?:a|b)*")
	f.Add(uint8(2), uint16(50000), "")
	f.Add(uint8(3), uint16(4500), "({[")
	f.Add(uint8(4), uint16(3000), "a*b")
	rt, err := client.NewRuntime(context.Background(), quickjs.New(quickjs.Options{Timeout: 300 * time.Millisecond}))
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = rt.Close() })
	c := clientFor(f, rt)
	f.Fuzz(func(t *testing.T, kind uint8, depth uint16, unit string) {
		if len(unit) > 16 {
			unit = unit[:16]
		}
		d, u := int(depth), strconv.Quote(unit)
		var body string
		switch kind % 5 {
		case 0: // JSON nesting of any mix of openers
			body = fmt.Sprintf(`const u = %s; let s = ""; for (let i = 0; i < %d; i++) s += u[i %% Math.max(u.length, 1)] === "{" ? '{"a":' : "["; try { JSON.parse(s); } catch (e) { if (!(e instanceof SyntaxError)) throw e; } return JSON.stringify(JSON.parse("[".repeat(%d) + "]".repeat(%d))).length;`, u, d, d, d)
		case 1: // a regular expression nested from the unit
			body = fmt.Sprintf(`let r; try { r = new RegExp("(?:".repeat(%d) + %s + ")".repeat(%d)); } catch (e) { if (e instanceof SyntaxError) return "syntax"; throw e; } return r.test("ab".repeat(%d));`, d%5000, u, d%5000, d)
		case 2: // recursion through a builtin's callback
			body = fmt.Sprintf(`function f(n) { return n === 0 ? 0 : [n].map(x => f(x - 1))[0] + 1; } return f(%d);`, d)
		case 3: // nested source
			body = fmt.Sprintf(`const u = %s || "("; let src = ""; for (let i = 0; i < %d; i++) src += u[i %% u.length]; try { return eval(src); } catch (e) { if (e instanceof SyntaxError) return "syntax"; throw e; }`, u, d)
		case 4: // stringify of nested arrays and objects
			body = fmt.Sprintf(`let o = %s; for (let i = 0; i < %d; i++) o = i %% 2 ? [o] : { a: o }; return JSON.stringify(o).length;`, u, d)
		}
		src := "export default async function ({ result }) { const v = (() => { " + body + " })(); result.appendText(String(v)); }"
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		out, err := c.Run(ctx, src, client.RunOptions{})
		if err != nil {
			t.Fatalf("the run did not end: %v", err)
		}
		if out.Kind == client.ProgramFailed && engineFailure.MatchString(out.Error.Message) {
			t.Fatalf("%s: %s", out.Error.Name, out.Error.Message)
		}
		start := time.Now()
		after, err := c.Run(ctx, `export default async function ({ result }) { result.appendText("alive"); }`, client.RunOptions{})
		if err != nil || after.Kind != client.Success || after.Content[0].Text != "alive" {
			t.Fatalf("the runtime does not answer after the run: %+v %v", after, err)
		}
		if took := time.Since(start); took > 5*time.Second {
			t.Fatalf("a benign run took %v after the nested one", took)
		}
	})
}
