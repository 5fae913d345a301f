package typegen

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// lenientCase is one LenientType table row. samples are JSON values the
// schema accepts (TestLenientSamplesMatchTheirSchemas checks that with a
// JSON Schema validator); TestLenientTypesAcceptSamplesWithTypeScript checks
// that want accepts them, which is the superset promise.
type lenientCase struct {
	name    string
	schema  string
	want    string
	samples []string
}

// obj is a multi-line object type printed at indent 0 from member lines.
func obj(lines ...string) string {
	return "{\n  " + strings.Join(lines, "\n  ") + "\n}"
}

const openIndex = "[key: string]: unknown;"

var lenientCases = []lenientCase{
	// Not schemas, and boolean schemas.
	{"invalid JSON", `{"type":`, `unknown`, nil},
	{"empty input", ``, `unknown`, nil},
	{"duplicate keys", `{"type":"string","type":"number"}`, `unknown`, nil},
	{"string is not a schema", `"string"`, `unknown`, nil},
	{"null is not a schema", `null`, `unknown`, nil},
	{"array is not a schema", `[{"type":"string"}]`, `unknown`, nil},
	{"true", `true`, `unknown`, []string{`1`, `"a"`, `null`, `{"a":[1]}`}},
	{"empty object", `{}`, `unknown`, []string{`1`, `null`}},
	{"false", `false`, `never`, nil},
	{"annotations only", `{"title":"T","description":"D","$comment":"c","examples":[1],"default":2}`, `unknown`, []string{`true`}},

	// Primitives and type arrays.
	{"string", `{"type":"string","format":"uri","minLength":1,"pattern":"^h"}`, `string`, []string{`"http://x"`}},
	{"integer", `{"type":"integer","minimum":1,"exclusiveMaximum":10}`, `number`, []string{`3`}},
	{"number", `{"type":"number","multipleOf":0.5}`, `number`, []string{`1.5`}},
	{"boolean", `{"type":"boolean","default":false}`, `boolean`, []string{`true`}},
	{"null", `{"type":"null"}`, `null`, []string{`null`}},
	{"type array with null", `{"type":["string","null"]}`, `string | null`, []string{`"a"`, `null`}},
	{"type array dedupes integer and number", `{"type":["integer","number"]}`, `number`, []string{`1`, `1.5`}},
	{"type array with object and array", `{"type":["object","array"],"properties":{"a":{"type":"string"}},"items":{"type":"number"}}`,
		obj("a?: string;", openIndex) + ` | number[]`, []string{`{"a":"x","b":1}`, `[1,2]`}},
	{"unknown type name", `{"type":"date"}`, `unknown`, nil},
	{"malformed type", `{"type":3,"properties":{"a":{"type":"string"}}}`, `unknown`, nil},
	{"empty type array", `{"type":[]}`, `unknown`, nil},
	{"nullable string", `{"type":"string","nullable":true}`, `string | null`, []string{`"a"`}},
	{"nullable false", `{"type":"string","nullable":false}`, `string`, nil},
	{"nullable with enum", `{"type":"string","enum":["a","b"],"nullable":true}`, `"a" | "b" | null`, []string{`"a"`}},

	// const and enum.
	{"string const", `{"const":"a\"b<c>"}`, `"a\"b<c>"`, []string{`"a\"b<c>"`}},
	{"number const", `{"const":-1.5}`, `-1.5`, []string{`-1.5`}},
	{"integral number const", `{"const":2.0}`, `2`, []string{`2`}},
	{"negative zero const", `{"const":-0}`, `0`, []string{`0`}},
	{"large number const", `{"const":1e21}`, `1e+21`, []string{`1e21`}},
	{"small number const", `{"const":-1e-9}`, `-1e-9`, []string{`-1e-9`}},
	{"number beyond float64", `{"const":1e999}`, `number`, nil},
	{"boolean const", `{"const":false}`, `false`, []string{`false`}},
	{"null const", `{"const":null}`, `null`, []string{`null`}},
	{"array const", `{"const":[1,"a",[true]]}`, `[1, "a", [true]]`, []string{`[1,"a",[true]]`}},
	{"object const", `{"const":{"a":1,"b c":[null]}}`, obj(`a: 1;`, `"b c": [null];`), []string{`{"a":1,"b c":[null]}`}},
	{"empty object const", `{"const":{}}`, `Record<string, never>`, []string{`{}`}},
	{"const beats type", `{"type":"string","const":"x"}`, `"x"`, []string{`"x"`}},
	{"replacement character prints string", `{"const":"\ud800"}`, `string`, nil},
	{"mixed enum", `{"enum":["a",1,true,null]}`, `"a" | 1 | true | null`, []string{`"a"`, `1`, `true`, `null`}},
	{"enum dedupes equal printed members", `{"enum":[1,1.0,"a","a"]}`, `1 | "a"`, []string{`1`, `"a"`}},
	{"enum filtered by type", `{"type":"string","enum":["a",1,null]}`, `"a"`, []string{`"a"`}},
	{"enum filtered by type array", `{"type":["integer","null"],"enum":[1,"x",null]}`, `1 | null`, []string{`1`, `null`}},
	{"enum of objects and arrays", `{"enum":[{"k":"v"},[1,2]]}`, obj(`k: "v";`) + ` | [1, 2]`, []string{`{"k":"v"}`, `[1,2]`}},
	{"empty enum", `{"enum":[]}`, `unknown`, nil},
	{"enum not an array", `{"enum":"a"}`, `unknown`, nil},

	// Objects.
	{"object with optional and required", `{"type":"object","properties":{"path":{"type":"string","description":"File path."},"head":{"type":"number"}},"required":["path"]}`,
		obj("/** File path. */", "path: string;", "head?: number;", openIndex), []string{`{"path":"a"}`, `{"path":"a","head":1,"x":true}`}},
	{"closed object", `{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}`,
		obj("a?: string;"), []string{`{}`, `{"a":"x"}`}},
	{"additionalProperties true", `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":true}`,
		obj("a: string;", openIndex), []string{`{"a":"x","b":2}`}},
	{"additionalProperties schema includes property types", `{"type":"object","properties":{"a":{"type":"string"},"n":{"type":"number"}},"required":["a"],"additionalProperties":{"type":"boolean"}}`,
		obj("a: string;", "n?: number;", "[key: string]: boolean | string | number | undefined;"), []string{`{"a":"x","n":1,"z":true}`}},
	{"additionalProperties schema all required", `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":{"type":"string"}}`,
		obj("a: string;", "[key: string]: string;"), []string{`{"a":"x","b":"y"}`}},
	{"additionalProperties false schema closes", `{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}`, obj("a?: string;"), nil},
	{"additionalProperties unknown schema", `{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":{}}`, obj("a?: string;", openIndex), nil},
	{"record of strings", `{"type":"object","additionalProperties":{"type":"string"}}`, `Record<string, string>`, []string{`{}`, `{"a":"b"}`}},
	{"open object without properties", `{"type":"object"}`, `Record<string, unknown>`, []string{`{}`, `{"a":1}`}},
	{"empty properties", `{"type":"object","properties":{}}`, `Record<string, unknown>`, []string{`{}`}},
	{"closed object without properties", `{"type":"object","additionalProperties":false}`, `Record<string, never>`, []string{`{}`}},
	{"patternProperties opens a closed object", `{"type":"object","properties":{"a":{"type":"string"}},"patternProperties":{"^x-":{"type":"number"}},"additionalProperties":false}`,
		obj("a?: string;", openIndex), []string{`{"a":"b","x-y":1}`}},
	{"patternProperties without properties", `{"type":"object","patternProperties":{"^x-":{"type":"number"}},"additionalProperties":{"type":"string"}}`,
		`Record<string, unknown>`, []string{`{"x-a":1,"b":"c"}`}},
	{"properties without type are an object", `{"properties":{"a":{"type":"string"}},"required":["a"]}`, obj("a: string;", openIndex), []string{`{"a":"x"}`}},
	{"required names a missing property", `{"type":"object","properties":{"a":{"type":"string"}},"required":["a","b"]}`, obj("a: string;", openIndex), []string{`{"a":"x","b":1}`}},
	{"quoted names", `{"type":"object","properties":{"content-type":{"type":"string"},"é":{"type":"string"},"$ok":{"type":"string"}},"additionalProperties":false}`,
		obj(`"content-type"?: string;`, `"é"?: string;`, `$ok?: string;`), []string{`{"content-type":"a","é":"b"}`}},
	{"__proto__ and other odd names", `{"type":"object","properties":{"__proto__":{"type":"string"},"constructor":{"type":"number"},"a\u2028b":{"type":"null"},"*/":{"type":"boolean","description":"*/ ends comments"}},"additionalProperties":{"type":"integer"}}`,
		obj(`__proto__?: string;`, `constructor?: number;`, `"a\u2028b"?: null;`, `/** *\/ ends comments */`, `"*/"?: boolean;`, `[key: string]: number | string | null | boolean | undefined;`),
		[]string{`{"constructor":1,"*/":true,"x":2}`}},
	{"false property", `{"type":"object","properties":{"gone":false,"any":true},"additionalProperties":false}`, obj("gone?: never;", "any?: unknown;"), []string{`{"any":[1]}`}},
	{"nested object", `{"type":"object","properties":{"o":{"type":"object","properties":{"x":{"type":"integer","description":"X."}},"required":["x"]}},"required":["o"],"additionalProperties":false}`,
		obj("o: {", "  /** X. */", "  x: number;", "  "+openIndex, "};"), []string{`{"o":{"x":1,"y":2}}`}},
	{"ignored object keywords", `{"type":"object","properties":{"a":{"type":"string"}},"minProperties":1,"propertyNames":{"maxLength":3},"dependentRequired":{"b":["a"]},"unevaluatedProperties":false,"additionalProperties":false}`,
		obj("a?: string;"), []string{`{"a":"x"}`}},

	// Arrays.
	{"array of strings", `{"type":"array","items":{"type":"string"},"minItems":1,"uniqueItems":true}`, `string[]`, []string{`["a"]`}},
	{"array without items", `{"type":"array"}`, `unknown[]`, []string{`[1,"a"]`}},
	{"array of union", `{"type":"array","items":{"anyOf":[{"type":"string"},{"type":"integer"}]}}`, `(string | number)[]`, []string{`["a",1]`}},
	{"array of intersection", `{"type":"array","items":{"allOf":[{"type":"object","properties":{"a":{"type":"string"}}},{"type":"object","properties":{"b":{"type":"string"}}}]}}`,
		"({\n  a?: string;\n  " + openIndex + "\n} & {\n  b?: string;\n  " + openIndex + "\n})[]", []string{`[{"a":"x","b":"y"}]`}},
	{"items false", `{"type":"array","items":false}`, `[]`, []string{`[]`}},
	{"prefixItems open", `{"type":"array","prefixItems":[{"type":"string"},{"type":"number"}]}`, `[string?, number?, ...unknown[]]`, []string{`[]`, `["a"]`, `["a",1,null]`}},
	{"prefixItems with minItems and items", `{"type":"array","prefixItems":[{"type":"string"},{"type":"number"}],"minItems":1,"items":{"type":"boolean"}}`,
		`[string, number?, ...boolean[]]`, []string{`["a"]`, `["a",1,true]`}},
	{"prefixItems closed", `{"type":"array","prefixItems":[{"type":"string"},{"type":["number","null"]}],"minItems":5,"items":false}`,
		`[string, number | null]`, nil},
	{"prefixItems closed optional", `{"type":"array","prefixItems":[{"type":"string"},{"type":["number","null"]}],"items":false}`,
		`[string?, (number | null)?]`, []string{`[]`, `["a",null]`}},
	{"draft-07 tuple", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"array","items":[{"type":"string"},{"type":"number"}],"additionalItems":false,"minItems":2}`,
		`[string, number]`, []string{`["a",1]`}},
	{"draft-07 tuple with additionalItems schema", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"array","items":[{"type":"string"}],"additionalItems":{"type":"number"}}`,
		`[string?, ...number[]]`, []string{`["a",1,2]`}},
	{"draft-07 tuple open", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"array","items":[{"type":"string"}]}`, `[string?, ...unknown[]]`, []string{`["a",{}]`}},
	{"empty prefixItems", `{"type":"array","prefixItems":[],"items":{"type":"string"}}`, `string[]`, nil},
	{"empty closed tuple", `{"type":"array","prefixItems":[],"items":false}`, `[]`, nil},

	// anyOf, oneOf, allOf.
	{"anyOf with null", `{"anyOf":[{"type":"string"},{"type":"null"}]}`, `string | null`, []string{`"a"`, `null`}},
	{"oneOf", `{"oneOf":[{"type":"string"},{"type":"number"}]}`, `string | number`, []string{`"a"`, `1`}},
	{"anyOf dedupes", `{"anyOf":[{"type":"string"},{"type":"string","minLength":1},{"type":"string","format":"email"}]}`, `string`, []string{`"a"`}},
	{"anyOf with unknown branch", `{"anyOf":[{"type":"string"},{"not":{"type":"string"}}]}`, `unknown`, []string{`1`}},
	{"anyOf with false branch", `{"anyOf":[{"type":"string"},false]}`, `string`, []string{`"a"`}},
	{"anyOf of objects", `{"anyOf":[{"type":"object","properties":{"kind":{"const":"a"}},"required":["kind"],"additionalProperties":false},{"type":"object","properties":{"kind":{"const":"b"},"n":{"type":"number"}},"required":["kind"],"additionalProperties":false}]}`,
		obj(`kind: "a";`) + " | " + obj(`kind: "b";`, `n?: number;`), []string{`{"kind":"a"}`, `{"kind":"b","n":1}`}},
	{"nested anyOf flattens", `{"anyOf":[{"type":"string"},{"anyOf":[{"type":"number"},{"type":"string"}]}]}`, `string | number`, []string{`1`}},
	{"empty anyOf is ignored", `{"type":"string","anyOf":[]}`, `string`, nil},
	{"anyOf with type", `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"anyOf":[{"required":["a"]},{"required":["b"]}]}`,
		obj("a?: string;", "b?: string;", openIndex), []string{`{"a":"x"}`, `{"b":"y"}`}},
	{"allOf of objects", `{"allOf":[{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]},{"type":"object","properties":{"b":{"type":"number"}}}]}`,
		obj("a: string;", openIndex) + " & " + obj("b?: number;", openIndex), []string{`{"a":"x","b":1}`}},
	{"allOf with one member", `{"allOf":[{"type":"string"}]}`, `string`, []string{`"a"`}},
	{"allOf with union", `{"allOf":[{"type":["string","number"]},{"anyOf":[{"type":"string"},{"type":"null"}]}]}`, `(string | number) & (string | null)`, []string{`"a"`}},
	{"allOf with false", `{"allOf":[{"type":"string"},false]}`, `never`, nil},
	{"type and allOf", `{"type":"object","properties":{"a":{"type":"string"}},"allOf":[{"properties":{"b":{"type":"string"}}}]}`,
		obj("a?: string;", openIndex) + " & " + obj("b?: string;", openIndex), []string{`{"a":"x","b":"y"}`}},

	// Ignored keywords.
	{"not is ignored", `{"type":"string","not":{"const":"x"}}`, `string`, []string{`"y"`}},
	{"if then else is ignored", `{"type":"object","properties":{"a":{"type":"string"}},"if":{"required":["a"]},"then":{"required":["b"]},"else":{}}`, obj("a?: string;", openIndex), []string{`{"a":"x","b":1}`}},
	{"dependentSchemas is ignored", `{"type":"object","dependentSchemas":{"a":{"required":["b"]}}}`, `Record<string, unknown>`, []string{`{"a":1,"b":2}`}},
	{"unknown keywords are ignored", `{"type":"string","x-vendor":{"a":1},"contentEncoding":"base64"}`, `string`, []string{`"QQ=="`}},

	// References.
	{"$defs ref", `{"$ref":"#/$defs/Name","$defs":{"Name":{"type":"string"}}}`, `string`, []string{`"a"`}},
	{"definitions ref", `{"type":"object","properties":{"p":{"$ref":"#/definitions/P"}},"required":["p"],"additionalProperties":false,"definitions":{"P":{"type":"number"}}}`,
		obj("p: number;"), []string{`{"p":1}`}},
	{"root ref", `{"type":"object","properties":{"self":{"$ref":"#"},"n":{"type":"number"}},"additionalProperties":false}`,
		obj("self?: {", "  self?: unknown;", "  n?: number;", "};", "n?: number;"), []string{`{"n":1,"self":{"self":{}}}`}},
	{"pointer escapes", `{"$ref":"#/$defs/a~1b~0c","$defs":{"a/b~c":{"type":"boolean"}}}`, `boolean`, []string{`true`}},
	{"percent-encoding", `{"$ref":"#/$defs/a%20b%25","$defs":{"a b%":{"type":"null"}}}`, `null`, []string{`null`}},
	{"pointer into properties and arrays", `{"type":"object","properties":{"a":{"anyOf":[{"type":"string"},{"type":"number"}]},"b":{"$ref":"#/properties/a/anyOf/1"}}}`,
		obj("a?: string | number;", "b?: number;", openIndex), []string{`{"a":"x","b":2}`}},
	{"ref siblings are ignored", `{"$schema":"http://json-schema.org/draft-07/schema#","$ref":"#/definitions/S","type":"number","nullable":true,"definitions":{"S":{"type":"string"}}}`, `string | null`, []string{`"a"`}},
	{"remote ref", `{"$ref":"https://example.com/schema.json"}`, `unknown`, nil},
	{"relative ref", `{"$ref":"other.json#/a"}`, `unknown`, nil},
	{"anchor ref", `{"$ref":"#name","$defs":{"x":{"$anchor":"name","type":"string"}}}`, `unknown`, nil},
	{"missing target", `{"$ref":"#/$defs/missing"}`, `unknown`, nil},
	{"bad array index", `{"$ref":"#/allOf/01","allOf":[{"type":"string"},{"type":"string"}]}`, `unknown`, nil},
	{"bad percent-encoding", `{"$ref":"#/$defs/%zz","$defs":{}}`, `unknown`, nil},
	{"ref not a string", `{"$ref":1}`, `unknown`, nil},
	{"dynamicRef", `{"$dynamicRef":"#node"}`, `unknown`, nil},
	{"ref inside an embedded resource", `{"type":"object","properties":{"e":{"$id":"https://example.com/e","$ref":"#/$defs/x","$defs":{"x":{"type":"string"}}}},"$defs":{"x":{"type":"number"}}}`,
		obj("e?: unknown;", openIndex), []string{`{"e":"s"}`}},
	{"ref into an embedded resource", `{"$ref":"#/$defs/e","$defs":{"e":{"$id":"https://example.com/e","type":"array","items":{"$ref":"#/$defs/x"},"$defs":{"x":{"type":"string"}}},"x":{"type":"number"}}}`,
		`unknown[]`, []string{`["s"]`}},
	{"self ref", `{"$ref":"#"}`, `unknown`, nil},
	{"ref cycle", `{"$ref":"#/$defs/a","$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}}}`, `unknown`, nil},
	{"recursive tree", `{"$ref":"#/$defs/Node","$defs":{"Node":{"type":"object","properties":{"name":{"type":"string"},"children":{"type":"array","items":{"$ref":"#/$defs/Node"}}},"required":["name"],"additionalProperties":false}}}`,
		obj("name: string;", "children?: unknown[];"), []string{`{"name":"a","children":[{"name":"b","children":[]}]}`}},
	{"same ref twice is not a cycle", `{"type":"object","properties":{"a":{"$ref":"#/$defs/S"},"b":{"$ref":"#/$defs/S"}},"additionalProperties":false,"$defs":{"S":{"type":"string"}}}`,
		obj("a?: string;", "b?: string;"), []string{`{"a":"x","b":"y"}`}},
}

