package client

import (
	"context"
	"errors"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/quickjs"
	"github.com/codemode-go/codemode/internal/blank"
	"github.com/codemode-go/codemode/internal/blank/blanktest"
	"github.com/codemode-go/codemode/internal/codeform"
	"github.com/codemode-go/codemode/internal/esbuildchild"
	"github.com/evanw/esbuild/pkg/api"
)

var stackLine = regexp.MustCompile(`agent\.ts:(\d+)`)

// moduleStart is the frame QuickJS gives a module's top level: the start of
// the module (agent.ts:1:1 of the JavaScript), wherever the error was. For
// the erased program that maps to its first statement, for the blanked to
// the first line, perhaps a comment: both say "the top level".
var moduleStart = regexp.MustCompile(`(?m)^\s*at <anonymous> \(agent\.ts:1:1\)$`)

// TestBlankedProgramsRunAsErased runs every program of the corpus that
// blank accepts twice on QuickJS, blanked and erased by esbuild, and
// compares what each ended with: the outcome, the value (a stack the
// program read included), the error's name and message, and the lines its
// stack names in the source (the erased program's mapped back through its
// source map).
func TestBlankedProgramsRunAsErased(t *testing.T) {
	es := testSession(t)
	if testing.Short() {
		t.Skip("runs every corpus program twice on QuickJS")
	}
	rt := inProcessRuntime(t)
	corpus := blanktest.Programs(t, "..")
	for i, s := range erasePrograms {
		corpus["erasePrograms/"+strconv.Itoa(i)] = s
	}
	names := make([]string, 0, len(corpus))
	for k := range corpus {
		names = append(names, k)
	}
	sort.Strings(names)
	ran := 0
	for _, name := range names {
		src := corpus[name]
		if strings.HasSuffix(name, blanktest.WithoutImports) {
			continue
		}
		blanked, err := erase(src, nil, es)
		if err != nil || !blanked.blanked {
			continue
		}
		erased, err := eraseWithEsbuild(src, nil, es)
		if err != nil {
			continue // an early error esbuild finds (TestBlankAgreesWithEsbuild)
		}
		ran++
		t.Run(name, func(t *testing.T) {
			got, want := runErased(t, rt, blanked), runErased(t, rt, erased)
			if got != want {
				got2, want2 := runErased(t, rt, blanked), runErased(t, rt, erased)
				if got2 == want2 {
					return
				}
				if got2 != got || want2 != want || got.name == "TimeoutError" || want.name == "TimeoutError" {
					t.Skip("the program ends otherwise each time it runs (a clock, a deadline)")
				}
			}
			if got.kind != want.kind || got.value != want.value || got.name != want.name || bigNumbers.ReplaceAllString(got.message, "N") != bigNumbers.ReplaceAllString(want.message, "N") {
				t.Fatalf("blanked: %+v\nerased: %+v\n%s", got, want, src)
			}
			if got.lines != want.lines {
				t.Fatalf("stack lines: blanked %q, erased %q\n%s", got.lines, want.lines, src)
			}
		})
	}
	t.Logf("%d programs run both ways", ran)
}

// bigNumbers are the numbers of five digits and more in a message: sizes
// and clock values, which a program that reads the clock 10,000 times
// (hostile_test.go's) makes differ from run to run by a few bytes; a
// position's line and column are shorter, and still compared.
var bigNumbers = regexp.MustCompile(`[0-9]{5,}`)

// runEnd is what a run ended with, positions mapped to the source.
type runEnd struct {
	kind                 OutcomeKind
	value, name, message string
	lines                string // the source lines the stack names
}

func runErased(t *testing.T, rt *Runtime, e *erased) runEnd {
	t.Helper()
	// The positions go as Client.Run sends them: a stack the program
	// reads is the source's, however it was erased.
	out, err := rt.Execute(context.Background(), ExecuteRequest{Source: e.js, Filename: programFilename, positions: e.stackPositions})
	if err != nil {
		t.Fatal(err)
	}
	return endOf(out, e.mapText)
}

// placeColumn is the column of a place a stack names ("agent.ts:3:7").
var placeColumn = regexp.MustCompile(`(agent\.ts:\d+):\d+`)

// endOf is what out ended with, its positions mapped by mapText. A value's
// places (a stack the program read) keep their lines, as the error's
// stack: QuickJS counts a column otherwise in esbuild's reprint.
func endOf(out *Outcome, mapText func(string) string) runEnd {
	end := runEnd{kind: out.Kind, value: placeColumn.ReplaceAllString(string(out.Value), "$1")}
	if out.Error != nil {
		end.name, end.message = out.Error.Name, mapText(out.Error.Message)
		stack := moduleStart.ReplaceAllString(out.Error.Stack, "")
		for _, m := range stackLine.FindAllStringSubmatch(mapText(stack), -1) {
			end.lines += m[1] + " "
		}
	}
	return end
}

