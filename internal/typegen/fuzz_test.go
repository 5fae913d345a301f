package typegen

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// FuzzType feeds arbitrary bytes to Type: it must never panic, every error
// must be a *SchemaError, and a success must be non-empty and repeatable.
func FuzzType(f *testing.F) {
	for _, tc := range typeCases {
		f.Add([]byte(tc.schema))
	}
	for _, tc := range typeErrorCases {
		if len(tc.schema) < 512 {
			f.Add([]byte(tc.schema))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := Type(json.RawMessage(data))
		if err != nil {
			var se *SchemaError
			if !errors.As(err, &se) {
				t.Fatalf("error %v (%T) is not a *SchemaError", err, err)
			}
			if se.Pointer == "" || se.Message == "" {
				t.Fatalf("incomplete error %#v", se)
			}
			return
		}
		if got == "" {
			t.Fatalf("Type(%q) succeeded with empty output", data)
		}
		again, err := Type(json.RawMessage(data))
		if err != nil || again != got {
			t.Fatalf("Type(%q) is not repeatable: %q then %q, %v", data, got, again, err)
		}
	})
}

// FuzzLenientType feeds arbitrary bytes to LenientType, seeded with the
// lenient table and every schema in the goldens: it must never panic, and
// its output must be non-empty, repeatable and bounded by the budget.
func FuzzLenientType(f *testing.F) {
	for _, tc := range lenientCases {
		f.Add([]byte(tc.schema))
	}
	for _, tc := range typeCases {
		f.Add([]byte(tc.schema))
	}
	inputs, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	if err != nil {
		f.Fatal(err)
	}
	for _, input := range inputs {
		data, err := os.ReadFile(input)
		if err != nil {
			f.Fatal(err)
		}
		var s Surface
		if err := json.Unmarshal(data, &s); err != nil {
			f.Fatalf("decoding %s: %v", input, err)
		}
		if len(s.InputSchema) > 0 {
			f.Add([]byte(s.InputSchema))
		}
		for _, ns := range s.Namespaces {
			for _, tool := range ns.Tools {
				f.Add([]byte(tool.InputSchema))
				f.Add([]byte(tool.OutputSchema))
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got := LenientType(json.RawMessage(data))
		if got == "" {
			t.Fatalf("LenientType(%q) is empty", data)
		}
		if len(got) > 16*lenientBudget {
			t.Fatalf("LenientType(%.200q) printed %d bytes", data, len(got))
		}
		if again := LenientType(json.RawMessage(data)); again != got {
			t.Fatalf("LenientType(%q) is not repeatable: %q then %q", data, got, again)
		}
	})
}

// FuzzParseJSON: the direct parser gives the tree encoding/json's Decoder
// gives, and the same error, for any text.
func FuzzParseJSON(f *testing.F) {
	for _, s := range []string{
		`{"a":[1,-2.5e3,true,false,null,"x\u00e9\"y"],"b":{"c":{}},"d":[]}`,
		`{"a":1,"a":2}`, ` [ {"\ud83d\ude00": "\ud800"} ] `, `"\xff"`, `{"a":`, `1 2`, `   `,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, gotErr := parseJSON(data)
		want, wantErr := parseJSONTokens(data)
		if len(bytes.TrimSpace(data)) == 0 {
			return // parseJSON refuses it before either parser
		}
		if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
			t.Fatalf("%q: error %v, the Decoder's %v", data, gotErr, wantErr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: parsed differently from the Decoder", data)
		}
	})
}

// TestParseJSONDeepNesting: nesting past maxJSONDepth is refused by both
// parsers with the same error.
func TestParseJSONDeepNesting(t *testing.T) {
	deep := []byte(strings.Repeat("[", maxJSONDepth+1) + strings.Repeat("]", maxJSONDepth+1))
	_, err := parseJSON(deep)
	_, want := parseJSONTokens(deep)
	if err == nil || want == nil || err.Error() != want.Error() {
		t.Fatalf("got %v, want %v", err, want)
	}
}

// FuzzStrictNamedDeclarations feeds arbitrary schema texts, with root
// $defs, to two strict tools of one namespace and to a describer: they must
// never panic, every error must be a *SchemaError, and a success must be
// repeatable and declare every named type it refers to.
func FuzzStrictNamedDeclarations(f *testing.F) {
	var golden Surface
	if data, err := os.ReadFile(filepath.Join("testdata", "strict-named.json")); err == nil && json.Unmarshal(data, &golden) == nil {
		tools := golden.Namespaces[0].Tools
		f.Add([]byte(tools[0].OutputSchema), []byte(tools[1].OutputSchema))
		f.Add([]byte(golden.InputSchema), []byte(tools[0].OutputSchema))
	}
	f.Add([]byte(`{"$ref":"#/$defs/a.T","$defs":{"a.T":{"type":"array","items":{"$ref":"#/$defs/a.T"}}}}`), []byte(`{"$ref":"#/$defs/a.T","$defs":{"a.T":{"type":"string"}}}`))
	f.Add([]byte(`{"$ref":"#/%24defs/a~1b","$defs":{"a/b":{"type":"object","additionalProperties":{"$ref":"#/$defs/a~1b"}}}}`), []byte(`{}`))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		ns := Namespace{Name: "codemode", Tools: []ToolDecl{
			{Name: "a", Description: "A.", InputSchema: json.RawMessage(`{"type":"object","additionalProperties":false}`), OutputSchema: a},
			{Name: "b", Description: "B.", InputSchema: b, OutputSchema: a},
		}}
		got, err := Declarations(Surface{InputSchema: b, Namespaces: []Namespace{ns}})
		if err != nil {
			var se *SchemaError
			if !errors.As(err, &se) || se.Pointer == "" || se.Message == "" {
				t.Fatalf("error %v (%T) is not a complete *SchemaError", err, err)
			}
			return
		}
		again, err := Declarations(Surface{InputSchema: b, Namespaces: []Namespace{ns}})
		if err != nil || again != got {
			t.Fatalf("not repeatable: %v", err)
		}
		for _, ref := range strings.Fields(got) {
			name, ok := strings.CutPrefix(strings.Trim(ref, "();:[]<>|,"), "CodemodeTypes.")
			name = strings.TrimSuffix(name, "[]")
			if ok && !strings.Contains(got, "interface "+name+" ") && !strings.Contains(got, "type "+name+" =") {
				t.Fatalf("CodemodeTypes.%s is used but not declared:\n%s", name, got)
			}
		}
		d, err := NewDescriber(ns)
		if err != nil {
			t.Fatalf("NewDescriber after Declarations succeeded: %v", err)
		}
		if _, err := d.Tool("a", 200); err != nil {
			t.Fatalf("Describer.Tool after Declarations succeeded: %v", err)
		}
	})
}