func TestLenientTypePrintsSchemas(t *testing.T) {
	for _, tc := range lenientCases {
		t.Run(tc.name, func(t *testing.T) {
			if got := LenientType(json.RawMessage(tc.schema)); got != tc.want {
				t.Errorf("LenientType(%s)\n got: %q\nwant: %q", tc.schema, got, tc.want)
			}
		})
	}
}

// TestLenientSamplesMatchTheirSchemas keeps the samples honest: each must
// be accepted by a real JSON Schema validator, so that the TypeScript test
// that the printed types accept them proves the superset promise.
func TestLenientSamplesMatchTheirSchemas(t *testing.T) {
	for _, tc := range lenientCases {
		if len(tc.samples) == 0 {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			sch := compileValidator(t, tc.schema)
			for _, s := range tc.samples {
				validateSample(t, sch, s)
			}
		})
	}
}

func compileValidator(t *testing.T, schema string) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(schema))
	if err != nil {
		t.Fatalf("decoding schema %s: %v", schema, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("urn:typegen:test", doc); err != nil {
		t.Fatalf("adding schema %s: %v", schema, err)
	}
	sch, err := c.Compile("urn:typegen:test")
	if err != nil {
		t.Fatalf("compiling schema %s: %v", schema, err)
	}
	return sch
}

func validateSample(t *testing.T, sch *jsonschema.Schema, sample string) {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(sample)))
	if err != nil {
		t.Fatalf("decoding sample %s: %v", sample, err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Errorf("sample %s is not valid: %v", sample, err)
	}
}

