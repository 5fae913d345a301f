package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
)

// A tools file is written by people who may not read Go, so its faults are
// said in the file's terms: a key, its tool, the keys allowed there, and the
// JSON a key takes, never a Go type ("[]main.toolSpec") or struct name.

// unknownKeyFault names the first key of the tools file raw that it may not
// have: where it is (the file's object, or tools[i] with its name), the
// allowed key it is likely a slip for, and the keys allowed there. It is
// nil when raw has no such key where it can look (the caller then reports
// the decoder's own error).
func unknownKeyFault(raw []byte) error {
	var top map[string]json.RawMessage
	if json.Unmarshal(raw, &top) != nil {
		return nil
	}
	fileKeys := jsonKeys(reflect.TypeFor[toolsFile]())
	if k := firstUnknown(top, fileKeys); k != "" {
		return keyFault("the file's object", k, fileKeys)
	}
	var tools []map[string]json.RawMessage
	if json.Unmarshal(top["tools"], &tools) != nil {
		return nil
	}
	toolKeys := jsonKeys(reflect.TypeFor[toolSpec]())
	for i, t := range tools {
		if k := firstUnknown(t, toolKeys); k != "" {
			var name string
			_ = json.Unmarshal(t["name"], &name) // a name that is not a string is left out
			return keyFault(fmt.Sprintf("tools[%d] (%s)", i, name), k, toolKeys)
		}
	}
	return nil
}

// keyFault is the error of the unknown key k in the object at where, whose
// keys are allowed.
func keyFault(where, k string, allowed []string) error {
	hint := ""
	if like := likelyKey(k, allowed); like != "" {
		hint = fmt.Sprintf(" (did you mean %q?)", like)
	}
	return fmt.Errorf("%s: unknown key %q%s; the keys there are %s", where, k, hint, strings.Join(allowed, ", "))
}

// firstUnknown is the first key of m, in sorted order, that is not allowed.
func firstUnknown(m map[string]json.RawMessage, allowed []string) string {
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if !slices.Contains(allowed, k) {
			return k
		}
	}
	return ""
}

// jsonKeys lists the JSON names of struct type t's fields, in order.
func jsonKeys(t reflect.Type) []string {
	keys := make([]string, 0, t.NumField())
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		keys = append(keys, name)
	}
	return keys
}

// likelyKey is the allowed key that k is a slip for: the same but for case,
// "_" and "-" ("input_schema"), or at most two edits away ("inputSchma");
// "" when none is.
func likelyKey(k string, allowed []string) string {
	fold := func(s string) string {
		return strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(s))
	}
	for _, a := range allowed {
		if fold(a) == fold(k) {
			return a
		}
	}
	for _, a := range allowed {
		// Lengths that differ by more than two are more than two edits
		// apart: a long key is not compared (edits is quadratic).
		if d := len(a) - len(k); d >= -2 && d <= 2 && edits(strings.ToLower(a), strings.ToLower(k)) <= 2 {
			return a
		}
	}
	return ""
}

// edits is the Levenshtein distance between a and b, in bytes.
func edits(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := range len(a) {
		cur := make([]int, len(b)+1)
		cur[0] = i + 1
		for j := range len(b) {
			cost := 1
			if a[i] == b[j] {
				cost = 0
			}
			cur[j+1] = min(prev[j+1]+1, cur[j]+1, prev[j]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// typeFault says in JSON terms what e found and what its key takes:
// `"command" must be a list of strings, as in ["./run.sh", "--flag"], not a
// string`.
func typeFault(e *json.UnmarshalTypeError) error {
	key := e.Field
	if i := strings.LastIndexByte(key, '.'); i >= 0 {
		key = key[i+1:]
	}
	if key == "" {
		return fmt.Errorf("%s where %s belongs", jsonKind(e.Value), jsonWant(e.Type, key))
	}
	return fmt.Errorf("%q must be %s, not %s", key, jsonWant(e.Type, key), jsonKind(e.Value))
}

// jsonKind names the JSON value an UnmarshalTypeError describes ("bool",
// "number -5", "array").
func jsonKind(value string) string {
	kind, _, _ := strings.Cut(value, " ")
	switch kind {
	case "bool":
		return "true or false"
	case "array":
		return "a list"
	case "object":
		return "an object"
	case "number":
		return "a number"
	case "string":
		return "a string"
	}
	return value
}

// jsonWant says which JSON the Go type t, of the key named key, takes.
func jsonWant(t reflect.Type, key string) string {
	switch t.Kind() {
	case reflect.Bool:
		return "true or false"
	case reflect.String:
		return "a string"
	case reflect.Map:
		return `an object of strings, as in {"NAME": "value"}`
	case reflect.Struct:
		return "an object"
	case reflect.Slice:
		switch {
		case t.Elem().Kind() == reflect.String:
			return `a list of strings, as in ["./run.sh", "--flag"]`
		case key == "tools":
			return `a list of tools, as in [{"name": …, "command": […]}, …]`
		}
		return "a list"
	}
	return t.String()
}
