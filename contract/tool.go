package contract

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/codemode-go/codemode/internal/typegen"
)

// Handler runs one tool call: it receives the validated input as JSON text
// and returns the output as JSON text. The context is cancelled when the
// call's execution ends or is cancelled. A returned error rejects the call in
// the program with an Error carrying the error's text.
type Handler func(ctx context.Context, input json.RawMessage) (json.RawMessage, error)

// Tool is one host function a program may call.
type Tool struct {
	name        string
	description string
	input       *Schema
	output      *Schema
	handler     Handler

	// For a foreign tool: the schema texts the declarations are printed from
	// (leniently), and why a schema could not be used for validation.
	foreign               bool
	inputDecl, outputDecl json.RawMessage
	degraded              func() error // compiles the schemas once; nil for other tools

	annotations Annotations
	policy      Policy
	errors      []ToolError
	// upstream is what the handler calls, in its connector's words
	// (Upstream); "" when the name is the tool's identity.
	upstream string

	// accepts, for a typed tool (NewTool), is the schema CheckInput
	// checks input against, which may differ from input, the declared one
	// (see toolOptions.absentUnknown); nil for other tools.
	accepts *Schema
	// decodes, for a typed tool (NewTool), decodes an input into the Go
	// type and lists where the type refuses it (see decodeFailures),
	// none when it decodes; nil for other tools, and for a type that
	// decodes whatever its schema accepts (mayRefuse), which only the
	// handler decodes.
	decodes func(json.RawMessage) []violation
	// typed is set for a tool made by NewTool, whose output schema is its
	// Go type's: an output that breaks it is the handler's bug.
	typed bool
}

// Annotations are a tool's behaviour hints (read-only, destructive,
// idempotent, open-world and a title): MCP's ToolAnnotations (Model Context
// Protocol specification 2025-06-18, Server Features / Tools, "Tool
// annotations", and the ToolAnnotations schema:
// https://modelcontextprotocol.io/specification/2025-06-18/schema#toolannotations).
// An approval policy or a tool-call middleware reads them from
// [Tool.Annotations]; the agent sees them as JSDoc tags of the tool's
// declaration (@readonly, @destructive, @idempotent, @openWorld, with
// "false" after a hint set to false; see typegen.Annotations.Tags). A nil
// hint is unset and MCP's default applies. They are hints: nothing enforces
// them, and hints from an untrusted MCP server must not be trusted.
//
//	yes, no := true, false
//	lookup = lookup.WithAnnotations(contract.Annotations{ReadOnly: &yes, OpenWorld: &no})
type Annotations = typegen.Annotations

// Annotations returns the tool's behaviour hints; the zero value when none
// were given. The hints point to the tool's own copies: do not modify them.
func (t *Tool) Annotations() Annotations { return t.annotations }

// WithAnnotations returns a copy of the tool that carries a (replacing any it
// had): its declaration prints them as JSDoc tags and [Tool.Annotations]
// returns them. The tool itself is unchanged, so a tool shared between
// contracts keeps its own hints.
//
//	del, err := contract.NewTool("deleteFile", "Delete a file.", deleteFile)
//	yes := true
//	del = del.WithAnnotations(contract.Annotations{Destructive: &yes, Idempotent: &yes})
func (t *Tool) WithAnnotations(a Annotations) *Tool {
	clone := func(p *bool) *bool {
		if p == nil {
			return nil
		}
		v := *p
		return &v
	}
	c := *t
	c.annotations = Annotations{Title: a.Title, ReadOnly: clone(a.ReadOnly), Destructive: clone(a.Destructive), Idempotent: clone(a.Idempotent), OpenWorld: clone(a.OpenWorld)}
	return &c
}

