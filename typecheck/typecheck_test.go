package typecheck_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/quickjs"
	"github.com/codemode-go/codemode/internal/fixtures"
	"github.com/codemode-go/codemode/internal/typegen"
	"github.com/codemode-go/codemode/typecheck"
)

func checker(t *testing.T) *typecheck.Checker {
	t.Helper()
	c, err := typecheck.New(typecheck.Options{})
	if errors.Is(err, typecheck.ErrNotInstalled) && os.Getenv("CODEMODE_REQUIRE_TSC") == "" {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func declarationsFor(t *testing.T) []typecheck.File { return declarations(t, false) }

func declarations(t *testing.T, withInput bool) []typecheck.File {
	tools, err := fixtures.Tools(nil)
	if err != nil {
		t.Fatal(err)
	}
	var k *contract.Contract
	if withInput {
		s, err := contract.NewSchema([]byte(`{"type":"object","properties":{"location":{"type":"string"}},"required":["location"],"additionalProperties":false}`))
		if err != nil {
			t.Fatal(err)
		}
		k, err = contract.New(tools...)
		if err == nil {
			k, err = k.WithInput(s)
		}
		if err != nil {
			t.Fatal(err)
		}
	} else if k, err = contract.New(tools...); err != nil {
		t.Fatal(err)
	}
	rtFiles, _ := quickjs.New(quickjs.Options{}).TypeDefinitionFiles(context.Background())
	files := []typecheck.File{{Name: "codemode.d.ts", Text: k.TypeDefinitions(), Checker: k.CheckerDeclarations()}}
	for _, f := range rtFiles {
		files = append(files, typecheck.File{Name: f.Name, Text: f.Text})
	}
	return files
}

func TestCheckFindsTheErrorsAnAgentMakes(t *testing.T) {
	c := checker(t)
	inputless := declarations(t, false)
	withInput := declarations(t, true)
	tests := []struct {
		name   string
		files  []typecheck.File
		source string
		code   int
		line   int
		want   string
	}{
		{"valid", inputless, `export default async function ({ codemode, result }: AgentProgramScope) {
  const r = await codemode.echo({ value: "x" });
  console.log(r.value); setTimeout(() => {}, 1);
  result.appendText(r.value);
}`, 0, 0, ""},
		{"wrong argument type", inputless, `export default async function ({ codemode }: AgentProgramScope) {
  await codemode.echo({ value: 42 });
}`, 2322, 2, "number"},
		{"excess property", inputless, `export default async function ({ codemode }: AgentProgramScope) {
  await codemode.echo({ value: "x", extra: 1 });
}`, 2353, 2, "extra"},
		{"excess property in array items", inputless, `export default async function ({ codemode }: AgentProgramScope) {
  const inputs: Parameters<typeof codemode.add>[0][] = [{ a: 1, b: 2, c: 3 }];
  await Promise.all(inputs.map((i) => codemode.add(i)));
}`, 2353, 2, "c"},
		{"excess property through a variable", inputless, `export default async function ({ codemode }: AgentProgramScope) {
  const arg = { location: "x", extra: 1 };
  await codemode.getWeather(arg);
}`, 2345, 3, "input.extra"},
		{"excess property in array items through a variable", inputless, `export default async function ({ codemode }: AgentProgramScope) {
  const inputs = [{ a: 1, b: 2 }, { a: 1, b: 2, c: 3 }];
  await Promise.all(inputs.map((i) => codemode.add(i)));
}`, 2379, 3, "input.c"}, // 2379: 2345 under exactOptionalPropertyTypes
		{"variables without excess properties", inputless, `export default async function ({ codemode, result }: AgentProgramScope) {
  const arg = { location: "x" };
  const w = await codemode.getWeather(arg);
  const inputs = [{ a: 1, b: 2 }];
  const sums = await Promise.all(inputs.map((i) => codemode.add(i)));
  const none = {};
  await codemode.listItems(none);
  result.appendText(w.conditions + sums[0]!.sum);
}`, 0, 0, ""},
		{"unknown tool", inputless, `export default async function ({ codemode }: AgentProgramScope) {
  await codemode.sendEmail({ to: "x" });
}`, 2339, 2, "sendEmail"},
		{"codemode.toString", inputless, `export default async function ({ codemode, result }: AgentProgramScope) {
  result.appendText(codemode.toString());
}`, 2349, 2, "not callable"},
		{"missing await used as a result", inputless, `export default async function ({ codemode, result }: AgentProgramScope) {
  const r = codemode.echo({ value: "x" });
  result.appendText(r.value);
}`, 2339, 3, "value"},
		{"wrong input field", withInput, `export default async function ({ input, result }: AgentProgramScope) {
  result.appendText(input.city);
}`, 2339, 2, "city"},
		{"syntax error", inputless, `export default async function ({ result }: AgentProgramScope) {
  result.appendText("x";
}`, 1005, 2, "expected"},
		// Names of Node.js or a browser: the compiler's advice (npm install,
		// the lib option) is not the program's to follow.
		{"a Node.js global", inputless, `export default async function ({ result }: AgentProgramScope) {
  result.appendText(Buffer.from("x").toString("base64"));
}`, 2591, 2, "Cannot find name 'Buffer': the program's runtime does not define it"},
		{"require", inputless, `export default async function () {
  return require("fs");
}`, 2591, 2, "Cannot find name 'require': the program's runtime does not define it"},
		{"a browser global", inputless, `export default async function () {
  return document.title;
}`, 2584, 2, "Cannot find name 'document': the program's runtime does not define it"},
		{"an import inside a function", inputless, `export default async function () {
  import fs from "fs";
}`, 1232, 2, "in scope without an import"},
		{"no default export", inputless, `export const x = 1;`, 1192, 1, "no default export"},
		{"default export of the wrong type", inputless, `export default 42;`, 2322, 1, "not assignable to AgentProgram"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			res, err := c.Check(ctx, tt.files, tt.source)
			if err != nil {
				t.Fatal(err)
			}
			if tt.code == 0 {
				if !res.Valid {
					t.Fatalf("invalid:\n%s", res.Report)
				}
				return
			}
			if res.Valid || len(res.Diagnostics) == 0 {
				t.Fatal("valid, want a diagnostic")
			}
			d := res.Diagnostics[0]
			if d.Code != tt.code || d.Line != tt.line || !strings.Contains(d.Message, tt.want) {
				t.Fatalf("first diagnostic %+v, want TS%d on line %d mentioning %q\n%s", d, tt.code, tt.line, tt.want, res.Report)
			}
			if !strings.Contains(res.Report, "^") || len(res.Report) > 8000 {
				t.Fatalf("report:\n%s", res.Report)
			}
		})
	}
}

func TestCheckRestartsADeadServerAndHonoursCancellation(t *testing.T) {
	c := checker(t)
	files := declarations(t, false)
	ctx := context.Background()
	if _, err := c.Check(ctx, files, `export default async function () {}`); err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := c.Check(cancelled, files, `export default async function () {}`); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled check returned %v", err)
	}
	// Kill the server behind the checker's back; the next check restarts it.
	killTSC(t)
	res, err := c.Check(ctx, files, `export default async function () {}`)
	if err != nil || !res.Valid {
		t.Fatalf("after the server died: %+v %v", res, err)
	}
}

