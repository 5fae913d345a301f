package typegen

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
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
	// Places are, by reference (as Names spells them), where the schemas
	// the references name are in Document: [start, end) byte offsets,
	// when the maker knows them (an OpenAPI connector took the document
	// apart where it read it); nil when not. They save a reader of
	// Document skimming it for them; they are not encoded.
	Places map[string][2]int `json:"-"`
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
	// strict holds the named types of the strict schemas' $defs, by
	// strictKey; their names are in names too.
	strict map[string]*strictDef
	// used are the type names taken, by Definitions or by strict $defs.
	used map[string]bool
}

// strictDef is one named type from the root $defs of a strict schema
// (a Go type that package contract reflected, or a hand-written schema).
type strictDef struct {
	value *jsonValue
	root  *jsonValue // the schema document it is in
	where string     // the document's place: "codemode.getIssue.output"
	ptr   string     // its pointer there: "#/$defs/<key>"
}

// strictKey is the key of the $defs member key in a defsState: it never
// starts with "#", as the canonical pointers of Definitions do.
func strictKey(key string) string { return "$defs/" + key }

// emptyDefsState is the state of a namespace without Definitions, which
// its strict schemas' $defs fill (addStrict).
func emptyDefsState(ns string) *defsState {
	return &defsState{names: map[string]string{}, qualify: TypesNamespaceName(ns) + ".", seen: map[string]bool{}, resolved: map[string]resolvedRef{}, used: map[string]bool{}}
}

// fresh is a new reach state over the same document and names, for one
// describe answer.
func (s *defsState) fresh() *defsState {
	return &defsState{root: s.root, names: s.names, qualify: s.qualify, seen: map[string]bool{}, resolved: map[string]resolvedRef{}, strict: s.strict, used: s.used}
}

// addStrict declares the root $defs of a strict schema document, found at
// where ("codemode.getIssue.output"), as named types. A key that another
// schema of the namespace already defined must define the same schema (a
// Go type reflects to one schema wherever it is used); a different one is
// an error naming both places. Each new key gets a type name: the key's
// text after its last "." or "/" (package contract names a Go type's
// definition "<package path>.<type name>"), made an identifier, and
// followed by 2, 3, ... when another type or TypeScript already has it.
func (s *defsState) addStrict(root *jsonValue, where string) error {
	defs := root.get("$defs")
	if defs == nil || defs.kind != kindObject {
		return nil // not there, or malformed: the compiler reports it
	}
	if s.strict == nil {
		s.strict = map[string]*strictDef{}
	}
	for _, m := range defs.obj {
		key := strictKey(m.key)
		ptr := childPointer(childPointer("#", "$defs"), m.key)
		if d, ok := s.strict[key]; ok {
			if !sameJSON(d.value, m.value) {
				return schemaErr(where+ptr, "$defs", "the definition %q differs from the one of the same name at %s%s; give the types different names", m.key, d.where, d.ptr)
			}
			continue
		}
		s.strict[key] = &strictDef{value: m.value, root: root, where: where, ptr: ptr}
		s.names[key] = s.freeName(defTypeName(m.key))
	}
	return nil
}

// freeName returns name, or name followed by the first number from 2 that
// makes it a name no type has and TypeScript does not predefine, and takes
// it.
func (s *defsState) freeName(name string) string {
	try := name
	for i := 2; s.used[try] || reservedTypeNames[try]; i++ {
		try = name + strconv.Itoa(i)
	}
	s.used[try] = true
	return try
}

// defTypeName is the type name a $defs key suggests: its text after the
// last "." or "/", with every character that cannot be in an identifier
// replaced by "_", leading and trailing ones dropped, and "_" before a
// leading digit ("Type" when nothing is left).
func defTypeName(key string) string {
	base := key[strings.LastIndexAny(key, "./")+1:]
	var b strings.Builder
	for _, r := range base {
		if r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
			continue
		}
		b.WriteByte('_')
	}
	name := strings.Trim(b.String(), "_")
	if r, _ := utf8.DecodeRuneInString(name); unicode.IsDigit(r) {
		name = "_" + name
	}
	if name == "" || !isIdentifier(name) {
		return "Type"
	}
	return name
}

