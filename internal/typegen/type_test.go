package typegen

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// closed wraps properties (a JSON object text) in a closed object schema.
func closed(properties string, required ...string) string {
	req := ""
	if len(required) > 0 {
		req = `,"required":["` + strings.Join(required, `","`) + `"]`
	}
	return `{"type":"object","properties":` + properties + req + `,"additionalProperties":false}`
}

var typeCases = []struct {
	name   string
	schema string
	want   string
}{
	{"string", `{"type":"string"}`, `string`},
	{"number", `{"type":"number"}`, `number`},
	{"integer", `{"type":"integer"}`, `number`},
	{"boolean", `{"type":"boolean"}`, `boolean`},
	{"null", `{"type":"null"}`, `null`},
	{"string const", `{"type":"string","const":"weather.requested"}`, `"weather.requested"`},
	{"bare string const", `{"const":"a\"b"}`, `"a\"b"`},
	{"const keeps HTML characters", `{"const":"<a&b>"}`, `"<a&b>"`},
	{"string enum", `{"type":"string","enum":["a","b","c"]}`, `"a" | "b" | "c"`},
	{"bare string enum", `{"enum":["x","y"]}`, `"x" | "y"`},
	{"one-value enum", `{"enum":["only"]}`, `"only"`},
	{"array", `{"type":"array","items":{"type":"string"}}`, `string[]`},
	{"array of arrays", `{"type":"array","items":{"type":"array","items":{"type":"number"}}}`, `number[][]`},
	{"array of enum", `{"type":"array","items":{"enum":["a","b"]}}`, `("a" | "b")[]`},
	{"array of one-value enum", `{"type":"array","items":{"enum":["a"]}}`, `"a"[]`},
	{"array of objects", `{"type":"array","items":` + closed(`{"id":{"type":"string"}}`, "id") + `}`,
		"{\n  id: string;\n}[]"},
	{"empty object", `{"type":"object","properties":{},"additionalProperties":false}`, `Record<string, never>`},
	{"object without properties", `{"type":"object","additionalProperties":false}`, `Record<string, never>`},
	{"object keeps text order and optional", closed(`{"z":{"type":"string"},"a":{"type":"number"},"m":{"type":"boolean"}}`, "m", "z"),
		"{\n  z: string;\n  a?: number;\n  m: boolean;\n}"},
	{"nested object", closed(`{"outer":`+closed(`{"inner":{"type":"null"}}`, "inner")+`}`, "outer"),
		"{\n  outer: {\n    inner: null;\n  };\n}"},
	{"property description", closed(`{"location":{"type":"string","description":"City name."}}`, "location"),
		"{\n  /** City name. */\n  location: string;\n}"},
	{"multi-line description and comment end", closed(`{"a":{"type":"string","description":"One */ two.\r\nThree.\n\nFive.  "}}`),
		"{\n  /**\n   * One *\\/ two.\n   * Three.\n   *\n   * Five.\n   */\n  a?: string;\n}"},
	{"blank description prints nothing", closed(`{"a":{"type":"string","description":"  "}}`), "{\n  a?: string;\n}"},
	{"quoted property names", closed(`{"content-type":{"type":"string"},"1x":{"type":"string"},"":{"type":"string"},"é":{"type":"string"},"$_a1":{"type":"string"}}`),
		"{\n  \"content-type\"?: string;\n  \"1x\"?: string;\n  \"\"?: string;\n  \"é\"?: string;\n  $_a1?: string;\n}"},
	{"annotations ignored", `{"type":"string","title":"T","$schema":"https://json-schema.org/draft/2020-12/schema","$id":"urn:x","$comment":"c","examples":["e"],"default":"d","deprecated":true,"readOnly":false,"writeOnly":false,"description":"D"}`,
		`string`},
	{"base64 bytes", `{"type":"string","contentEncoding":"base64","contentMediaType":"image/png"}`, `string`},
	{"base64 property documented", closed(`{"png":{"type":"string","description":"The image.","contentEncoding":"base64","contentMediaType":"image/png"},"raw":{"type":"string","contentEncoding":"base64"}}`, "png"),
		"{\n  /**\n   * The image.\n   * @contentEncoding base64\n   * @contentMediaType image/png\n   */\n  png: string;\n  /** @contentEncoding base64 */\n  raw?: string;\n}"},
	{"format property documented", closed(`{"due":{"type":"string","format":"date-time","description":"When it is due."},"at":{"type":"string","format":"date-time"}}`, "due"),
		"{\n  /**\n   * When it is due.\n   * @format date-time\n   */\n  due: string;\n  /** @format date-time */\n  at?: string;\n}"},
	{"format of a nullable property documented", closed(`{"due":{"anyOf":[{"type":"string","format":"date-time"},{"type":"null"}]},"png":{"anyOf":[{"type":"string","contentEncoding":"base64"},{"type":"null"}],"description":"The image."}}`, "due", "png"),
		"{\n  /** @format date-time */\n  due: string | null;\n  /**\n   * The image.\n   * @contentEncoding base64\n   */\n  png: string | null;\n}"},
	{"string validation ignored", `{"type":"string","minLength":1,"maxLength":5,"pattern":"^a","format":"email"}`, `string`},
	{"number validation ignored", `{"type":"number","minimum":0,"maximum":1.5,"exclusiveMinimum":-1,"exclusiveMaximum":2,"multipleOf":0.5}`, `number`},
	{"integer validation ignored", `{"type":"integer","minimum":1,"multipleOf":2}`, `number`},
	{"array validation ignored", `{"type":"array","items":{"type":"string"},"minItems":1,"maxItems":3,"uniqueItems":true}`, `string[]`},
	{"integral float length", `{"type":"string","minLength":2.0}`, `string`},
	{"anyOf discriminated union",
		`{"anyOf":[` + closed(`{"kind":{"type":"string","const":"a"},"x":{"type":"number"}}`, "kind", "x") + `,` + closed(`{"kind":{"const":"b"}}`, "kind") + `]}`,
		"{\n  kind: \"a\";\n  x: number;\n} | {\n  kind: \"b\";\n}"},
	{"oneOf discriminated union with later discriminator",
		`{"oneOf":[` + closed(`{"shared":{"const":"s"},"tag":{"const":"a"}}`, "shared", "tag") + `,` + closed(`{"tag":{"const":"b"},"shared":{"const":"s"}}`, "tag", "shared") + `]}`,
		"{\n  shared: \"s\";\n  tag: \"a\";\n} | {\n  tag: \"b\";\n  shared: \"s\";\n}"},
	{"array of union",
		`{"type":"array","items":{"oneOf":[` + closed(`{"t":{"const":"a"}}`, "t") + `,` + closed(`{"t":{"const":"b"}}`, "t") + `]}}`,
		"({\n  t: \"a\";\n} | {\n  t: \"b\";\n})[]"},
	{"union in property", closed(`{"e":{"anyOf":[`+closed(`{"t":{"const":"a"}}`, "t")+`,`+closed(`{"t":{"const":"b"}}`, "t")+`]}}`, "e"),
		"{\n  e: {\n    t: \"a\";\n  } | {\n    t: \"b\";\n  };\n}"},
	{"surrounding whitespace", " \n{\"type\":\"string\"}\n ", `string`},
	{"empty schema", `{}`, `unknown`},
	{"annotations alone", `{"description":"Any JSON value.","title":"x"}`, `unknown`},
	{"root $defs unused", `{"type":"string","$defs":{}}`, `string`},
	{"map", `{"type":"object","additionalProperties":{"type":"integer"}}`, `Record<string, number>`},
	{"map with empty properties", `{"type":"object","properties":{},"additionalProperties":{"type":"string"}}`, `Record<string, string>`},
	{"map of anything with integer keys", `{"type":"object","additionalProperties":{},"propertyNames":{"pattern":"^-?[0-9]+$"}}`, `Record<string, unknown>`},
	{"nullable", `{"anyOf":[{"type":"string"},{"type":"null"}]}`, `string | null`},
	{"nullable, null first", `{"oneOf":[{"type":"null"},{"type":"array","items":{"type":"number"}}]}`, `number[] | null`},
	{"nullable enum", `{"anyOf":[{"enum":["a","b"]},{"type":"null"}]}`, `"a" | "b" | null`},
	{"array of nullable", `{"type":"array","items":{"anyOf":[{"type":"string"},{"type":"null"}]}}`, `(string | null)[]`},
	{"nullable object", `{"anyOf":[` + closed(`{"a":{"type":"string"}}`, "a") + `,{"type":"null"}]}`, "{\n  a: string;\n} | null"},
}