// killTSC kills this process's tsc children.
func killTSC(t *testing.T) {
	t.Helper()
	entries, _ := os.ReadDir("/proc")
	self := os.Getpid()
	for _, e := range entries {
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		f := strings.Fields(string(stat))
		if len(f) > 3 && f[3] == itoa(self) && strings.Contains(f[1], "tsc") {
			p, _ := os.FindProcess(atoi(e.Name()))
			p.Kill()
			time.Sleep(100 * time.Millisecond)
		}
	}
}

// TestCheckLoadsADeclarationPackage: every file given is loaded, those under
// a subdirectory too, and imports between them resolve like a package in
// node_modules.
func TestCheckLoadsADeclarationPackage(t *testing.T) {
	c := checker(t)
	base := declarations(t, false)
	pkg := []typecheck.File{
		{Name: "node_modules/@types/demo/index.d.ts", Text: "/// <reference path=\"sub/more.d.ts\" />\ndeclare var demo: { answer: Answer };\n"},
		{Name: "node_modules/@types/demo/sub/more.d.ts", Text: "type Answer = import(\"demo-dep\").Answer;\n"},
		{Name: "node_modules/demo-dep/index.d.ts", Text: "export type Answer = 42;\n"},
	}
	const src = `export default async function ({ result }: AgentProgramScope) {
  const n: 42 = demo.answer;
  result.appendText(String(n));
}`
	tests := []struct {
		name  string
		files []typecheck.File
		valid bool
	}{
		{"referenced", append(append(append([]typecheck.File(nil), base...), pkg...), typecheck.File{Name: "demo.d.ts", Text: "/// <reference path=\"node_modules/@types/demo/index.d.ts\" />\n"}), true},
		{"not referenced", append(append([]typecheck.File(nil), base...), pkg...), true},
		{"not given", base, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := c.Check(context.Background(), tt.files, src)
			if err != nil {
				t.Fatal(err)
			}
			if res.Valid != tt.valid {
				t.Fatalf("valid = %v, want %v\n%s", res.Valid, tt.valid, res.Report)
			}
		})
	}
}

// TestCheckRefusesUnsafeFileNames: declaration file names stay inside the
// project and do not replace its own files.
func TestCheckRefusesUnsafeFileNames(t *testing.T) {
	c := checker(t)
	for _, name := range []string{"../escape.d.ts", "/abs.d.ts", "a/../b.d.ts", `a\b.d.ts`, "agent.ts", "check.d.ts.txt", "codemode-no-prototype.d.ts", "./x.d.ts"} {
		t.Run(name, func(t *testing.T) {
			_, err := c.Check(context.Background(), []typecheck.File{{Name: name, Text: ""}}, `export default async function () {}`)
			if err == nil || !strings.Contains(err.Error(), "clean relative path") {
				t.Fatalf("err = %v, want a refusal", err)
			}
		})
	}
}