func TestLenientTypeNeverGoesDeeperThanTheLimit(t *testing.T) {
	got := LenientType(json.RawMessage(nest(maxLenientDepth + 5)))
	want := "unknown" + strings.Repeat("[]", maxLenientDepth+1)
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := LenientType(json.RawMessage(nest(maxLenientDepth))); got != "string"+strings.Repeat("[]", maxLenientDepth) {
		t.Errorf("at the limit: got %q", got)
	}
}

// TestLenientTypeBoundsExpansion feeds a schema whose references double at
// every level (2^30 leaves if expanded): the budget must cut it off.
func TestLenientTypeBoundsExpansion(t *testing.T) {
	var defs []string
	for i := range 30 {
		defs = append(defs, `"d`+strconv.Itoa(i)+`":{"type":"array","prefixItems":[{"$ref":"#/$defs/d`+strconv.Itoa(i+1)+`"},{"$ref":"#/$defs/d`+strconv.Itoa(i+1)+`"}],"description":"`+strings.Repeat("x", 100)+`"}`)
	}
	defs = append(defs, `"d30":{"type":"string"}`)
	schema := `{"$ref":"#/$defs/d0","$defs":{` + strings.Join(defs, ",") + `}}`
	got := LenientType(json.RawMessage(schema))
	if len(got) > 8*lenientBudget {
		t.Errorf("output is %d bytes, want at most %d", len(got), 8*lenientBudget)
	}
	if !strings.Contains(got, "unknown") {
		t.Errorf("budget never cut the expansion: %.200s", got)
	}
}

