package typegen

import (
	"encoding/json"
	"math"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/codemode-go/codemode/internal/jsonpointer"
)

const (
	// maxLenientDepth bounds how deep the lenient printer follows nested
	// schemas and $ref targets; deeper spots print unknown.
	maxLenientDepth = 32
	// lenientBudget bounds the work and output of one lenient schema, in
	// rough bytes: every schema costs lenientNodeCost and every property name,
	// description and string literal its length. References can make a small
	// schema expand exponentially (A refers to B twice, B to C twice, ...);
	// once the budget is spent, every further spot prints unknown.
	lenientBudget   = 1 << 20
	lenientNodeCost = 16
)

var (
	typeUnknown    = &tsType{kind: tsPrimitive, name: "unknown"}
	typeAny        = &tsType{kind: tsPrimitive, name: "any"}
	typeNever      = &tsType{kind: tsPrimitive, name: "never"}
	typeUndefined  = &tsType{kind: tsPrimitive, name: "undefined"}
	typeTrue       = &tsType{kind: tsPrimitive, name: "true"}
	typeFalse      = &tsType{kind: tsPrimitive, name: "false"}
	typeOpenRecord = &tsType{kind: tsObject, index: typeUnknown}
)

// primitive is the type of a type name other than object and array.
func primitive(name string) *tsType {
	switch name {
	case "string":
		return typeString
	case "number", "integer":
		return typeNumber
	case "boolean":
		return typeBoolean
	case "null":
		return typeNull
	}
	return typeUnknown
}

// LenientType renders the TypeScript type of a foreign JSON Schema, such as
// an MCP server's tool schema, that [Type] may reject. It never fails: what
// it cannot express becomes unknown for that spot only, so the printed type
// always accepts every value the schema accepts (a superset), which is the
// promise of generateTypesFromJsonSchema in https://developers.cloudflare.com/agents/tools/codemode/api-reference/ ("unsupported schemas
// degrade to unknown instead of failing"). The host still validates values
// against the schema itself; the type is guidance for the agent and the
// checker.
//
//	t := typegen.LenientType(json.RawMessage(`{"type":["string","null"]}`))
//	// t == "string | null"
//
// Shapes (drafts 2020-12 and 07, and OpenAPI 3.0's nullable):
//   - true and {} print unknown; false prints never.
//   - type "string", "number", "integer", "boolean", "null" print as in
//     [Type]; a type array prints the union of its members; nullable: true
//     adds | null.
//   - const and enum of any JSON values print literal types: strings
//     JSON-quoted, numbers, true, false, null, arrays as tuples of literals
//     and objects as object types of literals; enum members whose kind the
//     type keyword excludes are left out. A string literal holding U+FFFD
//     prints string (it may stand for a lone surrogate the JSON decoder
//     replaced), and a number beyond float64 prints number.
//   - type "object", or properties without type: an object type with
//     properties in JSON text order, `name?: T` unless required, JSDoc from
//     each property's description and non-identifier names JSON-quoted, as
//     in [Type]. additionalProperties absent or true, or any
//     patternProperties, add `[key: string]: unknown;`; additionalProperties
//     false adds nothing (closed); a schema T adds `[key: string]: T | P1 |
//     ...` with every declared property type Pn (and undefined when a
//     property is optional), because TypeScript requires property types to
//     be assignable to the index type. Without properties the object prints
//     Record<string, unknown>, Record<string, T> or, closed,
//     Record<string, never>.
//   - type "array": items T prints T[] ((A | B)[] for unions and
//     intersections); prefixItems (2020-12) or an items array (draft-07)
//     print a tuple `[A, B?, ...R[]]` whose first minItems elements are
//     required, with rest R from items (2020-12) or additionalItems
//     (draft-07), unknown when absent and left out when false; no items
//     prints unknown[].
//   - anyOf and oneOf print the union of their branches (oneOf's exclusivity
//     is not expressed); allOf prints the intersection A & B; they intersect
//     with the type-derived part of the same schema. Identical members are
//     printed once; unknown absorbs a union and drops out of an intersection.
//   - $ref to the same document ("#", "#/$defs/X", "#/definitions/X", any
//     RFC 6901 pointer, with ~0, ~1 and percent-encoding) prints the target's
//     type; keywords beside $ref are ignored (draft-07 ignores them, and in
//     2020-12 they only narrow), except nullable: true, which only widens. Remote references, anchors, $dynamicRef,
//     $recursiveRef, references inside an embedded resource (a subschema
//     with its own $id) and a reference that closes a cycle print unknown.
//
// # Notes
//   - Invalid JSON, duplicate keys, and a JSON value that is not a schema
//     (a string, a number, an array, null) print unknown.
//   - Annotations and validation keywords (format, minLength, pattern,
//     default, examples, title, $schema, $id, $comment, ...) never change
//     the type; not, if/then/else, dependentSchemas, contains,
//     unevaluatedProperties and every unrecognised keyword are ignored,
//     which only widens the type.
//   - One deliberate exception to the superset rule, for MCP and OpenAPI
//     schemas that leave out type: a schema with properties and no type is
//     taken to be an object, although JSON Schema would also accept
//     non-objects for it.
//   - Schemas nested deeper than 32 levels (counting $ref hops) print
//     unknown, and so does everything after about 1 MiB of output.
func LenientType(schema json.RawMessage) string {
	return printer{}.typeString(lenientCompile(schema), 0)
}