// ToolError declares an error a tool's calls may reject with (see
// [Tool.WithErrors]): in programs, an Error named Name whose own properties
// are those Properties describes. A Go handler makes one by returning an
// error whose ErrorName method gives Name and whose ErrorProperties method
// gives the properties (package client's doc).
type ToolError struct {
	// Name is the Error's name in programs: a JavaScript identifier ending
	// in "Error" that is none of JavaScript's own (TypeError, …) or code
	// mode's (ToolValidationError, HTTPError, TimeoutError, …), and holds
	// no character that prints as nothing (a zero-width joiner, a
	// variation selector).
	Name string
	// Description says when a call fails so (not blank).
	Description string
	// Properties is the schema of an object whose properties the Error
	// carries beside name and message, e.g. SchemaFor of a struct; nil for
	// none. A property named name, message, stack, cause or like another
	// member of Error.prototype or Object.prototype is refused.
	Properties *Schema
}

// WithErrors returns a copy of the tool that declares errs (replacing any
// it declared), for the agent: each is printed once in the declarations,
// as an interface extending Error, and the tool's JSDoc names it with
// `@throws {NotFoundError} <its description's first paragraph>`, so that a
// program knows which failures to expect and what they carry:
//
//	props, _ := contract.SchemaFor[struct{ Repo string `json:"repo"` }]()
//	getRepo, err = getRepo.WithErrors(contract.ToolError{Name: "NotFoundError",
//		Description: "The repository does not exist.", Properties: props})
//
// The declarations describe; nothing checks that the handler's errors
// match them. The tool itself is unchanged. It returns an error naming the
// tool and the error for a name or property that the rules of
// [ToolError] refuse, a blank description, or two errors of one name.
// Two tools of a contract may declare the same error only alike ([New]
// fails otherwise).
func (t *Tool) WithErrors(errs ...ToolError) (*Tool, error) {
	seen := make(map[string]bool, len(errs))
	for _, e := range errs {
		if seen[e.Name] {
			return nil, fmt.Errorf("contract: tool %s: error %s is declared twice", t.name, e.Name)
		}
		seen[e.Name] = true
	}
	c := *t
	c.errors = slices.Clone(errs)
	if _, err := typegen.NamespaceDeclarations(typegen.Namespace{Name: DefaultNamespace, Tools: []typegen.ToolDecl{c.decl()}}); err != nil {
		return nil, fmt.Errorf("contract: tool %s: %w", t.name, err)
	}
	return &c, nil
}

// Errors returns the errors the tool declares ([Tool.WithErrors]), in the
// order given; nil when none. Callers must not modify the schemas.
func (t *Tool) Errors() []ToolError { return slices.Clone(t.errors) }

// errorDecls are the tool's errors as the declarations print them.
func (t *Tool) errorDecls() []typegen.ErrorDecl {
	if len(t.errors) == 0 {
		return nil
	}
	decls := make([]typegen.ErrorDecl, len(t.errors))
	for i, e := range t.errors {
		decls[i] = typegen.ErrorDecl{Name: e.Name, Description: e.Description}
		if e.Properties != nil {
			decls[i].Properties = e.Properties.raw
		}
	}
	return decls
}

// Name returns the tool's name, as programs call it.
func (t *Tool) Name() string { return t.name }

// Description returns the tool's description (the JSDoc in declarations).
func (t *Tool) Description() string { return t.description }

// InputDeclaration returns the JSON Schema text the tool's input is
// declared with: its input schema's text, or for a foreign or declared
// tool the text its declaration is printed from (which the host may not
// validate against). Callers must not modify it.
func (t *Tool) InputDeclaration() json.RawMessage {
	if t.foreign {
		return t.inputDecl
	}
	return t.input.raw
}

// OutputDeclaration returns the JSON Schema text the tool's output is
// declared with, as InputDeclaration does the input's: nil when the output
// is declared any (a foreign tool without an output schema). Callers must
// not modify it.
func (t *Tool) OutputDeclaration() json.RawMessage {
	if t.foreign {
		return t.outputDecl
	}
	if t.output == nil {
		return nil
	}
	return t.output.raw
}

