package typegen

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ProgramTypeName is the name of the declared default-export type in the
// output of [Declarations]: `type AgentProgram = (scope: AgentProgramScope) => unknown;`.
// A submitted program's default export must be assignable to it.
const ProgramTypeName = "AgentProgram"

// ScopeTypeName is the name of the declared interface of the single argument
// an agent program's default export receives (input, namespaces, console,
// result), as printed by [Declarations].
const ScopeTypeName = "AgentProgramScope"

// ToolDecl describes one tool for [Declarations]: it becomes a method
// `Name(input: In): Promise<Out>;` with Description as its JSDoc.
type ToolDecl struct {
	// Name is a JavaScript identifier, unique within its namespace; the
	// caller has checked it, and Declarations rejects one that is not.
	Name string `json:"name"`
	// Description is non-empty; it becomes the method's JSDoc.
	Description string `json:"description"`
	// InputSchema is the JSON Schema of the value the program passes.
	InputSchema json.RawMessage `json:"inputSchema"`
	// OutputSchema is the JSON Schema of the value the program receives.
	OutputSchema json.RawMessage `json:"outputSchema"`
	// Lenient prints InputSchema and OutputSchema as [LenientType] does
	// instead of as [Type], for foreign schemas such as an MCP server's
	// tools: what cannot be printed exactly becomes unknown for that spot
	// and never fails. A missing, empty or JSON null InputSchema prints
	// `input?: Record<string, unknown>`, and such an OutputSchema prints
	// Promise<any>: the tool declares nothing about its value. Name and Description are checked as for strict
	// tools. When the input is an object type with no required property the
	// parameter is optional (`input?: {…}`): a call without an argument sends
	// {} (wire/PROTOCOL.md).
	Lenient bool `json:"lenient,omitempty"`
}

// Namespace groups tools under one property of the program scope. The
// namespace "codemode" declares its tools in `interface Tools`; any other
// namespace "foo" uses `interface FooTools` (first letter upper-cased).
type Namespace struct {
	// Name is the scope property name, e.g. "codemode"; a JavaScript
	// identifier other than input, console and result.
	Name  string     `json:"name"`
	Tools []ToolDecl `json:"tools"`
	// Definitions, when set, holds named types that the namespace's lenient
	// tools refer to (see [Definitions]); they are declared in a TypeScript
	// namespace named by [TypesNamespaceName] before the tools' interface.
	// Strict tools ignore it.
	Definitions *Definitions `json:"definitions,omitempty"`
}

// Surface is the complete program declaration surface of a contract (seed
// 002, "Program contract" and "Schemas, tools, and checking").
type Surface struct {
	// InputSchema is the program input's JSON Schema (the schema's output
	// form, the value after host validation). Nil or empty selects an
	// inputless contract, whose scope has no input property; present selects
	// an input-bearing one.
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
	// Namespaces are printed in order; normally one, named "codemode".
	Namespaces []Namespace `json:"namespaces"`
}

