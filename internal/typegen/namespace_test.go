package typegen_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/internal/typegen"
)

// TestNamespaceDeclarationsOfOneTool: with one tool of a namespace with
// Definitions, only the named types that tool reaches are declared.
func TestNamespaceDeclarationsOfOneTool(t *testing.T) {
	doc := json.RawMessage(`{"components": {"schemas": {
		"Pet": {"type": "object", "properties": {"name": {"type": "string"}, "owner": {"$ref": "#/components/schemas/Owner"}}},
		"Owner": {"type": "object", "properties": {"name": {"type": "string"}}},
		"Order": {"type": "object", "properties": {"id": {"type": "integer"}}}}}}`)
	ns := typegen.Namespace{Name: "petstore", Definitions: &typegen.Definitions{Document: doc, Names: map[string]string{
		"#/components/schemas/Pet": "Pet", "#/components/schemas/Owner": "Owner", "#/components/schemas/Order": "Order"}},
		Tools: []typegen.ToolDecl{
			{Name: "getPet", Description: "A pet.", Lenient: true, InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"integer"}}}`), OutputSchema: json.RawMessage(`{"$ref":"#/components/schemas/Pet"}`)},
			{Name: "getOrder", Description: "An order.", Lenient: true, OutputSchema: json.RawMessage(`{"$ref":"#/components/schemas/Order"}`)},
		}}
	all, err := typegen.NamespaceDeclarations(ns)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"declare namespace PetstoreTypes {", "interface Pet ", "interface Owner ", "interface Order ", "getPet(input?: {", "getOrder(", "declare const petstore: PetstoreTools;"} {
		if !strings.Contains(all, want) {
			t.Errorf("the namespace lacks %q:\n%s", want, all)
		}
	}
	ns.Tools = ns.Tools[:1]
	one, err := typegen.NamespaceDeclarations(ns)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(one, "interface Pet ") || !strings.Contains(one, "interface Owner ") || strings.Contains(one, "Order") || strings.Contains(one, "getOrder") {
		t.Errorf("getPet alone:\n%s", one)
	}
	for _, bad := range []typegen.Namespace{{Name: "not an identifier"}, {Name: "console"}, {Name: "x", Tools: []typegen.ToolDecl{{Name: "t", Description: " "}}}} {
		var se *typegen.SchemaError
		if _, err := typegen.NamespaceDeclarations(bad); !errors.As(err, &se) {
			t.Errorf("NamespaceDeclarations(%+v) = %v, want a *SchemaError", bad, err)
		}
	}
}