// lenientCompile parses and compiles one foreign schema; it never fails.
func lenientCompile(data []byte) *tsType {
	return lenientCompileIn(data, nil)
}

// lenientCompileIn is lenientCompile for a tool of a namespace with
// Definitions (defs not nil): references resolve in its document.
func lenientCompileIn(data []byte, defs *defsState) *tsType {
	root, err := parseJSON(data)
	if err != nil {
		return typeUnknown
	}
	if defs != nil && defs.root == nil {
		defs = nil // no Definitions (only strict $defs): references resolve in the schema
	}
	c := &lenientCompiler{root: root, budget: lenientBudget, defs: defs}
	if defs != nil {
		c.root = defs.root
	}
	return c.schema(root, 0, false)
}

// lenientCompiler holds the state of one lenient compilation.
type lenientCompiler struct {
	root *jsonValue
	// budget is what is left of lenientBudget.
	budget int
	// expanding lists the pointers of the $ref targets being compiled, to
	// detect cycles.
	expanding []string
	// defs, when the namespace has Definitions, resolves references in its
	// document and prints its named schemas by name.
	defs *defsState
}

// spend charges n to the budget and reports whether any was left.
func (c *lenientCompiler) spend(n int) bool {
	if c.budget <= 0 {
		return false
	}
	c.budget -= n
	return true
}

// schema compiles the schema v found depth levels below the root; foreign
// is set inside an embedded resource, where "#" means another document.
func (c *lenientCompiler) schema(v *jsonValue, depth int, foreign bool) *tsType {
	// Charging for every keyword bounds the keyword lookups too, when
	// references expand one large schema many times.
	if depth > maxLenientDepth || !c.spend(lenientNodeCost+len(v.obj)) {
		return typeUnknown
	}
	switch v.kind {
	case kindBool:
		if v.b {
			return typeUnknown
		}
		return typeNever
	case kindObject:
	default:
		return typeUnknown
	}
	t := c.core(v, depth, foreign)
	// OpenAPI 3.0 "nullable: true" allows null beside the schema's type.
	if n := v.get("nullable"); n != nil && n.kind == kindBool && n.b {
		t = unionOf(t, typeNull)
	}
	return t
}

// sub compiles a subschema of a schema at depth.
func (c *lenientCompiler) sub(v *jsonValue, depth int, foreign bool) *tsType {
	return c.schema(v, depth+1, foreign || hasID(v))
}

func hasID(v *jsonValue) bool {
	if v.kind != kindObject {
		return false
	}
	id := v.get("$id")
	return id != nil && id.kind == kindString
}