// NewTool defines a tool from Go types: the input and output schemas are
// reflected from In and Out (see SchemaFor), the validated input is decoded
// into In, and the handler's Out is encoded and validated before the program
// sees it. An input that the schema accepts and In does not decode (a
// time.Time that is not an RFC 3339 date-time, a netip.Addr that is not an
// address, an int64 beyond its range) fails as one that breaks the schema,
// with a *ValidationError naming each spot's JSON pointer (see
// Tool.CheckInput).
//
//	weather, err := contract.NewTool("getWeather", "Current weather for a city.",
//		func(ctx context.Context, in WeatherInput) (WeatherReport, error) { … })
//
// Any type encoding/json encodes works, and the program is declared what
// Go sends: recursive and shared named types are named declarations
// (CodemodeTypes.Node), a map is Record<string, V>, an interface unknown.
// One rule makes Go's zero values valid, for input and output alike: a nil
// slice is sent as [], a nil map as {}, a nil []byte as "" (what their
// schemas say), while a pointer field without omitempty is declared
// `T | null` and a nil one sent as null, and so is a pointer output (a
// handler may answer nil for "not found"). A pointer element of a slice
// or value of a map is declared T: a handler that puts a nil one there,
// or returns any value its own type's schema refuses or encoding/json
// cannot encode (a NaN, a cycle, a failing MarshalJSON), has a bug, and
// the call fails with a ValidationError of phase "output" naming the JSON
// pointer of each fault (and, for one encoding/json refuses, its Go path
// and type) and saying that the tool's code must change (see
// Tool.CheckOutput), which the client's telemetry reports to the embedder
// (an EventToolCallFailed event) as it rejects the call in the program.
//
// It returns an error for an invalid name, an empty description, a nil
// fn, a type that encoding/json cannot encode (naming its Go path) or a
// schema that the declarations cannot print exactly (one that a
// JSONSchema method or jsonschema tag made), checked in that order. The
// options apply in order (see StrictSchemas).
func NewTool[In, Out any](name, description string, fn func(ctx context.Context, input In) (Out, error), opts ...ToolOption) (*Tool, error) {
	if err := checkHead(name, description); err != nil {
		return nil, err
	}
	if fn == nil {
		// Checked here: the Handler wrapping fn below is never nil.
		return newTool(name, description, nil, nil, nil)
	}
	var o toolOptions
	for _, opt := range opts {
		opt(&o)
	}
	in, _, err := typedSchema[In](o)
	if err != nil {
		return nil, fmt.Errorf("contract: tool %s input: %w", name, err)
	}
	accepts, err := acceptedSchema[In](o, in)
	if err != nil {
		return nil, fmt.Errorf("contract: tool %s input: %w", name, err)
	}
	oo := o
	oo.nullableRoot = true
	out, plan, err := typedSchema[Out](oo)
	if err != nil {
		return nil, fmt.Errorf("contract: tool %s output: %w", name, err)
	}
	decode := func(raw json.RawMessage) (In, []violation) {
		var v In
		if err := json.Unmarshal(raw, &v); err != nil {
			return v, decodeFailures(reflect.TypeFor[In](), raw, err)
		}
		return v, nil
	}
	h := func(ctx context.Context, raw json.RawMessage) (json.RawMessage, error) {
		v, failed := decode(raw)
		if failed != nil {
			return nil, &ValidationError{Tool: name, Phase: "input", Lines: reportLines(failed)}
		}
		res, err := fn(ctx, v)
		if err != nil {
			return nil, err
		}
		// Through a pointer, as encoding/json calls pointer-receiver
		// MarshalJSON methods only on addressable values (SchemaFor
		// declares what they write).
		text, err := json.Marshal(&res)
		if err != nil {
			return nil, encodeFailure(name, reflect.ValueOf(&res).Elem(), err)
		}
		return fill(text, plan), nil
	}
	t, err := newTool(name, description, in, out, h)
	if err != nil {
		return nil, err
	}
	t.accepts, t.typed = accepts, true
	if mayRefuse(reflect.TypeFor[In]()) {
		t.decodes = func(raw json.RawMessage) []violation {
			_, failed := decode(raw)
			return failed
		}
	}
	// A schema the declarations cannot print fails here rather than at
	// contract.New.
	if _, err := typegen.NamespaceDeclarations(typegen.Namespace{Name: DefaultNamespace, Tools: []typegen.ToolDecl{t.decl()}}); err != nil {
		return nil, fmt.Errorf("contract: tool %s: %w (reflected from the Go types %s and %s; a JSONSchema or JSONSchemaExtend method or a jsonschema tag made a schema that strict declarations cannot print: use NewRawTool with a schema of your own)",
			name, err, typeName[In](), typeName[Out]())
	}
	return t, nil
}

