package mcpconnector

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
)

// The export quirks ValidateLenient rewrites, found in real servers'
// tools/list (npm packages, December 2026; testdata/zod/README.md):
//
//   - A required property with a default: zod 4 exports the schema of a
//     value after parsing ("output"), where a defaulted field is always
//     present, so it lists it as required though callers may leave it out
//     (@playwright/mcp browser_take_screenshot.scale, mcp-server-kubernetes
//     kubectl_logs.namespace). The property is made optional.
//   - An object below the top with no properties that allows none: zod's
//     records and empty objects export as {"type": "object",
//     "additionalProperties": false}, with or without "properties": {}
//     or "propertyNames", where the server takes any object (firecrawl-mcp
//     jsonOptions.schema, Browserbase's variables). It is made open.
//
// Both are rewritten in declarations and validation alike, so a program is
// declared what the host accepts.

// relaxInput rewrites an input schema's quirks (both of the above); the
// top object stays as written. An unchanged schema is returned as is.
func relaxInput(raw json.RawMessage) (json.RawMessage, error) {
	return relax(raw, dropDefaultedRequired)
}

// relaxOutput rewrites an output schema's closed empty objects only: a
// property an output requires is always there, default or not.
func relaxOutput(raw json.RawMessage) (json.RawMessage, error) {
	return relax(raw, nil)
}

// relax rewrites raw's quirks: closed empty objects, and what also (when
// not nil) rewrites in each object schema.
// The go-sdk hands the schemas over decoded into maps (their member order
// is already gone), so they are rewritten as maps too; numbers keep their
// text.
func relax(raw json.RawMessage, also func(map[string]any) bool) (json.RawMessage, error) {
	if len(bytes.TrimSpace(raw)) == 0 || !bytes.Contains(raw, []byte(`"default"`)) && !bytes.Contains(raw, []byte(`"additionalProperties"`)) {
		return raw, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var root any
	if err := dec.Decode(&root); err != nil {
		return nil, fmt.Errorf("schema is not JSON: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("schema is not JSON: text after the value")
	}
	if !relaxSchema(root, also, 0) {
		return raw, nil
	}
	return json.Marshal(root)
}

// maxRelaxDepth bounds the schema nesting relax rewrites (as typegen
// bounds what it prints); deeper schemas are left as written.
const maxRelaxDepth = 64

// Keywords whose values are schemas, maps of schemas and lists of schemas
// (JSON Schema 2020-12, and draft-07's definitions and additionalItems).
var (
	schemaKeywords = []string{"additionalProperties", "items", "not", "if", "then", "else", "contains",
		"unevaluatedProperties", "unevaluatedItems", "additionalItems", "propertyNames", "contentSchema"}
	schemaMapKeywords  = []string{"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
	schemaListKeywords = []string{"allOf", "anyOf", "oneOf", "prefixItems", "items"}
)

// relaxSchema rewrites the schema v (and those under it) in place, with
// also when not nil, and reports whether it changed anything. depth is 0 at
// the top.
func relaxSchema(v any, also func(map[string]any) bool, depth int) bool {
	s, ok := v.(map[string]any)
	if !ok || depth > maxRelaxDepth {
		return false
	}
	changed := false
	for key, val := range s {
		switch val := val.(type) {
		case map[string]any:
			if slices.Contains(schemaMapKeywords, key) {
				for _, sub := range val {
					changed = relaxSchema(sub, also, depth+1) || changed
				}
			} else if slices.Contains(schemaKeywords, key) {
				changed = relaxSchema(val, also, depth+1) || changed
			}
		case []any:
			if slices.Contains(schemaListKeywords, key) {
				for _, sub := range val {
					changed = relaxSchema(sub, also, depth+1) || changed
				}
			}
		}
	}
	if also != nil && also(s) {
		changed = true
	}
	if depth > 0 && openEmptyObject(s) {
		changed = true
	}
	return changed
}

// dropDefaultedRequired removes from s's "required" the properties that
// have a default, and the member itself when none is left.
func dropDefaultedRequired(s map[string]any) bool {
	req, _ := s["required"].([]any)
	props, _ := s["properties"].(map[string]any)
	kept := slices.DeleteFunc(slices.Clone(req), func(name any) bool {
		n, _ := name.(string)
		p, _ := props[n].(map[string]any)
		_, hasDefault := p["default"]
		return hasDefault
	})
	switch {
	case len(kept) == len(req):
		return false
	case len(kept) == 0:
		delete(s, "required")
	default:
		s["required"] = kept
	}
	return true
}

// openEmptyObject makes an object schema that names no property and
// allows none ("additionalProperties": false, no "patternProperties")
// allow any property.
func openEmptyObject(s map[string]any) bool {
	props, hasProps := s["properties"].(map[string]any)
	_, patterns := s["patternProperties"]
	if s["additionalProperties"] != false || patterns || hasProps && len(props) > 0 || !typeIsObject(s["type"]) {
		return false
	}
	if _, ok := s["properties"]; ok && !hasProps {
		return false // malformed properties: leave it to the validator
	}
	s["additionalProperties"] = true
	return true
}

// typeIsObject reports whether a "type" is "object" or a list holding it.
func typeIsObject(t any) bool {
	switch t := t.(type) {
	case string:
		return t == "object"
	case []any:
		return slices.Contains(t, any("object"))
	}
	return false
}