func (c *lenientCompiler) core(v *jsonValue, depth int, foreign bool) *tsType {
	if ref := v.get("$ref"); ref != nil {
		return c.ref(ref, depth, foreign)
	}
	if v.get("$dynamicRef") != nil || v.get("$recursiveRef") != nil {
		return typeUnknown
	}
	types, typed := c.typeNames(v)
	if cv := v.get("const"); cv != nil {
		return c.literal(cv, depth)
	}
	if ev := v.get("enum"); ev != nil {
		return c.enum(ev, types, typed, depth)
	}

	var parts []*tsType
	switch {
	case typed:
		var members []*tsType
		for _, name := range types {
			switch name {
			case "object":
				members = append(members, c.object(v, depth, foreign))
			case "array":
				members = append(members, c.array(v, depth, foreign))
			default:
				members = append(members, primitive(name))
			}
		}
		parts = append(parts, unionOf(members...))
	case v.get("type") == nil && v.get("properties") != nil:
		parts = append(parts, c.object(v, depth, foreign))
	}
	for _, keyword := range []string{"anyOf", "oneOf"} {
		if list := v.get(keyword); list != nil && list.kind == kindArray && len(list.arr) > 0 {
			branches := make([]*tsType, len(list.arr))
			for i, b := range list.arr {
				branches[i] = c.sub(b, depth, foreign)
			}
			parts = append(parts, unionOf(branches...))
		}
	}
	if list := v.get("allOf"); list != nil && list.kind == kindArray {
		for _, b := range list.arr {
			parts = append(parts, c.sub(b, depth, foreign))
		}
	}
	return intersectionOf(parts...)
}

// typeNames returns the names of the type keyword, deduplicated, and
// whether it constrains the value at all. A type keyword that is malformed
// or names an unknown type does not constrain it (typed is false).
func (c *lenientCompiler) typeNames(v *jsonValue) (names []string, typed bool) {
	t := v.get("type")
	if t == nil {
		return nil, false
	}
	var list []*jsonValue
	switch t.kind {
	case kindString:
		list = []*jsonValue{t}
	case kindArray:
		list = t.arr
		if !c.spend(len(list)) {
			return nil, false
		}
	default:
		return nil, false
	}
	seen := make(map[string]bool, len(list))
	for _, n := range list {
		if n.kind != kindString {
			return nil, false
		}
		switch n.str {
		case "object", "array", "string", "number", "integer", "boolean", "null":
		default:
			return nil, false
		}
		if !seen[n.str] {
			seen[n.str] = true
			names = append(names, n.str)
		}
	}
	if len(names) == 0 {
		return nil, false // "type": [] is invalid; it does not narrow here
	}
	return names, true
}

// ref compiles a $ref. Only references into the same document resolve.
func (c *lenientCompiler) ref(ref *jsonValue, depth int, foreign bool) *tsType {
	if ref.kind != kindString || foreign {
		return typeUnknown
	}
	r := c.resolveCached(ref.str)
	target, key, targetForeign := r.target, r.key, r.foreign
	if !r.ok {
		return typeUnknown
	}
	if c.defs != nil && !targetForeign {
		if t := c.defs.named(key); t != nil {
			return t
		}
	}
	for _, k := range c.expanding {
		if k == key {
			return typeUnknown // the reference closes a cycle
		}
	}
	c.expanding = append(c.expanding, key)
	t := c.schema(target, depth+1, targetForeign)
	c.expanding = c.expanding[:len(c.expanding)-1]
	return t
}

// resolve follows a fragment-only reference ("#" or "#/a/b") from the root:
// the fragment is percent-decoded (RFC 3986), then read as an RFC 6901 JSON
// pointer with "~1" for "/" and "~0" for "~". It returns the target, a key
// that identifies it (a reference to the same value, its tokens escaped
// and "%" percent-encoded), and whether the path entered an embedded
// resource.
func (c *lenientCompiler) resolve(ref string) (target *jsonValue, key string, foreign bool, ok bool) {
	frag, found := strings.CutPrefix(ref, "#")
	if !found {
		return nil, "", false, false // remote or relative reference
	}
	frag, err := url.PathUnescape(frag)
	if err != nil || !utf8.ValidString(frag) {
		return nil, "", false, false
	}
	if frag == "" {
		return c.root, "#", false, true
	}
	if !strings.HasPrefix(frag, "/") {
		return nil, "", false, false // a plain-name anchor
	}
	v := c.root
	var canonical strings.Builder
	canonical.WriteByte('#')
	for _, token := range strings.Split(frag[1:], "/") {
		token = jsonpointer.Unescape(token)
		switch v.kind {
		case kindObject:
			v = v.get(token)
		case kindArray:
			i, err := strconv.Atoi(token)
			if err != nil || i < 0 || i >= len(v.arr) || strconv.Itoa(i) != token {
				return nil, "", false, false
			}
			v = v.arr[i]
		default:
			return nil, "", false, false
		}
		if v == nil {
			return nil, "", false, false
		}
		if hasID(v) {
			foreign = true
		}
		canonical.WriteByte('/')
		// "%" percent-encoded, so that the key, read as a reference,
		// names the same value ("a%20b" is "a%2520b").
		canonical.WriteString(strings.ReplaceAll(jsonpointer.Escape(token), "%", "%25"))
	}
	return v, canonical.String(), foreign, true
}

