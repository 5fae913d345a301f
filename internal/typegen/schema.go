package typegen

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/codemode-go/codemode/internal/jsonpointer"
)

// SchemaError reports a schema that strict declarations cannot represent
// exactly, or one that is malformed. The strict rules come from
// https://github.com/torkbot/code-mode#schemas-tools-and-checking: closed objects, arrays, strings, numbers,
// integers, booleans, null, string const and enum literals, and discriminated
// anyOf/oneOf unions; anything else fails rather than being printed loosely.
//
// Pointer is an RFC 6901 JSON pointer in fragment form ("#" is the schema
// root; "~" and "/" in names are escaped as "~0" and "~1") locating the
// schema that holds the problem. [Declarations] prefixes it with where the
// schema sits in the surface: "input#/properties/a" for the program input,
// "codemode.getWeather.input#" or "codemode.getWeather.output#/items" for a
// tool. Keyword is the offending keyword in that schema ("pattern",
// "additionalProperties", "true" or "false" for a boolean schema), or empty
// when the problem is not one keyword (invalid JSON, a schema that is not a
// JSON object, nesting deeper than 64 schemas). Message says what is wrong.
//
// Use errors.As to recover it from the errors [Type] and [Declarations]
// return; every error they return is a *SchemaError.
type SchemaError struct {
	Pointer string
	Keyword string
	Message string
}

// Error formats the error as
// `typegen: #/properties/a: keyword "pattern": not supported in strict declarations`,
// leaving out the keyword part when Keyword is empty.
func (e *SchemaError) Error() string {
	if e.Keyword == "" {
		return fmt.Sprintf("typegen: %s: %s", e.Pointer, e.Message)
	}
	return fmt.Sprintf("typegen: %s: keyword %q: %s", e.Pointer, e.Keyword, e.Message)
}

func schemaErr(ptr, keyword, format string, args ...any) *SchemaError {
	return &SchemaError{Pointer: ptr, Keyword: keyword, Message: fmt.Sprintf(format, args...)}
}

const (
	// maxSchemaDepth bounds schema nesting (properties, items, branches).
	maxSchemaDepth = 64
	// maxJSONDepth bounds JSON nesting, which also covers annotation values
	// such as examples and default that hold arbitrary JSON.
	maxJSONDepth = 1000
)

// jsonValue is decoded JSON that keeps object members in text order, which
// is the order properties are printed in.
type jsonValue struct {
	kind jsonKind
	b    bool
	num  json.Number
	str  string
	arr  []*jsonValue
	obj  []member
}

type member struct {
	key   string
	value *jsonValue
}

type jsonKind uint8

const (
	kindNull jsonKind = iota
	kindBool
	kindNumber
	kindString
	kindArray
	kindObject
)

func (v *jsonValue) get(key string) *jsonValue {
	for _, m := range v.obj {
		if m.key == key {
			return m.value
		}
	}
	return nil
}

func childPointer(ptr, token string) string { return jsonpointer.Append(ptr, token) }

// parseJSON decodes one JSON value with its object members in text order.
// Duplicate keys are rejected because their meaning would be ambiguous.
//
// Valid JSON is read by a direct parser (fastJSON); what it refuses
// (duplicate keys, nesting past maxJSONDepth) and invalid JSON go to
// encoding/json's Decoder, which words the error. Its Token method
// allocates per token and took a fifth of loading GitHub's REST
// description, whose components are one 5 MB document.
func parseJSON(data []byte) (*jsonValue, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, schemaErr("#", "", "empty schema")
	}
	if json.Valid(data) {
		p := fastJSON{data: data}
		if v, ok := p.value(0); ok {
			return v, nil
		}
	}
	return parseJSONTokens(data)
}

// parseJSONTokens is parseJSON through encoding/json's Decoder.
func parseJSONTokens(data []byte) (*jsonValue, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := parseValue(dec, "#", 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, schemaErr("#", "", "invalid JSON: unexpected data after the schema")
	}
	return v, nil
}

