package contract

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/codemode-go/codemode/internal/ijson"
	"github.com/codemode-go/codemode/internal/jsonpointer"
)

// Schema is a JSON Schema (draft 2020-12 unless it says otherwise through
// $schema) compiled for validation, together with its JSON text.
type Schema struct {
	raw        json.RawMessage
	acceptsAll bool // the schema is true or {}: any JSON value passes
	// compiled compiles raw on its first call and returns the same result
	// after: a catalogue of thousands of tools pays for a schema only when
	// a value is first validated against it (sync.OnceValues makes that
	// safe from concurrent calls).
	compiled func() (*jsonschema.Schema, error)
	// degradable schemas (a foreign tool's) that do not compile accept
	// every JSON value instead of failing validation; see NewForeignTool.
	degradable bool
}

// schemaURL is the base URL a compiled schema is known by. It is absolute,
// so that compiling never depends on the working directory, and no loader
// serves it: a $ref must stay within the schema.
const schemaURL = "codemode:///schema.json"

// noLoader refuses every external schema document: neither remote nor local
// $ref targets (or $schema meta-schemas other than the standard drafts,
// which the validator embeds) are loaded, so compiling a schema never
// touches the network or the file system.
type noLoader struct{}

// Load refuses url.
func (noLoader) Load(url string) (any, error) {
	return nil, errors.New("external schema documents are not loaded; put the definition in $defs")
}

// NewSchema compiles raw JSON Schema text. It returns an error naming the
// fault when raw is not JSON, or a *SchemaError naming each fault's JSON
// pointer within raw when it is not a valid schema. External $ref targets
// (remote URLs or files) are never loaded: a $ref to one is an error.
// Content keywords are asserted: a string under contentEncoding "base64"
// must be base64 (JSON Schema Validation draft 2020-12, section 8).
// A schema whose validation cost would grow exponentially (more than 1,024
// subschemas applying to one value through nested anyOf, oneOf, allOf or
// $ref, at once or as values nest) is refused with an error naming the
// JSON pointer of the subschema applied most often, since validating a
// value cannot be interrupted once started.
func NewSchema(raw json.RawMessage) (*Schema, error) {
	s := lazySchema(raw)
	if _, err := s.compiled(); err != nil {
		return nil, err
	}
	return s, nil
}

// lazySchema is raw as a Schema that compiles on first use (NewSchema's
// work, done once by whichever validation comes first). The caller checks
// that raw is JSON when it needs to know before then.
func lazySchema(raw json.RawMessage) *Schema {
	raw = append(json.RawMessage(nil), raw...)
	t := string(bytes.TrimSpace(raw))
	return &Schema{raw: raw, acceptsAll: t == "true" || t == "{}", compiled: sync.OnceValues(func() (*jsonschema.Schema, error) {
		return compileSchema(raw)
	})}
}

// compileSchema compiles raw JSON Schema text for validation, as
// NewSchema documents.
func compileSchema(raw json.RawMessage) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("contract: schema is not JSON: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	// contentEncoding "base64" is how bytes cross the tool boundary (see
	// the package documentation): text that is not base64 is a validation
	// failure naming its pointer, not a decoding error in the handler.
	c.AssertContent()
	c.UseLoader(noLoader{})
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, compileError(doc, err)
	}
	compiled, err := c.Compile(schemaURL)
	if err != nil {
		return nil, compileError(doc, err)
	}
	if err := checkCost(compiled); err != nil {
		return nil, fmt.Errorf("contract: %w", err)
	}
	return compiled, nil
}

