package openapi

import (
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzWithoutExampleValues: for any text, the result is the text itself,
// or JSON as valid as the text, and for valid text equal to it except that
// every named example of components.examples (an object) is
// {"value": {}}. The definitions
// scanner (memberValue, valueEnd) agrees with the decoder on
// components.schemas.
func FuzzWithoutExampleValues(f *testing.F) {
	for _, s := range []string{
		`{"openapi":"3.0.0","components":{"examples":{"a":{"value":{"x":[1,"}"]}},"b\"c":{"summary":"s"}},"schemas":{"P":{"type":"string"}}},"paths":{}}`,
		`{"components":{"examples":{}}}`,
		`{"components":{"examples":[]}}`,
		`{"components": {"schemas" : {"A":{"$ref":"#/components/schemas/A"}} , "examples" :{"e" : 1}}}`,
		`{"components":{"examples":{"a":tru}}}`,
		`{"a":"\\","components":{"examples":{"a":{}}}}`,
		`[]`, `{`, `"x"`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		out := withoutExampleValues(text)
		var in, got map[string]any
		inErr := json.Unmarshal(text, &in)
		if string(out) != string(text) {
			if inErr != nil {
				if json.Valid(out) {
					t.Fatalf("invalid JSON %q was rewritten to valid JSON %q", text, out)
				}
				return
			}
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("%q became invalid JSON %q: %v", text, out, err)
			}
			comps, _ := in["components"].(map[string]any)
			examples, ok := comps["examples"].(map[string]any)
			if !ok {
				t.Fatalf("%q was rewritten without components.examples being an object", text)
			}
			for k := range examples {
				examples[k] = map[string]any{"value": map[string]any{}}
			}
			if !reflect.DeepEqual(in, got) {
				t.Fatalf("%q became %q: more than the examples changed", text, out)
			}
		}
		if inErr != nil {
			return
		}
		comps, _ := in["components"].(map[string]any)
		want, has := comps["schemas"]
		top, ok := memberValue(text, skipSpace(text, 0), "components")
		if !ok {
			return
		}
		at, ok := memberValue(text, top, "schemas")
		if !ok {
			return
		}
		end, ok := valueEnd(text, at)
		if !ok || !has {
			t.Fatalf("%q: the scanner found components.schemas (%v) where the decoder found %v", text, ok, has)
		}
		var v any
		if err := json.Unmarshal(text[at:end], &v); err != nil || !reflect.DeepEqual(v, want) {
			t.Fatalf("%q: the scanner's components.schemas %q is not the decoder's", text, text[at:end])
		}
	})
}