func TestDeclarationsPrintLenientTools(t *testing.T) {
	lenient := func(in, out string) Surface {
		return Surface{Namespaces: []Namespace{{Name: "mcp", Tools: []ToolDecl{{
			Name: "tool", Description: "A tool.", Lenient: true,
			InputSchema: json.RawMessage(in), OutputSchema: json.RawMessage(out),
		}}}}}
	}
	cases := []struct {
		name    string
		surface Surface
		want    string
	}{
		{"absent schemas", lenient("", ""), "  tool(input?: Record<string, unknown>): Promise<any>;\n"},
		{"null schemas", lenient("null", " null "), "  tool(input?: Record<string, unknown>): Promise<any>;\n"},
		{"invalid schemas", lenient("{", `"x"`), "  tool(input: unknown): Promise<unknown>;\n"},
		{"open object", lenient(`{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}`, `{"type":["string","null"]}`),
			"  tool(input: {\n    q: string;\n    [key: string]: unknown;\n  }): Promise<string | null>;\n"},
		{"empty MCP input", lenient(`{"type":"object","properties":{}}`, `{"type":"object"}`),
			"  tool(input?: Record<string, unknown>): Promise<Record<string, unknown>>;\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Declarations(tc.surface)
			if err != nil {
				t.Fatal(err)
			}
			want := "interface McpTools {\n  /** A tool. */\n" + tc.want + "}\n"
			if !strings.HasPrefix(got, want) {
				t.Errorf("declarations start\n%s\nwant\n%s", got, want)
			}
		})
	}
}

