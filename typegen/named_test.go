package typegen

import (
	"encoding/json"
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
