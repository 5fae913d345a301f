// Package contract holds the program contract of code mode
// (https://github.com/torkbot/code-mode#program-contract): the tools a program may call, each with a name, a
// non-empty description, input and output JSON Schemas and a handler, and,
// for an input-bearing contract, the schema of the program's input. The two
// forms are explicit: [New] builds an inputless contract and
// [Contract.WithInput] an input-bearing copy of it; there is no optional
// fallback between them.
//
// Schemas come from Go types ([SchemaFor], [NewTool]) or from raw JSON
// Schema ([NewSchema], [NewRawTool]). Every value crossing the host boundary
// (program input, tool input, tool output) is validated with
// github.com/santhosh-tekuri/jsonschema/v6 and, for typed tools, decoded into
// the handler's Go types.
//
// # Go types
//
// A typed tool takes the types Go programs already have: any type that
// encoding/json encodes has a schema saying what it sends, reflected by the
// rules of encoding/json (embedded structs, omitempty, omitzero, the string
// option, MarshalJSON and MarshalText) into github.com/invopop/jsonschema
// values, whose hooks and tags apply (below). The declarations the program
// sees say the same: a recursive type, and every struct within a tool's
// own type, is a named declaration in the namespace's types
// (CodemodeTypes.Issue), declared once however many tools use it; a map is
// Record<string, V>; an interface or json.RawMessage is unknown (validated
// only as JSON); time.Time is a date-time string (declared with the JSDoc
// tag @format date-time); []byte a base64 string. One rule makes Go's
// zero values valid, for input and output alike: a nil slice is sent as
// [], a nil map as {} and a nil []byte as "", as their
// schemas say, while a pointer field without omitempty or omitzero (and a
// pointer element of an array) is declared T | null, null being Go's nil,
// and so is a tool's output of pointer type (nil for "not found"). A
// pointer slice element or map value is declared T; a handler that puts a
// nil one there has a bug, which fails the call (see [NewTool]). [StrictSchemas] keeps closed, inlined, null-free
// schemas for embedders who want them. One exception makes TypeScript's
// undefined valid where the declaration admits it: a struct member declared
// unknown (an interface or json.RawMessage field without omitempty) is
// declared required, as Go always writes it, but a tool's input may leave
// it out, since a program may pass undefined there, which JSON.stringify
// leaves out, and encoding/json then leaves the field nil, as null does.
//
// A tool's input is also decoded into its Go type before the handler runs
// (by [Tool.CheckInput]), and a value the type refuses although the
// schema accepts it (a time.Time that is not an RFC 3339 date-time, a
// type's own UnmarshalText or UnmarshalJSON failing, an int64 beyond its
// range) fails as a schema failure does, a *ValidationError line naming
// its JSON pointer, in the same error as the schema's own failures:
//
//	/node/due: got "2026-01-01", want an RFC 3339 date-time such as "2026-01-02T15:04:05Z" or "2026-01-02T15:04:05.5+01:00" (cannot parse "" as "T")
//
// The validator does not assert "format" (JSON Schema Validation draft
// 2020-12, section 7.2.1: off by default), so a foreign tool's formats
// stay annotations; nor would "date-time" be exact for time.Time, which
// refuses a lower-case "t" or "z" and a leap second that RFC 3339 section
// 5.6 allows.
//
// # const and discriminated unions from Go types
//
// invopop/jsonschema silently drops a `const=` struct tag. Declare a const or
// a discriminated union by giving the type a JSONSchemaExtend method, which
// the reflector calls with the generated schema:
//
//	type WeatherRequested struct {
//		Type     string `json:"type"`
//		Location string `json:"location"`
//	}
//
//	func (WeatherRequested) JSONSchemaExtend(s *jsonschema.Schema) {
//		p, _ := s.Properties.Get("type")
//		p.Const = "weather.requested"
//		p.Type = "string"
//	}
//
// For a union, return the whole schema from a JSONSchema method instead
// (branches as closed objects sharing a required string-const property), and
// decode it in the type's UnmarshalJSON. The declaration printer (package
// typegen) accepts exactly that narrow form and rejects any other.
//
// # Bytes at the tool boundary
//
// Tool input and output are JSON. A program that passes a Uint8Array,
// ArrayBuffer, Date or any other non-plain object fails the call with a
// TypeError naming the spot ("input.data is not a plain object (Uint8Array)")
// before the host sees it. There is one way to pass bytes: a base64 string
// whose schema is
//
//	{"type": "string", "contentEncoding": "base64", "contentMediaType": "image/png"}
//
// (contentMediaType is optional; JSON Schema Validation draft 2020-12,
// section 8). A Go []byte field reflects to exactly that, and encoding/json
// decodes it, so a typed tool receives the bytes:
//
//	type Upload struct {
//		Name string `json:"name"`
//		Data []byte `json:"data"`
//	}
//
// The declaration is `data: string` with the JSDoc tag
// `@contentEncoding base64` so the agent knows what to send; the host
// rejects text that is not base64 with a ToolValidationError naming the
// property, before the handler runs. typegen refuses any other
// contentEncoding.
//
// # Numbers
//
// A number in a value the host validates (program input, a tool's input,
// a tool's output, with an output schema or without one) must be within
// the range of a double (about ±1.8e308). JSON allows 1e400 (RFC 8259
// section 6) and the validator reads it exactly, so a schema's "integer"
// would pass it, but the program's JSON.parse reads it as Infinity, a
// value the tool did not send; I-JSON (RFC 7493 section 2.2) says not to
// send such numbers. Such a value fails like one that breaks its schema,
// with a *ValidationError line naming the number's pointer:
//
//	/items/2/count: 1e400 is beyond the range of a double (about ±1.8e308); a program would read it as Infinity
//
// A number nearer zero than the smallest double (1e-400) passes: it reads
// as 0, its nearest double, as 0.1 reads as its own.
package contract
