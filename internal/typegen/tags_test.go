package typegen

import (
	"slices"
	"strings"
	"testing"
)

// TestPropertyTags: the validation keywords a TypeScript type cannot say
// are printed as JSDoc tags, in a fixed order, each value on one safe line.
func TestPropertyTags(t *testing.T) {
	long := strings.Repeat("a", maxTagValue+1)
	cases := []struct {
		name, schema string
		want         []string
	}{
		{"string bounds", `{"type":"string","minLength":1,"maxLength":64,"pattern":"^[a-z]+$","format":"email"}`,
			[]string{"@format email", "@pattern ^[a-z]+$", "@minLength 1", "@maxLength 64"}},
		{"number bounds", `{"type":"number","minimum":0,"maximum":1.5,"multipleOf":0.5}`,
			[]string{"@minimum 0", "@maximum 1.5", "@multipleOf 0.5"}},
		{"exclusive bounds, 2020-12", `{"type":"integer","exclusiveMinimum":0,"exclusiveMaximum":10}`,
			[]string{"@exclusiveMinimum 0", "@exclusiveMaximum 10"}},
		{"exclusive bounds, OpenAPI 3.0", `{"type":"integer","minimum":0,"exclusiveMinimum":true,"maximum":9,"exclusiveMaximum":false}`,
			[]string{"@exclusiveMinimum 0", "@maximum 9"}},
		{"zod's int bounds say nothing", `{"type":"integer","minimum":-9007199254740991,"maximum":9007199254740991}`, nil},
		{"array bounds", `{"type":"array","items":{"type":"string"},"minItems":1,"maxItems":3,"uniqueItems":true}`,
			[]string{"@minItems 1", "@maxItems 3", "@uniqueItems"}},
		{"uniqueItems false", `{"type":"array","uniqueItems":false}`, nil},
		{"scalar defaults", `{"type":"string","default":"a\"b"}`, []string{`@default "a\"b"`}},
		{"number default", `{"type":"integer","default":30}`, []string{"@default 30"}},
		{"bool default", `{"type":"boolean","default":false}`, []string{"@default false"}},
		{"object default left out", `{"type":"object","default":{"a":1}}`, nil},
		{"the non-null branch of T | null", `{"anyOf":[{"type":"string","maxLength":5},{"type":"null"}]}`, []string{"@maxLength 5"}},
		{"a long pattern is left out, not cut", `{"type":"string","pattern":"` + long + `","minLength":2}`, []string{"@minLength 2"}},
		{"a value cannot end the comment", `{"type":"string","pattern":"a*/b"}`, []string{`@pattern a*\/b`}},
		{"a value cannot add a tag", `{"type":"string","format":"x\n@readonly","default":"y @deprecated"}`,
			[]string{`@format x \@readonly`, `@default "y \@deprecated"`}},
		{"a value of the wrong kind is ignored", `{"type":"string","minLength":"1","pattern":3}`, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, err := parseJSON([]byte(c.schema))
			if err != nil {
				t.Fatal(err)
			}
			if got := propertyTags(v); !slices.Equal(got, c.want) {
				t.Errorf("propertyTags(%s)\n got %q\nwant %q", c.schema, got, c.want)
			}
		})
	}
}
