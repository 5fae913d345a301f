package contract_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/codemode-go/codemode/contract"
)

// levels returns a schema of n $defs levels, each an anyOf of two
// references to the next: 2^n subschemas apply to one value.
func levels(n int) string {
	var defs []string
	for i := range n {
		defs = append(defs, fmt.Sprintf(`"l%d": {"anyOf": [{"$ref": "#/$defs/l%d"}, {"$ref": "#/$defs/l%d", "minLength": 1}]}`, i, i+1, i+1))
	}
	defs = append(defs, fmt.Sprintf(`"l%d": {"type": "string"}`, n))
	return `{"$ref": "#/$defs/l0", "$defs": {` + strings.Join(defs, ", ") + `}}`
}

// recursive is a schema whose two anyOf branches both recurse into the
// same property: the work doubles with each level of nesting of the value.
const recursive = `{"$ref": "#/$defs/n", "$defs": {"n": {"anyOf": [
  {"type": "object", "properties": {"a": {"$ref": "#/$defs/n"}}},
  {"type": "object", "properties": {"a": {"$ref": "#/$defs/n"}}, "minProperties": 1}]}}}`

func TestCostlySchemasAreRefused(t *testing.T) {
	for _, tc := range []struct {
		name, schema, pointer string
	}{
		{"24 levels of anyOf over $defs", levels(24), "#/$defs/l"},
		{"a recursive anyOf doubling per nesting level", recursive, "#/$defs/n"},
		{"the same through $anchor references", `{"$ref": "#n", "$defs": {"n": {"$anchor": "n", "oneOf": [
  {"properties": {"a": {"$ref": "#n"}}}, {"properties": {"a": {"$ref": "#n"}}, "required": ["a"]}]}}}`, "#/$defs/n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			_, err := contract.NewSchema([]byte(tc.schema))
			if err == nil {
				t.Fatal("the schema was accepted")
			}
			if !strings.Contains(err.Error(), "too costly") || !strings.Contains(err.Error(), tc.pointer) {
				t.Fatalf("error %q, want one naming %s", err, tc.pointer)
			}
			t.Logf("refused in %s: %v", time.Since(start), err)
		})
	}
}

func TestReasonableSchemasPassTheCostBound(t *testing.T) {
	var union []string
	for i := range 60 {
		union = append(union, fmt.Sprintf(`{"type": "object", "properties": {"kind": {"const": "k%d"}, "v": {"$ref": "#/$defs/common"}}, "required": ["kind"]}`, i))
	}
	for _, tc := range []struct{ name, schema string }{
		{"a recursive tree", `{"$ref": "#/$defs/node", "$defs": {"node": {"type": "object", "properties": {"value": {"type": "integer"}, "left": {"$ref": "#/$defs/node"}, "right": {"$ref": "#/$defs/node"}, "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}}}`},
		{"a union of 60 object types", `{"oneOf": [` + strings.Join(union, ", ") + `], "$defs": {"common": {"anyOf": [{"type": "string"}, {"type": "number"}, {"type": "array", "items": {"$ref": "#/$defs/common"}}]}}}`},
		{"8 levels of anyOf over $defs (511 applications)", levels(8)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := contract.NewSchema([]byte(tc.schema)); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// BenchmarkNewSchemaCostCheck measures compiling a large legitimate union,
// cost check included.
func BenchmarkNewSchemaCostCheck(b *testing.B) {
	var union []string
	for i := range 60 {
		union = append(union, fmt.Sprintf(`{"type": "object", "properties": {"kind": {"const": "k%d"}, "v": {"$ref": "#/$defs/common"}}, "required": ["kind"]}`, i))
	}
	raw := []byte(`{"oneOf": [` + strings.Join(union, ", ") + `], "$defs": {"common": {"anyOf": [{"type": "string"}, {"type": "number"}, {"type": "array", "items": {"$ref": "#/$defs/common"}}]}}}`)
	for b.Loop() {
		if _, err := contract.NewSchema(raw); err != nil {
			b.Fatal(err)
		}
	}
}