// typedSchema reflects T for NewTool: its compiled schema and the fill plan
// of its values.
func typedSchema[T any](o toolOptions) (*Schema, *fillPlan, error) {
	t := reflect.TypeFor[T]()
	raw, plan, err := reflectType(t, o)
	if err != nil {
		return nil, nil, fmt.Errorf("schema of %s: %w", t, err)
	}
	s, err := NewSchema(raw)
	if err != nil {
		return nil, nil, fmt.Errorf("schema of %s: %w", t, err)
	}
	return s, plan, nil
}

// acceptedSchema is the schema a typed tool's input In is checked
// against: declared, its schema, unless a member declared unknown may be
// absent (see toolOptions.absentUnknown).
func acceptedSchema[In any](o toolOptions, declared *Schema) (*Schema, error) {
	o.absentUnknown = true
	t := reflect.TypeFor[In]()
	raw, _, err := reflectType(t, o)
	if err != nil {
		return nil, fmt.Errorf("schema of %s: %w", t, err)
	}
	if bytes.Equal(raw, declared.raw) {
		return declared, nil
	}
	s, err := NewSchema(raw)
	if err != nil {
		return nil, fmt.Errorf("schema of %s: %w", t, err)
	}
	return s, nil
}

// ToolOption changes how NewTool defines a tool.
type ToolOption func(*toolOptions)

type toolOptions struct {
	strict bool
	// nullableRoot declares a pointer type T | null as a whole (a tool's
	// output, which a handler may return nil); set by NewTool, not an
	// option.
	nullableRoot bool
	// absentUnknown reflects the schema a typed tool's input is checked
	// against: a struct member declared unknown (an interface,
	// json.RawMessage) may be absent. TypeScript lets a program pass
	// undefined there, which JSON.stringify leaves out, and encoding/json
	// leaves the field nil, as null does. Declarations keep the member
	// required, as Go writes it: the named types they declare are shared
	// by inputs and outputs. Set by NewTool, not an option.
	absentUnknown bool
}

// StrictSchemas makes NewTool reflect closed schemas without nulls, for an
// embedder whose programs must see only closed objects: every type is
// inlined (no named declarations), a pointer field without omitempty is
// required and not null (a nil one fails output validation), and a map,
// an interface, json.RawMessage, a recursive type and a type that writes
// its own JSON without a JSONSchema method are errors naming their Go
// path. Nil slices and maps are still sent as [] and {}.
func StrictSchemas() ToolOption {
	return func(o *toolOptions) { o.strict = true }
}

// NewRawTool defines a tool from raw JSON Schema texts and a handler of JSON
// text. It returns an error for an invalid name, an empty description, a nil
// handler or a schema that does not compile.
func NewRawTool(name, description string, inputSchema, outputSchema json.RawMessage, handler Handler) (*Tool, error) {
	if err := checkHead(name, description); err != nil {
		return nil, err
	}
	in, err := NewSchema(inputSchema)
	if err != nil {
		return nil, fmt.Errorf("contract: tool %s input: %w", name, err)
	}
	out, err := NewSchema(outputSchema)
	if err != nil {
		return nil, fmt.Errorf("contract: tool %s output: %w", name, err)
	}
	return newTool(name, description, in, out, handler)
}

// acceptAll is the schema of a foreign tool's value that has no usable
// schema: every JSON value passes.
var acceptAll = json.RawMessage(`true`)

