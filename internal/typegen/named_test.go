package typegen

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNamedTypesAcceptRecursiveValuesWithTypeScript checks, with the real
// compiler, that the named types of the lenient-named golden hold recursive
// values a validator would accept.
func TestNamedTypesAcceptRecursiveValuesWithTypeScript(t *testing.T) {
	tsc := findTSC(t)
	surface, err := os.ReadFile(filepath.Join("testdata", "lenient-named.d.ts"))
	if err != nil {
		t.Fatal(err)
	}
	check := `const pet: PetstoreTypes.Pet = { id: 1, name: "a", tag: null, parent: { id: 2, name: "b" }, owner: { pets: [{ id: 3, name: "c", tag: "cat" }], address: { city: "x" } } };
const tree: PetstoreTypes.Tree = ["a", ["b", ["c"]]];
const loop: PetstoreTypes.Loop = "x";
const input: Parameters<PetstoreTools["addPet"]>[0] = { body: pet, tree, loop, self: 1 };
`
	compileWithTSC(t, tsc, string(surface), check)
}

// TestNamedDefinitionsStayProportional: a document in which each component
// refers to the next one twice inlines to 2^n copies; with names it declares
// each component once.
func TestNamedDefinitionsStayProportional(t *testing.T) {
	const n = 40
	schemas := map[string]any{}
	names := map[string]string{}
	for i := range n {
		props := map[string]any{"v": map[string]any{"type": "string"}}
		if i+1 < n {
			next := map[string]any{"$ref": fmt.Sprintf("#/components/schemas/S%d", i+1)}
			props["a"], props["b"] = next, next
		}
		schemas[fmt.Sprintf("S%d", i)] = map[string]any{"type": "object", "properties": props}
		names[fmt.Sprintf("#/components/schemas/S%d", i)] = fmt.Sprintf("S%d", i)
	}
	doc, _ := json.Marshal(map[string]any{"components": map[string]any{"schemas": schemas}})
	got, err := Declarations(Surface{Namespaces: []Namespace{{
		Name:        "deep",
		Definitions: &Definitions{Document: doc, Names: names},
		Tools: []ToolDecl{{Name: "get", Description: "Gets.", Lenient: true,
			InputSchema: json.RawMessage(`{"type":"object"}`), OutputSchema: json.RawMessage(`{"$ref":"#/components/schemas/S0"}`)}},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	if c := strings.Count(got, "interface S"); c != n {
		t.Errorf("declared %d interfaces, want %d", c, n)
	}
	if len(got) > 20_000 {
		t.Errorf("declarations are %d bytes for %d components; want them proportional (< 20,000)", len(got), n)
	}
}

// TestNamedTypeWithPercentInItsName: a named schema whose name holds "%"
// (referenced as "a%2520b", which percent-decodes to it) is declared with
// its own body, not that of the schema its key would name if the key were
// decoded again ("a%20b" names "a b").
func TestNamedTypeWithPercentInItsName(t *testing.T) {
	doc := `{"components": {"schemas": {
		"a b": {"type": "object", "properties": {"spaced": {"type": "string"}}, "required": ["spaced"]},
		"a%20b": {"type": "object", "properties": {"percent": {"type": "string"}}, "required": ["percent"]}}}}`
	got, err := Declarations(Surface{Namespaces: []Namespace{{
		Name:        "p",
		Definitions: &Definitions{Document: json.RawMessage(doc), Names: map[string]string{"#/components/schemas/a%2520b": "Percent"}},
		Tools: []ToolDecl{{Name: "get", Description: "Gets.", Lenient: true,
			InputSchema: json.RawMessage(`{"type":"object"}`), OutputSchema: json.RawMessage(`{"$ref":"#/components/schemas/a%2520b"}`)}},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, "interface Percent {\n    percent: string;") || strings.Contains(got, "spaced") {
		t.Errorf("Percent is not the schema named a%%20b:\n%s", got)
	}
}

func TestDefinitionsNameErrors(t *testing.T) {
	doc := json.RawMessage(`{"components":{"schemas":{"A":{"type":"string"},"B":{"type":"number"}}}}`)
	cases := []struct {
		name  string
		names map[string]string
		want  string
	}{
		{"not an identifier", map[string]string{"#/components/schemas/A": "a-b"}, `"a-b" of #/components/schemas/A is not a JavaScript identifier`},
		{"predefined", map[string]string{"#/components/schemas/A": "Record"}, `"Record" of #/components/schemas/A is a predefined TypeScript type`},
		{"twice", map[string]string{"#/components/schemas/A": "X", "#/components/schemas/B": "X"}, `"X" is given to both #/components/schemas/A and #/components/schemas/B`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Declarations(Surface{Namespaces: []Namespace{{Name: "api", Definitions: &Definitions{Document: doc, Names: tc.names}}}})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	_, err := Declarations(Surface{Namespaces: []Namespace{{Name: "api", Definitions: &Definitions{Document: json.RawMessage(`{`)}}}})
	if err == nil || !strings.Contains(err.Error(), "api.definitions") {
		t.Fatalf("unparsable document: error %v, want one naming api.definitions", err)
	}
}

// TestStrictNamedTypesHoldValuesWithTypeScript checks, with the real
// compiler, that the strict-named golden's types hold the values their
// schemas accept: recursion through arrays, nullable references, maps of
// themselves, unknown.
func TestStrictNamedTypesHoldValuesWithTypeScript(t *testing.T) {
	tsc := findTSC(t)
	surface, err := os.ReadFile(filepath.Join("testdata", "strict-named.d.ts"))
	if err != nil {
		t.Fatal(err)
	}
	check := `const tree: InputTypes.Tree = { name: "a", children: [{ name: "b", children: [] }] };
const first: CodemodeTypes.User = { id: 1, invitedBy: null, labels: {}, extra: null, settings: {} };
const second: Awaited<ReturnType<Tools["getUser"]>> = { id: 2, invitedBy: first, labels: { team: "x" }, extra: [1, "two"], settings: { a: { b: {} } } };
const list: Awaited<ReturnType<Tools["listUsers"]>> = { users: [first, second], admins: [{ login: "root" }] };
const p: AgentProgram = async ({ input, codemode }) => {
  const u = await codemode.getUser({ id: input.tree.children.length });
  return u.invitedBy?.labels["team"] ?? list.admins[0]?.login;
};
// @ts-expect-error a user's invitedBy may be null
const bad: string = second.invitedBy.labels["x"];
`
	compileWithTSC(t, tsc, string(surface), check)
}

func TestStrictDefinitionsMustAgreeAcrossTools(t *testing.T) {
	tool := func(name, def string) ToolDecl {
		return ToolDecl{Name: name, Description: "A tool.", InputSchema: json.RawMessage(`{"type":"object","additionalProperties":false}`),
			OutputSchema: json.RawMessage(`{"$ref":"#/$defs/p.T","$defs":{"p.T":` + def + `}}`)}
	}
	same := `{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}`
	got, err := Declarations(Surface{Namespaces: []Namespace{{Name: "codemode", Tools: []ToolDecl{tool("a", same), tool("b", same)}}}})
	if err != nil {
		t.Fatal(err)
	}
	if c := strings.Count(got, "interface T "); c != 1 {
		t.Errorf("declared T %d times, want once:\n%s", c, got)
	}
	_, err = Declarations(Surface{Namespaces: []Namespace{{Name: "codemode", Tools: []ToolDecl{tool("a", same), tool("b", `{"type":"string"}`)}}}})
	var se *SchemaError
	if !errors.As(err, &se) || se.Pointer != "codemode.b.output#/$defs/p.T" || !strings.Contains(se.Message, "codemode.a.output#/$defs/p.T") {
		t.Errorf("err = %v, want a conflict at codemode.b.output#/$defs/p.T naming codemode.a.output", err)
	}
	// A definition's own fault is reported where it is.
	_, err = Declarations(Surface{Namespaces: []Namespace{{Name: "codemode", Tools: []ToolDecl{tool("a", `{"type":"object"}`)}}}})
	if !errors.As(err, &se) || se.Pointer != "codemode.a.output#/$defs/p.T" || se.Keyword != "additionalProperties" {
		t.Errorf("err = %v, want one at codemode.a.output#/$defs/p.T, keyword additionalProperties", err)
	}
}

func TestStrictNamedTypesAvoidDefinitionsNames(t *testing.T) {
	doc := json.RawMessage(`{"components":{"schemas":{"T":{"type":"string"}}}}`)
	got, err := Declarations(Surface{Namespaces: []Namespace{{
		Name:        "api",
		Definitions: &Definitions{Document: doc, Names: map[string]string{"#/components/schemas/T": "T"}},
		Tools: []ToolDecl{
			{Name: "open", Description: "Open.", Lenient: true, InputSchema: json.RawMessage(`{"type":"object"}`), OutputSchema: json.RawMessage(`{"$ref":"#/components/schemas/T"}`)},
			{Name: "typed", Description: "Typed.", InputSchema: json.RawMessage(`{"type":"object","additionalProperties":false}`),
				OutputSchema: json.RawMessage(`{"$ref":"#/$defs/x.T","$defs":{"x.T":{"type":"array","items":{"$ref":"#/$defs/x.T"}}}}`)},
		},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"type T = string;", "type T2 = ApiTypes.T2[];", "open(input?: Record<string, unknown>): Promise<ApiTypes.T>;", "typed(input: Record<string, never>): Promise<ApiTypes.T2>;"} {
		if !strings.Contains(got, want) {
			t.Errorf("declarations lack %q:\n%s", want, got)
		}
	}
}

func TestDefTypeName(t *testing.T) {
	for key, want := range map[string]string{
		"Node": "Node",
		"github.com.google.go-github.v75.github.User": "User",
		"a/b.Page_User_int":                           "Page_User_int",
		"x.":                                          "Type",
		"x.1a":                                        "_1a",
		"x.é":                                         "é",
	} {
		if got := defTypeName(key); got != want {
			t.Errorf("defTypeName(%q) = %q, want %q", key, got, want)
		}
	}
}

// A tool's top-level struct that another tool of the namespace nests is
// declared once, by name, where the tool's name names it; an empty struct,
// whose JSON any other empty struct shares, a root with annotations of its
// own, and a root of another tool of the same JSON (getTicket's, the same
// as an Issue) are written out.
func TestRootIsTheNamedTypeOfTheSameSchema(t *testing.T) {
	const issue = `{"properties":{"id":{"type":"integer"},"title":{"type":"string"}},"additionalProperties":false,"type":"object","required":["id","title"]}`
	const empty = `{"properties":{},"additionalProperties":false,"type":"object"}`
	ns := Namespace{Name: "codemode", Tools: []ToolDecl{
		{Name: "listIssues", Description: "All.", InputSchema: json.RawMessage(empty), OutputSchema: json.RawMessage(`{"$defs":{"x.Issue":` + issue + `,"x.Empty":` + empty + `},"type":"array","items":{"$ref":"#/$defs/x.Issue"}}`)},
		{Name: "getIssue", Description: "One.", InputSchema: json.RawMessage(empty), OutputSchema: json.RawMessage(`{"anyOf":[` + issue + `,{"type":"null"}]}`)},
		{Name: "firstIssue", Description: "First.", InputSchema: json.RawMessage(empty), OutputSchema: json.RawMessage(issue)},
		{Name: "described", Description: "Described.", InputSchema: json.RawMessage(empty), OutputSchema: json.RawMessage(`{"description":"The newest.","anyOf":[` + issue + `,{"type":"null"}]}`)},
		{Name: "getTicket", Description: "Another type of the same JSON.", InputSchema: json.RawMessage(empty), OutputSchema: json.RawMessage(issue)},
	}}
	got, err := NamespaceDeclarations(ns)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"getIssue(input: Record<string, never>): Promise<CodemodeTypes.Issue | null>;",
		"firstIssue(input: Record<string, never>): Promise<CodemodeTypes.Issue>;",
		"listIssues(input: Record<string, never>): Promise<CodemodeTypes.Issue[]>;",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("declarations lack %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "CodemodeTypes.Empty") || strings.Count(got, "title: string;") != 3 {
		t.Errorf("an empty input took a name, or the annotated root or the Ticket was not written out:\n%s", got)
	}
}
