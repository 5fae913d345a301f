package contract_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/invopop/jsonschema"

	"github.com/codemode-go/codemode/contract"
)

type inner struct {
	A int    `json:"a"`
	B string `json:"b,omitempty"`
}

type outer struct {
	Name    string   `json:"name" jsonschema:"description=The name."`
	Nick    string   `json:"nick,omitempty"`
	Inner   inner    `json:"inner"`
	Ptr     *inner   `json:"ptr,omitempty"`
	List    []inner  `json:"list"`
	Flag    bool     `json:"flag"`
	Ratio   float64  `json:"ratio"`
	Tags    []string `json:"tags,omitempty"`
	Ignored string   `json:"-"`
	//lint:ignore U1000 unexported fields are not part of the schema
	hidden  string
	Default string // no json tag: the Go name, required
}

// properties returns the "properties" member of a decoded object schema.
func properties(t *testing.T, s map[string]any) map[string]any {
	t.Helper()
	p, ok := s["properties"].(map[string]any)
	if !ok {
		t.Fatalf("schema has no properties object: %v", s)
	}
	return p
}

func requiredOf(s map[string]any) []string {
	var out []string
	for _, r := range s["required"].([]any) {
		out = append(out, r.(string))
	}
	return out
}

// deref returns the definition a {"$ref": "#/$defs/<key>"} schema names,
// or the schema itself.
func deref(t *testing.T, root, s map[string]any) map[string]any {
	t.Helper()
	ref, ok := s["$ref"].(string)
	if !ok {
		return s
	}
	def, ok := root["$defs"].(map[string]any)[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any)
	if !ok {
		t.Fatalf("%s names no definition in %v", ref, root["$defs"])
	}
	return def
}

func TestSchemaForReflectsClosedObjects(t *testing.T) {
	s, err := contract.SchemaFor[outer]()
	if err != nil {
		t.Fatal(err)
	}
	text := string(s.JSON())
	for _, banned := range []string{`"definitions"`, `"$schema"`, `"$id"`} {
		if strings.Contains(text, banned) {
			t.Errorf("schema contains %s, want it anonymous: %s", banned, text)
		}
	}
	root := decode(t, s.JSON())
	if root["type"] != "object" || root["additionalProperties"] != false {
		t.Errorf("root is not a closed object: %s", text)
	}
	if got, want := requiredOf(root), []string{"name", "inner", "list", "flag", "ratio", "Default"}; !reflect.DeepEqual(got, want) {
		t.Errorf("required = %v, want %v (fields without omitempty, in field order)", got, want)
	}
	props := properties(t, root)
	if got := len(props); got != 9 {
		t.Errorf("%d properties, want 9 (no json:\"-\" or unexported fields): %v", got, props)
	}
	for _, absent := range []string{"Ignored", "hidden", "-"} {
		if _, ok := props[absent]; ok {
			t.Errorf("property %q should not be in the schema", absent)
		}
	}
	if d := props["name"].(map[string]any)["description"]; d != "The name." {
		t.Errorf("name description = %v, want the jsonschema tag's", d)
	}
	for _, tc := range []struct {
		prop     string
		wantType string
	}{
		{"name", "string"}, {"flag", "boolean"}, {"ratio", "number"}, {"list", "array"}, {"tags", "array"},
	} {
		if got := props[tc.prop].(map[string]any)["type"]; got != tc.wantType {
			t.Errorf("%s type = %v, want %s", tc.prop, got, tc.wantType)
		}
	}
	// inner, used through a value, a pointer and a slice, is one named
	// definition: a closed object with its own required list.
	defs, _ := root["$defs"].(map[string]any)
	if len(defs) != 1 {
		t.Fatalf("$defs = %v, want one definition (inner)", root["$defs"])
	}
	nested := map[string]map[string]any{
		"inner": props["inner"].(map[string]any),
		"ptr":   props["ptr"].(map[string]any),
		"list":  props["list"].(map[string]any)["items"].(map[string]any),
	}
	for where, n := range nested {
		n = deref(t, root, n)
		if n["type"] != "object" || n["additionalProperties"] != false {
			t.Errorf("%s is not a closed object: %v", where, n)
		}
		if got := requiredOf(n); !reflect.DeepEqual(got, []string{"a"}) {
			t.Errorf("%s required = %v, want [a]", where, got)
		}
		if got := properties(t, n)["a"].(map[string]any)["type"]; got != "integer" {
			t.Errorf("%s.a type = %v, want integer", where, got)
		}
	}
}