func TestTypePrintsSupportedSchemas(t *testing.T) {
	for _, tc := range typeCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Type(json.RawMessage(tc.schema))
			if err != nil {
				t.Fatalf("Type(%s): %v", tc.schema, err)
			}
			if got != tc.want {
				t.Errorf("Type(%s)\n got: %q\nwant: %q", tc.schema, got, tc.want)
			}
		})
	}
}

func TestTypeDoesNotMarkPropertiesReadonly(t *testing.T) {
	got, err := Type(json.RawMessage(closed(`{"a":{"type":"string"}}`, "a")))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(got, "readonly") {
		t.Errorf("Type printed readonly: %q", got)
	}
}

// nest wraps a string schema in depth array schemas.
func nest(depth int) string {
	return strings.Repeat(`{"type":"array","items":`, depth) + `{"type":"string"}` + strings.Repeat(`}`, depth)
}

var typeErrorCases = []struct {
	name    string
	schema  string
	pointer string
	keyword string
}{
	// Malformed JSON and non-schemas.
	{"empty input", ``, "#", ""},
	{"invalid JSON", `{"type":`, "#/type", ""},
	{"trailing data", `{"type":"string"} {}`, "#", ""},
	{"duplicate key", `{"type":"string","type":"number"}`, "#", "type"},
	{"not an object", `"string"`, "#", ""},
	{"null schema", `null`, "#", ""},
	{"array schema", `[]`, "#", ""},
	{"true schema", `true`, "#", "true"},
	{"false schema", `false`, "#", "false"},
	{"false property schema", closed(`{"a":false}`), "#/properties/a", "false"},
	{"true items schema", `{"type":"array","items":true}`, "#/items", "true"},

	// type.
	{"missing object type", `{"properties":{},"additionalProperties":false}`, "#", "type"},
	{"missing array type", `{"items":{"type":"string"}}`, "#", "type"},
	{"validation keyword without type", `{"minLength":1}`, "#", "minLength"},
	{"type array", `{"type":["string","null"]}`, "#", "type"},
	{"type not a string", `{"type":3}`, "#", "type"},
	{"unknown type", `{"type":"date"}`, "#", "type"},

	// Unsupported keywords.
	{"$ref", `{"$ref":"#/$defs/x"}`, "#", "$ref"},
	{"nested $defs", closed(`{"a":{"type":"string","$defs":{}}}`), "#/properties/a", "$defs"},
	{"$defs not an object", `{"type":"string","$defs":[]}`, "#", "$defs"},
	{"$ref outside a surface", `{"$ref":"#/$defs/a","$defs":{"a":{"type":"string"}}}`, "#", "$ref"},
	{"$ref to a missing definition", `{"$ref":"#/$defs/b","$defs":{"a":{"type":"string"}}}`, "#", "$ref"},
	{"$ref elsewhere", `{"$ref":"#/$defs/a/properties/b","$defs":{"a":{"type":"string"}}}`, "#", "$ref"},
	{"remote $ref", `{"$ref":"https://example.com/s.json"}`, "#", "$ref"},
	{"$ref with type", `{"$ref":"#/$defs/a","type":"string","$defs":{"a":{"type":"string"}}}`, "#", "type"},
	{"allOf", `{"allOf":[{"type":"string"}]}`, "#", "allOf"},
	{"not", `{"type":"string","not":{"type":"null"}}`, "#", "not"},
	{"if", `{"type":"string","if":{}}`, "#", "if"},
	{"unknown keyword", `{"type":"string","x-extra":1}`, "#", "x-extra"},
	{"nullable", `{"type":"string","nullable":true}`, "#", "nullable"},
	{"contentEncoding other than base64", `{"type":"string","contentEncoding":"base32"}`, "#", "contentEncoding"},
	{"contentEncoding on a number", `{"type":"number","contentEncoding":"base64"}`, "#", "contentEncoding"},
	{"minProperties", `{"type":"object","additionalProperties":false,"minProperties":1}`, "#", "minProperties"},
	{"patternProperties", `{"type":"object","additionalProperties":false,"patternProperties":{}}`, "#", "patternProperties"},
	{"prefixItems", `{"type":"array","items":{"type":"string"},"prefixItems":[]}`, "#", "prefixItems"},
	{"contains", `{"type":"array","items":{"type":"string"},"contains":{}}`, "#", "contains"},
	{"nested unsupported keyword", closed(`{"a":{"type":"string","pattern":"x","unevaluatedProperties":false}}`), "#/properties/a", "unevaluatedProperties"},

	// Annotations with wrong values.
	{"description not a string", `{"type":"string","description":5}`, "#", "description"},
	{"title not a string", `{"type":"string","title":null}`, "#", "title"},
	{"examples not an array", `{"type":"string","examples":"e"}`, "#", "examples"},
	{"deprecated not a boolean", `{"type":"string","deprecated":"yes"}`, "#", "deprecated"},

	// Validation-only keywords on the wrong type or with bad values.
	{"pattern on number", `{"type":"number","pattern":"^1"}`, "#", "pattern"},
	{"format on object", `{"type":"object","additionalProperties":false,"format":"x"}`, "#", "format"},
	{"minimum on string", `{"type":"string","minimum":1}`, "#", "minimum"},
	{"minItems on string", `{"type":"string","minItems":1}`, "#", "minItems"},
	{"minLength on array", `{"type":"array","items":{"type":"string"},"minLength":1}`, "#", "minLength"},
	{"maxLength on boolean", `{"type":"boolean","maxLength":1}`, "#", "maxLength"},
	{"pattern on const", `{"const":"a","pattern":"a"}`, "#", "pattern"},
	{"minLength negative", `{"type":"string","minLength":-1}`, "#", "minLength"},
	{"maxItems fractional", `{"type":"array","items":{"type":"string"},"maxItems":1.5}`, "#", "maxItems"},
	{"pattern not a string", `{"type":"string","pattern":1}`, "#", "pattern"},
	{"minimum not a number", `{"type":"number","minimum":"1"}`, "#", "minimum"},
	{"exclusiveMinimum boolean", `{"type":"number","exclusiveMinimum":true}`, "#", "exclusiveMinimum"},
	{"multipleOf zero", `{"type":"integer","multipleOf":0}`, "#", "multipleOf"},
	{"uniqueItems not a boolean", `{"type":"array","items":{"type":"string"},"uniqueItems":1}`, "#", "uniqueItems"},

	// Objects.
	{"missing additionalProperties", `{"type":"object","properties":{}}`, "#", "additionalProperties"},
	{"additionalProperties true", `{"type":"object","additionalProperties":true}`, "#", "additionalProperties"},
	{"additionalProperties schema beside properties", `{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":{"type":"string"}}`, "#", "additionalProperties"},
	{"bad map value", `{"type":"object","additionalProperties":{"type":"date"}}`, "#/additionalProperties", "type"},
	{"propertyNames not a schema", `{"type":"object","additionalProperties":{"type":"string"},"propertyNames":1}`, "#", "propertyNames"},
	{"nested open object", closed(`{"a":{"type":"object","properties":{}}}`), "#/properties/a", "additionalProperties"},
	{"properties not an object", `{"type":"object","properties":[],"additionalProperties":false}`, "#", "properties"},
	{"required not an array", `{"type":"object","properties":{"a":{"type":"string"}},"required":"a","additionalProperties":false}`, "#", "required"},
	{"required not strings", `{"type":"object","properties":{"a":{"type":"string"}},"required":[1],"additionalProperties":false}`, "#", "required"},
	{"required unknown property", closed(`{"a":{"type":"string"}}`, "b"), "#", "required"},
	{"required twice", closed(`{"a":{"type":"string"}}`, "a", "a"), "#", "required"},
	{"pointer escapes names", closed(`{"a/b~c":{"type":"string","format":1}}`), "#/properties/a~1b~0c", "format"},
	{"properties on string", `{"type":"string","properties":{}}`, "#", "properties"},
	{"additionalProperties on array", `{"type":"array","items":{"type":"string"},"additionalProperties":false}`, "#", "additionalProperties"},

	// Arrays.
	{"missing items", `{"type":"array"}`, "#", "items"},
	{"tuple items", `{"type":"array","items":[{"type":"string"}]}`, "#", "items"},
	{"bad items schema", `{"type":"array","items":{"type":"string","enum":[1]}}`, "#/items", "enum"},
	{"items on object", `{"type":"object","items":{},"additionalProperties":false}`, "#", "items"},

	// const and enum.
	{"number const", `{"const":1}`, "#", "const"},
	{"null const", `{"type":"string","const":null}`, "#", "const"},
	{"const on number", `{"type":"number","const":1}`, "#", "const"},
	{"const with enum", `{"type":"string","const":"a","enum":["a"]}`, "#", "enum"},
	{"bare const with enum", `{"const":"a","enum":["a"]}`, "#", "enum"},
	{"number enum", `{"enum":[1,2]}`, "#", "enum"},
	{"mixed enum", `{"type":"string","enum":["a",null]}`, "#", "enum"},
	{"empty enum", `{"enum":[]}`, "#", "enum"},
	{"enum not an array", `{"enum":"a"}`, "#", "enum"},
	{"duplicate enum value", `{"enum":["a","a"]}`, "#", "enum"},
	{"enum on integer", `{"type":"integer","enum":[1]}`, "#", "enum"},
	{"enum on boolean", `{"type":"boolean","enum":[true]}`, "#", "enum"},

	// anyOf and oneOf.
	{"anyOf with one branch", `{"anyOf":[` + closed(`{"t":{"const":"a"}}`, "t") + `]}`, "#", "anyOf"},
	{"anyOf not an array", `{"anyOf":{}}`, "#", "anyOf"},
	{"anyOf with type", `{"type":"object","additionalProperties":false,"anyOf":[]}`, "#", "anyOf"},
	{"anyOf and oneOf", `{"anyOf":[],"oneOf":[]}`, "#", "oneOf"},
	{"anyOf with properties", `{"anyOf":[],"properties":{}}`, "#", "properties"},
	{"two nulls", `{"anyOf":[{"type":"null"},{"type":"null"}]}`, "#/anyOf/0", "type"},
	{"three branches with null", `{"anyOf":[{"type":"string"},{"type":"number"},{"type":"null"}]}`, "#/anyOf/0", "type"},
	{"anyOf branch open", `{"anyOf":[` + closed(`{"t":{"const":"a"}}`, "t") + `,{"type":"object","properties":{"t":{"const":"b"}}}]}`, "#/anyOf/1", "additionalProperties"},
	{"anyOf branch boolean schema", `{"anyOf":[` + closed(`{"t":{"const":"a"}}`, "t") + `,true]}`, "#/anyOf/1", "true"},
	{"oneOf branch union", `{"oneOf":[` + closed(`{"t":{"const":"a"}}`, "t") + `,{"oneOf":[` + closed(`{"t":{"const":"b"}}`, "t") + `,` + closed(`{"t":{"const":"c"}}`, "t") + `]}]}`, "#/oneOf/1", "type"},
	{"no shared discriminator", `{"anyOf":[` + closed(`{"a":{"const":"x"}}`, "a") + `,` + closed(`{"b":{"const":"y"}}`, "b") + `]}`, "#", "anyOf"},
	{"discriminator not required", `{"oneOf":[` + closed(`{"t":{"const":"a"}}`, "t") + `,` + closed(`{"t":{"const":"b"}}`) + `]}`, "#", "oneOf"},
	{"discriminator values repeat", `{"oneOf":[` + closed(`{"t":{"const":"a"}}`, "t") + `,` + closed(`{"t":{"const":"a"}}`, "t") + `]}`, "#", "oneOf"},
	{"discriminator is an enum", `{"oneOf":[` + closed(`{"t":{"enum":["a"]}}`, "t") + `,` + closed(`{"t":{"enum":["b"]}}`, "t") + `]}`, "#", "oneOf"},
	{"discriminator is a plain string", `{"anyOf":[` + closed(`{"t":{"type":"string"}}`, "t") + `,` + closed(`{"t":{"const":"b"}}`, "t") + `]}`, "#", "anyOf"},

	// Depth.
	{"too deep", nest(maxSchemaDepth + 1), "#" + strings.Repeat("/items", maxSchemaDepth+1), ""},
	{"JSON too deep", `{"type":"string","default":` + strings.Repeat("[", maxJSONDepth+5) + strings.Repeat("]", maxJSONDepth+5) + `}`,
		"#/default" + strings.Repeat("/0", maxJSONDepth-1), ""},
}

