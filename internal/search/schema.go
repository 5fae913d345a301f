package search

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"sync"
)

// Definitions resolves the fragment references of a catalogue's schemas
// ("#/components/schemas/io.k8s.api.core.v1.Pod") in one JSON document,
// as an OpenAPI description's components, which its operations' schemas
// point into instead of copying them. It decodes only what references
// reach, once each: an object on a reference's way is skimmed for its
// members' places (GitHub's 969 component schemas, 6.4 MB, are skimmed
// once, not decoded), the schema a reference names is decoded on its first
// use. A reference that does not resolve (malformed JSON, a missing name,
// not a fragment) is a schema with nothing in it. Safe for concurrent use;
// make one per document with NewDefinitions and drop it once the tools'
// documents are made.
type Definitions struct {
	doc []byte
	mu  sync.Mutex
	// members are, by the pointer of an object on a reference's way
	// ("", "/components", "/components/schemas"), its members' values'
	// places in doc; nil for a value that is not an object.
	members map[string]map[string]span
	// schemas are the schemas references named, decoded, by reference.
	schemas map[string]any
	// fields are the words outputWords found, by the text of the
	// schema they were read from (when short).
	fields map[string][]string
}

// span is a JSON value's place in a document: doc[start:end].
type span struct{ start, end int }

// NewDefinitions returns the resolver of fragment references into doc, a
// JSON document (typegen.Definitions.Document). It does not read doc
// until a reference is resolved, and keeps doc: the caller must not
// modify it.
func NewDefinitions(doc json.RawMessage) *Definitions {
	return &Definitions{doc: doc, members: map[string]map[string]span{}, schemas: map[string]any{}, fields: map[string][]string{}}
}

// resolve returns the schema the fragment reference ref ("#/a/b") names
// in the document, decoded; nil when it names none.
func (d *Definitions) resolve(ref string) any {
	if d == nil || !strings.HasPrefix(ref, "#/") {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if s, ok := d.schemas[ref]; ok {
		return s
	}
	at, prefix := span{0, len(d.doc)}, ""
	var v any
	ok := true
	for _, seg := range strings.Split(ref[2:], "/") {
		m, known := d.members[prefix]
		if !known {
			m = objectMembers(d.doc, at)
			d.members[prefix] = m
		}
		if at, ok = m[unescapePointer(seg)]; !ok {
			break
		}
		prefix += "/" + seg
	}
	if ok && json.Unmarshal(d.doc[at.start:at.end], &v) != nil {
		v = nil
	}
	d.schemas[ref] = v
	return v
}

// cachedFields returns the words kept for the schema text key.
func (d *Definitions) cachedFields(key string) ([]string, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	f, ok := d.fields[key]
	return f, ok
}

// keepFields keeps the words of the schema text key.
func (d *Definitions) keepFields(key string, fields []string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.fields[key] = fields
}

// unescapePointer is a JSON Pointer reference token unescaped (RFC 6901:
// ~1 is /, ~0 is ~).
func unescapePointer(s string) string {
	if !strings.Contains(s, "~") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
}

// objectMembers are the members of the JSON object at at in doc, by name,
// with their values' places; nil when it is not an object or is
// malformed.
func objectMembers(doc []byte, at span) map[string]span {
	b := doc[:at.end]
	i := skipSpace(b, at.start)
	if i >= len(b) || b[i] != '{' {
		return nil
	}
	m := map[string]span{}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return m
	}
	for i < len(b) && b[i] == '"' {
		end := skipString(b, i)
		if end < 0 {
			return nil
		}
		var name string
		if json.Unmarshal(b[i:end], &name) != nil {
			return nil
		}
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return nil
		}
		start := skipSpace(b, i+1)
		end = skipValue(b, start)
		if end < 0 {
			return nil
		}
		m[name] = span{start, end}
		i = skipSpace(b, end)
		switch {
		case i < len(b) && b[i] == ',':
			i = skipSpace(b, i+1)
		case i < len(b) && b[i] == '}':
			return m
		default:
			return nil
		}
	}
	return nil
}

// skipSpace is the index of the first byte at or after i in b that is no
// JSON white space.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t') {
		i++
	}
	return i
}

