package openapi_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/connector/openapi"
	"github.com/codemode-go/codemode/contract"
)

// TestDefinitionPlaces: the definitions of a document taken apart when it
// was read say where each component schema is in their document, as the
// schema's own text there (names with escapes included); a Swagger 2.0
// document, converted, gives none.
func TestDefinitionPlaces(t *testing.T) {
	doc := `{"openapi": "3.0.3", "info": {"title": "t", "version": "1"},
  "paths": {"/pets/{id}": {"get": {"operationId": "getPet",
    "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}],
    "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Pet"}}}}}}}},
  "components": {"schemas": {
    "Pet": {"type": "object", "properties": {"name": {"type": "string"}, "owner": {"$ref": "#/components/schemas/a~1b"}}},
    "a/b": {"type": "object",   "properties": {"qosClass": {"type": "string", "description": "x \"y\" {z}"}}}}}}`
	c, _, err := openapi.Parse(context.Background(), []byte(doc), openapi.Options{Name: "pets", BaseURL: "https://pets.example.invalid"})
	if err != nil {
		t.Fatal(err)
	}
	ns, err := c.Namespace()
	if err != nil {
		t.Fatal(err)
	}
	defs := ns.Definitions
	var whole struct {
		Components struct{ Schemas map[string]json.RawMessage }
	}
	if err := json.Unmarshal(defs.Document, &whole); err != nil {
		t.Fatal(err)
	}
	for ref, name := range map[string]string{"#/components/schemas/Pet": "Pet", "#/components/schemas/a~1b": "a/b"} {
		p, ok := defs.Places[ref]
		if !ok {
			t.Errorf("no place for %s in %v", ref, defs.Places)
			continue
		}
		var got, want any
		if err := json.Unmarshal(defs.Document[p[0]:p[1]], &got); err != nil {
			t.Errorf("%s's place %v holds %q: %v", ref, p, defs.Document[p[0]:p[1]], err)
			continue
		}
		_ = json.Unmarshal(whole.Components.Schemas[name], &want)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s's place holds %v, want %v", ref, got, want)
		}
	}
	swagger := `{"swagger": "2.0", "info": {"title": "t", "version": "1"}, "paths": {},
  "definitions": {"Pet": {"type": "object", "properties": {"name": {"type": "string"}}}}}`
	c, _, err = openapi.Parse(context.Background(), []byte(swagger), openapi.Options{Name: "pets", BaseURL: "https://pets.example.invalid"})
	if err != nil {
		t.Fatal(err)
	}
	if ns, err = c.Namespace(); err != nil {
		t.Fatal(err)
	}
	if ns.Definitions.Places != nil {
		t.Errorf("a converted document's places = %v, want none", ns.Definitions.Places)
	}
}

// TestComponentNamesWithPercent: a component whose name holds "%" is
// named and placed by a reference that percent-decodes to its name (a
// fragment is percent-decoded before it is read as a JSON pointer), so a
// reference "#/components/schemas/a%20b", which names the schema "a b",
// is declared with that schema's type and name, not with those of the
// schema named "a%20b".
func TestComponentNamesWithPercent(t *testing.T) {
	doc := `{"openapi": "3.0.3", "info": {"title": "t", "version": "1"},
  "paths": {"/a": {"get": {"operationId": "getSpaced",
    "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/a%20b"}}}}}}},
   "/b": {"get": {"operationId": "getPercent",
    "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/a%2520b"}}}}}}}},
  "components": {"schemas": {
    "a b": {"type": "object", "properties": {"spaced": {"type": "string"}}},
    "a%20b": {"type": "object", "properties": {"percent": {"type": "string"}}}}}}`
	c, _, err := openapi.Parse(context.Background(), []byte(doc), openapi.Options{Name: "pets", BaseURL: "https://pets.example.invalid"})
	if err != nil {
		t.Fatal(err)
	}
	ns, err := c.Namespace()
	if err != nil {
		t.Fatal(err)
	}
	k, err := contract.NewNamespaced(ns)
	if err != nil {
		t.Fatal(err)
	}
	decls := k.TypeDefinitions()
	for _, want := range []string{
		"getSpaced(input?: Record<string, never>): Promise<PetsTypes.a_b>",
		"getPercent(input?: Record<string, never>): Promise<PetsTypes.a20b>",
		"interface a_b {\n    spaced?: string;",
		"interface a20b {\n    percent?: string;",
	} {
		if !strings.Contains(decls, want) {
			t.Errorf("declarations lack %q:\n%s", want, decls)
		}
	}
	for ref, p := range ns.Definitions.Places {
		var schema struct{ Properties map[string]any }
		if err := json.Unmarshal(ns.Definitions.Document[p[0]:p[1]], &schema); err != nil {
			t.Fatalf("%s's place holds %q", ref, ns.Definitions.Document[p[0]:p[1]])
		}
		want := map[string]string{"#/components/schemas/a b": "spaced", "#/components/schemas/a%2520b": "percent"}[ref]
		if _, ok := schema.Properties[want]; !ok || want == "" {
			t.Errorf("the place of %s holds %v, want the schema with %q", ref, schema.Properties, want)
		}
	}
}