// NewForeignTool defines a tool whose schemas come from another system (an
// MCP server's tools/list, an OpenAPI document). Such schemas are open JSON
// Schema (any draft the validator knows, draft 2020-12 by default), so the
// declarations print them leniently (typegen.LenientType: what cannot be
// expressed becomes unknown for that spot only) while values are still
// validated against them on the host.
//
// A nil or empty inputSchema accepts any input object; a nil or empty
// outputSchema accepts any output and is declared any (the tool says nothing
// about its value, so the checker lets programs use it as they like). A
// schema that is not JSON is declared as an open object (input) or unknown
// (output). A schema that does not compile (malformed, or a $ref outside the
// schema) degrades only this tool: that value is not validated, and Degraded
// reports why. It returns an error for an invalid name, an empty
// description or a nil handler.
//
// # Notes
//   - The schemas compile on first use (the first value validated against
//     one, or Degraded), not here: a catalogue of 10,000 tools is built in
//     milliseconds and pays for the schemas its programs use. A schema of
//     30,000 properties takes seconds to compile, once.
func NewForeignTool(name, description string, inputSchema, outputSchema json.RawMessage, handler Handler) (*Tool, error) {
	var problems []error
	schema := func(phase string, raw, fallback json.RawMessage) (*Schema, json.RawMessage) {
		if absentSchemaText(raw) {
			if fallback == nil {
				return acceptAllSchema(), nil
			}
			raw = fallback
		}
		if !json.Valid(raw) {
			problems = append(problems, fmt.Errorf("%s schema: contract: schema is not JSON", phase))
			return acceptAllSchema(), fallback
		}
		s := lazySchema(raw)
		s.degradable = true
		return s, raw
	}
	in, inDecl := schema("input", inputSchema, json.RawMessage(`{"type":"object"}`))
	// An absent output schema is declared any (typegen.ToolDecl.Lenient).
	out, outDecl := schema("output", outputSchema, nil)
	t, err := newTool(name, description, in, out, handler)
	if err != nil {
		return nil, err
	}
	t.foreign, t.inputDecl, t.outputDecl = true, inDecl, outDecl
	t.degraded = sync.OnceValue(func() error {
		for _, p := range []struct {
			phase string
			s     *Schema
		}{{"input", in}, {"output", out}} {
			if _, err := p.s.compiled(); err != nil {
				problems = append(problems, fmt.Errorf("%s schema: %w", p.phase, err))
			}
		}
		if len(problems) == 0 {
			return nil
		}
		return fmt.Errorf("contract: tool %s: %w", name, errors.Join(problems...))
	})
	return t, nil
}

// acceptAllSchema is the schema every JSON value passes, compiled on first
// use like any other (a tool that has no usable schema never compiles it:
// Validate checks only that the value is JSON).
func acceptAllSchema() *Schema { return lazySchema(acceptAll) }

// NewDeclaredTool defines a foreign tool whose values the host does not
// validate against a JSON Schema: the handler checks its own input (an
// OpenAPI connector validates parameters and bodies against the
// description) and reports a bad one as a *ValidationError (its Tool and
// Phase set), which programs see as a ToolValidationError. inputDecl and
// outputDecl are only printed, leniently, as for NewForeignTool (nil
// input: an open object; nil output: any), with their fragment references resolved in the
// namespace's Definitions (see Namespace.Definitions): a document's shared
// schemas are declared once instead of being copied into every tool. It
// returns an error for an invalid name, an empty description or a nil
// handler.
func NewDeclaredTool(name, description string, inputDecl, outputDecl json.RawMessage, handler Handler) (*Tool, error) {
	all := acceptAllSchema()
	t, err := newTool(name, description, all, all, handler)
	if err != nil {
		return nil, err
	}
	if absentSchemaText(inputDecl) {
		inputDecl = json.RawMessage(`{"type":"object"}`)
	}
	if absentSchemaText(outputDecl) {
		outputDecl = nil
	}
	t.foreign, t.inputDecl, t.outputDecl = true, inputDecl, outputDecl
	return t, nil
}

// absentSchemaText reports whether a schema text is missing: nil, blank or
// JSON null.
func absentSchemaText(s json.RawMessage) bool {
	s = bytes.TrimSpace(s)
	return len(s) == 0 || string(s) == "null"
}

// Degraded returns why a foreign tool's schema could not be used (the tool
// still works, unvalidated there), or nil. It compiles the tool's schemas
// if no validation has yet (once: the answer is kept), so calling it for
// every tool of a large catalogue costs what compiling them all costs.
func (t *Tool) Degraded() error {
	if t.degraded == nil {
		return nil
	}
	return t.degraded()
}

