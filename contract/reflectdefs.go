package contract

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	invopop "github.com/invopop/jsonschema"
)

// maxInlinedSchemas bounds the size of a strict schema, which inlines a
// type at every use: a type graph that shares types along many paths
// would otherwise grow exponentially.
const maxInlinedSchemas = 100_000

// reflectType reflects t (see reflector): the JSON Schema text, with the
// named types it keeps in its root $defs, and the fill plan of its
// values, nil when no value of t needs filling. With o.strict it refuses
// what has no closed-object schema (maps, interfaces, recursive types,
// types that write their own JSON without a JSONSchema method), inlines
// every type and leaves pointers non-null (see StrictSchemas).
func reflectType(t reflect.Type, o toolOptions) (_ json.RawMessage, _ *fillPlan, err error) {
	defer func() {
		// A type's JSONSchema, JSONSchemaAlias or JSONSchemaExtend method
		// runs here, and may panic.
		if p := recover(); p != nil {
			err = fmt.Errorf("reflecting %s: a schema method panicked: %v", t, p)
		}
	}()
	r := newReflector(o)
	root, plan, err := r.schema(t, where{path: t.String(), addressable: true})
	if err != nil {
		return nil, nil, err
	}
	kept, err := r.kept(root)
	if err != nil {
		return nil, nil, err
	}
	resolved := map[string]*invopop.Schema{}
	root = r.inline(root, kept, resolved)
	if o.nullableRoot && t.Kind() == reflect.Pointer && !o.strict {
		// A handler returning a nil *T ("not found") writes null: the
		// whole value is T | null. The root keeps the $defs.
		inner := *root
		defs := inner.Definitions
		inner.Definitions = nil
		root, plan = &invopop.Schema{AnyOf: []*invopop.Schema{&inner, {Type: "null"}}, Definitions: defs}, plan.nullable()
	}
	if o.strict && expandedSize(root, map[*invopop.Schema]int{}) > maxInlinedSchemas {
		return nil, nil, &reflectError{t.String(), t, fmt.Sprintf("inlined at every use, its schema would hold more than %d schemas; strict schemas inline every type", maxInlinedSchemas)}
	}
	if len(kept) > 0 {
		c := *root
		root = &c
		defs := invopop.Definitions{}
		for key, d := range root.Definitions {
			defs[key] = d // a JSONSchema method's own
		}
		for key := range kept {
			defs[key] = resolved[key]
		}
		root.Definitions = defs
	}
	raw, err := json.Marshal(root)
	if err != nil {
		return nil, nil, fmt.Errorf("encoding the schema: %w", err)
	}
	if !plan.useful() {
		plan = nil
	}
	return raw, plan, nil
}

// keyOf returns the definition key a $ref of the reflector names.
func (r *reflector) keyOf(ref string) (string, bool) {
	key, ok := strings.CutPrefix(ref, "#/$defs/")
	if !ok {
		return "", false
	}
	_, ok = r.defs[key]
	return key, ok
}

// eachChild calls fn with every subschema slot of s; fn may replace the
// subschema. It does not enter s's own $defs (a JSONSchema method's).
func eachChild(s *invopop.Schema, fn func(c **invopop.Schema)) {
	one := func(c **invopop.Schema) {
		if *c != nil {
			fn(c)
		}
	}
	for _, c := range []**invopop.Schema{&s.Items, &s.AdditionalProperties, &s.PropertyNames, &s.Not, &s.If, &s.Then, &s.Else, &s.Contains, &s.ContentSchema} {
		one(c)
	}
	for _, list := range [][]*invopop.Schema{s.AllOf, s.AnyOf, s.OneOf, s.PrefixItems} {
		for i := range list {
			one(&list[i])
		}
	}
	if s.Properties != nil {
		for p := s.Properties.Oldest(); p != nil; p = p.Next() {
			one(&p.Value)
		}
	}
	for _, m := range []map[string]*invopop.Schema{s.PatternProperties, s.DependentSchemas} {
		for k, v := range m {
			one(&v)
			m[k] = v
		}
	}
}

// refsOf appends the definition keys s refers to, not following them.
func (r *reflector) refsOf(s *invopop.Schema, out []string) []string {
	if key, ok := r.keyOf(s.Ref); ok {
		return append(out, key)
	}
	eachChild(s, func(c **invopop.Schema) { out = r.refsOf(*c, out) })
	return out
}

