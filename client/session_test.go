package client_test

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/node"
	"github.com/codemode-go/codemode/drivers/quickjs"
	"github.com/codemode-go/codemode/internal/fixtures"
	"github.com/codemode-go/codemode/internal/nodetest"
)

// onSessionDrivers runs test with a client on real QuickJS and on a real
// Node.js 24 child process.
func onSessionDrivers(t *testing.T, test func(t *testing.T, cl *client.Client)) {
	tools, err := fixtures.Tools(nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := contract.New(tools...)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("quickjs", func(t *testing.T) {
		d := quickjs.New(quickjs.Options{Timeout: 10 * time.Second})
		t.Cleanup(func() { d.Close() })
		rt, err := client.NewRuntime(context.Background(), d)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { rt.Close() })
		test(t, client.New(rt, c))
	})
	t.Run("node", func(t *testing.T) {
		path := nodetest.Path()
		if path == "" {
			if os.Getenv("CODEMODE_REQUIRE_NODE") != "" {
				t.Fatal("no Node.js")
			}
			t.Skip("no Node.js: install Node.js 24")
		}
		d := node.New(node.Options{NodePath: path})
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		rt, err := client.NewRuntime(ctx, d)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { rt.Close() })
		test(t, client.New(rt, c))
	})
}

// sessionStep is one program of a session and what it must give: its
// value's JSON, or a program error or run error containing failed, and
// the names it lost.
type sessionStep struct {
	code   string
	value  string
	failed string
	runErr string
	lost   []string
	alone  bool // the failure reads as it does without a session
}