func parseValue(dec *json.Decoder, ptr string, depth int) (*jsonValue, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, jsonSyntaxErr(ptr, err)
	}
	switch t := tok.(type) {
	case json.Delim:
		if depth >= maxJSONDepth {
			return nil, schemaErr(ptr, "", "JSON nested deeper than %d levels", maxJSONDepth)
		}
		switch t {
		case '{':
			v := &jsonValue{kind: kindObject}
			seen := make(map[string]bool)
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, jsonSyntaxErr(ptr, err)
				}
				key, ok := kt.(string)
				if !ok {
					return nil, schemaErr(ptr, "", "invalid JSON: object key is not a string")
				}
				if seen[key] {
					return nil, schemaErr(ptr, key, "duplicate key")
				}
				seen[key] = true
				child, err := parseValue(dec, childPointer(ptr, key), depth+1)
				if err != nil {
					return nil, err
				}
				v.obj = append(v.obj, member{key: key, value: child})
			}
			if _, err := dec.Token(); err != nil {
				return nil, jsonSyntaxErr(ptr, err)
			}
			return v, nil
		case '[':
			v := &jsonValue{kind: kindArray}
			for i := 0; dec.More(); i++ {
				child, err := parseValue(dec, childPointer(ptr, strconv.Itoa(i)), depth+1)
				if err != nil {
					return nil, err
				}
				v.arr = append(v.arr, child)
			}
			if _, err := dec.Token(); err != nil {
				return nil, jsonSyntaxErr(ptr, err)
			}
			return v, nil
		}
		return nil, schemaErr(ptr, "", "invalid JSON: unexpected %q", rune(t))
	case string:
		return &jsonValue{kind: kindString, str: t}, nil
	case json.Number:
		return &jsonValue{kind: kindNumber, num: t}, nil
	case bool:
		return &jsonValue{kind: kindBool, b: t}, nil
	case nil:
		return &jsonValue{kind: kindNull}, nil
	}
	return nil, schemaErr(ptr, "", "invalid JSON: unexpected token %v", tok)
}

// fastJSON parses valid JSON text (json.Valid has said so) into a
// jsonValue as parseJSONTokens does; value reports false for a duplicate
// key or nesting past maxJSONDepth, which parseJSONTokens then words.
type fastJSON struct {
	data []byte
	i    int
}

func (p *fastJSON) space() {
	for p.i < len(p.data) {
		switch p.data[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *fastJSON) value(depth int) (*jsonValue, bool) {
	p.space()
	switch c := p.data[p.i]; c {
	case '{', '[':
		if depth >= maxJSONDepth {
			return nil, false
		}
		p.i++
		p.space()
		if c == '[' {
			v := &jsonValue{kind: kindArray}
			if p.data[p.i] == ']' {
				p.i++
				return v, true
			}
			for {
				child, ok := p.value(depth + 1)
				if !ok {
					return nil, false
				}
				v.arr = append(v.arr, child)
				p.space()
				p.i++ // ',' or ']'
				if p.data[p.i-1] == ']' {
					return v, true
				}
			}
		}
		v := &jsonValue{kind: kindObject}
		if p.data[p.i] == '}' {
			p.i++
			return v, true
		}
		for {
			p.space()
			key := p.string()
			for _, m := range v.obj {
				if m.key == key {
					return nil, false
				}
			}
			p.space()
			p.i++ // ':'
			child, ok := p.value(depth + 1)
			if !ok {
				return nil, false
			}
			v.obj = append(v.obj, member{key: key, value: child})
			p.space()
			p.i++ // ',' or '}'
			if p.data[p.i-1] == '}' {
				return v, true
			}
		}
	case '"':
		return &jsonValue{kind: kindString, str: p.string()}, true
	case 't':
		p.i += 4
		return &jsonValue{kind: kindBool, b: true}, true
	case 'f':
		p.i += 5
		return &jsonValue{kind: kindBool}, true
	case 'n':
		p.i += 4
		return &jsonValue{kind: kindNull}, true
	}
	start := p.i
	for p.i < len(p.data) && strings.IndexByte("+-.0123456789eE", p.data[p.i]) >= 0 {
		p.i++
	}
	return &jsonValue{kind: kindNumber, num: json.Number(p.data[start:p.i])}, true
}

// string reads the string at p.data[p.i] == '"' as encoding/json decodes
// it (escapes, and invalid UTF-8 as U+FFFD).
func (p *fastJSON) string() string {
	start := p.i
	plain := true
	for p.i++; ; p.i++ {
		c := p.data[p.i]
		if c == '"' {
			break
		}
		if c == '\\' {
			plain = false
			p.i++
		} else if c >= utf8.RuneSelf {
			plain = false
		}
	}
	p.i++
	raw := p.data[start:p.i]
	if plain || utf8.Valid(raw) && bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1 : len(raw)-1])
	}
	var s string
	_ = json.Unmarshal(raw, &s) // valid: json.Valid said so
	return s
}