func TestSchemaForValidatesLikeTheReflectedSchema(t *testing.T) {
	s, err := contract.SchemaFor[inner]()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		value string
		ok    bool
	}{
		{`{"a":1}`, true},
		{`{"a":1,"b":"x"}`, true},
		{`{"a":-7}`, true},
		{`{}`, false},
		{`{"a":1.5}`, false},
		{`{"a":"1"}`, false},
		{`{"a":1,"c":2}`, false},
		{`{"a":1,"b":null}`, false},
		{`[]`, false},
		{`null`, false},
	} {
		err := s.Validate(json.RawMessage(tc.value))
		if (err == nil) != tc.ok {
			t.Errorf("Validate(%s) = %v, want ok=%v", tc.value, err, tc.ok)
		}
	}
}

func TestSchemaForNonObjects(t *testing.T) {
	for _, tc := range []struct {
		label string
		get   func() (*contract.Schema, error)
		want  string
	}{
		{"int", contract.SchemaFor[int], `{"type":"integer"}`},
		{"string", contract.SchemaFor[string], `{"type":"string"}`},
		{"float", contract.SchemaFor[float64], `{"type":"number"}`},
		{"bool", contract.SchemaFor[bool], `{"type":"boolean"}`},
		{"slice", contract.SchemaFor[[]string], `{"items":{"type":"string"},"type":"array"}`},
		{"empty struct", contract.SchemaFor[struct{}], `{"properties":{},"additionalProperties":false,"type":"object"}`},
	} {
		t.Run(tc.label, func(t *testing.T) {
			s, err := tc.get()
			if err != nil {
				t.Fatal(err)
			}
			if got := string(s.JSON()); got != tc.want {
				t.Errorf("schema = %s, want %s", got, tc.want)
			}
		})
	}
	t.Run("pointer is its element", func(t *testing.T) {
		p, err := contract.SchemaFor[*inner]()
		if err != nil {
			t.Fatal(err)
		}
		v, err := contract.SchemaFor[inner]()
		if err != nil {
			t.Fatal(err)
		}
		if string(p.JSON()) != string(v.JSON()) {
			t.Errorf("SchemaFor[*inner] = %s, SchemaFor[inner] = %s", p.JSON(), v.JSON())
		}
	})
}

func TestSchemaForConstRecipe(t *testing.T) {
	s, err := contract.SchemaFor[WeatherRequested]()
	if err != nil {
		t.Fatal(err)
	}
	typ := properties(t, decode(t, s.JSON()))["type"].(map[string]any)
	if typ["const"] != "weather.requested" || typ["type"] != "string" {
		t.Errorf(`"type" property = %v, want a string const "weather.requested"`, typ)
	}
	if err := s.Validate(json.RawMessage(`{"type":"weather.requested","location":"Paris"}`)); err != nil {
		t.Errorf("the const value is rejected: %v", err)
	}
	err = s.Validate(json.RawMessage(`{"type":"weather.cancelled","location":"Paris"}`))
	var v *contract.ValidationError
	if !errors.As(err, &v) || len(v.Lines) != 1 || !strings.HasPrefix(v.Lines[0], "/type: ") {
		t.Errorf("another value: err = %v, want one violation at /type", err)
	}
}

// constTag shows why the recipe is needed: the reflector drops a const tag.
type constTag struct {
	Type string `json:"type" jsonschema:"const=fixed"`
}