// kept chooses the definitions that stay named: those on a cycle (which
// cannot be inlined) and every struct but the value's own type. What a
// definition holds then depends on its type alone, never on the value
// around it, so the tools of a namespace that share a type declare it the
// same way (package typegen declares it once and refuses two different
// definitions of a name). Strict schemas keep none, and a cycle is an
// error.
func (r *reflector) kept(root *invopop.Schema) (map[string]bool, error) {
	graph := map[string][]string{}
	keys := make([]string, 0, len(r.defs))
	for key, s := range r.defs {
		keys = append(keys, key)
		graph[key] = r.refsOf(s, nil)
	}
	slices.Sort(keys)
	kept := map[string]bool{}
	for _, cycle := range cycles(keys, graph) {
		if r.strict {
			names := make([]string, len(cycle))
			for i, key := range cycle {
				names[i] = r.owners[key].String()
			}
			return nil, &reflectError{r.paths[cycle[0]], r.owners[cycle[0]], "a recursive type (" + strings.Join(append(names, names[0]), " → ") + "): strict schemas inline every type, so they cannot hold one"}
		}
		for _, key := range cycle {
			kept[key] = true
		}
	}
	if !r.strict {
		for _, key := range keys {
			if r.kinds[key] == reflect.Struct && !isRoot(root, key) {
				kept[key] = true
			}
		}
	}
	return kept, nil
}

// isRoot reports whether root is a reference to the definition key.
func isRoot(root *invopop.Schema, key string) bool { return root.Ref == refTo(key) }

// cycles returns the strongly connected components of graph that hold a
// cycle (Tarjan's algorithm), each in discovery order.
func cycles(keys []string, graph map[string][]string) [][]string {
	index, low := map[string]int{}, map[string]int{}
	onStack := map[string]bool{}
	var stack []string
	var out [][]string
	var visit func(v string)
	visit = func(v string) {
		index[v], low[v] = len(index), len(index)
		stack = append(stack, v)
		onStack[v] = true
		for _, w := range graph[v] {
			if _, seen := index[w]; !seen {
				visit(w)
				low[v] = min(low[v], low[w])
			} else if onStack[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] != index[v] {
			return
		}
		var scc []string
		for {
			w := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			onStack[w] = false
			scc = append(scc, w)
			if w == v {
				break
			}
		}
		if len(scc) > 1 || slices.Contains(graph[v], v) {
			slices.Reverse(scc)
			out = append(out, scc)
		}
	}
	for _, k := range keys {
		if _, seen := index[k]; !seen {
			visit(k)
		}
	}
	return out
}

// inline replaces, in s and in the definitions it reaches, every reference
// to a definition that is not kept by a copy of the definition (carrying
// the reference's annotations), and returns s or its replacement.
// resolved collects the finished definitions by key.
func (r *reflector) inline(s *invopop.Schema, kept map[string]bool, resolved map[string]*invopop.Schema) *invopop.Schema {
	var resolve func(key string) *invopop.Schema
	var walk func(s *invopop.Schema) *invopop.Schema
	resolve = func(key string) *invopop.Schema {
		if d, ok := resolved[key]; ok {
			return d
		}
		d := r.defs[key]
		resolved[key] = d // a cycle runs through kept definitions only, which stay references
		eachChild(d, func(c **invopop.Schema) { *c = walk(*c) })
		return d
	}
	walk = func(s *invopop.Schema) *invopop.Schema {
		key, ok := r.keyOf(s.Ref)
		if !ok {
			eachChild(s, func(c **invopop.Schema) { *c = walk(*c) })
			return s
		}
		d := resolve(key)
		if kept[key] {
			return s
		}
		c := *d
		if s.Description != "" {
			c.Description = s.Description
		}
		if s.Title != "" {
			c.Title = s.Title
		}
		c.Deprecated = c.Deprecated || s.Deprecated
		return &c
	}
	return walk(s)
}

// expandedSize counts the schemas of s as its JSON text holds them, a
// subschema shared by several parents once per parent.
func expandedSize(s *invopop.Schema, memo map[*invopop.Schema]int) int {
	if n, ok := memo[s]; ok {
		return n
	}
	n := 1
	eachChild(s, func(c **invopop.Schema) { n += expandedSize(*c, memo) })
	n = min(n, maxInlinedSchemas+1)
	memo[s] = n
	return n
}