func TestDeclarationsKeepNameRulesForLenientTools(t *testing.T) {
	tool := ToolDecl{Name: "read-file", Description: "Reads.", Lenient: true}
	_, err := Declarations(Surface{Namespaces: []Namespace{{Name: "fs", Tools: []ToolDecl{tool}}}})
	var se *SchemaError
	if !errors.As(err, &se) || se.Pointer != "fs.read-file" || se.Keyword != "name" {
		t.Errorf("err = %v, want a name error at fs.read-file", err)
	}
	tool = ToolDecl{Name: "read", Description: " ", Lenient: true}
	_, err = Declarations(Surface{Namespaces: []Namespace{{Name: "fs", Tools: []ToolDecl{tool}}}})
	if !errors.As(err, &se) || se.Keyword != "description" {
		t.Errorf("err = %v, want a description error", err)
	}
}

func TestToolDeclLenientJSON(t *testing.T) {
	b, err := json.Marshal(ToolDecl{Name: "a", Description: "b"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "lenient") {
		t.Errorf("strict tool marshals lenient: %s", b)
	}
	var d ToolDecl
	if err := json.Unmarshal([]byte(`{"name":"a","lenient":true}`), &d); err != nil || !d.Lenient {
		t.Errorf("unmarshal lenient: %+v, %v", d, err)
	}
}
