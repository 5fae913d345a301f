package typegen

import (
	"encoding/json"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/codemode-go/codemode/internal/termtext"
)

// Type renders the TypeScript type of one JSON Schema (draft 2020-12) in the
// strict mode of https://github.com/torkbot/code-mode#schemas-tools-and-checking.
//
//	t, err := typegen.Type(json.RawMessage(`{"type":"array","items":{"type":"string"}}`))
//	// t == "string[]"
//
// Shapes:
//   - type "object" with additionalProperties: false, optional properties and
//     required: a multi-line object literal type, two spaces per level,
//     properties in JSON text order, `name?: T` when not required, names that
//     are not identifiers JSON-quoted, descriptions as JSDoc; no properties
//     prints Record<string, never>.
//   - type "array" with items: T[], or (A | B)[] when T is a union.
//   - type "string": string; with a string const: the JSON-quoted literal; with
//     an enum of strings: a union of literals. A string const or enum may also
//     stand alone without type.
//   - type "number" and "integer": number; "boolean": boolean; "null": null.
//   - anyOf or oneOf of at least two closed objects that all require one
//     property with a distinct string const: A | B.
//   - anyOf or oneOf of a schema and {"type":"null"}: T | null (a Go
//     pointer).
//   - type "object" with additionalProperties a schema V and no
//     properties: Record<string, V> (a map; propertyNames may narrow the
//     keys).
//   - a schema of annotations alone, such as {}: unknown (any JSON value).
//   - $ref "#/$defs/<name>": the named type that the root $defs declare,
//     qualified by its namespace; only [Declarations] and the functions
//     printing a namespace declare them (see [Definitions]), so Type
//     rejects a $ref.
//
// # Notes
//   - Annotations (description, title, $schema, $id, $comment, examples,
//     default, deprecated, readOnly, writeOnly) are allowed anywhere.
//   - minLength, maxLength, pattern and format on strings; minimum, maximum,
//     exclusiveMinimum, exclusiveMaximum and multipleOf on numbers and
//     integers; minItems, maxItems and uniqueItems on arrays are accepted and
//     do not change the type. On another type they are an error.
//   - Every other keyword, a missing or true additionalProperties, a schema
//     additionalProperties beside properties, $defs other than the root's,
//     type arrays, boolean schemas, non-string const or enum values, other anyOf or
//     oneOf shapes, duplicate JSON keys, invalid JSON and nesting deeper than
//     64 schemas fail with a *[SchemaError] whose Pointer starts at "#".
func Type(schema json.RawMessage) (string, error) {
	t, _, err := compileSchema(schema)
	if err != nil {
		return "", err
	}
	return printer{}.typeString(t, 0), nil
}

// printer prints compiled types. readonly marks every object property
// readonly; the contract uses it only for the program input declaration.
type printer struct {
	readonly bool
	// compact prints object types on one line without descriptions.
	compact bool
}

func (p printer) typeString(t *tsType, indent int) string {
	var b strings.Builder
	p.writeType(&b, t, indent)
	return b.String()
}

// writeType writes t as if it started at a line indented by indent levels;
// continuation lines carry their own indentation.
func (p printer) writeType(b *strings.Builder, t *tsType, indent int) {
	switch t.kind {
	case tsPrimitive, tsRef:
		b.WriteString(t.name)
	case tsLiteral:
		b.WriteString(quote(t.name))
	case tsUnion:
		for i, m := range t.members {
			if i > 0 {
				b.WriteString(" | ")
			}
			p.writeType(b, m, indent)
		}
	case tsIntersection:
		for i, m := range t.members {
			if i > 0 {
				b.WriteString(" & ")
			}
			p.writeOperand(b, m, indent)
		}
	case tsArray:
		p.writeOperand(b, t.elem, indent)
		b.WriteString("[]")
	case tsTuple:
		b.WriteByte('[')
		for i, m := range t.members {
			if i > 0 {
				b.WriteString(", ")
			}
			if i < t.required {
				p.writeType(b, m, indent)
			} else {
				p.writeOperand(b, m, indent)
				b.WriteByte('?')
			}
		}
		if t.elem != nil {
			if len(t.members) > 0 {
				b.WriteString(", ")
			}
			b.WriteString("...")
			p.writeOperand(b, t.elem, indent)
			b.WriteString("[]")
		}
		b.WriteByte(']')
	case tsObject:
		if len(t.props) == 0 {
			if t.index == nil {
				b.WriteString("Record<string, never>")
				return
			}
			b.WriteString("Record<string, ")
			p.writeType(b, t.index, indent)
			b.WriteByte('>')
			return
		}
		p.writeObject(b, t, indent)
	}
}

// writeObject writes an object type as a braced literal, compactly when
// the printer is compact, even when it has no properties (an interface's
// body).
func (p printer) writeObject(b *strings.Builder, t *tsType, indent int) {
	if p.compact {
		p.writeCompactObject(b, t)
		return
	}
	b.WriteString("{\n")
	for _, prop := range t.props {
		writeJSDocLines(b, append(jsdocLines(prop.description), prop.tags...), indent+1)
		writeIndent(b, indent+1)
		if p.readonly {
			b.WriteString("readonly ")
		}
		b.WriteString(propertyName(prop.name))
		if prop.optional {
			b.WriteByte('?')
		}
		b.WriteString(": ")
		p.writeType(b, prop.typ, indent+1)
		b.WriteString(";\n")
	}
	if t.index != nil {
		writeIndent(b, indent+1)
		b.WriteString("[key: string]: ")
		p.writeType(b, t.index, indent+1)
		b.WriteString(";\n")
	}
	writeIndent(b, indent)
	b.WriteByte('}')
}