// SchemaFor reflects the JSON Schema that every value of T satisfies as
// encoding/json encodes it (https://pkg.go.dev/encoding/json#Marshal): a
// struct is a closed object (additionalProperties: false) of the members
// encoding/json writes, embedded structs' included, each required unless
// omitempty or omitzero can leave it out; a pointer field without
// omitempty or omitzero is T or null; a map is an object of its value's
// schema (Record<string, V>); an interface and json.RawMessage are any
// JSON value ({}); []byte is a base64 string; time.Time is a date-time
// string; *big.Int and json.Number are numbers; a type that writes its
// own JSON is a string (MarshalText) or any JSON value (MarshalJSON) unless
// it gets the method by embedding (github.Timestamp embeds time.Time),
// when it is that embedded type's; the string option makes a string. A
// named struct used more than once, and a recursive type, is a definition
// in the root $defs that the schema refers to ($ref), which the
// declarations print as a named type. The fill rule of NewTool (a nil
// slice is sent as [], a nil map as {}) is what lets a nil slice or map
// satisfy it.
//
// A type's JSONSchema, JSONSchemaAlias and JSONSchemaExtend methods and a
// field's jsonschema tags apply as github.com/invopop/jsonschema documents
// them (see the package documentation), except the tags required, nullable
// and "-", since what encoding/json writes decides those.
//
// It returns an error naming the Go path (Order.Items[].Callback) of a
// type that encoding/json cannot encode: a channel, a function, a complex
// number, a map whose keys are not strings, integers or
// encoding.TextMarshaler.
func SchemaFor[T any]() (*Schema, error) {
	t := reflect.TypeFor[T]()
	raw, _, err := reflectType(t, toolOptions{})
	if err != nil {
		return nil, fmt.Errorf("contract: schema of %s: %w", t, err)
	}
	out, err := NewSchema(raw)
	if err != nil {
		return nil, fmt.Errorf("contract: schema of %s: %w", t, err)
	}
	return out, nil
}

// Validate checks a JSON value against the schema. It returns nil, a
// *ValidationError (Tool and Phase empty) listing each failure as
// "JSON-pointer: message", or an error when value is not JSON.
//
// # Notes
//   - A number beyond the range of a double (1e400, -1e999) fails every
//     schema, true and {} included, with a *ValidationError naming its
//     pointer: JSON allows it (RFC 8259 section 6) and the validator
//     would read it exactly, but a program's JSON.parse reads it as
//     ±Infinity, which is not the value sent and not JSON; I-JSON (RFC
//     7493 section 2.2) says not to send it. The check is part of the one
//     pass that reads value (internal/ijson).
//   - A number closer to zero than the smallest double (1e-400) passes:
//     it reads as 0, its nearest double, as 0.1 reads as its own.
func (s *Schema) Validate(value json.RawMessage) error {
	vs, err := s.violations(value)
	if err != nil || len(vs) == 0 {
		return err
	}
	return &ValidationError{Lines: reportLines(vs)}
}

// violations is Validate's work: the failures of value, none when it
// passes, or an error when value is not JSON or the schema does not
// compile.
func (s *Schema) violations(value json.RawMessage) ([]violation, error) {
	if s.acceptsAll {
		// Common for foreign tools' outputs; only JSON-ness to check.
		return checkJSON(value)
	}
	compiled, err := s.compiled()
	if err != nil {
		if s.degradable {
			// A foreign tool's schema that does not compile: the value
			// passes unvalidated (Tool.Degraded says why).
			return checkJSON(value)
		}
		return nil, err
	}
	inst, err := decodeJSON(value)
	if err != nil {
		return notJSON(err)
	}
	err = compiled.Validate(inst)
	if err == nil {
		return nil, nil
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return nil, err
	}
	return violationsOf(ve), nil
}

// checkJSON is violations for a schema that accepts every JSON value:
// value must be JSON, its numbers within a double's range.
func checkJSON(value json.RawMessage) ([]violation, error) {
	if err := ijson.Check(value); err != nil {
		return notJSON(err)
	}
	return nil, nil
}

// notJSON is the result of violations for value that ijson.Check or
// decodeJSON refused: a violation for a number beyond a double, else an
// error saying value is not JSON.
func notJSON(err error) ([]violation, error) {
	var re *ijson.RangeError
	if errors.As(err, &re) {
		return []violation{{at: re.Pointer, line: re.Error()}}, nil
	}
	return nil, fmt.Errorf("contract: value is not JSON: %w", err)
}

// violation is one failure of a value: the JSON pointer of the value
// that fails ("/" for the root) and the line reporting it, "pointer:
// message".
type violation struct {
	at, line string
	null     bool // the value is null where the schema's type refuses it
}

// maxReportLines bounds the lines of one ValidationError.
const maxReportLines = 20

// reportLines is vs as ValidationError lines: at most maxReportLines, and
// a last line saying how many more there are.
func reportLines(vs []violation) []string {
	lines := make([]string, 0, min(len(vs), maxReportLines+1))
	for _, v := range vs[:min(len(vs), maxReportLines)] {
		lines = append(lines, v.line)
	}
	if len(vs) > maxReportLines {
		lines = append(lines, fmt.Sprintf("… and %d more", len(vs)-maxReportLines))
	}
	return lines
}