func TestSchemaForIgnoresConstTag(t *testing.T) {
	s, err := contract.SchemaFor[constTag]()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(s.JSON()), `"const"`) {
		t.Skipf("invopop/jsonschema now honours const= tags: %s; the package documentation's warning is stale", s.JSON())
	}
}

func TestSchemaForDiscriminatedUnion(t *testing.T) {
	s, err := contract.SchemaFor[Shape]()
	if err != nil {
		t.Fatal(err)
	}
	root := decode(t, s.JSON())
	branches, ok := root["oneOf"].([]any)
	if !ok || len(branches) != 2 {
		t.Fatalf("schema = %s, want a two-branch oneOf", s.JSON())
	}
	for _, tc := range []struct {
		value string
		ok    bool
	}{
		{`{"kind":"circle","radius":1}`, true},
		{`{"kind":"square","side":2}`, true},
		{`{"kind":"circle","side":2}`, false},
		{`{"kind":"triangle","side":2}`, false},
		{`{"kind":"circle","radius":1,"extra":true}`, false},
		{`{"radius":1}`, false},
	} {
		if err := s.Validate(json.RawMessage(tc.value)); (err == nil) != tc.ok {
			t.Errorf("Validate(%s) = %v, want ok=%v", tc.value, err, tc.ok)
		}
	}
}

// Node is a recursive type: inlined, its schema would never end.
type Node struct {
	Name     string `json:"name"`
	Children []Node `json:"children,omitempty"`
}

type linkedA struct {
	B *linkedB `json:"b,omitempty"`
}

type linkedB struct {
	A *linkedA `json:"a,omitempty"`
}

// selfEmbedding inlines itself through an embedded pointer, which the
// reflector walks without its Mapper.
type selfEmbedding struct {
	//lint:ignore U1000 only reflected
	*selfEmbedding
	Name string `json:"name"`
}

type inlineLoop struct {
	Loop *inlineLoop `json:"loop,inline"`
	Name string      `json:"name"`
}

// hiddenRecursion is recursive only through fields the schema leaves out.
type hiddenRecursion struct {
	Name   string           `json:"name"`
	Parent *hiddenRecursion `json:"-"`
	Next   *hiddenRecursion `jsonschema:"-"`
	//lint:ignore U1000 unexported: not in the schema
	self *hiddenRecursion
}

// customRecursion is recursive in Go but declares its own schema.
type customRecursion struct {
	Name string           `json:"name"`
	Next *customRecursion `json:"next,omitempty"`
}

func (customRecursion) JSONSchema() *jsonschema.Schema {
	p := jsonschema.NewProperties()
	p.Set("name", &jsonschema.Schema{Type: "string"})
	return &jsonschema.Schema{Type: "object", Properties: p, Required: []string{"name"}, AdditionalProperties: jsonschema.FalseSchema}
}

type wrapsNode struct {
	Root Node `json:"root"`
}

// deep nests ten distinct struct types, which is fine.
type (
	deep0 struct {
		D deep1 `json:"d"`
	}
	deep1 struct {
		D deep2 `json:"d"`
	}
	deep2 struct {
		D deep3 `json:"d"`
	}
	deep3 struct {
		D deep4 `json:"d"`
	}
	deep4 struct {
		D deep5 `json:"d"`
	}
	deep5 struct {
		D deep6 `json:"d"`
	}
	deep6 struct {
		D deep7 `json:"d"`
	}
	deep7 struct {
		D deep8 `json:"d"`
	}
	deep8 struct {
		D deep9 `json:"d"`
	}
	deep9 struct {
		Leaf string `json:"leaf"`
	}
)

// diamond reaches the same type along many paths without recursion.
type diamond struct {
	A, B, C, D inner `json:",omitempty"`
	L, R       deep7
}