// Declarations renders the complete surface as .d.ts-style global script
// declarations (no import or export), in this order, separated by blank lines
// and ending in a newline: one interface per namespace (Tools for
// "codemode", FooTools for "foo"), each preceded by `declare namespace
// FooTypes { … }` with the named types its tools reach when the namespace
// has Definitions, CodeModeConsole, CodeModeResult,
// ProgramContent, AgentProgramScope and AgentProgram. For example:
//
//	interface Tools {
//	  /** Current weather for a city. */
//	  getWeather(input: {
//	    /** City name. */
//	    location: string;
//	  }): Promise<{
//	    location: string;
//	  }>;
//	}
//	...
//	interface AgentProgramScope {
//	  readonly input: {
//	    readonly type: "weather.requested";
//	  };
//	  readonly codemode: Tools;
//	  readonly console: CodeModeConsole;
//	  readonly result: CodeModeResult;
//	}
//
//	type AgentProgram = (scope: AgentProgramScope) => unknown;
//
// Schemas are printed as by [Type], following seed 002 "Schemas, tools, and
// checking", except those of a tool whose Lenient field is set, which are
// printed as by [LenientType] and never fail (see [ToolDecl]). The program
// input is always strict. Only the program input marks its properties
// readonly.
//
// # Notes
//   - Every error is a *[SchemaError]. Strict schema errors have the pointer
//     prefixed by the schema's place: "input#/properties/location",
//     "codemode.getWeather.input#", "codemode.getWeather.output#/items".
//   - A namespace or tool name that is not an identifier (Keyword "name"), a
//     duplicate namespace, tool or interface name (Keyword "name"), a
//     namespace named input, console or result (Keyword "name"), and a blank
//     tool description (Keyword "description") are errors too, with the
//     namespace or "namespace.tool" as Pointer.
//   - The root description of InputSchema, if any, is the JSDoc of the
//     scope's input property; root descriptions of tool schemas are not
//     printed (the tool description is).
func Declarations(s Surface) (string, error) {
	var b strings.Builder

	var input *tsType
	var inputDoc string
	if len(bytes.TrimSpace(s.InputSchema)) > 0 {
		t, root, err := compileSchema(s.InputSchema)
		if err != nil {
			return "", prefixed(err, "input")
		}
		input, inputDoc = t, description(root)
	}

	namespaceNames := make(map[string]bool, len(s.Namespaces))
	interfaceNames := make(map[string]bool, len(s.Namespaces))
	interfaces := make([]string, len(s.Namespaces))
	for i, ns := range s.Namespaces {
		if !isIdentifier(ns.Name) {
			return "", schemaErr(ns.Name, "name", "namespace name must be a JavaScript identifier")
		}
		switch ns.Name {
		case "input", "console", "result":
			return "", schemaErr(ns.Name, "name", "namespace name %q is reserved by the program scope", ns.Name)
		}
		if namespaceNames[ns.Name] {
			return "", schemaErr(ns.Name, "name", "duplicate namespace")
		}
		namespaceNames[ns.Name] = true
		iface := interfaceName(ns.Name)
		if interfaceNames[iface] {
			return "", schemaErr(ns.Name, "name", "interface name %s is already used by another namespace", iface)
		}
		interfaceNames[iface] = true
		interfaces[i] = iface

		var defs *defsState
		if ns.Definitions != nil {
			var err error
			if defs, err = newDefsState(ns.Name, ns.Definitions); err != nil {
				return "", err
			}
			if interfaceNames[TypesNamespaceName(ns.Name)] {
				return "", schemaErr(ns.Name, "name", "types namespace name %s is already used", TypesNamespaceName(ns.Name))
			}
			interfaceNames[TypesNamespaceName(ns.Name)] = true
		}
		var nb strings.Builder
		if err := writeNamespace(&nb, ns, iface, defs); err != nil {
			return "", err
		}
		if defs != nil {
			if decls := defs.compileNamed(); len(decls) > 0 {
				writeNamed(&b, TypesNamespaceName(ns.Name), decls)
				b.WriteByte('\n')
			}
		}
		b.WriteString(nb.String())
		b.WriteByte('\n')
	}

	b.WriteString(fixedDeclarations)
	b.WriteByte('\n')

	b.WriteString("interface " + ScopeTypeName + " {\n")
	if input != nil {
		writeJSDoc(&b, inputDoc, 1)
		b.WriteString("  readonly input: ")
		printer{readonly: true}.writeType(&b, input, 1)
		b.WriteString(";\n")
	}
	for i, ns := range s.Namespaces {
		b.WriteString("  readonly " + ns.Name + ": " + interfaces[i] + ";\n")
	}
	b.WriteString("  readonly console: CodeModeConsole;\n")
	b.WriteString("  readonly result: CodeModeResult;\n")
	b.WriteString("}\n\n")
	b.WriteString("type " + ProgramTypeName + " = (scope: " + ScopeTypeName + ") => unknown;\n")
	return b.String(), nil
}