// TestCheckRejectsUndeclaredInputPropertiesThroughVariables: the exact
// pass follows nested objects, arrays and the branch of a discriminated
// union the argument belongs to, lets `any` through, and leaves fresh
// object literals to TypeScript's own message.
func TestCheckRejectsUndeclaredInputPropertiesThroughVariables(t *testing.T) {
	c := checker(t)
	obj := func(props string, required ...string) string {
		return `{"type":"object","properties":` + props + `,"required":["` + strings.Join(required, `","`) + `"],"additionalProperties":false}`
	}
	surface := typegen.Surface{Namespaces: []typegen.Namespace{{Name: "codemode", Tools: []typegen.ToolDecl{
		{
			Name: "tag", Description: "Tags {in braces} and a ( paren.",
			InputSchema: json.RawMessage(obj(`{"items":{"description":"The items ) to tag.","type":"array","items":`+
				`{"type":"object","properties":{"id":{"type":"string"},"labels":{"type":"array","items":{"type":"string"}},"owner":`+obj(`{"name":{"type":"string"}}`, "name")+`},"required":["id"],"additionalProperties":false}}}`, "items")),
			OutputSchema: json.RawMessage(obj(`{"ok":{"type":"boolean"}}`, "ok")),
		},
		{
			Name: "shape", Description: "Area of a shape.",
			InputSchema: json.RawMessage(`{"oneOf":[` + obj(`{"kind":{"const":"circle"},"r":{"type":"number"}}`, "kind", "r") + `,` +
				obj(`{"kind":{"const":"square"},"side":{"type":"number"}}`, "kind", "side") + `]}`),
			OutputSchema: json.RawMessage(obj(`{"area":{"type":"number"}}`, "area")),
		},
	}}}}
	text, err := typegen.Declarations(surface)
	if err != nil {
		t.Fatal(err)
	}
	exact, err := typegen.ForChecker(surface)
	if err != nil {
		t.Fatal(err)
	}
	files := []typecheck.File{{Name: "codemode.d.ts", Text: text, Checker: exact}}
	tests := []struct {
		name string
		body string
		code int    // 0: valid
		want string // in the first diagnostic
	}{
		{"nested valid", `const items = [{ id: "a", labels: ["x"], owner: { name: "n" } }]; await codemode.tag({ items });`, 0, ""},
		{"array item", `const items = [{ id: "a", colour: "red" }]; await codemode.tag({ items });`, 2345, "input.items[].colour"},
		{"nested object", `const owner = { name: "n", email: "e" }; await codemode.tag({ items: [{ id: "a", owner }] });`, 2345, "input.items[].owner.email"},
		{"union branch valid", `const s = { kind: "square" as const, side: 2 }; await codemode.shape(s);`, 0, ""},
		{"union branch extra", `const s = { kind: "square" as const, side: 2, r: 1 }; await codemode.shape(s);`, 2345, "input.r"},
		{"any", `const s: any = { kind: "square", side: 2, r: 1 }; await codemode.shape(s);`, 0, ""},
		{"fresh literal keeps TypeScript's message", `await codemode.shape({ kind: "circle", r: 1, side: 2 });`, 2353, "Object literal may only specify known properties"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := "export default async function ({ codemode }: AgentProgramScope) {\n  " + tt.body + "\n}\n"
			res, err := c.Check(context.Background(), files, src)
			if err != nil {
				t.Fatal(err)
			}
			if tt.code == 0 {
				if !res.Valid {
					t.Fatalf("invalid:\n%s", res.Report)
				}
				return
			}
			if res.Valid {
				t.Fatalf("valid, want TS%d", tt.code)
			}
			if d := res.Diagnostics[0]; d.Code != tt.code || !strings.Contains(d.Message, tt.want) {
				t.Fatalf("first diagnostic TS%d %q, want TS%d mentioning %q\n%s", d.Code, d.Message, tt.code, tt.want, res.Report)
			}
		})
	}
}

// TestCheckWaitingForItsTurnHonoursItsContext: a check waits for the one
// running (checks run one at a time) only as long as its context lets it
// (a mutex made every caller wait behind a check the compiler took long
// over, whatever their deadlines); the checker then carries on.
func TestCheckWaitingForItsTurnHonoursItsContext(t *testing.T) {
	c := checker(t)
	files := declarations(t, false)
	release := c.HoldTurn()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := c.Check(ctx, files, `export default async function () {}`)
	release()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a check waiting past its deadline returned %v", err)
	}
	if res, err := c.Check(context.Background(), files, `export default async function () {}`); err != nil || !res.Valid {
		t.Fatalf("the next check: %+v %v", res, err)
	}
}