func TestTypeRejectsUnsupportedSchemas(t *testing.T) {
	for _, tc := range typeErrorCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Type(json.RawMessage(tc.schema))
			if err == nil {
				t.Fatalf("Type(%.200s) = %q, want an error", tc.schema, got)
			}
			var se *SchemaError
			if !errors.As(err, &se) {
				t.Fatalf("Type error %v (%T) is not a *SchemaError", err, err)
			}
			if se.Pointer != tc.pointer || se.Keyword != tc.keyword {
				t.Errorf("Type(%.200s) error at (%q, %q), want (%q, %q): %v", tc.schema, se.Pointer, se.Keyword, tc.pointer, tc.keyword, err)
			}
			if se.Message == "" {
				t.Errorf("empty message in %#v", se)
			}
		})
	}
}

func TestTypeAcceptsMaximumDepth(t *testing.T) {
	got, err := Type(json.RawMessage(nest(maxSchemaDepth)))
	if err != nil {
		t.Fatal(err)
	}
	if want := "string" + strings.Repeat("[]", maxSchemaDepth); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestSchemaErrorFormatsPointerAndKeyword(t *testing.T) {
	_, err := Type(json.RawMessage(closed(`{"a":{"type":"number","pattern":"x"}}`)))
	want := `typegen: #/properties/a: keyword "pattern": applies to string schemas, not number schemas`
	if err == nil || err.Error() != want {
		t.Errorf("error = %v\nwant   %s", err, want)
	}
	_, err = Type(json.RawMessage(`{"type":"string","if":{}}`))
	want = `typegen: #: keyword "if": not supported in strict declarations`
	if err == nil || err.Error() != want {
		t.Errorf("error = %v\nwant   %s", err, want)
	}
	_, err = Type(json.RawMessage(`"x"`))
	want = `typegen: #: schema must be a JSON object`
	if err == nil || err.Error() != want {
		t.Errorf("error = %v\nwant   %s", err, want)
	}
}

func weatherTool() ToolDecl {
	return ToolDecl{
		Name:         "getWeather",
		Description:  "Current weather for a city.",
		InputSchema:  json.RawMessage(closed(`{"location":{"type":"string"}}`, "location")),
		OutputSchema: json.RawMessage(closed(`{"conditions":{"type":"string"}}`, "conditions")),
	}
}

func TestDeclarationsRejectsBadSurfaces(t *testing.T) {
	bad := json.RawMessage(closed(`{"location":{"type":"string","pattern":1}}`))
	withTool := func(edit func(*ToolDecl)) Surface {
		tool := weatherTool()
		edit(&tool)
		return Surface{Namespaces: []Namespace{{Name: "codemode", Tools: []ToolDecl{tool}}}}
	}
	cases := []struct {
		name    string
		surface Surface
		pointer string
		keyword string
	}{
		{"program input", Surface{InputSchema: bad}, "input#/properties/location", "pattern"},
		{"program input null", Surface{InputSchema: json.RawMessage(`null`)}, "input#", ""},
		{"tool input", withTool(func(d *ToolDecl) { d.InputSchema = bad }), "codemode.getWeather.input#/properties/location", "pattern"},
		{"tool output", withTool(func(d *ToolDecl) { d.OutputSchema = json.RawMessage(`{"type":"object"}`) }), "codemode.getWeather.output#", "additionalProperties"},
		{"missing tool output", withTool(func(d *ToolDecl) { d.OutputSchema = nil }), "codemode.getWeather.output#", ""},
		{"blank description", withTool(func(d *ToolDecl) { d.Description = " \n " }), "codemode.getWeather", "description"},
		{"tool name not an identifier", withTool(func(d *ToolDecl) { d.Name = "get-weather" }), "codemode.get-weather", "name"},
		{"duplicate tool", Surface{Namespaces: []Namespace{{Name: "codemode", Tools: []ToolDecl{weatherTool(), weatherTool()}}}}, "codemode.getWeather", "name"},
		{"namespace not an identifier", Surface{Namespaces: []Namespace{{Name: "my ns"}}}, "my ns", "name"},
		{"empty namespace name", Surface{Namespaces: []Namespace{{Name: ""}}}, "", "name"},
		{"reserved namespace", Surface{Namespaces: []Namespace{{Name: "console"}}}, "console", "name"},
		{"duplicate namespace", Surface{Namespaces: []Namespace{{Name: "github"}, {Name: "github"}}}, "github", "name"},
		{"interface name clash", Surface{Namespaces: []Namespace{{Name: "github"}, {Name: "Github"}}}, "Github", "name"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Declarations(tc.surface)
			if err == nil {
				t.Fatalf("Declarations = %q, want an error", got)
			}
			var se *SchemaError
			if !errors.As(err, &se) {
				t.Fatalf("error %v (%T) is not a *SchemaError", err, err)
			}
			if se.Pointer != tc.pointer || se.Keyword != tc.keyword {
				t.Errorf("error at (%q, %q), want (%q, %q): %v", se.Pointer, se.Keyword, tc.pointer, tc.keyword, err)
			}
		})
	}
}

func TestDeclarationsNamesNamespaceInterfaces(t *testing.T) {
	got, err := Declarations(Surface{Namespaces: []Namespace{
		{Name: "codemode", Tools: []ToolDecl{weatherTool()}},
		{Name: "github"},
		{Name: "ünicode"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"interface Tools {\n",
		"interface GithubTools {}\n",
		"interface ÜnicodeTools {}\n",
		"  readonly codemode: Tools;\n  readonly github: GithubTools;\n  readonly ünicode: ÜnicodeTools;\n  readonly console: CodeModeConsole;\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("declarations lack %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "readonly input") {
		t.Errorf("inputless surface declares input:\n%s", got)
	}
}

func TestDeclarationsEndWithProgramType(t *testing.T) {
	got, err := Declarations(Surface{})
	if err != nil {
		t.Fatal(err)
	}
	want := "interface " + ScopeTypeName + " {\n  readonly console: CodeModeConsole;\n  readonly result: CodeModeResult;\n}\n\n" +
		"type " + ProgramTypeName + " = (scope: " + ScopeTypeName + ") => unknown;\n"
	if !strings.HasSuffix(got, want) {
		t.Errorf("declarations end\n%s\nwant suffix\n%s", got, want)
	}
}
