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
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/quickjs"
	"github.com/codemode-go/codemode/internal/fixtures"
	"github.com/codemode-go/codemode/typecheck"
)

func fixtureClient(t *testing.T) *client.Client {
	t.Helper()
	tools, err := fixtures.Tools(nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := contract.New(tools...)
	if err != nil {
		t.Fatal(err)
	}
	d := quickjs.New(quickjs.Options{Timeout: 5 * time.Second})
	t.Cleanup(func() { d.Close() })
	rt, err := client.NewRuntime(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	return client.New(rt, c)
}

// TestRunCodeForms runs each form models write (normalizeCode) on
// real QuickJS and checks its content followed by its value (as
// Outcome.ValueText renders it).
func TestRunCodeForms(t *testing.T) {
	cl := fixtureClient(t)
	cases := []struct {
		name, code string
		want       []string // text content, in order
	}{
		{"bare statements, last expression", "const r = await codemode.add({ a: 1, b: 2 });\nr.sum * 10", []string{"30"}},
		{"last expression with semicolon and comment", "const r = await codemode.add({ a: 1, b: 2 });\nr; // the sum", []string{"{\n  \"sum\": 3\n}"}},
		{"statements ending in a declaration", "const r = await codemode.add({ a: 1, b: 2 });", nil},
		{"explicit return", "const r = await codemode.echo({ value: 'hi' });\nreturn r.value;", []string{"hi"}},
		{"multi-line last expression", "const xs = [1, 2, 3]\nxs\n  .map((x) => x * 2)\n  .join(',')", []string{"2,4,6"}},
		{"continued line is not a boundary", "const x = 1\nconst y = x\n+ 2\ny", []string{"3"}},
		{"async arrow", "async () => {\n  const r = await codemode.add({ a: 2, b: 2 });\n  return r.sum;\n}", []string{"4"}},
		{"async arrow with scope parameter", "async ({ codemode }) => (await codemode.echo({ value: 'x' })).value;", []string{"x"}},
		{"async function expression", "async function main() {\n  console.log('ran');\n  return 'done';\n}", []string{"done"}},
		{"function then call", "async function main() { return 5; }\nmain()", []string{"5"}},
		{"module with default export", "export default async ({ codemode, result }: AgentProgramScope) => {\n  result.appendText('a');\n  return 'b';\n};", []string{"a", "b"}},
		{"module with default function", "export default async function ({ result }) { result.appendText('m'); }", []string{"m"}},
		{"fenced", "Here you go:\n```typescript\nconst r = await codemode.add({ a: 1, b: 1 });\nr.sum\n```\nDone.", []string{"2"}},
		{"template literal across lines", "const s = `a\n${1 + 1}\nb`;\ns", []string{"a\n2\nb"}},
		{"regex and division", "const re = /;\\/x/g;\nconst n = 10 / 2 / 5;\n`${re.source} ${n}`", []string{";\\/x 1"}},
		{"object literal value", "({ ok: true })", []string{"{\n  \"ok\": true\n}"}},
		{"appended content before the value", "result.appendText('first');\n'second'", []string{"first", "second"}},
		{"undefined value adds nothing", "undefined", nil},
		{"a fence inside a comment is not the program", "/* usage:\n```ts\n'hijacked'\n```\n*/\n'real'", []string{"real"}},
		{"regex with a backtick after a block", "if (true) {}\n/`/.test(\"x\");\nconst y = 41 + 1\ny", []string{"42"}},
		{"long continued chain", "const r = [1, 2, 3]\n" + strings.Repeat("  .map((x) => x + 1)\n", 200) + "r.join(',')", []string{"201,202,203"}},
		{"value after a block", "let caught = '';\ntry { throw new Error('x'); } catch (e) { caught = e.message; }\n({ caught })", []string{"{\n  \"caught\": \"x\"\n}"}},
		{"value after a block on its line", "const xs = [1]; for (const x of xs) { xs.push(x + 1); break; } xs.length", []string{"2"}},
		{"value after try and catch on their line", "let m = ''; try { throw new Error('x'); } catch (e) { m = (e as Error).message; } m", []string{"x"}},
		{"member of an object literal is not a statement", "const v = { k: 8 }.k\nv", []string{"8"}},
		{"call continued after an object literal", "const f = (o: any) => o.k\nconst v = f\n({ k: 7 })\nv", []string{"7"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := cl.RunCode(context.Background(), c.code, client.RunOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if out.Kind != client.Success {
				t.Fatalf("failed: %+v", out.Error)
			}
			var got []string
			for _, item := range out.Content {
				got = append(got, item.Text)
			}
			if text, ok := out.ValueText(); ok {
				got = append(got, text)
			}
			if strings.Join(got, "\x00") != strings.Join(c.want, "\x00") {
				t.Fatalf("content %q, want %q", got, c.want)
			}
		})
	}
}

// TestRunCodeValueMustBeJSON: a value JSON cannot hold fails the program
// with a TypeError naming what was found where, instead of a silent string.
func TestRunCodeValueMustBeJSON(t *testing.T) {
	cl := fixtureClient(t)
	cases := []struct{ name, code, want string }{
		{"BigInt", "10n ** 3n", "value is a bigint"},
		{"cycle", "const a: any = {}; a.a = a; a", "value.a is a circular reference"},
		{"function", "({ f: () => 1 })", "value.f is a function"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := cl.RunCode(context.Background(), c.code, client.RunOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if out.Kind != client.ProgramFailed || out.Error.Name != "TypeError" || !strings.Contains(out.Error.Message, c.want) {
				t.Fatalf("outcome %+v %+v, want a TypeError with %q", out, out.Error, c.want)
			}
		})
	}
}

// TestRunCodePositions checks that failures name the code's own line and
// column, whatever the form, including syntax errors and tool validation
// excerpts.
func TestRunCodePositions(t *testing.T) {
	cl := fixtureClient(t)
	cases := []struct {
		name, code, want string
	}{
		{"throw in statements", "const a = 1;\n  throw new Error('boom');", "agent.ts:2:"},
		{"engine position at the wrapper is dropped", "const a = 1;\n(null as any).x", "cannot read property 'x' of null"},
		{"no position rather than the last line", "const a: any = {}\nconst s = \"x\"; const t = a.foo.bar\n1", "cannot read property 'bar' of undefined"},
		{"throw in last expression line", "const a = 1;\nJSON.parse('{')", "agent.ts:2:"},
		{"throw in arrow", "async () => {\n  null.x;\n}", "agent.ts:2:"},
		{"syntax error", "const a = 1;\nconst b = ;", "agent.ts:2:11"},
		{"fenced syntax error", "```ts\nconst a = 1;\nconst b = ;\n```", "agent.ts:3:11"},
		{"tool validation excerpt", "const x = 1;\nawait codemode.add({ a: 'one', b: 2 });", "> 2 | await codemode.add"},
		{"module", "export default async () => {\n  throw new Error('m');\n};", "at default (agent.ts:2:"},
		{"non-ASCII before the last expression", "const s = \"日本語日本語\"; JSON.parse('{')", "agent.ts:1:"},
		{"default export that is not a function", "const r = 5;\nexport default r;", "the default export must be a function (the program), not number"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := cl.RunCode(context.Background(), c.code, client.RunOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if out.Kind != client.ProgramFailed {
				t.Fatalf("succeeded: %+v", out.Content)
			}
			text := out.Error.Message + "\n" + out.Error.Stack
			if !strings.Contains(text, c.want) {
				t.Fatalf("want %q in:\n%s", c.want, text)
			}
			if strings.Contains(text, "__codemode") || strings.Contains(text, "agent.ts:1:1") {
				t.Fatalf("the wrapper shows through:\n%s", text)
			}
		})
	}
}

// TestValidateCode checks model-written code with the real TypeScript
// compiler: the forms type-check with the scope's names in lexical scope, and
// diagnostics are in the code's coordinates.
func TestValidateCode(t *testing.T) {
	checker := realChecker(t)
	cl := fixtureClient(t)
	cases := []struct {
		name, code string
		want       string // "" for valid, else "line:col TScode"
	}{
		{"statements", "const r = await codemode.add({ a: 1, b: 2 });\nr.sum", ""},
		{"arrow with scope parameter", "async ({ codemode }) => (await codemode.echo({ value: 'x' })).value", ""},
		{"module", "export default async ({ codemode }) => { await codemode.add({ a: 1, b: 2 }); }", ""},
		{"wrong argument", "const a = 1;\nconst r = await codemode.add({ a: 'x', b: 2 });", "2:32 TS2322"},
		{"unknown tool on last line", "const a = 1;\ncodemode.nope()", "2:10 TS2339"},
		{"fenced", "```ts\nconst a = 1;\nawait codemode.add({ a: 1 });\n```", "3:"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := cl.ValidateCode(context.Background(), checker, c.code)
			if err != nil {
				t.Fatal(err)
			}
			if c.want == "" {
				if !res.Valid {
					t.Fatalf("invalid:\n%s", res.Report)
				}
				return
			}
			if res.Valid {
				t.Fatal("valid")
			}
			d := res.Diagnostics[0]
			got := strings.TrimSuffix(strings.Split(c.want, " ")[0], ":")
			pos := strings.TrimSuffix(strings.Join([]string{itoa(d.Line), itoa(d.Column)}, ":"), ":")
			if !strings.HasPrefix(pos+":", got+":") || (strings.Contains(c.want, " ") && !strings.Contains(c.want, "TS"+itoa(d.Code))) {
				t.Fatalf("first diagnostic %d:%d TS%d %s, want %s\n%s", d.Line, d.Column, d.Code, d.Message, c.want, res.Report)
			}
			if strings.Contains(res.Report, "__codemode") {
				t.Fatalf("the report shows the wrapper:\n%s", res.Report)
			}
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func requireTsc() bool { return os.Getenv("CODEMODE_REQUIRE_TSC") != "" }

// realChecker is a checker with the real TypeScript compiler, closed when
// the test ends; without one installed the test is skipped (it fails when
// CODEMODE_REQUIRE_TSC is set, as in CI).
func realChecker(t *testing.T) *typecheck.Checker {
	t.Helper()
	checker, err := typecheck.New(typecheck.Options{})
	if errors.Is(err, typecheck.ErrNotInstalled) && !requireTsc() {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { checker.Close() })
	return checker
}

// TestDeepNestingIsRefusedBeforeErasure: erasing TypeScript takes more than
// linear time in how deep brackets nest (a 22 KB program of nested arrow
// parameters held a core for seconds before any deadline ran), so a
// program nested past the bound fails at once with a RangeError naming it,
// in both forms, and one within it runs.
func TestDeepNestingIsRefusedBeforeErasure(t *testing.T) {
	cl := fixtureClient(t)
	ctx := context.Background()
	arrows := func(n int) string {
		return strings.Repeat("(a = ", n) + "1" + strings.Repeat(") => 1", n)
	}
	for _, tc := range []struct {
		name, code string
		module     bool
		want       string // "" to succeed
	}{
		{"arrow parameters past the bound, a module", "export default async () => " + arrows(4000), true, "nests brackets 4000 deep, more than the 256 allowed"},
		{"arrow parameters past the bound, statements", "const f = " + arrows(4000) + ";\n1", false, "nests brackets 4000 deep"},
		{"arrays within the bound", "const v = " + strings.Repeat("[", 200) + "1" + strings.Repeat("]", 200) + ";\nv.flat(Infinity)", false, ""},
		{"brackets in a string do not count", "const s = '" + strings.Repeat("(", 1000) + "';\ns.length", false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out *client.Outcome
			var err error
			if tc.module {
				out, err = cl.Run(ctx, tc.code, client.RunOptions{})
			} else {
				out, err = cl.RunCode(ctx, tc.code, client.RunOptions{})
			}
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tc.want == "" && out.Kind != client.Success:
				t.Fatalf("failed: %+v", out.Error)
			case tc.want != "" && (out.Kind != client.ProgramFailed || out.Error.Name != "RangeError" || !strings.Contains(out.Error.Message, tc.want)):
				t.Fatalf("got %+v %+v; want a RangeError with %q", out.Kind, out.Error, tc.want)
			}
		})
	}
}