func TestSchemaForNamesRecursiveTypes(t *testing.T) {
	for _, tc := range []struct {
		label string
		get   func() (*contract.Schema, error)
		valid []string
		wrong string
	}{
		{"self through slice", contract.SchemaFor[Node], []string{`{"name":"a","children":[{"name":"b","children":[{"name":"c"}]}]}`}, `{"name":"a","children":[{"children":[]}]}`},
		{"self through slice, nested", contract.SchemaFor[wrapsNode], []string{`{"root":{"name":"a","children":[{"name":"b"}]}}`}, `{"root":{"name":"a","children":[1]}}`},
		{"mutual through pointers", contract.SchemaFor[linkedA], []string{`{}`, `{"b":{"a":{"b":{}}}}`}, `{"b":{"a":{"c":1}}}`},
		{"inline tag loop: encoding/json knows no inline", contract.SchemaFor[inlineLoop], []string{`{"loop":null,"name":"a"}`, `{"loop":{"loop":null,"name":"b"},"name":"a"}`}, `{"name":"a"}`},
		{"slice of recursive", contract.SchemaFor[[]Node], []string{`[]`, `[{"name":"a","children":[{"name":"b"}]}]`}, `[{"name":"a","children":[{}]}]`},
	} {
		t.Run(tc.label, func(t *testing.T) {
			s, err := tc.get()
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(s.JSON()), `"$ref"`) {
				t.Errorf("schema = %s, want a $ref to a named definition", s.JSON())
			}
			for _, v := range tc.valid {
				if err := s.Validate(json.RawMessage(v)); err != nil {
					t.Errorf("Validate(%s) = %v", v, err)
				}
			}
			if err := s.Validate(json.RawMessage(tc.wrong)); err == nil {
				t.Errorf("Validate(%s) passed, want a violation deep in the recursion", tc.wrong)
			}
		})
	}
	t.Run("an embedded self pointer adds nothing", func(t *testing.T) {
		s, err := contract.SchemaFor[selfEmbedding]()
		if err != nil {
			t.Fatal(err)
		}
		if want := `{"properties":{"name":{"type":"string"}},"additionalProperties":false,"type":"object","required":["name"]}`; string(s.JSON()) != want {
			t.Errorf("schema = %s, want %s", s.JSON(), want)
		}
	})
	t.Run("strict NewTool refuses them", func(t *testing.T) {
		_, err := contract.NewTool("walk", "Walk a tree.", func(ctx context.Context, n Node) (int, error) { return 0, nil }, contract.StrictSchemas())
		if err == nil || !strings.Contains(err.Error(), "tool walk input") || !strings.Contains(err.Error(), "recursive type (contract_test.Node → contract_test.Node)") {
			t.Errorf("err = %v, want the tool's input and the recursive type named", err)
		}
	})
}

func TestSchemaForAcceptsNonRecursiveNesting(t *testing.T) {
	for _, tc := range []struct {
		label string
		get   func() (*contract.Schema, error)
	}{
		{"recursion only in hidden fields", contract.SchemaFor[hiddenRecursion]},
		{"recursion behind a JSONSchema method", contract.SchemaFor[customRecursion]},
		{"ten levels", contract.SchemaFor[deep0]},
		{"diamond", contract.SchemaFor[diamond]},
	} {
		t.Run(tc.label, func(t *testing.T) {
			if _, err := tc.get(); err != nil {
				t.Errorf("err = %v, want nil", err)
			}
		})
	}
}

func TestSchemaForRejectsTypesWithoutSchema(t *testing.T) {
	for _, tc := range []struct {
		label string
		get   func() (*contract.Schema, error)
		want  string
	}{
		{"channel", contract.SchemaFor[chan int], "chan int"},
		{"function", contract.SchemaFor[func()], "func()"},
		{"complex", contract.SchemaFor[complex128], "complex128"},
		{"channel field", contract.SchemaFor[struct {
			C chan string `json:"c"`
		}], "chan string"},
	} {
		t.Run(tc.label, func(t *testing.T) {
			s, err := tc.get()
			if err == nil {
				t.Fatalf("schema = %s, want an error", s.JSON())
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to name %s", err, tc.want)
			}
		})
	}
	t.Run("NewTool output", func(t *testing.T) {
		_, err := contract.NewTool("subscribe", "Subscribe to updates.", func(ctx context.Context, in inner) (chan int, error) { return nil, nil })
		if err == nil || !strings.Contains(err.Error(), "tool subscribe output") {
			t.Errorf("err = %v, want an error naming the tool's output", err)
		}
	})
}