// literal is the TypeScript literal type of one JSON value.
func (c *lenientCompiler) literal(v *jsonValue, depth int) *tsType {
	if depth > maxLenientDepth || !c.spend(lenientNodeCost) {
		return typeUnknown
	}
	switch v.kind {
	case kindNull:
		return typeNull
	case kindBool:
		if v.b {
			return typeTrue
		}
		return typeFalse
	case kindNumber:
		return numberLiteral(v.num)
	case kindString:
		if !c.spend(len(v.str)) {
			return typeUnknown
		}
		if strings.ContainsRune(v.str, utf8.RuneError) {
			return typeString
		}
		return &tsType{kind: tsLiteral, name: v.str}
	case kindArray:
		elems := make([]*tsType, len(v.arr))
		for i, e := range v.arr {
			elems[i] = c.literal(e, depth+1)
		}
		return tupleOf(elems, len(elems), nil)
	case kindObject:
		obj := &tsType{kind: tsObject}
		for _, m := range v.obj {
			if !c.spend(len(m.key)) {
				return typeUnknown
			}
			obj.props = append(obj.props, tsProp{name: m.key, typ: c.literal(m.value, depth+1)})
		}
		return obj
	}
	return typeUnknown
}

// numberLiteral prints a JSON number as JavaScript would print the float64
// it parses to, or number when it has none (beyond float64's range).
func numberLiteral(n json.Number) *tsType {
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return typeNumber
	}
	var s string
	switch a := math.Abs(f); {
	case f == 0:
		s = "0" // also for -0, which JSON Schema equates with 0
	case a >= 1e-7 && a < 1e21:
		s = strconv.FormatFloat(f, 'f', -1, 64)
	default:
		// JavaScript writes 1e-7 and 1e+21 where Go writes 1e-07, 1e+21.
		s = strconv.FormatFloat(f, 'e', -1, 64)
		mantissa, exp, _ := strings.Cut(s, "e")
		sign, digits := exp[:1], strings.TrimLeft(exp[1:], "0")
		s = mantissa + "e" + sign + digits
	}
	return &tsType{kind: tsPrimitive, name: s}
}

// enum is the union of an enum's literals, leaving out members the type
// keyword excludes.
func (c *lenientCompiler) enum(ev *jsonValue, types []string, typed bool, depth int) *tsType {
	if ev.kind != kindArray || len(ev.arr) == 0 {
		return typeUnknown
	}
	allowed := make(map[jsonKind]bool)
	for _, name := range types {
		switch name {
		case "object":
			allowed[kindObject] = true
		case "array":
			allowed[kindArray] = true
		case "string":
			allowed[kindString] = true
		case "number", "integer":
			allowed[kindNumber] = true
		case "boolean":
			allowed[kindBool] = true
		case "null":
			allowed[kindNull] = true
		}
	}
	var members []*tsType
	for _, m := range ev.arr {
		if typed && !allowed[m.kind] {
			continue
		}
		members = append(members, c.literal(m, depth+1))
	}
	return unionOf(members...)
}

// object compiles the object part of a schema.
func (c *lenientCompiler) object(v *jsonValue, depth int, foreign bool) *tsType {
	obj := &tsType{kind: tsObject}
	required := make(map[string]bool)
	if rv := v.get("required"); rv != nil && rv.kind == kindArray && c.spend(len(rv.arr)) {
		for _, n := range rv.arr {
			if n.kind == kindString {
				required[n.str] = true
			}
		}
	}
	anyOptional := false
	if pv := v.get("properties"); pv != nil && pv.kind == kindObject {
		for _, m := range pv.obj {
			desc := description(m.value)
			tags := propertyTags(m.value)
			if !c.spend(1 + len(m.key) + len(desc) + tagsLen(tags)) {
				return typeOpenRecord
			}
			p := tsProp{
				name:        m.key,
				optional:    !required[m.key],
				description: desc,
				tags:        tags,
				typ:         c.sub(m.value, depth, foreign),
			}
			anyOptional = anyOptional || p.optional
			obj.props = append(obj.props, p)
		}
	}

	ap := v.get("additionalProperties")
	switch pp := v.get("patternProperties"); {
	case pp != nil && (pp.kind != kindObject || len(pp.obj) > 0):
		obj.index = typeUnknown
	case ap == nil:
		obj.index = typeUnknown
	case ap.kind == kindBool:
		if ap.b {
			obj.index = typeUnknown
		}
	case ap.kind == kindObject:
		t := c.sub(ap, depth, foreign)
		if isNamed(t, "never") {
			break // additionalProperties that accepts nothing closes the object
		}
		members := []*tsType{t}
		for _, p := range obj.props {
			members = append(members, p.typ)
		}
		if anyOptional && len(obj.props) > 0 {
			// Without exactOptionalPropertyTypes an optional property's
			// type includes undefined, which the index type must accept.
			members = append(members, typeUndefined)
		}
		obj.index = unionOf(members...)
	default:
		obj.index = typeUnknown // malformed: does not constrain
	}
	return obj
}