// sameJSON reports whether a and b are the same JSON value, object members
// in the same order.
func sameJSON(a, b *jsonValue) bool {
	if a.kind != b.kind || a.b != b.b || a.num != b.num || a.str != b.str || len(a.arr) != len(b.arr) || len(a.obj) != len(b.obj) {
		return false
	}
	for i := range a.arr {
		if !sameJSON(a.arr[i], b.arr[i]) {
			return false
		}
	}
	for i := range a.obj {
		if a.obj[i].key != b.obj[i].key || !sameJSON(a.obj[i].value, b.obj[i].value) {
			return false
		}
	}
	return true
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
	s := &defsState{root: root, names: map[string]string{}, qualify: TypesNamespaceName(ns) + ".", seen: map[string]bool{}, resolved: map[string]resolvedRef{}, used: map[string]bool{}}
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
		s.used[name] = true
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
func (s *defsState) compileNamed() ([]namedDecl, error) {
	var decls []namedDecl
	index := map[string]int{} // qualified name -> position in decls
	parents := make([]int, len(s.reached), len(s.reached)+16)
	for i := range parents {
		parents[i] = -1
	}
	for i := 0; i < len(s.reached); i++ {
		key := s.reached[i]
		var t *tsType
		var doc string
		if d, ok := s.strict[key]; ok {
			var err error
			if t, err = (&strictCompiler{root: d.root, defs: s}).compile(d.value, d.ptr, 0); err != nil {
				return nil, prefixed(err, d.where)
			}
			doc = description(d.value)
		} else {
			r := (&lenientCompiler{root: s.root, defs: s}).resolveCached(key)
			c := &lenientCompiler{root: s.root, budget: lenientBudget, defs: s, expanding: []string{key}}
			t, doc = c.schema(r.target, 0, r.foreign), description(r.target)
		}
		for len(parents) < len(s.reached) {
			parents = append(parents, i)
		}
		name := s.qualify + s.names[key]
		index[name] = len(decls)
		decls = append(decls, namedDecl{name: s.names[key], doc: doc, typ: t, parent: parents[i]})
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
	return decls, nil
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

// isInterface reports whether a named type is declared as an interface: an
// object type with properties or an index signature. A type alias of
// Record<string, T> cannot refer to itself (TypeScript error 2456), an
// interface's index signature can.
func isInterface(t *tsType) bool {
	return t.kind == tsObject && (len(t.props) > 0 || t.index != nil)
}

// writeNamed writes the types namespace of one namespace's named types.
func writeNamed(b *strings.Builder, typesName string, decls []namedDecl) {
	b.WriteString("declare namespace " + typesName + " {\n")
	for i, d := range decls {
		if i > 0 {
			b.WriteByte('\n')
		}
		writeJSDoc(b, d.doc, 1)
		if isInterface(d.typ) {
			b.WriteString("  interface " + d.name + " ")
			printer{}.writeObject(b, d.typ, 1)
			b.WriteString("\n")
			continue
		}
		b.WriteString("  type " + d.name + " = ")
		printer{}.writeType(b, d.typ, 1)
		b.WriteString(";\n")
	}
	b.WriteString("}\n")
}

// namespaceDefs is the named-type state of a namespace: its Definitions and
// the root $defs of its strict tools' schemas (see addStrict), or nil when
// it has neither.
func namespaceDefs(ns Namespace) (*defsState, error) {
	var s *defsState
	if ns.Definitions != nil {
		var err error
		if s, err = newDefsState(ns.Name, ns.Definitions); err != nil {
			return nil, err
		}
	}
	for _, t := range ns.Tools {
		if t.Lenient {
			continue
		}
		if s == nil {
			s = emptyDefsState(ns.Name)
		}
		if err := s.addStrictSchema(t.InputSchema, ns.Name+"."+t.Name+".input"); err != nil {
			return nil, err
		}
		if err := s.addStrictSchema(t.OutputSchema, ns.Name+"."+t.Name+".output"); err != nil {
			return nil, err
		}
	}
	if s != nil && s.root == nil && len(s.strict) == 0 {
		return nil, nil
	}
	return s, nil
}

// addStrictSchema is addStrict for schema text; text that does not parse
// is left to the compiler to report.
func (s *defsState) addStrictSchema(schema json.RawMessage, where string) error {
	if !bytes.Contains(schema, []byte(`"$defs"`)) {
		return nil
	}
	root, err := parseJSON(schema)
	if err != nil {
		return nil
	}
	return s.addStrict(root, where)
}

// inputTypesName is the TypeScript namespace of the program input's named
// types (the root $defs of its schema).
const inputTypesName = "InputTypes"

// inputDefs is the named-type state of the program input's schema, or nil
// when it has no $defs.
func inputDefs(schema json.RawMessage) (*defsState, error) {
	s := emptyDefsState("input")
	if err := s.addStrictSchema(schema, "input"); err != nil {
		return nil, err
	}
	if len(s.strict) == 0 {
		return nil, nil
	}
	return s, nil
}

// writeNamedOf writes the named types that defs reached, as the types
// namespace typesName followed by a blank line; nothing when defs is nil
// or reached none.
func writeNamedOf(b *strings.Builder, typesName string, defs *defsState) error {
	if defs == nil {
		return nil
	}
	decls, err := defs.compileNamed()
	if err != nil {
		return err
	}
	if len(decls) > 0 {
		writeNamed(b, typesName, decls)
		b.WriteByte('\n')
	}
	return nil
}

// alias returns the named type a tool's schema's root is, or nil: a root
// (or the non-null branch of a root T | null) that is, but for the root's
// $defs member, the same JSON as a named type of the namespace's strict
// $defs whose name the tool's name holds (getIssue: Issue; a trailing
// number the name took to be unique is left out). Package contract writes
// a tool's own top-level Go struct out in its schema and puts the structs
// nested in it in $defs; when another tool of the namespace nests the same
// struct (listIssues returns an Issue[]), getIssue's is printed as
// CodemodeTypes.Issue rather than in full again. Two types of the same
// JSON are the same TypeScript type, but not the same thing to a reader:
// an Invoice{ID} returned as CodemodeTypes.UserID would mislead, so a root
// whose tool does not name the type is written out.
func (s *defsState) alias(root *jsonValue, tool string) *tsType {
	if s == nil || len(s.strict) == 0 || root.kind != kindObject {
		return nil
	}
	v, nullable := root, false
	if x := nullableRoot(root); x != nil {
		v, nullable = x, true
	}
	if p := v.get("properties"); p == nil || p.kind != kindObject || len(p.obj) == 0 {
		return nil // an empty struct is the same JSON as any other: no name says what it is
	}
	lower := strings.ToLower(tool)
	for _, key := range slices.Sorted(maps.Keys(s.strict)) { // the same name every time
		name := strings.ToLower(strings.TrimRight(s.names[key], "0123456789"))
		if name == "" || !strings.Contains(lower, name) || !sameJSONBut(v, s.strict[key].value, "$defs") {
			continue
		}
		t := s.named(key)
		if t == nil {
			return nil
		}
		if nullable {
			return unionOf(t, typeNull)
		}
		return t
	}
	return nil
}

// nullableRoot returns T of a root schema {"anyOf": [T, null], "$defs":
// ...} (nonNullBranch) with no other member, whose annotations would be
// lost, or nil.
func nullableRoot(v *jsonValue) *jsonValue {
	for _, m := range v.obj {
		if m.key != "anyOf" && m.key != "oneOf" && m.key != "$defs" {
			return nil
		}
	}
	return nonNullBranch(v)
}

// sameJSONBut is sameJSON for two objects, leaving out a's member named
// skip.
func sameJSONBut(a, b *jsonValue, skip string) bool {
	if a.kind != kindObject || b.kind != kindObject {
		return false
	}
	j := 0
	for _, m := range a.obj {
		if m.key == skip {
			continue
		}
		if j >= len(b.obj) || b.obj[j].key != m.key || !sameJSON(m.value, b.obj[j].value) {
			return false
		}
		j++
	}
	return j == len(b.obj)
}
