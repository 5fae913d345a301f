package contract

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/codemode-go/codemode/internal/typegen"
)

// DefaultNamespace is the scope property under which a contract's tools
// appear to programs: `await codemode.getWeather(...)`.
const DefaultNamespace = "codemode"

// Contract is a complete program contract: its tools, grouped in
// namespaces, and, when input-bearing, its input schema. It is immutable and
// safe for concurrent use.
type Contract struct {
	input      *Schema
	namespaces []Namespace
	tools      []*Tool
	byName     map[string]map[string]*Tool // namespace -> tool name -> tool
	surface    typegen.Surface
	decls      func() string                       // printed on first use
	checker    func() *typegen.CheckerDeclarations // printed on first use
	digest     func() string                       // surfaceDigest, computed on first use
}

// Namespace is a group of tools under one scope property of the program:
// Name "memory" makes `await memory.search_nodes({query})` (the design's
// "connectors become namespaces in the sandbox",
// https://developers.cloudflare.com/agents/tools/codemode/how-it-works/). Name is
// a JavaScript identifier other than input, console and result; tool names
// are unique within a namespace.
type Namespace struct {
	Name  string
	Tools []*Tool
	// Instructions, optional, is guidance about the namespace as a whole
	// for the agent (an MCP server's instructions): its first line is the
	// namespace's summary in a code tool's description, and a describe of
	// the namespace answers it whole.
	Instructions string
	// Unavailable, when not empty, says why the namespace lacks its tools
	// (an MCP connector's server that is down): a program that calls a
	// tool the namespace does not declare then fails with a TypeError
	// naming the namespace as unavailable and this reason, instead of one
	// listing the tools it declares. Programs read it: it must hold no
	// secret.
	Unavailable string
	// Definitions, optional, are named types the namespace's foreign tools
	// refer to: their declarations resolve fragment references in its
	// document and print each named schema once, by name (see
	// typegen.Definitions), as an OpenAPI description's components.
	Definitions *typegen.Definitions
}

// New builds an inputless contract whose tools are all in the codemode
// namespace: programs receive {codemode, console, result}. It returns an
// error for duplicate tool names or a schema the strict declaration printer
// cannot express (the error names the tool, the JSON pointer and the
// keyword).
func New(tools ...*Tool) (*Contract, error) {
	return build(nil, []Namespace{{Name: DefaultNamespace, Tools: tools}})
}

// NewNamespaced builds an inputless contract with the given namespaces, in
// order: programs receive one scope property per namespace beside console
// and result. It returns an error for a namespace name that is not an
// identifier, is reserved (input, console, result) or repeats, for duplicate
// tool names within a namespace, and for schema errors as New does.
func NewNamespaced(namespaces ...Namespace) (*Contract, error) {
	return build(nil, namespaces)
}

// WithInput returns an input-bearing copy of c: the same namespaces and
// tools, and programs also receive input, which every run must supply and
// the schema must accept (`c, err = c.WithInput(schema)`). c is unchanged.
// It fails when input is nil (New and NewNamespaced build an inputless
// contract) or when the declaration printer cannot express the schema.
func (c *Contract) WithInput(input *Schema) (*Contract, error) {
	if input == nil {
		return nil, fmt.Errorf("contract: WithInput needs an input schema; New and NewNamespaced build an inputless contract")
	}
	return build(input, c.namespaces)
}

func build(input *Schema, namespaces []Namespace) (*Contract, error) {
	c := &Contract{input: input, byName: map[string]map[string]*Tool{}}
	s := typegen.Surface{SDK: true}
	if input != nil {
		s.InputSchema = input.raw
	}
	for _, n := range namespaces {
		switch {
		case !identifier.MatchString(n.Name):
			return nil, fmt.Errorf("contract: namespace %q: not a JavaScript identifier", n.Name)
		case n.Name == "input" || n.Name == "console" || n.Name == "result" || reservedNames[n.Name]:
			return nil, fmt.Errorf("contract: namespace %q: reserved by the program scope or the language", n.Name)
		case c.byName[n.Name] != nil:
			return nil, fmt.Errorf("contract: two namespaces are named %s", n.Name)
		}
		byName := map[string]*Tool{}
		c.byName[n.Name] = byName
		ns := typegen.Namespace{Name: n.Name, Definitions: n.Definitions}
		for i, t := range n.Tools {
			if t == nil {
				return nil, fmt.Errorf("contract: namespace %s: tool %d is nil", n.Name, i)
			}
			if _, dup := byName[t.name]; dup {
				return nil, fmt.Errorf("contract: namespace %s: two tools are named %s", n.Name, t.name)
			}
			if n.Name == typegen.SDKNamespace && typegen.IsSDKMethod(t.name) {
				return nil, fmt.Errorf("contract: tool %s.%s: %w %q: step, search, describe and run in the %s namespace belong to code mode's SDK (codemode.step, codemode.search, codemode.describe, codemode.run); rename the tool or put it in another namespace",
					n.Name, t.name, ErrInvalidToolName, t.name, n.Name)
			}
			byName[t.name] = t
			c.tools = append(c.tools, t)
			if t.policy.Callers != CallersModel { // programs never see a model-only tool
				ns.Tools = append(ns.Tools, t.decl())
			}
		}
		c.namespaces = append(c.namespaces, Namespace{Name: n.Name, Tools: slices.Clone(n.Tools), Definitions: n.Definitions, Instructions: n.Instructions, Unavailable: n.Unavailable})
		s.Namespaces = append(s.Namespaces, ns)
	}
	if err := c.print(s); err != nil {
		return nil, err
	}
	return c, nil
}