// checkHead checks a tool's name and description, before its schemas: an
// invalid name is reported as such, not as a schema problem.
func checkHead(name, description string) error {
	if err := CheckToolName(name); err != nil {
		return err
	}
	if strings.TrimSpace(description) == "" {
		return fmt.Errorf("contract: tool %s: the description is empty; it becomes the tool's JSDoc", name)
	}
	return nil
}

// typeName is T's Go type as printed, for errors.
func typeName[T any]() string { return reflect.TypeFor[T]().String() }

func newTool(name, description string, in, out *Schema, h Handler) (*Tool, error) {
	if err := checkHead(name, description); err != nil {
		return nil, err
	}
	if h == nil {
		return nil, fmt.Errorf("contract: tool %s: nil handler", name)
	}

	return &Tool{name: name, description: description, input: in, output: out, handler: h}, nil
}

var identifier = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)

// reservedNames are the ECMAScript reserved words, then (a tool object must
// not be thenable) and the names every object inherits from Object.prototype.
var reservedNames = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`await break case catch class const continue debugger default delete do else enum
		export extends false finally for function if implements import in instanceof interface let new null package
		private protected public return static super switch this throw true try typeof var void while with yield
		then __proto__ constructor hasOwnProperty isPrototypeOf propertyIsEnumerable toLocaleString toString valueOf
		__defineGetter__ __defineSetter__ __lookupGetter__ __lookupSetter__`) {
		reservedNames[w] = true
	}
}

// ErrInvalidToolName is wrapped by CheckToolName's errors.
var ErrInvalidToolName = errors.New("invalid tool name")

// CheckToolName reports whether name can be a tool: a JavaScript identifier
// ([A-Za-z_$][A-Za-z0-9_$]*) that is not a reserved word, not "then",
// "__proto__" or a property inherited from Object.prototype
// (https://github.com/torkbot/code-mode#schemas-tools-and-checking). Its error wraps ErrInvalidToolName.
func CheckToolName(name string) error {
	switch {
	case !identifier.MatchString(name):
		return fmt.Errorf("contract: %w %q: not a JavaScript identifier", ErrInvalidToolName, name)
	case reservedNames[name]:
		return fmt.Errorf("contract: %w %q: reserved (a reserved word, then, __proto__ or an Object.prototype property)", ErrInvalidToolName, name)
	}
	return nil
}

// Call validates input, runs the handler and validates its output. It
// returns a *ValidationError when either check fails (the handler does
// not run on bad input) and the handler's own error otherwise.
func (t *Tool) Call(ctx context.Context, input json.RawMessage) (json.RawMessage, error) {
	if err := t.CheckInput(input); err != nil {
		return nil, err
	}
	return t.invoke(ctx, input)
}

// CheckInput validates a call's input, returning a *ValidationError when
// it breaks the input schema or, for a tool made by NewTool, when the
// tool's Go input type cannot decode it.
//
// # Notes
//   - A Go type can refuse a value its schema accepts: a time.Time's
//     schema is a string of format "date-time", a format validation does
//     not assert (JSON Schema Validation draft 2020-12, section 7.2.1),
//     and time.Time reads RFC 3339 (section 5.6) more strictly than the
//     RFC allows; a type with an UnmarshalText or UnmarshalJSON method
//     (netip.Addr) is any string or any JSON value; an int64 any integer.
//     The input is therefore decoded into the Go type, once here and
//     again by the handler, and each spot the type refuses is a line
//     naming its JSON pointer ("/node/due: got \"2026-01-01\", want an
//     RFC 3339 date-time …"), as a schema failure is.
//   - One error reports every fault that can be found at once: an input
//     that breaks the schema is decoded too (for a type that may refuse
//     it), and the spots the type refuses follow the schema's lines, so
//     a missing member and a bad date-time elsewhere are mended in one
//     round trip. A spot is reported once: a value the schema refused (a
//     string where an integer belongs) is not reported again by the
//     decoding, nor is a value holding one.
//   - For a tool made by NewTool, a struct member declared unknown (an
//     interface or json.RawMessage field) may be absent, although the
//     declaration and the input schema require it: TypeScript lets a
//     program pass undefined there, which JSON.stringify leaves out, and
//     encoding/json leaves the field nil, as null does.
func (t *Tool) CheckInput(input json.RawMessage) error {
	schema := t.input
	if t.accepts != nil {
		schema = t.accepts
	}
	failed, err := schema.violations(input)
	if err != nil {
		return validationError(t.name, "input", err)
	}
	if t.decodes != nil {
		failed = append(failed, unexplained(t.decodes(input), failed)...)
	}
	if len(failed) == 0 {
		return nil
	}
	return &ValidationError{Tool: t.name, Phase: "input", Lines: reportLines(failed)}
}

