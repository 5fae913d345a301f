package contract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	invopop "github.com/invopop/jsonschema"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Schema is a JSON Schema (draft 2020-12 unless it says otherwise through
// $schema) compiled for validation, together with its JSON text.
type Schema struct {
	raw      json.RawMessage
	compiled *jsonschema.Schema
}

// NewSchema compiles raw JSON Schema text. It returns an error naming the
// fault when raw is not JSON or not a valid schema. Remote $ref targets are
// not fetched.
func NewSchema(raw json.RawMessage) (*Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("contract: schema is not JSON: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("schema.json", doc); err != nil {
		return nil, fmt.Errorf("contract: adding schema: %w", err)
	}
	compiled, err := c.Compile("schema.json")
	if err != nil {
		return nil, fmt.Errorf("contract: compiling schema: %w", err)
	}
	return &Schema{raw: append(json.RawMessage(nil), raw...), compiled: compiled}, nil
}

// SchemaFor reflects the JSON Schema of T with invopop/jsonschema: struct
// types are inlined (no $ref), objects are closed (additionalProperties:
// false) and fields without `omitempty` are required. See the package
// documentation for const and discriminated unions.
func SchemaFor[T any]() (*Schema, error) {
	r := &invopop.Reflector{
		DoNotReference:             true,
		ExpandedStruct:             true,
		Anonymous:                  true,
		AllowAdditionalProperties:  false,
		RequiredFromJSONSchemaTags: false,
	}
	var zero T
	t := reflect.TypeOf(&zero).Elem()
	s := r.ReflectFromType(t)
	s.Version = ""
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("contract: encoding the schema of %s: %w", t, err)
	}
	out, err := NewSchema(raw)
	if err != nil {
		return nil, fmt.Errorf("contract: schema of %s: %w", t, err)
	}
	return out, nil
}

// JSON returns the schema text. Callers must not modify it.
func (s *Schema) JSON() json.RawMessage { return s.raw }

// Validate checks a JSON value against the schema. It returns nil, a
// *SchemaViolation listing each failure as "JSON-pointer: message", or an
// error when value is not JSON.
func (s *Schema) Validate(value json.RawMessage) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(value))
	if err != nil {
		return fmt.Errorf("contract: value is not JSON: %w", err)
	}
	err = s.compiled.Validate(inst)
	if err == nil {
		return nil
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return err
	}
	return &SchemaViolation{Lines: violationLines(ve)}
}

// SchemaViolation is a value that broke a schema: one line per failure,
// each "JSON-pointer: message" with "/" for the root.
type SchemaViolation struct {
	Lines []string
}

func (v *SchemaViolation) Error() string { return strings.Join(v.Lines, "\n") }

func violationLines(ve *jsonschema.ValidationError) []string {
	var lines []string
	seen := map[string]bool{}
	var walk func(u []jsonschema.OutputUnit)
	walk = func(units []jsonschema.OutputUnit) {
		for _, u := range units {
			if u.Error != nil {
				loc := u.InstanceLocation
				if loc == "" {
					loc = "/"
				}
				line := loc + ": " + u.Error.String()
				if !seen[line] {
					seen[line] = true
					lines = append(lines, line)
				}
			}
			walk(u.Errors)
		}
	}
	out := ve.BasicOutput()
	walk(out.Errors)
	if len(lines) == 0 {
		lines = append(lines, "/: "+ve.Error())
	}
	const max = 20
	if len(lines) > max {
		lines = append(lines[:max], fmt.Sprintf("… and %d more", len(lines)-max))
	}
	return lines
}