// TestCodeReadByBlankFailsAsReadByEsbuild runs the corpus code (every
// string literal of the repository's tests) whose normalization differs
// when blank reads its syntax from when esbuild alone does (code esbuild
// refuses: an early error blank does not look for; codeform's
// TestBlankReadsCodeAsEsbuild holds every other code to the same module)
// through RunCode on QuickJS twice: as it runs, and with esbuild's
// normalization in the client's erase cache, as it ran before blank read
// code. Each must end the same way: the outcome, the value, the error's
// name and message, and the lines its stack names.
func TestCodeReadByBlankFailsAsReadByEsbuild(t *testing.T) {
	es := testSession(t)
	if testing.Short() {
		t.Skip("reads every string literal of the repository's tests")
	}
	rt := inProcessRuntime(t)
	k, err := contract.New()
	if err != nil {
		t.Fatal(err)
	}
	corpus := blanktest.Literals(t, "..")
	names := make([]string, 0, len(corpus))
	seen := map[string]bool{}
	for name, code := range corpus {
		if _, ok := blank.Types(code); ok && !seen[code] && checkNesting(code) == nil {
			seen[code] = true
			names = append(names, name)
		}
	}
	sort.Strings(names)
	ran := 0
	for _, name := range names {
		code := corpus[name]
		if r := api.Transform(code, transformOptions(api.SourceMapNone)); len(r.Errors) == 0 {
			continue // the same module either way (TestBlankReadsCodeAsEsbuild)
		}
		c := New(rt, k)
		prog, _, err := c.erase(program{text: code, kind: modelCode}, es)
		if err != nil || prog.back == nil {
			continue // refused before it ran, as before: blank read the module, not the code
		}
		old := prog.back.ReadByEsbuild(es)
		if old.Module == prog.back.Module {
			continue
		}
		ran++
		t.Run(name, func(t *testing.T) {
			got := runCode(t, New(rt, k), code, nil)
			want := runCode(t, c, code, old)
			if got != want {
				t.Fatalf("blank first: %+v\nesbuild: %+v\n%s", got, want, code)
			}
		})
	}
	t.Logf("%d codes run both ways", ran)
}

// runCode is what RunCode on c ended with for code; with n, c's erase
// cache holds code's erasure (made by a call to c.erase) and n's takes
// its place first.
func runCode(t *testing.T, c *Client, code string, n *codeform.Normalized) runEnd {
	t.Helper()
	if n != nil {
		e, err := erase(n.Module, n, testSession(t))
		if err != nil {
			var pe *ProgramError
			if !errors.As(err, &pe) {
				t.Fatal(err)
			}
			return endOf(&Outcome{Kind: ProgramFailed, Error: pe}, func(s string) string { return s })
		}
		if len(c.erased.index) != 1 {
			t.Fatalf("the erase cache holds %d programs, want the code's", len(c.erased.index))
		}
		for _, el := range c.erased.index {
			el.Value.(*cacheEntry).prog = e
		}
	}
	out, err := c.RunCode(context.Background(), code, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return endOf(out, func(s string) string { return s })
}

// TestBlankedEarlyErrorsReadAsEsbuildReportsThem: a program blank accepts
// but the engine cannot compile (an early error: a redeclared let) fails
// with esbuild's SyntaxError and position, as before the pass; a
// SyntaxError the program throws itself stays its own.
func TestBlankedEarlyErrorsReadAsEsbuildReportsThem(t *testing.T) {
	ctx := context.Background()
	rt, err := NewRuntime(ctx, quickjs.New(quickjs.Options{InProcess: true}))
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	k, err := contract.New()
	if err != nil {
		t.Fatal(err)
	}
	c := New(rt, k)
	for _, tc := range []struct{ name, source, want string }{
		{"redeclared let", "let x: number = 1;\nlet x: number = 2;\nexport default async function () { return x; }\n",
			`agent.ts:2:5: The symbol "x" has already been declared`},
		{"thrown by the program", "export default async function () {\n  return JSON.parse(\"{\" as string);\n}\n", "JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, ok := blank.Types(tc.source); !ok {
				t.Fatal("blank refused the program")
			}
			out, err := c.Run(ctx, tc.source, RunOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if out.Kind != ProgramFailed || out.Error.Name != "SyntaxError" || !strings.Contains(out.Error.Message, tc.want) {
				t.Fatalf("outcome %s %+v, want a SyntaxError with %q", out.Kind, out.Error, tc.want)
			}
		})
	}
}