func TestNewSchemaRejectsBadSchemas(t *testing.T) {
	for _, tc := range []struct {
		label, raw, want string
	}{
		{"empty", ``, "not JSON"},
		{"not JSON", `nope`, "not JSON"},
		{"truncated", `{"type":"string"`, "not JSON"},
		{"trailing data", `{} {}`, "not JSON"},
		{"type is a number", `{"type":12}`, "invalid JSON Schema"},
		{"unknown type name", `{"type":"text"}`, "invalid JSON Schema"},
		{"negative minLength", `{"minLength":-1}`, "invalid JSON Schema"},
		{"required not an array", `{"required":"a"}`, "invalid JSON Schema"},
		{"properties not an object", `{"properties":[]}`, "invalid JSON Schema"},
		{"bad pattern", `{"pattern":"("}`, "invalid JSON Schema"},
		{"not a schema", `12`, "invalid JSON Schema"},
		{"dangling local ref", `{"$ref":"#/$defs/missing"}`, "invalid JSON Schema"},
	} {
		t.Run(tc.label, func(t *testing.T) {
			s, err := contract.NewSchema(json.RawMessage(tc.raw))
			if err == nil {
				t.Fatalf("NewSchema(%s) = %s, want an error", tc.raw, s.JSON())
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("NewSchema(%s) = %v, want an error containing %q", tc.raw, err, tc.want)
			}
		})
	}
}

