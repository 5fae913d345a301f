package openapi_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/codemode-go/codemode/connector/openapi"
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
