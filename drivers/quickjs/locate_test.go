package quickjs_test

import (
	"context"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/drivers/quickjs"
)

// TestErrorsQuickJSRaisesNameTheFailingExpression runs programs whose
// failure QuickJS raises at a step it records no position for (a property
// read, a name lookup): the error names the failing expression, or no
// position at all, never the line of an earlier recorded step.
func TestErrorsQuickJSRaisesNameTheFailingExpression(t *testing.T) {
	ctx := context.Background()
	rt, err := client.NewRuntime(ctx, quickjs.New(quickjs.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	c := clientFor(t, rt)
	for _, tc := range []struct {
		name, code string
		at         string // "agent.ts:L:C" the excerpt names, or "" for none
	}{
		{"read after a call on an earlier line", "const c: any = null;\nconst a = 1;\nconsole.log(\"before\");\nconst n = c.name;\nn", "agent.ts:4:13"},
		{"read with no call before it", "const a = 1;\nconst c: any = null;\nconst b = 2;\nconst n = c.name;\nn", "agent.ts:4:13"},
		{"read in a nested function", "function f(o: any) {\n  return o.x.y;\n}\nconst a = 1;\nf({})", "agent.ts:2:14"},
		// An async arrow's frame names its "async" until its first recorded
		// step: the statement form runs in one, so a first line that calls
		// an undefined function is placed.
		{"an undefined function called on the first line", "const x = nosuch(1);\nx", "agent.ts:1:11"},
		{"an undefined global in an async arrow", "const f = async () => {\n  const b = Buffer.from(\"hi\");\n  return b;\n};\nawait f()", "agent.ts:2:13"},
		{"undefined name after a call", "const arr = [1, 2, 3];\narr.map((v) => v.toFixed(2)).join();\nconst z = undefinedVariable + 1;\nz", "agent.ts:3:11"},
		{"read in an arrow callback", "const xs: any[] = [{}];\nxs.map((v) => v.a.b);", "agent.ts:2:19"},
		{"read in a template literal", "const c: any = null;\nconst s = `name: ${c.name}`;\ns", "agent.ts:2:22"},
		{"an optional chain that does not fail", "const c: any = null;\nconst a = c?.name;\nconst b = c.name;\nb", "agent.ts:3:13"},
		{"same name earlier on the line", "const o: any = { p: { name: 1 } };\nconst q: any = null;\nconst n = o.p.name + q.name;\nn", "agent.ts:3:24"},
		{"two reads that may have failed", "const a: any = { name: 1 };\nconst c: any = null;\nconst x = [a.name, c.name];\nx", ""},
		{"a minified-looking line", "const c:any=null;let a=1;let b=c.name;b", "agent.ts:1:34"},
		{"a call's result", "function g(): any { return null; }\nconst a = 1;\ng().name;", "agent.ts:3:5"},
		{"a property set", "const c: any = undefined;\nconst a = 1;\nc.x = 1;", "agent.ts:3:3"},
		{"a for loop's body", "const xs: any[] = [{ n: 1 }, null];\nlet t = 0;\nfor (let i = 0; i < xs.length; i++) {\n  const x = xs[i];\n  t += x.n;\n}\nt", "agent.ts:5:10"},
		{"a for-of loop's body", "const xs: any[] = [{ n: 1 }, null];\nlet t = 0;\nfor (const x of xs) {\n  t += x.n;\n}\nt", "agent.ts:4:10"},
		// A computed read (xs[i]) before the failing one may be the one
		// that failed, as far as the source tells: no position.
		{"a computed read before it", "const xs: any[] = [{ n: 1 }, null];\nlet t = 0;\nfor (let i = 0; i < xs.length; i++) {\n  t += xs[i].n;\n}\nt", ""},
		// The program's own error keeps the engine's position (the
		// constructor's name).
		{"a program's own copy of the message", "const a = 1;\nthrow new TypeError(\"cannot read property 'x' of null\");", "agent.ts:2:11"},
		// blank.Types refuses a destructuring assignment (esbuild erases
		// the program): no sites to place the failure by, and QuickJS
		// names the console.log's line.
		{"a destructuring assignment", "const u: any = undefined;\nconsole.log(1);\nconst o: any = { x: 1 };\nconst y = o.x;\n[u.x] = [1];", ""},
		{"erased by esbuild", "enum E { A }\nconst c: any = null;\nconsole.log(E.A);\nconst n = c.name;\nn", "agent.ts:4:13"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := c.RunCode(ctx, tc.code, client.RunOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if out.Error == nil {
				t.Fatalf("the program did not fail: %+v", out)
			}
			text := out.Error.Text()
			got := ""
			if _, rest, ok := strings.Cut(text, "\n  at "); ok {
				got, _, _ = strings.Cut(rest, "\n")
			}
			if got != tc.at {
				t.Errorf("the excerpt is at %q, want %q:\n%s\nstack:\n%s", got, tc.at, text, out.Error.Stack)
			}
		})
	}
}
