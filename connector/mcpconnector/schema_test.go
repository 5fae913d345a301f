package mcpconnector

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/internal/mcptest"
)

// at returns the value at a slash-separated path of member names in v.
func at(t *testing.T, v any, path string) any {
	t.Helper()
	for _, k := range strings.Split(strings.Trim(path, "/"), "/") {
		if k == "" {
			continue
		}
		m, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("no %s: %v is not an object", path, v)
		}
		v = m[k]
	}
	return v
}

// TestRelaxRealQuirks rewrites the real servers' schemas of
// internal/mcptest/testdata: each required property with a default
// becomes optional, each object below the top that allows no property
// allows any, and nothing else changes.
func TestRelaxRealQuirks(t *testing.T) {
	cases := []struct {
		tool, path string
		want       any
	}{
		{"browser_take_screenshot", "/required", nil},
		{"browser_console_messages", "/required", nil},
		{"browser_network_requests", "/required", nil},
		{"kubectl_logs", "/required", []any{"resourceType", "name"}},
		{"kubectl_rollout", "/required", []any{"name"}},
		{"firecrawl_scrape", "/properties/jsonOptions/properties/schema/additionalProperties", true},
		{"firecrawl_scrape", "/properties/jsonOptions/additionalProperties", false},
		{"firecrawl_extract", "/properties/schema/additionalProperties", true},
		{"firecrawl_extract", "/required", []any{"urls"}},
		{"browserbase_stagehand_act", "/properties/variables/additionalProperties", true},
		{"browserbase_stagehand_act", "/required", []any{"action"}},
	}
	for _, c := range cases {
		t.Run(c.tool+c.path, func(t *testing.T) {
			out, err := relaxInput(mcptest.QuirkSchema(t, c.tool))
			if err != nil {
				t.Fatal(err)
			}
			var v any
			if err := json.Unmarshal(out, &v); err != nil {
				t.Fatal(err)
			}
			if got := at(t, v, c.path); !reflect.DeepEqual(got, c.want) {
				t.Fatalf("%s = %v, want %v", c.path, got, c.want)
			}
		})
	}
}

// TestRelaxLeavesTheRestAsWritten: the top of a no-argument tool stays
// closed (Playwright's browser_close), output schemas keep their required
// properties, and schemas without a quirk come back byte for byte.
func TestRelaxLeavesTheRestAsWritten(t *testing.T) {
	same := []json.RawMessage{
		mcptest.QuirkSchema(t, "browser_close"),
		json.RawMessage(`{"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}`),
		json.RawMessage(`{"type": "object", "properties": {"o": {"type": "object", "properties": {"x": {}}, "additionalProperties": false}}}`),
		json.RawMessage(`{"type": "object", "properties": {"o": {"type": "object", "patternProperties": {"^x": {}}, "additionalProperties": false}}}`),
		json.RawMessage(`{"type": "object", "properties": {"o": {"type": "string", "additionalProperties": false}}}`),
		json.RawMessage(`{"type": "object", "properties": {"o": {"default": 1}}, "required": "o"}`),
		json.RawMessage(`{"properties": {"a": {"default": 1}}}`),
		nil,
	}
	for _, in := range same {
		out, err := relaxInput(in)
		if err != nil || !bytes.Equal(out, in) {
			t.Errorf("relaxInput(%s) = %s, %v; want it unchanged", in, out, err)
		}
	}
	out, err := relaxOutput(json.RawMessage(`{"type": "object", "properties": {"n": {"type": "number", "default": 1}}, "required": ["n"]}`))
	if err != nil || !bytes.Contains(out, []byte(`"required": ["n"]`)) {
		t.Errorf("an output's required property with a default: %s, %v", out, err)
	}
	out, err = relaxOutput(json.RawMessage(`{"type": "object", "properties": {"meta": {"type": "object", "additionalProperties": false}}}`))
	if err != nil || !bytes.Contains(out, []byte(`"additionalProperties":true`)) {
		t.Errorf("an output's closed empty object: %s, %v", out, err)
	}
	if _, err := relaxInput(json.RawMessage(`{"default": `)); err == nil {
		t.Error("a schema that is not JSON was rewritten")
	}
}

// TestRelaxReachesEverySubschema: the rules apply under every keyword
// that holds schemas, and not inside values (a default that looks like a
// schema is data).
func TestRelaxReachesEverySubschema(t *testing.T) {
	quirk := `{"type": "object", "properties": {"p": {"default": 1}}, "required": ["p"], "additionalProperties": false}`
	for _, wrap := range []string{
		`{"type": "object", "properties": {"a": %s}}`,
		`{"type": "object", "$defs": {"a": %s}}`,
		`{"type": "object", "definitions": {"a": %s}}`,
		`{"type": "array", "items": %s}`,
		`{"type": "array", "items": [%s]}`,
		`{"type": "array", "prefixItems": [%s]}`,
		`{"anyOf": [{"type": "null"}, %s]}`,
		`{"oneOf": [%s]}`,
		`{"allOf": [%s]}`,
		`{"type": "object", "additionalProperties": %s}`,
		`{"not": %s}`,
		`{"if": %s, "then": %s, "else": %s}`,
	} {
		in := strings.ReplaceAll(wrap, "%s", quirk)
		out, err := relaxInput(json.RawMessage(in))
		if err != nil || bytes.Contains(out, []byte(`"required"`)) {
			t.Errorf("relaxInput(%s) = %s, %v; want the nested required property optional", in, out, err)
		}
	}
	data := `{"type": "object", "properties": {"s": {"type": "object", "default": ` + quirk + `}}}`
	if out, err := relaxInput(json.RawMessage(data)); err != nil || string(out) != data {
		t.Errorf("relaxInput rewrote a default's value: %s, %v", out, err)
	}
}

func FuzzRelax(f *testing.F) {
	for _, name := range []string{"browser_take_screenshot", "kubectl_logs", "firecrawl_scrape", "browserbase_stagehand_act"} {
		f.Add([]byte(mcptest.QuirkSchema(f, name)))
	}
	f.Add([]byte(`{"items": [{"required": ["a"], "properties": {"a": {"default": null}}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, relax := range []func(json.RawMessage) (json.RawMessage, error){relaxInput, relaxOutput} {
			once, err := relax(data)
			if err != nil {
				continue
			}
			if !bytes.Equal(once, data) && !json.Valid(once) {
				t.Fatalf("%s became %s, not JSON", data, once)
			}
			twice, err := relax(once)
			if err != nil || !bytes.Equal(twice, once) {
				t.Fatalf("not idempotent: %s -> %s -> %s (%v)", data, once, twice, err)
			}
		}
	})
}
