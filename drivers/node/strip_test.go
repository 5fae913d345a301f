package node_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/drivers"
	"github.com/codemode-go/codemode/internal/wire"
	"github.com/codemode-go/codemode/runner"
)

// TestRunnerStripsTypeScript: the Node.js runner offers to strip types
// (wire 1.4), runs a program sent as TypeScript, and refuses, with nothing
// run, one whose syntax blanks cannot erase (an enum) or that does not
// parse.
func TestRunnerStripsTypeScript(t *testing.T) {
	d := driver(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := d.Connect(ctx, drivers.ConnectRequest{RunnerSource: runner.Source})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r, w := wire.NewReader(c.Channel()), wire.NewWriter(c.Channel())
	ready, err := r.Read()
	if err != nil || ready.Kind != wire.KindReady || !ready.TypeScript {
		t.Fatalf("ready %+v %v: want typeScript", ready, err)
	}
	tests := []struct {
		source  string
		refused bool
		value   string
	}{
		{"export default async function (): Promise<number> { const n: number = 41; return (n as number) + 1; }", false, "42"},
		{"enum E { A = 1 }\nexport default async function () { return E.A; }", true, ""},
		{"export default async function () { const n: number = ; }", true, ""},
		// Found by the engine, not the stripper: refused too, so that the
		// host's erasure reports it with its position.
		{"let x: number = 1;\nlet x: number = 2;\nexport default async function () { return x; }", true, ""},
		// Blanks that would join a statement to the next line's: refused.
		// Blanks after which the next token continues the same expression
		// in TypeScript too (type arguments, a non-null assertion), or the
		// code before ended its statement, or only a comment follows: run.
		{"const t = { x: [1] }\ntype K = \"x\"\n;[\"x\"].forEach(() => {})\nexport default async function () { return t; }", true, ""},
		{"const y = [1] as number[]\n[1, 2].map(String)\nexport default async function () { return y; }", false, "[1]"}, // the stripper puts a ; back
		{"export default async function () { const m = new Map<string, number>([[\"a\", 1]]); return m.get(\"a\")! + 1; }", false, "2"},
		{"export default async function () { const f = (x?: () => number) => x!(); return f(() => 3); }", false, "3"},
		{"type K = \"x\";\n[1].forEach(() => {})\nexport default async function () { return 4; }", false, "4"},
		{"const a = 5\ntype K = \"x\"\n// a comment\n/* and another */\nexport default async function () { return a; }", false, "5"},
	}
	for i, tt := range tests {
		id := uint64(i + 1)
		if err := w.Write(&wire.Message{Kind: wire.KindExecute, Execution: id, Filename: "agent.ts", Source: tt.source, TypeScript: true}); err != nil {
			t.Fatal(err)
		}
		m, err := r.Read()
		if err != nil || m.Kind != wire.KindResult || m.Execution != id {
			t.Fatalf("%q: got %+v %v, want its result", tt.source, m, err)
		}
		if m.StripRefused != tt.refused {
			t.Fatalf("%q: stripRefused %v (%+v), want %v", tt.source, m.StripRefused, m.Error, tt.refused)
		}
		if tt.refused {
			if m.Outcome != wire.OutcomeProgramFailed || !strings.Contains(m.Error.Message, "nothing ran") {
				t.Errorf("%q: refusal %+v", tt.source, m.Error)
			}
			continue
		}
		if m.Outcome != wire.OutcomeSuccess || string(m.Value) != tt.value {
			t.Errorf("%q: outcome %s %+v value %s, want %s", tt.source, m.Outcome, m.Error, m.Value, tt.value)
		}
	}
}

// TestStrippedProgramsOnTheDriver: through a client, programs the runner
// strips report errors at the submitted source's lines and columns (with
// no source map), a tool validation error quotes the calling line, and an
// enum, which the runner refuses, runs after the client erased it.
func TestStrippedProgramsOnTheDriver(t *testing.T) {
	c := echoClient(t, driver(t))
	run := func(src string) *client.Outcome {
		t.Helper()
		out, err := c.Run(context.Background(), src, client.RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	out := run("export default async function () {\n  const a: { x: number } = { x: 1 }; const b: string = \"q\"; throw new Error(\"here \" + b + a.x);\n}\n")
	if out.Kind != client.ProgramFailed || !strings.Contains(out.Error.Stack, "agent.ts:2:67") {
		t.Errorf("throw: %s %+v stack %q, want a stack at agent.ts:2:67", out.Kind, out.Error, out.Error.Stack)
	}
	out = run("export default async function ({ codemode }: AgentProgramScope) {\n  const v: number = 3;\n  await codemode.echo({ value: v as any });\n}\n")
	if out.Kind != client.ProgramFailed || out.Error.Name != "ToolValidationError" || !strings.Contains(out.Error.Message, "await codemode.echo({ value: v as any });") {
		t.Errorf("validation: %s %+v, want an excerpt of line 3", out.Kind, out.Error)
	}
	out = run("enum Colour { Red = 1, Green = 2 }\nexport default async function (): Promise<number> { return Colour.Green; }\n")
	if out.Kind != client.Success || string(out.Value) != "2" {
		t.Errorf("enum: %s %+v %s", out.Kind, out.Error, out.Value)
	}
	// Differences a helper found between stripped and erased programs: each
	// now reads as the erasure's.
	out = run("let x: number = 1;\nlet x: number = 2;\nexport default async function () { return x; }\n")
	if out.Kind != client.ProgramFailed || out.Error.Name != "SyntaxError" || !strings.Contains(out.Error.Message, "agent.ts:2:5") {
		t.Errorf("redeclared let: %s %+v, want the erasure's SyntaxError at agent.ts:2:5", out.Kind, out.Error)
	}
	out = run("class A {\n  x = 1\n  declare y: number\n  ['z'] = 2\n}\nexport default async function () { const a: any = new A(); return [a.x, a.z]; }\n")
	if out.Kind != client.Success || string(out.Value) != "[1,2]" {
		t.Errorf("class with a declare field: %s %+v %s", out.Kind, out.Error, out.Value)
	}
	// Blanking a statement's own semicolon, or a statement that a line
	// break ended, let the next line continue the statement before it
	// (an adversarial review): these go to the erasure now.
	for _, tc := range []struct{ name, src, want string }{
		{"type alias ended on the next line", "export default async function () {\n  const out: string[] = []\n  const table = { x: [\"wrong\"] }\n  type Key = \"x\"\n  ;[\"x\"].forEach((k) => out.push(k))\n  return { out, table }\n}\n", `{"out":["x"],"table":{"x":["wrong"]}}`},
		{"type alias, then a line starting with ;[", "export default async function () {\n  let q = 1\n  type T = number\n  ;[1, 2].forEach((n) => { q += n })\n  return q\n}\n", "4"},
		{"type alias and an index on one line", "export default async function () {\n  const a = [7]\n  type T = 1;[0].forEach(() => {})\n  return a\n}\n", "[7]"},
		{"declare, then a line starting with (", "export default async function () {\n  const f = () => 5\n  let r = 0\n  r = f()\n  declare const z: number\n  ;(() => { r += 1 })()\n  return r\n}\n", "6"},
		{"type arguments, then a type alias ended on the next line", "export default async function () {\n  const log: string[] = [];\n  const f = (v?: unknown) => { log.push(\"f called with \" + String(v)); return 1; };\n  let x: unknown = f<number>\n  type Q = 1\n  ;(log.push(\"paren\"))\n  return { x: typeof x, log };\n}\n", `{"x":"function","log":["paren"]}`},
		{"a non-null assertion, then a type alias ended on the next line", "export default async function () {\n  const log: string[] = [];\n  const g: any = (v?: unknown) => { log.push(\"g called with \" + String(v)); return 1; };\n  let x: unknown = g!\n  type Q = 1\n  ;(log.push(\"paren\"))\n  return { x: typeof x, log };\n}\n", `{"x":"function","log":["paren"]}`},
		{"a semicolon in a comment before the type alias", "export default async function () {\n  const log: string[] = [];\n  const f: any = (v?: unknown) => { log.push(\"f called with \" + String(v)); return 1; };\n  let x: unknown = f // done;\n  type Q = 1\n  ;(log.push(\"paren\"))\n  return { x: typeof x, log };\n}\n", `{"x":"function","log":["paren"]}`},
		{"an ideographic space after the type alias", "export default async function () {\n  const log: string[] = [];\n  const f: any = (v?: unknown) => { log.push(\"f called with \" + String(v)); return 1; };\n  let x: unknown = f\n  type Q = 1\n  ;\u3000(log.push(\"paren\"))\n  return { x: typeof x, log };\n}\n", `{"x":"function","log":["paren"]}`},
		{"type arguments before a call stay stripped", "export default async function () {\n  const m = new Map<string, number>()\n  m.set(\"a\", 1)\n  return m.get(\"a\")\n}\n", "1"},
	} {
		out = run(tc.src)
		if out.Kind != client.Success || string(out.Value) != tc.want {
			t.Errorf("%s: %s %+v %s, want %s", tc.name, out.Kind, out.Error, out.Value, tc.want)
		}
	}
	out = run("\uFEFFexport default async function () { const n: number = 1; throw new Error(String(n)); }\n")
	if out.Kind != client.ProgramFailed || !strings.Contains(out.Error.Stack, "agent.ts:1:") {
		t.Errorf("byte order mark: %s %+v", out.Kind, out.Error)
	} else if i := strings.Index(out.Error.Stack, "agent.ts:1:"); !strings.HasPrefix(out.Error.Stack[i:], "agent.ts:1:64") {
		t.Errorf("byte order mark: stack %q, want agent.ts:1:64 (the column of new Error, counting the mark, as the erasure counts it)", out.Error.Stack)
	}
}