// ValidationError is a value that broke a schema: one line per failure,
// each "JSON-pointer: message" with "/" for the root. Tool and Phase say
// whose schema it broke:
//   - a tool's input or output: Tool is the tool's name and Phase "input"
//     or "output" (Tool.Call, CheckInput, CheckOutput). The program sees
//     the rejected call as an error named ToolValidationError.
//   - the program input (Contract.ValidateInput, and a run's input, checked
//     before anything runs): Tool is "" and Phase "input".
//   - a schema alone (Schema.Validate): both are "".
type ValidationError struct {
	Tool  string   // tool name; "" for the program input or a schema alone
	Phase string   // "input" or "output"; "" for a schema alone
	Lines []string // "JSON-pointer: message" per failure
}

// Error formats the failures, one per line: after "<tool> <phase>
// validation failed:" for a tool, after "program input validation failed:"
// for the program input, each indented by two spaces; alone for a schema.
func (e *ValidationError) Error() string {
	switch {
	case e.Tool != "":
		return fmt.Sprintf("%s %s validation failed:\n  %s", e.Tool, e.Phase, strings.Join(e.Lines, "\n  "))
	case e.Phase != "":
		s := "program input validation failed:"
		for _, l := range e.Lines {
			s += "\n  " + l
		}
		return s
	}
	return strings.Join(e.Lines, "\n")
}

// violationPrinter renders the validator's error messages.
var violationPrinter = message.NewPrinter(language.English)

// violationsOf lists ve's failures depth first, as ve.Error() does. It
// walks the error tree rather than using BasicOutput, which labels every
// failure reached through a $ref "validation failed" instead of saying what
// failed.
func violationsOf(ve *jsonschema.ValidationError) []violation {
	var vs []violation
	seen := map[string]bool{}
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		switch e.ErrorKind.(type) {
		case *kind.Schema, *kind.Group, *kind.Reference:
			// Containers: the root, a group of failures and a $ref carry
			// no message of their own when they have causes.
			if len(e.Causes) > 0 {
				for _, c := range sortedCauses(e) {
					walk(c)
				}
				return
			}
		}
		loc := "/"
		if len(e.InstanceLocation) > 0 {
			loc = ""
			for _, tok := range e.InstanceLocation {
				loc = jsonpointer.Append(loc, tok)
			}
		}
		line := loc + ": " + e.ErrorKind.LocalizedString(violationPrinter)
		if !seen[line] {
			seen[line] = true
			got, _ := e.ErrorKind.(*kind.Type)
			vs = append(vs, violation{at: loc, line: line, null: got != nil && got.Got == "null"})
		}
		for _, c := range sortedCauses(e) {
			walk(c)
		}
	}
	walk(ve)
	if len(vs) == 0 {
		vs = append(vs, violation{at: "/", line: "/: " + ve.Error()})
	}
	return vs
}

// sortedCauses returns e's causes in a stable order: by instance location
// (array indexes numerically), then by schema location. The validator
// collects the failures of an object's properties in map order, which
// would otherwise make the report differ from run to run.
func sortedCauses(e *jsonschema.ValidationError) []*jsonschema.ValidationError {
	causes := slices.Clone(e.Causes)
	slices.SortStableFunc(causes, func(a, b *jsonschema.ValidationError) int {
		if c := slices.CompareFunc(a.InstanceLocation, b.InstanceLocation, compareToken); c != 0 {
			return c
		}
		return compareToken(a.SchemaURL, b.SchemaURL)
	})
	return causes
}

// compareToken orders strings, comparing runs of digits by their numeric
// value so that "/items/2" sorts before "/items/10" and "oneOf/2" before
// "oneOf/10".
func compareToken(a, b string) int {
	for a != "" && b != "" {
		da, db := digitPrefix(a), digitPrefix(b)
		if da > 0 && db > 0 {
			na, nb := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
			if c := cmp.Compare(len(na), len(nb)); c != 0 {
				return c
			}
			if c := strings.Compare(na, nb); c != 0 {
				return c
			}
			if c := cmp.Compare(da, db); c != 0 {
				return c
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return cmp.Compare(a[0], b[0])
		}
		a, b = a[1:], b[1:]
	}
	return cmp.Compare(len(a), len(b))
}

func digitPrefix(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}