// fixedDeclarations are the console, result writer and content types of
// seed 002 "Program contract", identical for every surface.
const fixedDeclarations = `interface CodeModeConsole {
  debug(...values: unknown[]): void;
  error(...values: unknown[]): void;
  info(...values: unknown[]): void;
  log(...values: unknown[]): void;
  warn(...values: unknown[]): void;
}

interface CodeModeResult {
  appendImage(image: {
    readonly data: string;
    readonly mimeType: string;
  }): void;
  appendText(text: string): void;
}

type ProgramContent =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "image"; readonly data: string; readonly mimeType: string };
`

func writeNamespace(b *strings.Builder, ns Namespace, iface string, defs *defsState) error {
	if len(ns.Tools) == 0 {
		b.WriteString("interface " + iface + " {}\n")
		return nil
	}
	b.WriteString("interface " + iface + " {\n")
	seen := make(map[string]bool, len(ns.Tools))
	for i, tool := range ns.Tools {
		where := ns.Name + "." + tool.Name
		if !isIdentifier(tool.Name) {
			return schemaErr(where, "name", "tool name must be a JavaScript identifier")
		}
		if seen[tool.Name] {
			return schemaErr(where, "name", "duplicate tool")
		}
		seen[tool.Name] = true
		if len(jsdocLines(tool.Description)) == 0 {
			return schemaErr(where, "description", "tool description must not be blank")
		}
		in, out, err := toolTypes(tool, where, defs)
		if err != nil {
			return err
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		writeJSDoc(b, tool.Description, 1)
		param := "(input: "
		if tool.Lenient && noneRequired(in) {
			param = "(input?: "
		}
		b.WriteString("  " + tool.Name + param)
		printer{}.writeType(b, in, 1)
		b.WriteString("): Promise<")
		printer{}.writeType(b, out, 1)
		b.WriteString(">;\n")
	}
	b.WriteString("}\n")
	return nil
}

// noneRequired reports whether t is an object type with no required
// property, so a call may pass nothing (the runner sends {} for a call
// without an argument).
func noneRequired(t *tsType) bool {
	if t.kind != tsObject {
		return false
	}
	for _, p := range t.props {
		if !p.optional {
			return false
		}
	}
	return true
}

// toolTypes compiles a tool's input and output schemas, strictly unless
// the tool is lenient.
func toolTypes(tool ToolDecl, where string, defs *defsState) (in, out *tsType, err error) {
	if tool.Lenient {
		// A foreign tool without an output schema says nothing about its
		// value: any, so that programs using it (r.content, r.items) are
		// not rejected by the checker while they run fine.
		in, out = typeOpenRecord, typeAny
		if !absentSchema(tool.InputSchema) {
			in = lenientCompileIn(tool.InputSchema, defs)
		}
		if !absentSchema(tool.OutputSchema) {
			out = lenientCompileIn(tool.OutputSchema, defs)
		}
		return in, out, nil
	}
	in, _, err = compileSchema(tool.InputSchema)
	if err != nil {
		return nil, nil, prefixed(err, where+".input")
	}
	out, _, err = compileSchema(tool.OutputSchema)
	if err != nil {
		return nil, nil, prefixed(err, where+".output")
	}
	return in, out, nil
}

// absentSchema reports whether a lenient tool's schema is missing: nil,
// blank, or the JSON null that decoding `"outputSchema": null` leaves.
func absentSchema(s json.RawMessage) bool {
	s = bytes.TrimSpace(s)
	return len(s) == 0 || string(s) == "null"
}

// interfaceName is Tools for the codemode namespace and FooTools for foo.
func interfaceName(namespace string) string {
	if namespace == "codemode" {
		return "Tools"
	}
	r, size := utf8.DecodeRuneInString(namespace)
	return string(unicode.ToUpper(r)) + namespace[size:] + "Tools"
}

func prefixed(err error, prefix string) error {
	var se *SchemaError
	if errors.As(err, &se) {
		return &SchemaError{Pointer: prefix + se.Pointer, Keyword: se.Keyword, Message: se.Message}
	}
	return err
}
