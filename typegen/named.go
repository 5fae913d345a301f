package typegen

import (
	"encoding/json"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Definitions are named types shared by the lenient tools of one namespace,
// such as the components of an OpenAPI description: printing a schema that
// every operation refers to once, as a named type, keeps the declarations
// proportional to the document instead of inlining it at every reference
// (an inlining resolver grows a 778 KiB description to 71 MiB;
// https://github.com/cloudflare/agents/issues/1466), and lets a recursive
// schema be a recursive type instead of unknown.
type Definitions struct {
	// Document is a JSON document that the namespace's lenient tool schemas
	// refer into: their fragment references ("#/components/schemas/Pet")
	// resolve in Document, not in the tool's own schema.
	Document json.RawMessage `json:"document"`
	// Names maps references into Document, as the tools spell them
	// ("#/components/schemas/Pet"), to type names (Pet). A reference to a
	// named schema prints as the name (qualified by the namespace's types
	// namespace, see [Declarations]); every name reached from a tool is
	// declared once, as an interface when it is an object type with
	// properties and as a type alias otherwise. Names are JavaScript
	// identifiers, unique, and not one of TypeScript's predefined type names
	// (string, unknown, Record, ...), which a declaration would shadow.
	Names map[string]string `json:"names"`
}

// reservedTypeNames are type names a declaration inside the types namespace
// must not take: TypeScript's predefined type keywords, which cannot name an
// interface, and the global types the printer itself uses, which a
// declaration of the same name would shadow.
var reservedTypeNames = map[string]bool{
	"any": true, "unknown": true, "never": true, "void": true, "undefined": true, "null": true,
	"string": true, "number": true, "boolean": true, "bigint": true, "symbol": true, "object": true,
	"true": true, "false": true, "Record": true, "Promise": true, "Array": true, "ReadonlyArray": true,
}

// TypesNamespaceName is the TypeScript namespace that holds a namespace's
// named types: "PetstoreTypes" for the namespace petstore, "CodemodeTypes"
// for codemode. A program can name them (`PetstoreTypes.Pet`).
func TypesNamespaceName(namespace string) string {
	r, size := utf8.DecodeRuneInString(namespace)
	return string(unicode.ToUpper(r)) + namespace[size:] + "Types"
}

// defsState is one namespace's Definitions while its declarations are
// compiled: the parsed document, the qualified names by canonical pointer,
// and the names reached so far, in order.
type defsState struct {
	root    *jsonValue
	names   map[string]string // canonical pointer -> type name
	qualify string            // "PetstoreTypes."
	reached []string          // canonical pointers, first reached first
	seen    map[string]bool
	// resolved caches reference resolution: a document's pointers are
	// resolved once however many tools refer to them.
	resolved map[string]resolvedRef
}

type resolvedRef struct {
	target  *jsonValue
	key     string
	foreign bool
	ok      bool
}

// newDefsState parses d for the namespace ns. Names that are not
// identifiers, repeat, or are reserved are errors (Keyword "name"); an
// unparsable Document is an error too (the embedder built it).
func newDefsState(ns string, d *Definitions) (*defsState, error) {
	root, err := parseJSON(d.Document)
	if err != nil {
		return nil, prefixed(err, ns+".definitions")
	}
	s := &defsState{root: root, names: map[string]string{}, qualify: TypesNamespaceName(ns) + ".", seen: map[string]bool{}, resolved: map[string]resolvedRef{}}
	used := map[string]string{}
	// Sorted, so that the error for a set with several faults is stable.
	refs := make([]string, 0, len(d.Names))
	for ref := range d.Names {
		refs = append(refs, ref)
	}
	slices.Sort(refs)
	c := &lenientCompiler{root: root, defs: s}
	for _, ref := range refs {
		name := d.Names[ref]
		switch {
		case !isIdentifier(name):
			return nil, schemaErr(ns+".definitions", "name", "type name %q of %s is not a JavaScript identifier", name, ref)
		case reservedTypeNames[name]:
			return nil, schemaErr(ns+".definitions", "name", "type name %q of %s is a predefined TypeScript type", name, ref)
		case used[name] != "":
			return nil, schemaErr(ns+".definitions", "name", "type name %q is given to both %s and %s", name, used[name], ref)
		}
		used[name] = ref
		r := c.resolveCached(ref)
		if !r.ok {
			continue // a name for nothing in the document is never reached
		}
		s.names[r.key] = name
	}
	return s, nil
}

// resolveCached is resolve, remembered per reference when the compiler has
// Definitions.
func (c *lenientCompiler) resolveCached(ref string) resolvedRef {
	if c.defs == nil {
		t, k, f, ok := c.resolve(ref)
		return resolvedRef{t, k, f, ok}
	}
	if r, ok := c.defs.resolved[ref]; ok {
		return r
	}
	t, k, f, ok := c.resolve(ref)
	r := resolvedRef{t, k, f, ok}
	c.defs.resolved[ref] = r
	return r
}

// named returns the reference type for a named pointer, recording it as
// reached, or nil when key has no name.
func (s *defsState) named(key string) *tsType {
	name, ok := s.names[key]
	if !ok {
		return nil
	}
	if !s.seen[key] {
		s.seen[key] = true
		s.reached = append(s.reached, key)
	}
	return &tsType{kind: tsRef, name: s.qualify + name}
}

// namedDecl is one declared named type.
type namedDecl struct {
	name string
	doc  string
	typ  *tsType
	// parent is the index of the declaration whose type first reached this
	// one, or -1 when the tools reached it directly.
	parent int
}

// compileNamed compiles every named type reached so far, and those they
// reach in turn, each with its own budget; then it breaks the cycles that
// TypeScript cannot express (a type alias that is, through unions and
// intersections alone, itself) by printing unknown at the closing spot.
func (s *defsState) compileNamed() []namedDecl {
	var decls []namedDecl
	index := map[string]int{} // qualified name -> position in decls
	parents := make([]int, len(s.reached), len(s.reached)+16)
	for i := range parents {
		parents[i] = -1
	}
	for i := 0; i < len(s.reached); i++ {
		key := s.reached[i]
		r := (&lenientCompiler{root: s.root, defs: s}).resolveCached(key)
		c := &lenientCompiler{root: s.root, budget: lenientBudget, defs: s, expanding: []string{key}}
		t := c.schema(r.target, 0, r.foreign)
		for len(parents) < len(s.reached) {
			parents = append(parents, i)
		}
		name := s.qualify + s.names[key]
		index[name] = len(decls)
		decls = append(decls, namedDecl{name: s.names[key], doc: description(r.target), typ: t, parent: parents[i]})
	}
	// Depth-first search over the unguarded references; a reference to a
	// type on the current path closes a cycle.
	const (
		white = iota
		grey
		black
	)
	colour := make([]int, len(decls))
	var visit func(i int)
	visit = func(i int) {
		colour[i] = grey
		for _, ref := range unguardedRefs(decls[i].typ, nil) {
			j, ok := index[ref.name]
			if !ok {
				continue
			}
			switch colour[j] {
			case grey:
				ref.kind, ref.name = tsPrimitive, "unknown"
			case white:
				visit(j)
			}
		}
		colour[i] = black
	}
	for i := range decls {
		if colour[i] == white {
			visit(i)
		}
	}
	return decls
}

// unguardedRefs appends the references of t that TypeScript resolves
// eagerly in a type alias: t itself and the members of its unions and
// intersections. Object members, array elements and tuple elements are
// deferred, so a reference there may close a cycle.
func unguardedRefs(t *tsType, out []*tsType) []*tsType {
	switch t.kind {
	case tsRef:
		out = append(out, t)
	case tsUnion, tsIntersection:
		for _, m := range t.members {
			out = unguardedRefs(m, out)
		}
	}
	return out
}

// writeNamed writes the types namespace of one namespace's named types.
func writeNamed(b *strings.Builder, typesName string, decls []namedDecl) {
	b.WriteString("declare namespace " + typesName + " {\n")
	for i, d := range decls {
		if i > 0 {
			b.WriteByte('\n')
		}
		writeJSDoc(b, d.doc, 1)
		if d.typ.kind == tsObject && len(d.typ.props) > 0 {
			b.WriteString("  interface " + d.name + " ")
			printer{}.writeType(b, d.typ, 1)
			b.WriteString("\n")
			continue
		}
		b.WriteString("  type " + d.name + " = ")
		printer{}.writeType(b, d.typ, 1)
		b.WriteString(";\n")
	}
	b.WriteString("}\n")
}