func jsonSyntaxErr(ptr string, err error) error {
	if errors.Is(err, io.EOF) {
		return schemaErr(ptr, "", "invalid JSON: unexpected end of input")
	}
	return schemaErr(ptr, "", "invalid JSON: %v", err)
}

// tsType is the TypeScript type a schema denotes. The strict compiler
// produces primitives, string literals, unions, arrays and closed objects;
// the lenient one also intersections, tuples, index signatures and other
// literals (printed verbatim as tsPrimitive names such as "unknown", "-1.5"
// or "true").
type tsType struct {
	kind     tsKind
	name     string    // tsPrimitive: the type text; tsLiteral: the string value
	members  []*tsType // tsUnion, tsIntersection; tsTuple: the elements
	elem     *tsType   // tsArray; tsTuple: the rest element type, nil when closed
	props    []tsProp  // tsObject
	index    *tsType   // tsObject: the [key: string] index type, nil when closed
	required int       // tsTuple: how many leading elements are required
}

type tsKind uint8

const (
	tsPrimitive tsKind = iota
	tsLiteral
	tsUnion
	tsArray
	tsObject
	tsIntersection
	tsTuple
	// tsRef is a reference to a named type of a namespace's Definitions,
	// printed as its qualified name.
	tsRef
)

type tsProp struct {
	name        string
	optional    bool
	description string
	// tags are the JSDoc tags the host adds after the description
	// (propertyTags), already safe to print.
	tags []string
	typ  *tsType
}

var (
	typeString  = &tsType{kind: tsPrimitive, name: "string"}
	typeNumber  = &tsType{kind: tsPrimitive, name: "number"}
	typeBoolean = &tsType{kind: tsPrimitive, name: "boolean"}
	typeNull    = &tsType{kind: tsPrimitive, name: "null"}
)

// keywordCheck validates a keyword's value and returns a problem, or "".
type keywordCheck func(v *jsonValue) string

func isString(v *jsonValue) string {
	if v.kind != kindString {
		return "must be a string"
	}
	return ""
}

func isBool(v *jsonValue) string {
	if v.kind != kindBool {
		return "must be a boolean"
	}
	return ""
}

func isArray(v *jsonValue) string {
	if v.kind != kindArray {
		return "must be an array"
	}
	return ""
}

func isAnything(*jsonValue) string { return "" }

func isNumber(v *jsonValue) string {
	if v.kind != kindNumber {
		return "must be a number"
	}
	return ""
}

func isNonNegativeInteger(v *jsonValue) string {
	if v.kind == kindNumber {
		f, err := v.num.Float64()
		if err == nil && f >= 0 && f == math.Trunc(f) {
			return ""
		}
	}
	return "must be a non-negative integer"
}

func isPositiveNumber(v *jsonValue) string {
	if v.kind == kindNumber {
		f, err := v.num.Float64()
		if err == nil && f > 0 {
			return ""
		}
	}
	return "must be a number greater than 0"
}

// annotations are allowed, and ignored except description, on every schema.
var annotations = map[string]keywordCheck{
	"description": isString,
	"title":       isString,
	"$schema":     isString,
	"$id":         isString,
	"$comment":    isString,
	"examples":    isArray,
	"default":     isAnything,
	"deprecated":  isBool,
	"readOnly":    isBool,
	"writeOnly":   isBool,
}

// validationKeyword is a keyword that narrows values without changing their
// TypeScript type; host-side validation enforces it.
type validationKeyword struct {
	check keywordCheck
	types string // the schema types it applies to, for messages
}