// A schema that does not compile is a *contract.SchemaError naming each
// fault's JSON pointer within the schema's own text and saying what is
// wrong there, never the address the schema is compiled under
// (codemode:///schema.json, which no user wrote) nor the validator's tree
// of 'allOf' failed lines against the meta-schema.
func TestSchemaErrorNamesPointersInTheSchema(t *testing.T) {
	for _, tc := range []struct {
		label, raw string
		want       []contract.SchemaFault // Message a prefix
	}{
		{"unknown type name", `{"properties":{"city":{"type":"strng"}}}`,
			[]contract.SchemaFault{{Pointer: "/properties/city/type", Message: "value must be one of 'array', 'boolean', 'integer', 'null', 'number', 'object', 'string'"}}},
		{"type is a number", `{"type":12}`,
			[]contract.SchemaFault{{Pointer: "/type", Message: "value must be one of 'array'"}}},
		{"two faults", `{"properties":{"a":{"minLength":-1,"pattern":"("}}}`,
			[]contract.SchemaFault{{Pointer: "/properties/a/minLength", Message: "minimum: got -1, want 0"}, {Pointer: "/properties/a/pattern", Message: "'(' is not valid regex"}}},
		{"not a schema", `12`, []contract.SchemaFault{{Pointer: "", Message: "got number, want boolean or object"}}},
		{"dangling local ref", `{"properties":{"a":{"$ref":"#/$defs/missing"}}}`,
			[]contract.SchemaFault{{Pointer: "/properties/a/$ref", Message: `"#/$defs/missing" refers to nothing in the schema`}}},
		{"dangling anchor", `{"items":{"$ref":"#nowhere"}}`,
			[]contract.SchemaFault{{Pointer: "/items/$ref", Message: `"#nowhere" refers to nothing in the schema`}}},
		{"relative file", `{"properties":{"a":{"$ref":"other.json#/x"}}}`,
			[]contract.SchemaFault{{Pointer: "/properties/a/$ref", Message: `"other.json#/x" is another document: external schema documents are not loaded; put the definition in $defs`}}},
		{"remote meta-schema", `{"$schema":"https://example.com/meta","type":"string"}`,
			[]contract.SchemaFault{{Pointer: "/$schema", Message: `"https://example.com/meta" is another document: external schema documents are not loaded`}}},
		{"a list of types, one unknown", `{"type":["string","strng"]}`,
			[]contract.SchemaFault{{Pointer: "/type/1", Message: "value must be one of 'array'"}}},
		{"duplicate $anchor", `{"$defs":{"a":{"$anchor":"x"},"b":{"$anchor":"x"}}}`,
			[]contract.SchemaFault{{Pointer: "/$defs/b/$anchor", Message: `the $anchor "x" is also the $anchor at /$defs/a`}}},
		{"duplicate $id", `{"$defs":{"a":{"$id":"x"},"b":{"$id":"x"}}}`,
			[]contract.SchemaFault{{Pointer: "/$defs/b/$id", Message: `the $id "x" is also the $id at /$defs/a`}}},
	} {
		t.Run(tc.label, func(t *testing.T) {
			_, err := contract.NewSchema(json.RawMessage(tc.raw))
			if err == nil {
				t.Fatalf("NewSchema(%s) = nil, want an error", tc.raw)
			}
			if strings.Contains(err.Error(), "codemode:") || strings.Contains(err.Error(), "schema.json") {
				t.Errorf("the error names the address the schema is compiled under:\n%v", err)
			}
			var se *contract.SchemaError
			if !errors.As(err, &se) {
				t.Fatalf("NewSchema(%s) = %v, want a *contract.SchemaError", tc.raw, err)
			}
			ok := len(se.Faults) == len(tc.want)
			for i := 0; ok && i < len(tc.want); i++ {
				ok = se.Faults[i].Pointer == tc.want[i].Pointer && strings.HasPrefix(se.Faults[i].Message, tc.want[i].Message)
			}
			if !ok {
				t.Errorf("Faults = %q\nwant    %q", se.Faults, tc.want)
			}
		})
	}
}

func TestNewSchemaAcceptsSchemas(t *testing.T) {
	for _, raw := range []string{
		`true`,
		`false`,
		`{}`,
		`{"type":"string","minLength":1}`,
		`{"$ref":"#/$defs/a","$defs":{"a":{"type":"string"}}}`,
		`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"string"}`,
		`{"$schema":"http://json-schema.org/draft-07/schema#","type":"string"}`,
		`{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}`,
	} {
		if _, err := contract.NewSchema(json.RawMessage(raw)); err != nil {
			t.Errorf("NewSchema(%s) = %v, want nil", raw, err)
		}
	}
}

// compileQuickly runs NewSchema with a deadline, so a fetch that hangs
// fails the test instead of the whole run.
func compileQuickly(t *testing.T, raw string) (*contract.Schema, error) {
	t.Helper()
	type result struct {
		s   *contract.Schema
		err error
	}
	done := make(chan result, 1)
	go func() {
		s, err := contract.NewSchema(json.RawMessage(raw))
		done <- result{s, err}
	}()
	select {
	case r := <-done:
		return r.s, r.err
	case <-time.After(10 * time.Second):
		t.Fatalf("NewSchema(%s) did not return within 10s: it is fetching", raw)
		return nil, nil
	}
}