// skipString is the index after the JSON string starting at b[i] ('"'),
// -1 when it does not end.
func skipString(b []byte, i int) int {
	for j := i + 1; j < len(b); {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return -1
		}
		j += k
		escapes := 0
		for e := j - 1; e > i && b[e] == '\\'; e-- {
			escapes++
		}
		if escapes%2 == 0 {
			return j + 1
		}
		j++
	}
	return -1
}

// skipValue is the index after the JSON value starting at b[i], -1 when
// it does not end. It checks only what it needs to find the end.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end := skipString(b, j)
				if end < 0 {
					return -1
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(b) && !strings.ContainsRune(",}] \n\r\t", rune(b[j])) {
		j++
	}
	if j == i {
		return -1
	}
	return j
}

// resolver resolves a schema's references: in the schema's own document
// first (a Go tool's "#/$defs/Node"), then in the catalogue's Definitions.
type resolver struct {
	root any
	defs *Definitions
}

// deref is v with its references followed (at most maxRefs in a row); nil
// when one does not resolve.
func (r resolver) deref(v any) map[string]any {
	for range maxRefs {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		ref, ok := m["$ref"].(string)
		if !ok {
			return m
		}
		if v = pointer(r.root, ref); v == nil {
			v = r.defs.resolve(ref)
		}
	}
	return nil
}

// maxRefs bounds the references followed in a row (a reference to a
// reference ...).
const maxRefs = 8

// pointer is the value the fragment reference ref names in the decoded
// JSON document root, nil when there is none.
func pointer(root any, ref string) any {
	rest, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil
	}
	v := root
	for _, seg := range strings.Split(rest, "/")[1:] {
		switch x := v.(type) {
		case map[string]any:
			v = x[unescapePointer(seg)]
		default:
			return nil
		}
	}
	return v
}

// Bounds of outputFields: the depth of properties it reads (a list's
// items' fields' fields: PodList items, a Pod's status, its qosClass),
// the field names it keeps, and the schemas it visits.
const (
	maxOutputDepth  = 3
	maxOutputFields = 128
	maxOutputNodes  = 512
)

// outputWords are the words of outputFields(schema, defs), kept in defs
// for a short schema text (an output that is one reference, as most are,
// is walked once for all the operations that return it).
func outputWords(schema json.RawMessage, defs *Definitions) []string {
	if len(schema) == 0 {
		return nil
	}
	key := ""
	if defs != nil && len(schema) <= 512 {
		key = string(schema)
		if ws, ok := defs.cachedFields(key); ok {
			return ws
		}
	}
	ws := words(strings.Join(outputFields(parseSchema(schema), defs), " "))
	if key != "" {
		defs.keepFields(key, ws)
	}
	return ws
}

// outputFields are the field names of what a schema (decoded) describes,
// breadth first (an object's fields before its fields' fields), each name
// once, references resolved in the schema itself and in defs (nil:
// none); array items, allOf, anyOf and oneOf are read at their own
// level. At most maxOutputFields names from maxOutputDepth levels, at
// most maxOutputNodes schemas visited.
func outputFields(root any, defs *Definitions) []string {
	r := resolver{root: root, defs: defs}
	var names []string
	seen := map[string]bool{}
	level, nodes := []any{root}, 0
	for depth := 0; depth < maxOutputDepth && len(level) > 0 && len(names) < maxOutputFields; depth++ {
		var next []any
		for len(level) > 0 && nodes < maxOutputNodes {
			m := r.deref(level[0])
			level = level[1:]
			nodes++
			if m == nil {
				continue
			}
			for _, k := range []string{"allOf", "anyOf", "oneOf"} {
				if alts, ok := m[k].([]any); ok {
					level = append(level, alts...)
				}
			}
			if items, ok := m["items"]; ok {
				level = append(level, items)
			}
			props, _ := m["properties"].(map[string]any)
			for _, k := range slices.Sorted(maps.Keys(props)) {
				if !seen[k] && len(names) < maxOutputFields {
					seen[k] = true
					names = append(names, k)
				}
				next = append(next, props[k])
			}
		}
		level = next
	}
	return names
}