func TestSessionCarriesBindings(t *testing.T) {
	cases := []struct {
		name   string
		limits [2]int // MaxBytes, MaxExecutions
		steps  []sessionStep
	}{
		{"a counter persists across three executions", [2]int{}, []sessionStep{
			{code: "let counter = 1;\ncounter", value: "1"},
			{code: "counter += 1;\ncounter", value: "2"},
			{code: "counter = counter * 10\ncounter", value: "20"},
		}},
		{"a function defined in one program is called in the next", [2]int{}, []sessionStep{
			{code: "const base = 100;\nfunction add(a: number) {\n  return base + a;\n}\nconst twice = (x: number) => `${x}${x}`;", value: ""},
			{code: "[add(1), twice(2)]", value: "[101,\"22\"]"},
		}},
		{"a class is not carried: defining it runs code", [2]int{}, []sessionStep{
			{code: "globalThis.armed = 1;\nclass D { static { if (!(globalThis as any).armed) for (;;) {} } }\nclass Box { constructor(public v: number) {} get() { return this.v } }\nlet k = 2;\nnew Box(k).get()", value: "2",
				lost: []string{"Box (a class: defining one runs code, so it is not carried; declare it again where it is used)", "D (a class: defining one runs code, so it is not carried; declare it again where it is used)"}},
			{code: "[typeof D, typeof Box, k]", value: "[\"undefined\",\"undefined\",2]"},
		}},
		{"a later program redeclares a name", [2]int{}, []sessionStep{
			{code: "const x = 1; x", value: "1"},
			{code: "const x = 'two';\nconst { a, b: [c] } = { a: 3, b: [4] };\nx", value: "\"two\""},
			{code: "[x, a, c]", value: "[\"two\",3,4]"},
		}},
		{"a thrown program leaves the session unchanged", [2]int{}, []sessionStep{
			{code: "let n = 1;", value: ""},
			{code: "n = 50;\nlet m = 2;\nthrow new Error('boom');", failed: "boom"},
			{code: "[n, typeof m]", value: "[1,\"undefined\"]"},
			{code: "n = 7;\nreturn n;", value: "7"},
			{code: "n", value: "7"},
		}},
		{"a value JSON cannot hold is reported lost", [2]int{}, []sessionStep{
			{code: "const m = new Map([[1, 2]]);\nconst d = new Date(0);\nconst ok = { deep: [1, { x: null }] };\nconst bad = { u: undefined };\nlet nothing;", value: "",
				lost: []string{"bad (undefined at .u)", "d (a Date)", "m (a Map)"}},
			{code: "[typeof m, typeof d, ok, typeof bad, nothing === undefined]", value: "[\"undefined\",\"undefined\",{\"deep\":[1,{\"x\":null}]},\"undefined\",true]"},
		}},
		{"a program that declares console or a scope name does not break the next", [2]int{}, []sessionStep{
			{code: "const console = { log() {} };\nconst codemode = 1;\nlet kept = 3;\nkept", value: "3"},
			{code: "console.log('still here');\nconst r = await codemode.add({ a: kept, b: 1 });\nr.sum", value: "4"},
		}},
		{"a binding named like a global the wrapper uses", [2]int{}, []sessionStep{
			{code: "const JSON = { parse: 1 };\nconst Object = 'o';\nlet Array = [1];\nJSON.parse", value: "1"},
			{code: "[JSON, Object, Array]", value: "[{\"parse\":1},\"o\",[1]]"},
		}},
		{"a function expression sees the bindings but adds none", [2]int{}, []sessionStep{
			{code: "let k = 5;", value: ""},
			{code: "async () => { const added = 1; return k * 2; }", value: "10"},
			{code: "[k, typeof added]", value: "[5,\"undefined\"]"},
		}},
		{"the execution cap ends the session", [2]int{0, 2}, []sessionStep{
			{code: "let a = 1;", value: ""},
			{code: "a + 1", value: "2"},
			{code: "a", runErr: "it ran 2 programs, its MaxExecutions); these bindings were lost: a"},
			{code: "typeof a", value: "\"undefined\""},
		}},
		{"a binding near the default byte cap is kept", [2]int{}, []sessionStep{
			{code: "const big = 'x'.repeat(1_000_000);\nbig.length", value: "1000000"},
			{code: "big.length + 1", value: "1000001"},
		}},
		{"the byte cap ends the session", [2]int{100, 0}, []sessionStep{
			{code: "const small = 1;", value: ""},
			{code: "const big = 'x'.repeat(200);\nbig.length", value: "200"},
			{code: "small", runErr: "more than its MaxBytes of 100); these bindings were lost: small, big"},
		}},
		{"an error's position is the code's own", [2]int{}, []sessionStep{
			{code: "const v = { a: 1 };\nfunction f() { return 2 }", value: ""},
			{code: "const w = v.a;\n\n  throw new Error('line three ' + f());", failed: "agent.ts:3:", alone: true},
		}},
		{"a value that is not JSON names its own path", [2]int{}, []sessionStep{
			{code: "const q = 1;\n({ f: () => 1 })", failed: "the program's value is not JSON: value.f is"},
		}},
	}
	onSessionDrivers(t, func(t *testing.T, cl *client.Client) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				s := client.Session{MaxBytes: tc.limits[0], MaxExecutions: tc.limits[1]}
				for i, st := range tc.steps {
					out, err := cl.RunCode(context.Background(), st.code, client.RunOptions{Session: &s})
					if st.runErr != "" {
						if err == nil || !errors.Is(err, client.ErrSessionEnded) || !strings.Contains(err.Error(), st.runErr) {
							t.Fatalf("step %d: err = %v; want ErrSessionEnded with %q", i, err, st.runErr)
						}
						continue
					}
					if err != nil {
						t.Fatalf("step %d: %v", i, err)
					}
					if st.failed != "" {
						if out.Kind != client.ProgramFailed || !strings.Contains(out.Error.Text(), st.failed) {
							t.Fatalf("step %d: outcome %s %v; want a failure with %q", i, out.Kind, out.Error.Text(), st.failed)
						}
						if st.alone {
							alone, err := cl.RunCode(context.Background(), "const v = { a: 1 }; function f() { return 2 }\n"+st.code, client.RunOptions{})
							if err != nil || alone.Error == nil {
								t.Fatalf("step %d alone: %v %v", i, alone, err)
							}
							// The same code one line lower, without a session.
							want := strings.ReplaceAll(strings.ReplaceAll(alone.Error.Text(), "agent.ts:4:", "agent.ts:3:"), "\n   4 |", "\n   3 |")
							if got := out.Error.Text(); !strings.Contains(want, strings.SplitN(got, "\n", 3)[1]) {
								t.Errorf("step %d: %q; without a session %q", i, got, alone.Error.Text())
							}
						}
						continue
					}
					if out.Kind != client.Success {
						t.Fatalf("step %d: %s", i, out.Error.Text())
					}
					if string(out.Value) != st.value {
						t.Errorf("step %d: value %s; want %s", i, out.Value, st.value)
					}
					if strings.Join(out.SessionLost, "|") != strings.Join(st.lost, "|") {
						t.Errorf("step %d: lost %q; want %q", i, out.SessionLost, st.lost)
					}
				}
			})
		}
	})
}