var validationKeywords = map[string]validationKeyword{
	"minLength":        {isNonNegativeInteger, "string"},
	"maxLength":        {isNonNegativeInteger, "string"},
	"pattern":          {isString, "string"},
	"format":           {isString, "string"},
	"minimum":          {isNumber, "number and integer"},
	"maximum":          {isNumber, "number and integer"},
	"exclusiveMinimum": {isNumber, "number and integer"},
	"exclusiveMaximum": {isNumber, "number and integer"},
	"multipleOf":       {isPositiveNumber, "number and integer"},
	"minItems":         {isNonNegativeInteger, "array"},
	"maxItems":         {isNonNegativeInteger, "array"},
	"uniqueItems":      {isBool, "array"},
	// propertyNames narrows a map's keys (a Go map[int]T's are decimal
	// integers); the keys stay strings in TypeScript.
	"propertyNames": {isSchemaObject, "object"},
	// Bytes cross the tool boundary as base64 strings (JSON Schema
	// Validation draft 2020-12, section 8, "A Vocabulary for the Contents
	// of String-Encoded Data"): the one content encoding accepted.
	"contentEncoding":  {isBase64, "string"},
	"contentMediaType": {isString, "string"},
}

func isSchemaObject(v *jsonValue) string {
	if v.kind != kindObject {
		return "must be a schema object"
	}
	return ""
}

func isBase64(v *jsonValue) string {
	if v.kind != kindString || v.str != "base64" {
		return `must be "base64": bytes cross the tool boundary as base64 strings, the only content encoding supported`
	}
	return ""
}

