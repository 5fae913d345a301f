package codeform_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/internal/esbuildchild"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/quickjs"
	"github.com/codemode-go/codemode/internal/codeform"
)

// TestProgramFunctionRunsEveryCodeForm evaluates ProgramFunction's
// expression inside a real QuickJS program and calls it with a scope: each
// code form gives its value, and its tool calls are the program's own.
func TestProgramFunctionRunsEveryCodeForm(t *testing.T) {
	ctx := context.Background()
	cl, rt := exampleClient(ctx)
	defer rt.Close()
	names := []string{"codemode", "input", "console"}
	es := esbuildchild.New(context.Background(), nil)
	defer es.Close()
	for _, tc := range []struct{ name, code, want string }{
		{"statements", "const { sum } = await codemode.add({ a: input, b: 1 });\nsum * 2", "12"},
		{"function expression", "async ({ codemode, input }) => (await codemode.add({ a: input, b: input })).sum", "10"},
		{"module", "const k: number = 3;\nexport default async ({ input }: { input: number }) => input * k;", "15"},
		// A module sees the names as variables too (a snippet saved as a
		// module reads input as the checker declares it); its own
		// declarations shadow them.
		{"module reading a name", "declare const input: number;\nexport default async function () { return input + 2; }", "7"},
		{"module at its top level", "const twice = input * 2;\nexport default async () => twice;", "10"},
		{"module shadowing a name", "const input = 40;\nexport default async () => input + 2;", "42"},
		{"module declaring a function of a name", "function input() {}\nexport default async () => input.name;", `"input"`},
		// Strict, as when the code ran as an execution's module, and a
		// module's top-level await works.
		{"module with top-level await", "const n = await Promise.resolve(input * 3);\nexport default async () => n;", "15"},
		{"strict module", "const self = (function () { return this; })();\nexport default async () => typeof self;", `"undefined"`},
		{"strict statements", "let caught = \"\";\ntry { (0, eval)(\"0\"); undeclaredName = 1; } catch (e) { caught = e.name; }\ncaught", `"ReferenceError"`},
		{"fenced", "```ts\ninput + 1\n```", "6"},
		{"typed statements", "type N = number;\nconst n: N = input as N;\n[n, n]", "[5,5]"},
		{"last expression", "await codemode.add({ a: 1, b: 1 });", `{"sum":2}`},
		{"no value", "const x = 1;", "null"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			js, err := codeform.ProgramFunction(tc.code, names, es)
			if err != nil {
				t.Fatal(err)
			}
			lit, _ := json.Marshal(js)
			out, err := cl.RunCode(ctx, "const f = (0, eval)("+string(lit)+");\nconst v = await f({ codemode, input: 5, console });\nv === undefined ? null : v", client.RunOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if out.Kind != client.Success || string(out.Value) != tc.want {
				t.Fatalf("%s: %v %s %v, want %s\n%s", tc.name, out.Kind, out.Value, out.Error, tc.want, js)
			}
		})
	}
}

func TestProgramFunctionRefusesWhatDoesNotCompile(t *testing.T) {
	es := esbuildchild.New(context.Background(), nil)
	defer es.Close()
	for _, code := range []string{"const = 1", "import fs from 'node:fs';\nexport default () => fs", "export const x = 1;\nexport default () => x"} {
		if js, err := codeform.ProgramFunction(code, nil, es); err == nil || !strings.Contains(err.Error(), "does not compile") {
			t.Errorf("ProgramFunction(%q) = %q, %v; want a compile error", code, js, err)
		}
	}
}

func FuzzProgramFunction(f *testing.F) {
	for _, s := range []string{"1", "export default () => 2", "```\nx\n```", "async () => {", "/*", "`${"} {
		f.Add(s)
	}
	es := esbuildchild.New(context.Background(), nil)
	f.Cleanup(func() { es.Close() })
	f.Fuzz(func(t *testing.T, code string) {
		js, err := codeform.ProgramFunction(code, []string{"a", "b"}, es)
		if err == nil && !strings.Contains(js, "=>") {
			t.Fatalf("ProgramFunction(%q) = %q, not a function expression", code, js)
		}
	})
}

type sum struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}

type total struct {
	Sum float64 `json:"sum"`
}

// exampleClient binds a QuickJS runtime to a contract with one tool, add.
func exampleClient(ctx context.Context) (*client.Client, *client.Runtime) {
	add, err := contract.NewTool("add", "Add two numbers.", func(ctx context.Context, in sum) (total, error) {
		return total{Sum: in.A + in.B}, nil
	})
	if err != nil {
		panic(err)
	}
	c, err := contract.New(add)
	if err != nil {
		panic(err)
	}
	rt, err := client.NewRuntime(ctx, quickjs.New(quickjs.Options{}))
	if err != nil {
		panic(err)
	}
	return client.New(rt, c), rt
}