// writeCompactObject writes an object type with properties on one line:
// `{ a: T; b?: U; [key: string]: V }`.
func (p printer) writeCompactObject(b *strings.Builder, t *tsType) {
	b.WriteString("{ ")
	for _, prop := range t.props {
		if p.readonly {
			b.WriteString("readonly ")
		}
		b.WriteString(propertyName(prop.name))
		if prop.optional {
			b.WriteByte('?')
		}
		b.WriteString(": ")
		p.writeType(b, prop.typ, 0)
		b.WriteString("; ")
	}
	if t.index != nil {
		b.WriteString("[key: string]: ")
		p.writeType(b, t.index, 0)
		b.WriteString("; ")
	}
	b.WriteByte('}')
}

// writeOperand writes t where a union or intersection must be
// parenthesised: as an array element, an intersection member, or an
// optional tuple element.
func (p printer) writeOperand(b *strings.Builder, t *tsType, indent int) {
	if (t.kind == tsUnion || t.kind == tsIntersection) && len(t.members) > 1 {
		b.WriteByte('(')
		p.writeType(b, t, indent)
		b.WriteByte(')')
		return
	}
	p.writeType(b, t, indent)
}

func writeIndent(b *strings.Builder, indent int) {
	for range indent {
		b.WriteString("  ")
	}
}

// writeJSDoc writes text as a JSDoc comment on its own lines at indent,
// or nothing when text is blank, as jsdocLines makes it safe: a
// multi-line text becomes " * line" lines.
func writeJSDoc(b *strings.Builder, text string, indent int) {
	writeJSDocLines(b, jsdocLines(text), indent)
}

// writeJSDocLines writes lines, already safe, as a JSDoc comment at
// indent, or nothing when there are none.
func writeJSDocLines(b *strings.Builder, lines []string, indent int) {
	if len(lines) == 0 {
		return
	}
	writeIndent(b, indent)
	if len(lines) == 1 {
		b.WriteString("/** ")
		b.WriteString(lines[0])
		b.WriteString(" */\n")
		return
	}
	b.WriteString("/**\n")
	for _, l := range lines {
		writeIndent(b, indent)
		if l == "" {
			b.WriteString(" *\n")
			continue
		}
		b.WriteString(" * ")
		b.WriteString(l)
		b.WriteByte('\n')
	}
	writeIndent(b, indent)
	b.WriteString(" */\n")
}

// lineBreaks are the line terminators of ECMAScript (2024 §12.3): each
// ends a comment line.
var lineBreaks = strings.NewReplacer("\r\n", "\n", "\r", "\n", "\u2028", "\n", "\u2029", "\n")

// jsdocLines is a description as the lines of a JSDoc comment, nil when it
// is blank. Descriptions come from MCP servers, OpenAPI documents and tools
// files: line terminators become line breaks; every other control
// character (C0, DEL, C1, ESC of a terminal sequence, bidirectional
// overrides and isolates, invisible characters: termtext.IsControl)
// becomes a visible \xNN or \uNNNN, so that the declarations show a
// reader, a model and an editor the same text, and invalid UTF-8 becomes
// U+FFFD; then "*/" is escaped as "*\/", so that the text cannot end the
// comment (after the escaping, so that no removed character can join a
// "*" and a "/"), and an "@" that would start a JSDoc tag as "\@"
// (escapeTags), so that the tags a reader sees are the host's own.
func jsdocLines(text string) []string {
	text = strings.TrimSpace(lineBreaks.Replace(text))
	if text == "" {
		return nil
	}
	text = strings.ReplaceAll(termtext.Escape(text), "*/", `*\/`)
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = escapeTags(strings.TrimRightFunc(l, unicode.IsSpace))
	}
	return lines
}

// escapeTags escapes as "\@" each "@" of a comment line that TypeScript
// would read as the start of a block tag: one at the line's start or after
// white space, before a name (tsc takes "/** x @type {number} */" as a
// type). An "@" inside a word (a@b.example) or before no name is left.
func escapeTags(line string) string {
	if !strings.Contains(line, "@") {
		return line
	}
	var b strings.Builder
	prev := ' '
	for i, r := range line {
		if r == '@' && unicode.IsSpace(prev) {
			next, _ := utf8.DecodeRuneInString(line[i+1:])
			if unicode.IsLetter(next) || next == '_' || next == '$' {
				b.WriteByte('\\')
			}
		}
		b.WriteRune(r)
		prev = r
	}
	return b.String()
}

// quote is termtext.Quote: s as a JSON string literal with the characters
// that hide or reorder text escaped.
func quote(s string) string { return termtext.Quote(s) }

// propertyName prints a property name bare when it is an ASCII identifier
// and JSON-quoted otherwise; quoting is always valid, so non-ASCII names are
// quoted rather than trusting one Unicode table to match TypeScript's.
func propertyName(name string) string {
	if isASCIIIdentifier(name) {
		return name
	}
	return quote(name)
}

func isASCIIIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_' || c == '$' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z'):
		case '0' <= c && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// isIdentifier reports whether s is a JavaScript identifier name, using
// Unicode letters and digits as an approximation of ID_Start and ID_Continue
// that never accepts a non-identifier.
func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_' || r == '$' || unicode.IsLetter(r) || unicode.Is(unicode.Nl, r):
		case i > 0 && (unicode.IsDigit(r) || unicode.In(r, unicode.Mn, unicode.Mc, unicode.Pc) || r == '\u200c' || r == '\u200d'):
		default:
			return false
		}
	}
	return true
}