func keywordSet(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// formKeywords lists, for each form a schema can take, the keywords beyond
// the annotations that it accepts.
var formKeywords = map[string]map[string]bool{
	"object":  keywordSet("type", "properties", "required", "additionalProperties", "propertyNames"),
	"array":   keywordSet("type", "items", "minItems", "maxItems", "uniqueItems"),
	"string":  keywordSet("type", "const", "enum", "minLength", "maxLength", "pattern", "format", "contentEncoding", "contentMediaType"),
	"number":  keywordSet("type", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"),
	"integer": keywordSet("type", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"),
	"boolean": keywordSet("type"),
	"null":    keywordSet("type"),
	"anyOf":   keywordSet("anyOf"),
	"oneOf":   keywordSet("oneOf"),
	"const":   keywordSet("const"),
	"enum":    keywordSet("enum"),
	"$ref":    keywordSet("$ref"),
	"unknown": keywordSet(),
}

// compileSchema parses and checks one schema. Errors carry pointers that
// start with "#"; callers add a prefix.
func compileSchema(data []byte) (*tsType, *jsonValue, error) {
	return compileSchemaIn(data, nil)
}

// compileSchemaIn is compileSchema for a schema whose root $defs are named
// types of defs (see defsState.addStrict): a $ref to one prints its name.
// With defs nil, a $ref is an error.
// compileToolSchema is compileSchemaIn for a tool's input or output
// schema: a root that is a named type of the namespace the tool's name
// names is that type (defsState.alias).
func compileToolSchema(data []byte, defs *defsState, tool string) (*tsType, error) {
	root, err := parseJSON(data)
	if err != nil {
		return nil, err
	}
	if t := defs.alias(root, tool); t != nil {
		return t, nil
	}
	c := &strictCompiler{root: root, defs: defs}
	return c.compile(root, "#", 0)
}

func compileSchemaIn(data []byte, defs *defsState) (*tsType, *jsonValue, error) {
	root, err := parseJSON(data)
	if err != nil {
		return nil, nil, err
	}
	c := &strictCompiler{root: root, defs: defs}
	t, err := c.compile(root, "#", 0)
	if err != nil {
		return nil, nil, err
	}
	return t, root, nil
}

// strictCompiler compiles one strict schema document.
type strictCompiler struct {
	// root is the document: its $defs member is allowed there alone, and
	// holds the definitions a $ref names ("#/$defs/<key>").
	root *jsonValue
	// defs, when not nil, declares the root's $defs as named types (the
	// namespace's or the program input's); nil refuses $ref.
	defs *defsState
}

// description returns a schema's description annotation, or "".
func description(v *jsonValue) string {
	if v.kind != kindObject {
		return ""
	}
	if d := v.get("description"); d != nil && d.kind == kindString {
		return d.str
	}
	return ""
}

// propertyTags are the JSDoc tags printed after a property's description
// that say what the property's TypeScript type cannot, so that the agent
// sends a value the tool's schema accepts the first time: what a string
// holds ("@format <name>": a Go time.Time is "@format date-time", RFC 3339
// section 5.6; "@pattern", "@minLength", "@maxLength"; for base64-encoded
// bytes "@contentEncoding base64" and "@contentMediaType <type>"), the
// bounds of a number ("@minimum", "@exclusiveMinimum", "@maximum",
// "@exclusiveMaximum", "@multipleOf"; OpenAPI 3.0's boolean
// exclusiveMinimum turns "@minimum x" into "@exclusiveMinimum x") and of
// an array ("@minItems", "@maxItems", "@uniqueItems"), and a scalar
// "@default" (what the tool assumes when the property is left out), the
// tag names and values of JSON Schema 2020-12 (Validation, sections 6 to 9:
// https://json-schema.org/draft/2020-12/json-schema-validation) as
// json-schema-to-typescript prints them. The tags are read from the
// property's schema, or from its non-null branch when it is T | null (a Go
// pointer); a value is printed on one line, made safe as a description is
// (jsdocLines), so that it adds no tag of its own, and a tag whose value
// is longer than maxTagValue characters (a long pattern) is left out
// rather than cut.
func propertyTags(v *jsonValue) []string {
	if v.kind != kindObject {
		return nil
	}
	if b := nonNullBranch(v); b != nil {
		v = b
	}
	var tags []string
	add := func(name, value string) {
		line := strings.Join(jsdocLines(value), " ")
		if len(line) <= maxTagValue {
			tags = append(tags, strings.TrimSpace("@"+name+" "+line))
		}
	}
	for _, k := range []string{"format", "pattern"} {
		if c := v.get(k); c != nil && c.kind == kindString {
			add(k, c.str)
		}
	}
	for _, k := range []string{"minLength", "maxLength", "minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum", "multipleOf", "minItems", "maxItems"} {
		c := v.get(k)
		if c == nil || c.kind != kindNumber {
			continue
		}
		if (k == "minimum" || k == "maximum") && c.num.String() != "" && unboundedNumber(c.num) {
			continue
		}
		name := k
		if ex := v.get("exclusive" + strings.ToUpper(k[:1]) + k[1:]); (k == "minimum" || k == "maximum") && ex != nil && ex.kind == kindBool && ex.b {
			name = "exclusive" + strings.ToUpper(k[:1]) + k[1:] // OpenAPI 3.0: exclusiveMinimum: true beside minimum
		}
		add(name, c.num.String())
	}
	if c := v.get("uniqueItems"); c != nil && c.kind == kindBool && c.b {
		tags = append(tags, "@uniqueItems")
	}
	for _, k := range []string{"contentEncoding", "contentMediaType"} {
		if c := v.get(k); c != nil && c.kind == kindString {
			add(k, c.str)
		}
	}
	if d := v.get("default"); d != nil {
		switch d.kind {
		case kindString:
			add("default", quote(d.str))
		case kindNumber:
			add("default", d.num.String())
		case kindBool:
			add("default", strconv.FormatBool(d.b))
		}
	}
	return tags
}

// unboundedNumber reports whether a bound says nothing a number's type
// does not: one at or past ±(2^53 - 1), JavaScript's largest safe integer,
// as zod's int() writes for every integer (minimum -9007199254740991,
// maximum 9007199254740991).
func unboundedNumber(n json.Number) bool {
	f, err := n.Float64()
	return err == nil && math.Abs(f) >= 1<<53-1
}

// maxTagValue bounds the value of a tag propertyTags prints, in bytes.
const maxTagValue = 120

// nonNullBranch returns T of a schema that is anyOf or oneOf [T, null] (in
// either order), or nil.
func nonNullBranch(v *jsonValue) *jsonValue {
	for _, k := range []string{"anyOf", "oneOf"} {
		u := v.get(k)
		if u == nil || u.kind != kindArray || len(u.arr) != 2 {
			continue
		}
		for i, m := range u.arr {
			if t := m.get("type"); m.kind == kindObject && t != nil && t.kind == kindString && t.str == "null" {
				if other := u.arr[1-i]; other.kind == kindObject {
					return other
				}
			}
		}
	}
	return nil
}

func (c *strictCompiler) compile(v *jsonValue, ptr string, depth int) (*tsType, error) {
	if depth > maxSchemaDepth {
		return nil, schemaErr(ptr, "", "schemas nested deeper than %d levels", maxSchemaDepth)
	}
	switch v.kind {
	case kindObject:
	case kindBool:
		return nil, schemaErr(ptr, strconv.FormatBool(v.b), "boolean schemas are not supported in strict declarations")
	default:
		return nil, schemaErr(ptr, "", "schema must be a JSON object")
	}

	form, err := schemaForm(v, ptr)
	if err != nil {
		return nil, err
	}
	allowed := formKeywords[form]
	for _, m := range v.obj {
		if m.key == "$defs" && v == c.root {
			if m.value.kind != kindObject {
				return nil, schemaErr(ptr, "$defs", "must be an object of schemas")
			}
			continue // the named types, compiled where a $ref names them
		}
		if check, ok := annotations[m.key]; ok {
			if problem := check(m.value); problem != "" {
				return nil, schemaErr(ptr, m.key, "%s", problem)
			}
			continue
		}
		vk, isValidation := validationKeywords[m.key]
		if allowed[m.key] {
			if isValidation {
				if problem := vk.check(m.value); problem != "" {
					return nil, schemaErr(ptr, m.key, "%s", problem)
				}
			}
			continue
		}
		switch {
		case form == "$ref":
			return nil, schemaErr(ptr, m.key, "cannot be combined with $ref (annotations can)")
		case isValidation:
			return nil, schemaErr(ptr, m.key, "applies to %s schemas, not %s", vk.types, formName(form))
		case m.key == "anyOf" || m.key == "oneOf" || m.key == "const" || m.key == "enum":
			return nil, schemaErr(ptr, m.key, "cannot be combined with %s", formName(form))
		}
		return nil, schemaErr(ptr, m.key, "not supported in strict declarations")
	}

	switch form {
	case "object":
		return c.compileObject(v, ptr, depth)
	case "array":
		return c.compileArray(v, ptr, depth)
	case "string":
		cv, e := v.get("const"), v.get("enum")
		switch {
		case cv != nil && e != nil:
			return nil, schemaErr(ptr, "enum", "cannot be combined with const")
		case cv != nil:
			return compileConst(cv, ptr)
		case e != nil:
			return compileEnum(e, ptr)
		}
		return typeString, nil
	case "number", "integer":
		return typeNumber, nil
	case "boolean":
		return typeBoolean, nil
	case "null":
		return typeNull, nil
	case "anyOf", "oneOf":
		return c.compileUnion(v, form, ptr, depth)
	case "const":
		return compileConst(v.get("const"), ptr)
	case "enum":
		return compileEnum(v.get("enum"), ptr)
	case "$ref":
		return c.compileRef(v.get("$ref"), ptr)
	case "unknown":
		return typeUnknown, nil
	}
	panic("typegen: unreachable schema form " + form)
}

// schemaForm decides which form a schema takes: a type name, or "anyOf",
// "oneOf", "const", "enum", "$ref" or "unknown" (annotations alone) for a
// schema without type.
func schemaForm(v *jsonValue, ptr string) (string, error) {
	if v.get("$ref") != nil {
		return "$ref", nil
	}
	if t := v.get("type"); t != nil {
		switch t.kind {
		case kindString:
		case kindArray:
			return "", schemaErr(ptr, "type", "type arrays are not supported in strict declarations")
		default:
			return "", schemaErr(ptr, "type", "must be a string")
		}
		switch t.str {
		case "object", "array", "string", "number", "integer", "boolean", "null":
			return t.str, nil
		}
		return "", schemaErr(ptr, "type", "unknown type %q", t.str)
	}
	anyOf, oneOf := v.get("anyOf"), v.get("oneOf")
	switch {
	case anyOf != nil && oneOf != nil:
		return "", schemaErr(ptr, "oneOf", "cannot be combined with anyOf")
	case anyOf != nil:
		return "anyOf", nil
	case oneOf != nil:
		return "oneOf", nil
	}
	c, e := v.get("const"), v.get("enum")
	switch {
	case c != nil && e != nil:
		return "", schemaErr(ptr, "enum", "cannot be combined with const")
	case c != nil:
		return "const", nil
	case e != nil:
		return "enum", nil
	}
	// Without type, name the first keyword that cannot stand alone, so that
	// {"$ref": ...} or {"allOf": ...} reports $ref or allOf.
	for _, m := range v.obj {
		if _, ok := annotations[m.key]; ok || m.key == "$defs" {
			continue
		}
		if vk, ok := validationKeywords[m.key]; ok {
			return "", schemaErr(ptr, m.key, "applies to %s schemas, and this schema has no type", vk.types)
		}
		if formKeywords["object"][m.key] || formKeywords["array"][m.key] {
			break // properties, items and the like: the missing type is the problem
		}
		return "", schemaErr(ptr, m.key, "not supported in strict declarations")
	}
	for _, m := range v.obj {
		if _, ok := annotations[m.key]; !ok && m.key != "$defs" {
			return "", schemaErr(ptr, "type", "missing; strict declarations need type, a string const, a string enum, a discriminated anyOf/oneOf, a $ref, or annotations alone (any JSON value)")
		}
	}
	// Annotations alone (or {}): every JSON value passes.
	return "unknown", nil
}

func formName(form string) string {
	return form + " schemas"
}

func (c *strictCompiler) compileObject(v *jsonValue, ptr string, depth int) (*tsType, error) {
	ap := v.get("additionalProperties")
	if ap == nil {
		return nil, schemaErr(ptr, "additionalProperties", "missing; strict declarations need closed objects with additionalProperties: false, or a map's value schema")
	}
	obj := &tsType{kind: tsObject}
	pv := v.get("properties")
	switch {
	case ap.kind == kindObject:
		// A map: Record<string, V>. Beside properties, TypeScript would
		// need every property's type to fit the index type, which the
		// schema does not promise.
		if pv != nil && (pv.kind != kindObject || len(pv.obj) > 0) {
			return nil, schemaErr(ptr, "additionalProperties", "a schema here needs an object without properties (a map); strict declarations need closed objects otherwise")
		}
		index, err := c.compile(ap, childPointer(ptr, "additionalProperties"), depth+1)
		if err != nil {
			return nil, err
		}
		obj.index = index
	case ap.kind != kindBool || ap.b:
		return nil, schemaErr(ptr, "additionalProperties", "must be false or a schema; strict declarations need closed objects or maps")
	}
	if pv != nil {
		if pv.kind != kindObject {
			return nil, schemaErr(ptr, "properties", "must be an object")
		}
		propsPtr := childPointer(ptr, "properties")
		for _, m := range pv.obj {
			t, err := c.compile(m.value, childPointer(propsPtr, m.key), depth+1)
			if err != nil {
				return nil, err
			}
			obj.props = append(obj.props, tsProp{
				name:        m.key,
				optional:    true,
				description: description(m.value),
				tags:        propertyTags(m.value),
				typ:         t,
			})
		}
	}

	if rv := v.get("required"); rv != nil {
		if rv.kind != kindArray {
			return nil, schemaErr(ptr, "required", "must be an array of property names")
		}
		seen := make(map[string]bool, len(rv.arr))
		for _, n := range rv.arr {
			if n.kind != kindString {
				return nil, schemaErr(ptr, "required", "must be an array of property names")
			}
			if seen[n.str] {
				return nil, schemaErr(ptr, "required", "names %q twice", n.str)
			}
			seen[n.str] = true
			found := false
			for i := range obj.props {
				if obj.props[i].name == n.str {
					obj.props[i].optional = false
					found = true
					break
				}
			}
			if !found {
				return nil, schemaErr(ptr, "required", "names %q, which is not in properties", n.str)
			}
		}
	}
	return obj, nil
}

func (c *strictCompiler) compileArray(v *jsonValue, ptr string, depth int) (*tsType, error) {
	items := v.get("items")
	if items == nil {
		return nil, schemaErr(ptr, "items", "missing; arrays need an items schema")
	}
	if items.kind == kindArray {
		return nil, schemaErr(ptr, "items", "must be a single schema; tuples are not supported")
	}
	elem, err := c.compile(items, childPointer(ptr, "items"), depth+1)
	if err != nil {
		return nil, err
	}
	return &tsType{kind: tsArray, elem: elem}, nil
}

func compileConst(c *jsonValue, ptr string) (*tsType, error) {
	if c.kind != kindString {
		return nil, schemaErr(ptr, "const", "only string values are supported")
	}
	return &tsType{kind: tsLiteral, name: c.str}, nil
}

func compileEnum(e *jsonValue, ptr string) (*tsType, error) {
	if e.kind != kindArray || len(e.arr) == 0 {
		return nil, schemaErr(ptr, "enum", "must be a non-empty array of strings")
	}
	u := &tsType{kind: tsUnion}
	seen := make(map[string]bool, len(e.arr))
	for _, m := range e.arr {
		if m.kind != kindString {
			return nil, schemaErr(ptr, "enum", "only string values are supported")
		}
		if seen[m.str] {
			return nil, schemaErr(ptr, "enum", "lists %q twice", m.str)
		}
		seen[m.str] = true
		u.members = append(u.members, &tsType{kind: tsLiteral, name: m.str})
	}
	// A one-value enum stays a union of one, which prints as the bare
	// literal but is not a const, so it cannot discriminate an anyOf.
	return u, nil
}

// compileUnion accepts the two compositions the strict printer allows: a
// schema and {"type":"null"} (T | null, a Go pointer), and at least two
// closed object branches sharing a property that every branch requires with
// a distinct string const. The distinct values make the branches mutually
// exclusive, so a TypeScript union is exact for oneOf as well as anyOf.
func (c *strictCompiler) compileUnion(v *jsonValue, keyword, ptr string, depth int) (*tsType, error) {
	list := v.get(keyword)
	if list.kind != kindArray {
		return nil, schemaErr(ptr, keyword, "must be an array of schemas")
	}
	if len(list.arr) < 2 {
		return nil, schemaErr(ptr, keyword, "needs at least two branches")
	}
	listPtr := childPointer(ptr, keyword)
	u := &tsType{kind: tsUnion}
	for i, b := range list.arr {
		t, err := c.compile(b, childPointer(listPtr, strconv.Itoa(i)), depth+1)
		if err != nil {
			return nil, err
		}
		u.members = append(u.members, t)
	}
	// A schema or null, as a Go pointer is: T | null.
	if len(u.members) == 2 && (u.members[0] == typeNull) != (u.members[1] == typeNull) {
		if u.members[0] == typeNull {
			u.members[0], u.members[1] = u.members[1], typeNull
		}
		if u.members[0].kind == tsUnion {
			u.members = append(slices.Clone(u.members[0].members), typeNull)
		}
		return u, nil
	}
	for i, t := range u.members {
		if t.kind != tsObject {
			return nil, schemaErr(childPointer(listPtr, strconv.Itoa(i)), "type", "%s branches must be closed object schemas (or two branches, one of them {\"type\":\"null\"})", keyword)
		}
	}
	if discriminator(u.members) == "" {
		return nil, schemaErr(ptr, keyword, "branches must share a property that each requires with a distinct string const")
	}
	return u, nil
}

// discriminator returns the first property of the first branch that every
// branch requires with a string const, distinct across branches, or "".
func discriminator(branches []*tsType) string {
	for _, p := range branches[0].props {
		if p.optional || p.typ.kind != tsLiteral {
			continue
		}
		values := make(map[string]bool, len(branches))
		ok := true
		for _, b := range branches {
			q := findProp(b, p.name)
			if q == nil || q.optional || q.typ.kind != tsLiteral || values[q.typ.name] {
				ok = false
				break
			}
			values[q.typ.name] = true
		}
		if ok {
			return p.name
		}
	}
	return ""
}

func findProp(obj *tsType, name string) *tsProp {
	for i := range obj.props {
		if obj.props[i].name == name {
			return &obj.props[i]
		}
	}
	return nil
}

// compileRef compiles a $ref, which in strict declarations names a member
// of the document's root $defs ("#/$defs/<key>", the key escaped as an RFC
// 6901 token and optionally percent-encoded): the named type it declares.
func (c *strictCompiler) compileRef(ref *jsonValue, ptr string) (*tsType, error) {
	if ref.kind != kindString {
		return nil, schemaErr(ptr, "$ref", "must be a string")
	}
	frag, err := url.PathUnescape(strings.TrimPrefix(ref.str, "#"))
	token, ok := strings.CutPrefix(frag, "/$defs/")
	if err != nil || !strings.HasPrefix(ref.str, "#") || !ok || strings.Contains(token, "/") {
		return nil, schemaErr(ptr, "$ref", "%q is not a reference to the root $defs (#/$defs/<name>), the one form strict declarations support", ref.str)
	}
	key := jsonpointer.Unescape(token)
	if defs := c.root.get("$defs"); defs == nil || defs.kind != kindObject || defs.get(key) == nil {
		return nil, schemaErr(ptr, "$ref", "%q names no member of the root $defs", ref.str)
	}
	if c.defs == nil {
		return nil, schemaErr(ptr, "$ref", "named types are declared only in a surface's declarations (Declarations), not in one type")
	}
	t := c.defs.named(strictKey(key))
	if t == nil {
		return nil, schemaErr(ptr, "$ref", "%q is not declared in this namespace", ref.str)
	}
	return t, nil
}
