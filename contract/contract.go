package contract

import (
	"encoding/json"
	"fmt"

	"github.com/codemode-go/codemode/typegen"
)

// DefaultNamespace is the scope property under which a contract's tools
// appear to programs: `await codemode.getWeather(...)`.
const DefaultNamespace = "codemode"

// Contract is a complete program contract: its tools and, when
// input-bearing, its input schema. It is immutable and safe for concurrent
// use.
type Contract struct {
	input  *Schema
	tools  []*Tool
	byName map[string]*Tool
	decls  string
}

// New builds an inputless contract: programs receive {codemode, console,
// result}. It returns an error for duplicate tool names or a schema the
// strict declaration printer cannot express (the error names the tool, the
// JSON pointer and the keyword).
func New(tools ...*Tool) (*Contract, error) {
	return build(nil, tools)
}

// NewWithInput builds an input-bearing contract: programs receive {input,
// codemode, console, result}, and every run must supply input that the
// schema accepts. input must not be nil.
func NewWithInput(input *Schema, tools ...*Tool) (*Contract, error) {
	if input == nil {
		return nil, fmt.Errorf("contract: NewWithInput needs an input schema; use New for an inputless contract")
	}
	return build(input, tools)
}

func build(input *Schema, tools []*Tool) (*Contract, error) {
	c := &Contract{input: input, byName: map[string]*Tool{}}
	s := typegen.Surface{}
	if input != nil {
		s.InputSchema = input.JSON()
	}
	ns := typegen.Namespace{Name: DefaultNamespace}
	for i, t := range tools {
		if t == nil {
			return nil, fmt.Errorf("contract: tool %d is nil", i)
		}
		if _, dup := c.byName[t.name]; dup {
			return nil, fmt.Errorf("contract: two tools are named %s", t.name)
		}
		c.byName[t.name] = t
		c.tools = append(c.tools, t)
		ns.Tools = append(ns.Tools, typegen.ToolDecl{Name: t.name, Description: t.description, InputSchema: t.input.JSON(), OutputSchema: t.output.JSON()})
	}
	s.Namespaces = []typegen.Namespace{ns}
	decls, err := typegen.Declarations(s)
	if err != nil {
		return nil, fmt.Errorf("contract: %w", err)
	}
	c.decls = decls
	return c, nil
}

// HasInput reports whether the contract is input-bearing.
func (c *Contract) HasInput() bool { return c.input != nil }

// InputSchema returns the program input schema, or nil for an inputless
// contract.
func (c *Contract) InputSchema() *Schema { return c.input }

// Tools returns the tools in declaration order. Callers must not modify the
// slice.
func (c *Contract) Tools() []*Tool { return c.tools }

// Tool returns the tool with the given name in namespace, or nil.
func (c *Contract) Tool(namespace, name string) *Tool {
	if namespace != DefaultNamespace {
		return nil
	}
	return c.byName[name]
}

// Namespaces returns the tool names a program sees, by scope property.
func (c *Contract) Namespaces() map[string][]string {
	names := make([]string, len(c.tools))
	for i, t := range c.tools {
		names[i] = t.name
	}
	return map[string][]string{DefaultNamespace: names}
}

// TypeDefinitions returns the complete declaration surface a program is
// written against (seed 002): the input declaration when one exists, the
// tools, the console, the result writer, the content type and the
// default-export contract (AgentProgramScope, AgentProgram).
func (c *Contract) TypeDefinitions() string { return c.decls }

// ValidateInput checks program input against the input schema and returns it
// as JSON text. It returns an *InputValidationError when the value breaks the
// schema or cannot be encoded as JSON, and an error for an inputless
// contract.
func (c *Contract) ValidateInput(value any) (json.RawMessage, error) {
	if c.input == nil {
		return nil, fmt.Errorf("contract: this contract is inputless; a run takes no input")
	}
	raw, ok := value.(json.RawMessage)
	if !ok {
		var err error
		raw, err = json.Marshal(value)
		if err != nil {
			return nil, &InputValidationError{Lines: []string{"/: not encodable as JSON: " + err.Error()}}
		}
	}
	if err := c.input.Validate(raw); err != nil {
		if v, ok := err.(*SchemaViolation); ok {
			return nil, &InputValidationError{Lines: v.Lines}
		}
		return nil, &InputValidationError{Lines: []string{"/: " + err.Error()}}
	}
	return raw, nil
}

// InputValidationError is program input that broke the input schema: an
// embedder failure, reported before anything runs.
type InputValidationError struct {
	Lines []string // "JSON-pointer: message" per failure
}

// Error formats the failures as "program input validation failed:" followed
// by one indented line per failure.
func (e *InputValidationError) Error() string {
	s := "program input validation failed:"
	for _, l := range e.Lines {
		s += "\n  " + l
	}
	return s
}