// array compiles the array part of a schema.
func (c *lenientCompiler) array(v *jsonValue, depth int, foreign bool) *tsType {
	var elems []*tsType
	rest := typeUnknown
	items := v.get("items")
	isSchema := func(s *jsonValue) bool { return s != nil && (s.kind == kindObject || s.kind == kindBool) }
	switch prefix := v.get("prefixItems"); {
	case prefix != nil && prefix.kind == kindArray:
		for _, e := range prefix.arr {
			elems = append(elems, c.sub(e, depth, foreign))
		}
		if isSchema(items) {
			rest = c.sub(items, depth, foreign)
		}
	case items != nil && items.kind == kindArray:
		for _, e := range items.arr {
			elems = append(elems, c.sub(e, depth, foreign))
		}
		if ai := v.get("additionalItems"); isSchema(ai) {
			rest = c.sub(ai, depth, foreign)
		}
	case isSchema(items):
		rest = c.sub(items, depth, foreign)
	}
	if rest != nil && isNamed(rest, "never") {
		rest = nil // no further items allowed: a closed tuple
	}
	minItems := 0
	if mv := v.get("minItems"); mv != nil && mv.kind == kindNumber {
		if f, err := mv.num.Float64(); err == nil && f > 0 {
			minItems = int(math.Min(f, float64(len(elems))))
		}
	}
	return tupleOf(elems, minItems, rest)
}

// tupleOf is [E1, ..., En?, ...rest[]]: the first required elements are
// required, rest is nil for a closed tuple; with no elements it is rest[].
func tupleOf(elems []*tsType, required int, rest *tsType) *tsType {
	if len(elems) == 0 && rest != nil {
		return &tsType{kind: tsArray, elem: rest}
	}
	return &tsType{kind: tsTuple, members: elems, required: required, elem: rest}
}

// unionOf is A | B: nested unions are flattened, never members dropped,
// identical members printed once, and unknown absorbs the union.
func unionOf(members ...*tsType) *tsType {
	return combine(tsUnion, members, typeUnknown, typeNever)
}

// intersectionOf is A & B: nested intersections are flattened, unknown
// members dropped, identical members printed once, and never absorbs it.
func intersectionOf(members ...*tsType) *tsType {
	return combine(tsIntersection, members, typeNever, typeUnknown)
}

func combine(kind tsKind, members []*tsType, absorbing, neutral *tsType) *tsType {
	var flat []*tsType
	var flatten func(ms []*tsType)
	flatten = func(ms []*tsType) {
		for _, m := range ms {
			if m.kind == kind {
				flatten(m.members)
			} else {
				flat = append(flat, m)
			}
		}
	}
	flatten(members)
	out := &tsType{kind: kind}
	seen := make(map[string]bool, len(flat))
	for _, m := range flat {
		if isNamed(m, absorbing.name) {
			return absorbing
		}
		if isNamed(m, neutral.name) {
			continue
		}
		key := printer{}.typeString(m, 0)
		if seen[key] {
			continue
		}
		seen[key] = true
		out.members = append(out.members, m)
	}
	switch len(out.members) {
	case 0:
		return neutral
	case 1:
		return out.members[0]
	}
	return out
}

func isNamed(t *tsType, name string) bool {
	return t.kind == tsPrimitive && t.name == name
}

// tagsLen is the printed length of tags, for the budget.
func tagsLen(tags []string) int {
	n := 0
	for _, t := range tags {
		n += len(t) + 1
	}
	return n
}
