package typegen

import (
	"encoding/json"
	"testing"
)

// TestNamespaceDeclarationsCompileWithTypeScript: a describe answer (one
// method alone, with the named types it reaches) is valid TypeScript that a
// program can be checked against.
func TestNamespaceDeclarationsCompileWithTypeScript(t *testing.T) {
	tsc := findTSC(t)
	doc := json.RawMessage(`{"components": {"schemas": {
		"Pet": {"type": "object", "properties": {"name": {"type": "string"}, "owner": {"$ref": "#/components/schemas/Owner"}}, "required": ["name"]},
		"Owner": {"type": "object", "properties": {"name": {"type": "string"}, "pets": {"type": "array", "items": {"$ref": "#/components/schemas/Pet"}}}}}}}`)
	decls, err := NamespaceDeclarations(Namespace{Name: "petstore",
		Definitions: &Definitions{Document: doc, Names: map[string]string{"#/components/schemas/Pet": "Pet", "#/components/schemas/Owner": "Owner"}},
		Tools: []ToolDecl{{Name: "getPet", Description: "A pet.\n@requiresApproval", Lenient: true,
			InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"integer"}},"required":["id"]}`), OutputSchema: json.RawMessage(`{"$ref":"#/components/schemas/Pet"}`)}}})
	if err != nil {
		t.Fatal(err)
	}
	compileWithTSC(t, tsc, decls, `export async function f(): Promise<string | undefined> {
  const p: PetstoreTypes.Pet = await petstore.getPet({ id: 1 });
  return p.owner?.pets?.[0]?.name ?? p.name;
}
`)
	if out, ok := tscErrors(t, tsc, decls, "export async function f() { await petstore.getPet({ id: \"one\" }); }\n"); ok {
		t.Fatalf("tsc accepted a string id:\n%s", out)
	}
}