// TestCodeToolSessionsByKey: the code tool's programs continue the session
// their key names (codetool.WithSession), each key its own, with the
// bounds of the default RunOptions' Session; an ended session is answered
// as an error saying what was lost, and a lost value is named in the logs.
func TestCodeToolSessionsByKey(t *testing.T) {
	onSessionDrivers(t, func(t *testing.T, cl *client.Client) {
		cl = cl.WithDefaults(client.RunOptions{Session: &client.Session{MaxExecutions: 3}})
		tool, err := codetool.New(cl, codetool.Options{Sessions: true})
		if err != nil {
			t.Fatal(err)
		}
		a, b := codetool.WithSession(context.Background(), "a"), codetool.WithSession(context.Background(), "b")
		for i, st := range []struct {
			ctx  context.Context
			code string
			want string
		}{
			{a, "let x = 1; const m = new Map(); x", `"value":1`},
			{a, "x + 1", `"value":2`},
			{b, "const y = 1;\ntypeof x", `"value":"undefined"`},
			{b, "x", "ReferenceError: x is not defined"},
			{a, "x + 2", `"value":3`},
			{a, "x", "the session ended (it ran 3 programs, its MaxExecutions); these bindings were lost: x"},
			{a, "typeof x", `"value":"undefined"`},
		} {
			answer, err := tool.Call(st.ctx, []byte(`{"code":`+strconv.Quote(st.code)+`}`))
			if err != nil || !strings.Contains(string(answer), st.want) {
				t.Fatalf("step %d: %s %v; want %q", i, answer, err, st.want)
			}
			if i == 0 && !strings.Contains(string(answer), "m (a Map)") {
				t.Errorf("step 0: %s does not say m was lost", answer)
			}
			if i == 3 && !strings.Contains(string(answer), "[session] this session holds: y") {
				t.Errorf("step 3: %s does not say what the session holds", answer)
			}
		}
		if !strings.Contains(tool.Description, "Programs continue one session") {
			t.Error("the description does not say that bindings persist")
		}
	})
}

// TestRunRefusesSessions: Run takes a module, which has no bindings to
// carry, so a Session there is an error and nothing runs.
func TestRunRefusesSessions(t *testing.T) {
	cl := fixtureClient(t)
	_, err := cl.Run(context.Background(), "export default async () => 1", client.RunOptions{Session: &client.Session{}})
	if err == nil || !strings.Contains(err.Error(), "RunOptions.Session carries the bindings of RunCode programs") {
		t.Fatalf("Run with a session: %v", err)
	}
}

// A program cannot make its session carry code of its own choosing: the
// wrapper's intrinsics are frozen, the reads it captures are set once
// before the program runs, and the objects it returns have no prototype
// whose toJSON a program could set. (The adversarial review of 2026-12-06
// replaced the intrinsics' source function, and the next program made a
// tool call at restore before its own code ran.) Whether the program that
// tries succeeds or fails (a toJSON on Object.prototype may hang QuickJS's
// runner until the deadline), the next program makes no call it did not
// write.
func TestSessionSourcesCannotBeForged(t *testing.T) {
	forged := `"(codemode.echo({ value: 1 }), function f() { return 1 })"`
	attempts := map[string]string{
		"source":  `(__codemodeI as any).source = () => ` + forged,
		"capture": `(__codemodeI as any).capture = () => ({ values: {}, functions: { f: ` + forged + ` }, lost: {} })`,
		"reads":   `(__codemodeReads as any).set({ g: () => (class { static { (globalThis as any).x = 1; } }) })`,
		"toJSON":  `(Object.prototype as any).toJSON = function () { return { values: {}, functions: { f: ` + forged + ` }, lost: {} }; }`,
		// A genuine source that reads otherwise as TypeScript: `a < b > /…/`
		// is an instantiation expression and a division there, and closes
		// the function early (the second review of 2026-12-06).
		"JavaScript read as TypeScript": "f = new Function(\"x = a < b > / 1 }, (codemode.echo({ value: 'planted' })), function () { [`]/ // ` ]\")",
		"the same through eval":         "f = (0, eval)(\"(function f() {\\nx = a < b > / 1 }, (codemode.echo({ value: 'planted' })), function () { [`]/ // ` ]\\n})\")",
	}
	onSessionDrivers(t, func(t *testing.T, cl *client.Client) {
		for name, attempt := range attempts {
			s := &client.Session{}
			out, err := cl.RunCode(context.Background(), "try { "+attempt+" } catch {}\nfunction f() { return 1 }\n'planted'",
				client.RunOptions{Session: s, Limits: client.Limits{Timeout: 3 * time.Second}})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			t.Logf("%s: the planting program: %s %s", name, out.Kind, out.Error)
			calls := 0
			out, err = cl.RunCode(context.Background(), `typeof f`, client.RunOptions{Session: s, OnTelemetry: func(e client.Event) {
				if e.Kind == client.EventToolCallStarted {
					calls++
				}
			}})
			if err != nil || out.Kind != client.Success {
				t.Fatalf("%s: the next program: %+v %v", name, out, err)
			}
			if calls != 0 {
				t.Errorf("%s: the next program made %d tool calls it did not write", name, calls)
			}
		}
	})
}