// print checks that s can be printed and sets the contract's
// declarations, its checker declarations and its digest to be made from s
// on first use. Only what can fail is checked here: the input schema, the
// namespaces (with their Definitions), the strict tools, and the errors
// every tool declares (Tool.WithErrors: two tools may declare one error
// only alike), printed without the foreign tools' schemas, whose lenient
// declarations never fail. A catalogue of foreign tools (MCP, OpenAPI) is
// therefore not printed until an agent or a checker asks for its
// declarations.
func (c *Contract) print(s typegen.Surface) error {
	check := s
	check.Namespaces = make([]typegen.Namespace, len(s.Namespaces))
	for i, ns := range s.Namespaces {
		strict := ns
		strict.Tools = nil
		for _, t := range ns.Tools {
			switch {
			case !t.Lenient:
				strict.Tools = append(strict.Tools, t)
			case len(t.Errors) > 0:
				t.InputSchema, t.OutputSchema = nil, nil
				strict.Tools = append(strict.Tools, t)
			}
		}
		check.Namespaces[i] = strict
	}
	if _, err := typegen.Declarations(check); err != nil {
		return fmt.Errorf("contract: %w", err)
	}
	c.surface = s
	c.decls = sync.OnceValue(func() string {
		// It fails only where the check above fails, which it did not.
		d, _ := typegen.Declarations(s)
		return d
	})
	c.checker = sync.OnceValue(func() *typegen.CheckerDeclarations {
		d, _ := typegen.ForChecker(s)
		return d
	})
	c.digest = sync.OnceValue(func() string { return surfaceDigest(s) })
	return nil
}

// CheckerDeclarations returns what a type checker needs beside
// TypeDefinitions to check programs as strictly as the host runs them
// (typegen.ForChecker of the same surface): give it to package typecheck
// as the File.Checker of the file holding TypeDefinitions. The agent never
// sees it. Callers must not modify the result.
func (c *Contract) CheckerDeclarations() *typegen.CheckerDeclarations { return c.checker() }

// HasInput reports whether the contract is input-bearing.
func (c *Contract) HasInput() bool { return c.input != nil }

// Tools returns every tool in declaration order, namespace by namespace.
// Callers must not modify the slice.
func (c *Contract) Tools() []*Tool { return c.tools }

// Namespaces returns the namespaces in declaration order. Callers must
// not modify the result.
func (c *Contract) Namespaces() []Namespace { return c.namespaces }

// Tool returns the tool with the given name in namespace, or nil.
func (c *Contract) Tool(namespace, name string) *Tool {
	return c.byName[namespace][name]
}

// TypeDefinitions returns the complete declaration surface a program is
// written against (https://github.com/torkbot/code-mode#schemas-tools-and-checking): the input declaration when one exists, the
// tools, the console, the result writer, the content type and the
// default-export contract (AgentProgramScope, AgentProgram).
//
// The declarations are printed on the first call (and kept), not when the
// contract is built: that is about 0.1 ms per tool.
func (c *Contract) TypeDefinitions() string { return c.decls() }

// ValidateInput checks program input against the input schema and returns it
// as JSON text. A value other than json.RawMessage is encoded as NewTool
// encodes a tool's output (a nil slice as [], a nil map as {}; see
// SchemaFor). It returns a *ValidationError (Phase "input", Tool "") when
// the value breaks the schema or cannot be encoded as JSON, and an error
// for an inputless contract.
func (c *Contract) ValidateInput(value any) (json.RawMessage, error) {
	if c.input == nil {
		return nil, fmt.Errorf("contract: this contract is inputless; a run takes no input")
	}
	raw, ok := value.(json.RawMessage)
	if !ok {
		var err error
		raw, err = encodeGo(value)
		if err != nil {
			return nil, &ValidationError{Phase: "input", Lines: []string{"/: not encodable as JSON: " + err.Error()}}
		}
	}
	if err := c.input.Validate(raw); err != nil {
		if v, ok := err.(*ValidationError); ok {
			return nil, &ValidationError{Phase: "input", Lines: v.Lines}
		}
		return nil, &ValidationError{Phase: "input", Lines: []string{"/: " + err.Error()}}
	}
	return raw, nil
}