func TestNewSchemaDoesNotLoadExternalRefs(t *testing.T) {
	// A local file that would satisfy the $ref if it were loaded.
	dir := t.TempDir()
	file := filepath.Join(dir, "other.json")
	if err := os.WriteFile(file, []byte(`{"type":"string"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir) // a relative $ref must not resolve against the working directory either
	for _, tc := range []struct{ label, raw string }{
		{"https", `{"$ref":"https://example.com/schema.json"}`},
		{"http unroutable", `{"$ref":"http://10.255.255.1/schema.json"}`},
		{"nested https", `{"type":"object","properties":{"a":{"$ref":"https://example.com/a.json"}}}`},
		{"file URL", fmt.Sprintf(`{"$ref":%q}`, "file://"+filepath.ToSlash(file))},
		{"relative file", `{"$ref":"other.json"}`},
		{"relative to an $id", `{"$id":"https://example.com/root.json","$ref":"other.json"}`},
		{"remote meta-schema", `{"$schema":"https://example.com/meta-schema","type":"string"}`},
	} {
		t.Run(tc.label, func(t *testing.T) {
			s, err := compileQuickly(t, tc.raw)
			if err == nil {
				t.Fatalf("NewSchema(%s) = %s, want an error: the reference was loaded", tc.raw, s.JSON())
			}
			if !strings.Contains(err.Error(), "not loaded") {
				t.Errorf("NewSchema(%s) = %v, want an error saying external documents are not loaded", tc.raw, err)
			}
		})
	}
}

func TestNewSchemaCopiesItsInput(t *testing.T) {
	raw := []byte(`{"type":"string"}`)
	s, err := contract.NewSchema(raw)
	if err != nil {
		t.Fatal(err)
	}
	copy(raw, `{"type":"number"}`)
	if got := string(s.JSON()); got != `{"type":"string"}` {
		t.Errorf("JSON() = %s after the caller changed its buffer", got)
	}
	if err := s.Validate(json.RawMessage(`"x"`)); err != nil {
		t.Errorf("Validate: %v", err)
	}
}

func TestSchemaValidateReportsPointers(t *testing.T) {
	s := mustSchema(t, `{
		"type": "object",
		"properties": {
			"value": {"type": "integer", "minimum": 0},
			"a/b": {"type": "string"},
			"t~x": {"type": "string"},
			"items": {"type": "array", "items": {"type": "string"}},
			"ref": {"$ref": "#/$defs/short"}
		},
		"required": ["value"],
		"additionalProperties": false,
		"$defs": {"short": {"type": "string", "maxLength": 2}}
	}`)
	for _, tc := range []struct {
		label, value string
		want         []string // line prefixes, in order
	}{
		{"root type", `[]`, []string{"/: "}},
		{"missing", `{}`, []string{"/: missing property 'value'"}},
		{"wrong type", `{"value":"x"}`, []string{"/value: "}},
		{"minimum", `{"value":-1}`, []string{"/value: minimum"}},
		{"escaped slash", `{"value":1,"a/b":1}`, []string{"/a~1b: "}},
		{"escaped tilde", `{"value":1,"t~x":1}`, []string{"/t~0x: "}},
		{"array item", `{"value":1,"items":["a",2]}`, []string{"/items/1: "}},
		{"through $ref", `{"value":1,"ref":"long"}`, []string{"/ref: maxLength"}},
		{"extra", `{"value":1,"zzz":1}`, []string{"/: additional properties 'zzz' not allowed"}},
		{"several, by location", `{"value":"x","items":[1]}`, []string{"/items/0: ", "/value: "}},
	} {
		t.Run(tc.label, func(t *testing.T) {
			err := s.Validate(json.RawMessage(tc.value))
			var v *contract.ValidationError
			if !errors.As(err, &v) {
				t.Fatalf("Validate(%s) = %v, want a *ValidationError", tc.value, err)
			}
			if len(v.Lines) != len(tc.want) {
				t.Fatalf("Lines = %q, want %d lines", v.Lines, len(tc.want))
			}
			for i, prefix := range tc.want {
				if !strings.HasPrefix(v.Lines[i], prefix) {
					t.Errorf("Lines[%d] = %q, want prefix %q", i, v.Lines[i], prefix)
				}
				if strings.Contains(v.Lines[i], "validation failed") {
					t.Errorf("Lines[%d] = %q does not say what failed", i, v.Lines[i])
				}
			}
			if v.Error() != strings.Join(v.Lines, "\n") {
				t.Errorf("Error() = %q, want the lines", v.Error())
			}
		})
	}
}

func TestSchemaValidateOneOfListsBranches(t *testing.T) {
	s := mustSchema(t, `{"oneOf":[{"type":"string"},{"type":"object","properties":{"k":{"const":"a"}},"required":["k"]}]}`)
	var v *contract.ValidationError
	if err := s.Validate(json.RawMessage(`{"p":1}`)); !errors.As(err, &v) {
		t.Fatalf("err = %v, want a *ValidationError", err)
	}
	want := []string{"/: 'oneOf' failed, none matched", "/: got object, want string", "/: missing property 'k'"}
	if !reflect.DeepEqual(v.Lines, want) {
		t.Errorf("Lines = %q, want %q", v.Lines, want)
	}
}

func TestSchemaValidateTruncatesLongReports(t *testing.T) {
	s := mustSchema(t, `{"type":"array","items":{"type":"string"}}`)
	var v *contract.ValidationError
	if err := s.Validate(json.RawMessage(`[` + strings.Repeat(`1,`, 29) + `1]`)); !errors.As(err, &v) {
		t.Fatalf("err = %v, want a *ValidationError", err)
	}
	if len(v.Lines) != 21 || v.Lines[20] != "… and 10 more" {
		t.Fatalf("got %d lines ending %q, want 20 and a count of the rest", len(v.Lines), v.Lines[len(v.Lines)-1])
	}
	for i, l := range v.Lines[:20] {
		if want := fmt.Sprintf("/%d: ", i); !strings.HasPrefix(l, want) {
			t.Errorf("Lines[%d] = %q, want prefix %q (items in numeric order)", i, l, want)
		}
	}
}

func TestSchemaValidateReportIsStable(t *testing.T) {
	s := mustSchema(t, `{
		"type": "object",
		"properties": {
			"a": {"type": "string"}, "b": {"type": "string"}, "c": {"type": "string"},
			"d": {"type": "string"}, "e": {"type": "string"}, "f": {"type": "string"},
			"g": {"type": "array", "items": {"type": "string"}}
		}
	}`)
	value := json.RawMessage(`{"f":1,"e":2,"d":3,"c":4,"b":5,"a":6,"g":[1,"x",2,"y",3,4,5,6,7,8,9,10]}`)
	var first []string
	for i := range 50 {
		var v *contract.ValidationError
		if err := s.Validate(value); !errors.As(err, &v) {
			t.Fatalf("err = %v, want a *ValidationError", err)
		}
		if i == 0 {
			first = v.Lines
			continue
		}
		if !reflect.DeepEqual(v.Lines, first) {
			t.Fatalf("run %d reported\n%q\nrun 0 reported\n%q", i, v.Lines, first)
		}
	}
	want := []string{"/a: ", "/b: ", "/c: ", "/d: ", "/e: ", "/f: ", "/g/0: ", "/g/2: ", "/g/4: ", "/g/5: ", "/g/6: ", "/g/7: ", "/g/8: ", "/g/9: ", "/g/10: ", "/g/11: "}
	if len(first) != len(want) {
		t.Fatalf("Lines = %q, want %d lines", first, len(want))
	}
	for i, prefix := range want {
		if !strings.HasPrefix(first[i], prefix) {
			t.Errorf("Lines[%d] = %q, want prefix %q", i, first[i], prefix)
		}
	}
}

func TestSchemaValidateRejectsNonJSON(t *testing.T) {
	s := mustSchema(t, `{}`)
	for _, value := range []string{``, `{`, `nope`, `1 2`, `{"a":1}x`} {
		err := s.Validate(json.RawMessage(value))
		var v *contract.ValidationError
		if err == nil || errors.As(err, &v) || !strings.Contains(err.Error(), "not JSON") {
			t.Errorf("Validate(%q) = %v, want a not-JSON error that is no *ValidationError", value, err)
		}
	}
}
