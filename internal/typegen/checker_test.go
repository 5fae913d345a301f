package typegen

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestAnnotationsTags(t *testing.T) {
	yes, no := true, false
	for _, tc := range []struct {
		name string
		a    Annotations
		want []string
	}{
		{"none", Annotations{}, nil},
		{"title only", Annotations{Title: "Read"}, nil},
		{"read-only hides destructive and idempotent", Annotations{ReadOnly: &yes, Destructive: &yes, Idempotent: &yes}, []string{"@readonly"}},
		{"read-only false is the default", Annotations{ReadOnly: &no}, nil},
		{"all set", Annotations{ReadOnly: &no, Destructive: &yes, Idempotent: &no, OpenWorld: &yes}, []string{"@destructive", "@idempotent false", "@openWorld"}},
		{"closed world", Annotations{OpenWorld: &no}, []string{"@openWorld false"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.a.Tags(); !slices.Equal(got, tc.want) {
				t.Errorf("Tags() = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestAnnotationsUseMCPNames: the JSON form is MCP's ToolAnnotations.
func TestAnnotationsUseMCPNames(t *testing.T) {
	var d ToolDecl
	if err := json.Unmarshal([]byte(`{"name":"a","annotations":{"title":"T","readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}}`), &d); err != nil {
		t.Fatal(err)
	}
	a := d.Annotations
	if a.Title != "T" || a.ReadOnly == nil || !*a.ReadOnly || a.Destructive == nil || *a.Destructive || a.Idempotent == nil || !*a.Idempotent || a.OpenWorld == nil || *a.OpenWorld {
		t.Fatalf("decoded %+v", a)
	}
	out, err := json.Marshal(ToolDecl{Name: "b"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "annotations") {
		t.Errorf("a tool without annotations encodes them: %s", out)
	}
}

func TestDeclarationsRefuseSDKNamesWithTheSDK(t *testing.T) {
	for _, name := range []string{"step", "search", "describe", "run"} {
		s := Surface{SDK: true, Namespaces: []Namespace{{Name: "codemode", Tools: []ToolDecl{{Name: name, Description: "x", Lenient: true}}}}}
		_, err := Declarations(s)
		var se *SchemaError
		if !errors.As(err, &se) || se.Pointer != "codemode."+name || se.Keyword != "name" || !strings.Contains(se.Message, "member of the SDK") {
			t.Errorf("%s: err = %v, want a name error about the SDK", name, err)
		}
		if _, err := ForChecker(s); err == nil {
			t.Errorf("%s: ForChecker accepted what Declarations refuses", name)
		}
		// Another namespace may use the name, and so may codemode without the SDK.
		s.Namespaces[0].Name = "github"
		if _, err := Declarations(s); err != nil {
			t.Errorf("%s in github: %v", name, err)
		}
		s.Namespaces[0].Name, s.SDK = "codemode", false
		if _, err := Declarations(s); err != nil {
			t.Errorf("%s without the SDK: %v", name, err)
		}
	}
	if IsSDKMethod("searchAll") || !IsSDKMethod("describe") {
		t.Error("IsSDKMethod")
	}
}

func TestForCheckerMakesToolMethodsExact(t *testing.T) {
	s := Surface{Namespaces: []Namespace{
		{Name: "codemode", Tools: []ToolDecl{
			{Name: "echo", Description: "Echo {x} (", InputSchema: json.RawMessage(closed(`{"value":{"type":"string","description":"Any ) text."}}`, "value")), OutputSchema: json.RawMessage(`{"type":"string"}`)},
			{Name: "list", Description: "List.", InputSchema: json.RawMessage(closed(`{"items":{"type":"array","items":{"type":"string"}}}`, "items")), OutputSchema: json.RawMessage(`{"const":"("}`)},
			{Name: "any", Description: "Optional input.", Lenient: true},
		}},
		{Name: "github", Tools: []ToolDecl{
			{Name: "search", Description: "Search.", Lenient: true, InputSchema: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}`)},
		}},
	}}
	plain, err := Declarations(s)
	if err != nil {
		t.Fatal(err)
	}
	c, err := ForChecker(s)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.Methods, []string{"echo", "list", "search"}) {
		t.Errorf("Methods = %q, want echo, list, search (any takes an optional input)", c.Methods)
	}
	for _, want := range []string{
		"  echo<CodeModeI extends {\n    /** Any ) text. */\n    value: string;\n  }>(input: CodeModeI & CodeModeExactFlat<CodeModeI, {\n    /** Any ) text. */\n    value: string;\n  }>): Promise<string>;",
		"  list<CodeModeI extends {\n    items: string[];\n  }>(input: CodeModeI & CodeModeExact<CodeModeI, {",
		"  any(input?: Record<string, unknown>): Promise<any>;",
		"  search<CodeModeI extends {\n    q: string;\n    [key: string]: unknown;\n  }>(input: CodeModeI & CodeModeExact<",
		"/** Echo {x} ( */",
		`{ "` + ExcessMarker + `": X }`,
	} {
		if !strings.Contains(c.Exact, want) {
			t.Errorf("Exact lacks %q:\n%s", want, c.Exact)
		}
	}
	if rest := plain[strings.Index(plain, "interface CodeModeConsole"):]; !strings.HasSuffix(strings.TrimSuffix(c.Exact, exactHelpers), rest) {
		t.Error("Exact differs from the declarations after the namespaces")
	}
	for _, iface := range []string{"interface Tools {\n  toString: never;", "interface GithubTools {\n  toString: never;"} {
		if !strings.Contains(c.NoPrototype, iface) {
			t.Errorf("NoPrototype lacks %q:\n%s", iface, c.NoPrototype)
		}
	}
}

// TestCheckerDeclarationsCompileWithTypeScript: for every golden surface,
// Exact and NoPrototype compile with the real compiler, and a program that
// passes a variable with an extra property is rejected by Exact while the
// plain declarations accept it.
func TestCheckerDeclarationsCompileWithTypeScript(t *testing.T) {
	tsc := findTSC(t)
	for _, input := range goldenInputs(t) {
		name := strings.TrimSuffix(filepath.Base(input), ".json")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(input)
			if err != nil {
				t.Fatal(err)
			}
			var s Surface
			if err := json.Unmarshal(data, &s); err != nil {
				t.Fatal(err)
			}
			c, err := ForChecker(s)
			if err != nil {
				t.Fatal(err)
			}
			compileWithTSC(t, tsc, c.Exact+c.NoPrototype, checkProgram)
		})
	}
	s := Surface{Namespaces: []Namespace{{Name: "codemode", Tools: []ToolDecl{
		{Name: "echo", Description: "Echo.", InputSchema: json.RawMessage(closed(`{"value":{"type":"string"}}`, "value")), OutputSchema: json.RawMessage(`{"type":"string"}`)},
	}}}}
	c, err := ForChecker(s)
	if err != nil {
		t.Fatal(err)
	}
	program := `const p: AgentProgram = async ({ codemode }) => {
  const arg = { value: "a", extra: 1 };
  return codemode.echo(arg);
};
`
	plain, err := Declarations(s)
	if err != nil {
		t.Fatal(err)
	}
	compileWithTSC(t, tsc, plain, program)
	out, ok := tscErrors(t, tsc, c.Exact, program)
	if ok || !strings.Contains(out, ExcessMarker) || !strings.Contains(out, `"input.extra"`) {
		t.Errorf("the exact declarations accepted an extra property; tsc said:\n%s", out)
	}
}

// TestSDKTypesWithTypeScript: a program uses the SDK as the seeds'
// programs do, and the types flow (step's T, search's results); run is
// declared by a runner that keeps saved programs, through interface
// merging.
func TestSDKTypesWithTypeScript(t *testing.T) {
	tsc := findTSC(t)
	surface, err := os.ReadFile(filepath.Join("testdata", "sdk.d.ts"))
	if err != nil {
		t.Fatal(err)
	}
	run := "interface Tools { run(name: string, input?: unknown): Promise<unknown>; }\n"
	compileWithTSC(t, tsc, string(surface)+run, `const p: AgentProgram = async ({ codemode, github }) => {
  const createdAt: number = await codemode.step("created-at", () => Date.now());
  const later: string = await codemode.step("async", async () => "x");
  const found = await codemode.search("pull requests");
  const first: "method" | "snippet" | undefined = found.results[0]?.kind;
  const doc = await codemode.describe(found.results[0]!.path);
  const types: string = doc.types;
  const out: unknown = await codemode.run("list-open-prs", { repo: "agents" });
  await codemode.getWeather({ location: "Paris" });
  await github.list_pull_requests({ owner: "cloudflare", repo: "agents" });
  return [createdAt, later, first, types, out, found.total, found.truncated];
};
`)
}