// invoke runs the handler on input that CheckInput accepted and validates
// the output, returning a *ValidationError when it breaks the output
// schema and the handler's own error otherwise.
func (t *Tool) invoke(ctx context.Context, input json.RawMessage) (json.RawMessage, error) {
	out, err := t.handler(ctx, input)
	if err != nil {
		return nil, err
	}
	if err := t.CheckOutput(out); err != nil {
		return nil, err
	}
	return out, nil
}

// Handle runs the handler alone on input that CheckInput accepted, without
// checking its output: for a caller that checks the output itself after
// other layers (a client's tool-call middleware) had their say.
func (t *Tool) Handle(ctx context.Context, input json.RawMessage) (json.RawMessage, error) {
	return t.handler(ctx, input)
}

// CheckOutput validates a call's output, returning a *ValidationError
// when it breaks the output schema.
//
// # Notes
//   - For a tool made by NewTool, whose output schema is its Go type's, a
//     failure is the tool's bug, and each line says so as a value
//     encoding/json cannot encode does (a NaN): "…; the tool's Go value
//     breaks its own type's schema: the tool's code must change, no
//     change to the call avoids it", or, for a null, that the Go value
//     there is a nil pointer (a pointer slice element or map value, which
//     is declared T, or a pointer field under StrictSchemas).
func (t *Tool) CheckOutput(output json.RawMessage) error {
	failed, err := t.output.violations(output)
	if err != nil {
		return validationError(t.name, "output", err)
	}
	if len(failed) == 0 {
		return nil
	}
	if t.typed {
		for i, v := range failed {
			failed[i].line += handlerBug(v)
		}
	}
	return &ValidationError{Tool: t.name, Phase: "output", Lines: reportLines(failed)}
}

// handlerBug is what a typed tool's output failure v adds to its line:
// that the fault is the tool's, not the call's.
func handlerBug(v violation) string {
	const fix = ": the tool's code must change, no change to the call avoids it"
	if v.null {
		return "; the tool's Go value here is a nil pointer, which its type's schema does not accept" + fix
	}
	return "; the tool's Go value breaks its own type's schema" + fix
}

func validationError(tool, phase string, err error) *ValidationError {
	var v *ValidationError
	if errors.As(err, &v) {
		return &ValidationError{Tool: tool, Phase: phase, Lines: v.Lines}
	}
	return &ValidationError{Tool: tool, Phase: phase, Lines: []string{"/: " + err.Error()}}
}

// decl is the tool's entry in the declaration surface: a tool that needs
// approval says so in its JSDoc (@requiresApproval).
func (t *Tool) decl() typegen.ToolDecl {
	desc := t.description
	switch {
	case t.policy.ApprovalFor != nil:
		desc += "\n@requiresApproval some calls (by their input) wait for a person's approval before they run"
	case t.policy.RequiresApproval:
		desc += "\n@requiresApproval every call waits for a person's approval before it runs"
	}
	if t.foreign {
		return typegen.ToolDecl{Name: t.name, Description: desc, InputSchema: t.inputDecl, OutputSchema: t.outputDecl, Lenient: true, Annotations: t.annotations, Errors: t.errorDecls()}
	}
	return typegen.ToolDecl{Name: t.name, Description: desc, InputSchema: t.input.raw, OutputSchema: t.output.raw, Annotations: t.annotations, Errors: t.errorDecls()}
}