// inProcessRuntime is a QuickJS runtime in this process, with a deadline
// of a second, closed when the test ends.
func inProcessRuntime(t *testing.T) *Runtime {
	t.Helper()
	rt, err := NewRuntime(context.Background(), quickjs.New(quickjs.Options{InProcess: true, Timeout: time.Second}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	return rt
}

// testSession is an esbuild session for a test, closed when it ends.
func testSession(tb testing.TB) *esbuildchild.Session {
	es := esbuildchild.New(context.Background(), nil)
	tb.Cleanup(func() { es.Close() })
	return es
}

// TestSlowErasureFailsItsExecution: a short program esbuild would take
// hours on (each `a ? (b): c =>` doubles its speculative parse; an enum
// keeps blank from reading it) fails its own execution with a TimeoutError
// naming the erasure, in every form, and the runtime runs the next program.
// Without the child process this test would hold the test binary until its
// timeout.
func TestSlowErasureFailsItsExecution(t *testing.T) {
	rt := inProcessRuntime(t)
	k, err := contract.New()
	if err != nil {
		t.Fatal(err)
	}
	c := New(rt, k)
	ctx := context.Background()
	slow := "enum E { A }\nconst f = " + strings.Repeat("a ? (b): c => ", 40) + "1;\n"
	for _, tc := range []struct {
		name string
		run  func(RunOptions) (*Outcome, error)
	}{
		{"module", func(o RunOptions) (*Outcome, error) { return c.Run(ctx, slow+"export default async () => 1;\n", o) }},
		{"code", func(o RunOptions) (*Outcome, error) { return c.RunCode(ctx, slow+"E.A", o) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := tc.run(RunOptions{Limits: Limits{Timeout: 300 * time.Millisecond}})
			if err != nil {
				t.Fatal(err)
			}
			if out.Kind != ProgramFailed || out.Error.Name != "TimeoutError" || !strings.Contains(out.Error.Message, "erasing the program's TypeScript") {
				t.Fatalf("outcome %s %+v, want a TimeoutError naming the erasure", out.Kind, out.Error)
			}
		})
	}
	out, err := c.RunCode(ctx, "enum E { A = 7 }\nE.A", RunOptions{})
	if err != nil || out.Kind != Success || string(out.Value) != "7" {
		t.Fatalf("the next program: %v %+v", err, out)
	}
}

// TestForgedPositionsFailOnlyTheProgram: a program throws an object whose
// stack names positions no engine would (a column of 20 digits, a huge
// line); its outcome is a failure with the error as thrown, and the host
// carries on (the excerpt once repeated a space for the column's value:
// "makeslice: len out of range").
func TestForgedPositionsFailOnlyTheProgram(t *testing.T) {
	rt := inProcessRuntime(t)
	k, err := contract.New()
	if err != nil {
		t.Fatal(err)
	}
	c := New(rt, k)
	ctx := context.Background()
	for _, stack := range []string{"agent.ts:2:99999999999999999999", "agent.ts:1:99999999999999999999", "agent.ts:1:200000000",
		"agent.ts:99999999999999999999:1", "    at f (agent.ts:1:4611686018427387904)"} {
		for _, run := range []func(string) (*Outcome, error){
			func(s string) (*Outcome, error) { return c.RunCode(ctx, s, RunOptions{}) },
			func(s string) (*Outcome, error) {
				return c.Run(ctx, "export default async () => { "+s+" };", RunOptions{})
			},
		} {
			out, err := run(`throw { name: "Error", message: "m", stack: "` + stack + `" };`)
			if err != nil || out.Kind != ProgramFailed || out.Error.Message != "m" || len(out.Error.excerpt) > 2000 {
				t.Fatalf("stack %q: %v %+v", stack, err, out)
			}
		}
	}
}

// TestDeepChainFailsOnlyTheProgram: 2.4 MB of "a<" (valid JavaScript, a
// chain of comparisons) overflowed the host's stack in blank, a fatal
// error (review of 2026-12-06); now blank refuses it unread (MaxSource)
// and esbuild's child reads it, and whatever it does, the program fails
// alone.
func TestDeepChainFailsOnlyTheProgram(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 2.4 MB with esbuild in a child process")
	}
	rt := inProcessRuntime(t)
	k, err := contract.New()
	if err != nil {
		t.Fatal(err)
	}
	c := New(rt, k)
	src := "const a = 1;\nconst x = " + strings.Repeat("a<", 1_200_000) + "a;\nexport default async () => 1;\n"
	out, err := c.Run(context.Background(), src, RunOptions{Limits: Limits{Timeout: 2 * time.Second}})
	if err != nil || out.Kind != ProgramFailed {
		t.Fatalf("%v %+v", err, out)
	}
	t.Logf("%s: %.200s", out.Error.Name, out.Error.Message)
	big := strings.Repeat(" ", maxProgram+1)
	if out, err := c.Run(context.Background(), big, RunOptions{}); err != nil || out.Kind != ProgramFailed || out.Error.Name != "RangeError" {
		t.Fatalf("a program past maxProgram: %v %+v", err, out)
	}
}

// TestDecoratorsRun: a class with decorators (blank refuses them, esbuild
// reads them) runs, its decorators lowered, in both forms.
func TestDecoratorsRun(t *testing.T) {
	rt := inProcessRuntime(t)
	k, err := contract.New()
	if err != nil {
		t.Fatal(err)
	}
	c := New(rt, k)
	code := "function twice(m: any, _ctx: any) { return function (this: any) { return 2 * m.call(this) } }\n" +
		"class A { @twice m() { return 21 } }\n"
	out, err := c.RunCode(context.Background(), code+"new A().m()", RunOptions{})
	if err != nil || out.Kind != Success || string(out.Value) != "42" {
		t.Fatalf("statements: %v %+v", err, out)
	}
	out, err = c.Run(context.Background(), code+"export default async () => { console.log(new A().m()) };", RunOptions{})
	if err != nil || out.Kind != Success {
		t.Fatalf("module: %v %+v", err, out)
	}
}

// TestNamespaceInStatementsSaysWhy: a namespace in statement-form code
// fails with esbuild's error, a hint that a module can hold it, and the
// code's excerpt; the same namespace in a module runs.
func TestNamespaceInStatementsSaysWhy(t *testing.T) {
	rt := inProcessRuntime(t)
	k, err := contract.New()
	if err != nil {
		t.Fatal(err)
	}
	c := New(rt, k)
	ns := "namespace Util { export const x: number = 41 }\n"
	out, err := c.RunCode(context.Background(), ns+"Util.x + 1", RunOptions{})
	if err != nil || out.Kind != ProgramFailed || out.Error.Name != "SyntaxError" ||
		!strings.Contains(out.Error.Message, "module's top level") || !strings.Contains(out.Error.Text(), "> 1 | namespace Util") {
		t.Fatalf("statements: %v %+v\n%s", err, out, out.Error.Text())
	}
	out, err = c.RunCode(context.Background(), ns+"export default async () => Util.x + 1;", RunOptions{})
	if err != nil || out.Kind != Success || string(out.Value) != "42" {
		t.Fatalf("module: %v %+v", err, out)
	}
}

// TestExtendKeepsTheEsbuildLimit: a client made by Extend shares its
// parent's bound on esbuild processes (it once had none: the durable
// handle's and the OpenAPI server's clients ran one child per run).
func TestExtendKeepsTheEsbuildLimit(t *testing.T) {
	k, err := contract.New()
	if err != nil {
		t.Fatal(err)
	}
	c := New(inProcessRuntime(t), k)
	if e := c.Extend(Extension{Setup: "(s) => s"}); e.erasers == nil || e.erasers != c.erasers {
		t.Fatal("Extend dropped the esbuild limit")
	}
	if d := c.WithDefaults(RunOptions{}); d.erasers != c.erasers {
		t.Fatal("WithDefaults dropped the esbuild limit")
	}
	if other := New(c.rt, k); other.erasers != c.erasers {
		t.Fatal("two clients on one Runtime have two esbuild limits")
	}
}

// TestImportInStatementsSaysWhy: an import declaration in statement-form
// code (the sandbox's programs need none) fails with esbuild's error and a
// hint that says to remove it, at the import's line.
func TestImportInStatementsSaysWhy(t *testing.T) {
	rt := inProcessRuntime(t)
	k, err := contract.New()
	if err != nil {
		t.Fatal(err)
	}
	c := New(rt, k)
	for _, tc := range []struct{ name, code, at string }{
		{"default import", "import fs from \"fs\";\nfs.readFileSync(\"/etc/hostname\", \"utf8\")", "> 1 | import fs"},
		{"named import", "const a = 1;\nimport { x } from \"./helpers\";\nx + a", "> 2 | import { x }"},
		{"namespace import", "import * as path from \"path\";\npath.join(\"a\", \"b\")", "> 1 | import * as path"},
		{"after a statement on its line", "const a = 1; import fs from \"fs\";\na", "> 1 | const a = 1; import fs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := c.RunCode(context.Background(), tc.code, RunOptions{})
			if err != nil || out.Kind != ProgramFailed || out.Error.Name != "SyntaxError" ||
				!strings.Contains(out.Error.Message, "in scope without an import: remove it") || !strings.Contains(out.Error.Text(), tc.at) {
				t.Fatalf("%v %+v\n%s", err, out, out.Error.Text())
			}
		})
	}
}
