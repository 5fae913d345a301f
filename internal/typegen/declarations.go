package typegen

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
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
	// {} (docs/runner-protocol.md).
	Lenient bool `json:"lenient,omitempty"`
	// Annotations are the tool's behaviour hints, printed as JSDoc block
	// tags after Description (see [Annotations.Tags]).
	Annotations Annotations `json:"annotations,omitzero"`
	// Errors are the errors the tool's calls may reject with beside code
	// mode's own (see [ErrorDecl]), each printed as a JSDoc tag
	// `@throws {Name} …` after the annotations' tags.
	Errors []ErrorDecl `json:"errors,omitempty"`
}

// Annotations are the behaviour hints of a tool that an approval policy
// needs and the agent sees: MCP's ToolAnnotations, with MCP's JSON names
// (Model Context Protocol specification 2025-06-18, "Tool annotations"
// under Server Features / Tools, and the ToolAnnotations schema:
// https://modelcontextprotocol.io/specification/2025-06-18/schema#toolannotations).
// A nil hint is unset: MCP's default applies (read-only false, destructive
// true, idempotent false, open-world true). Hints describe, they do not
// enforce: a host must not trust hints from an untrusted server.
type Annotations struct {
	// Title is a human-readable title for the tool. It is not printed in
	// declarations (the description is the JSDoc).
	Title string `json:"title,omitempty"`
	// ReadOnly true: the tool does not modify its environment.
	ReadOnly *bool `json:"readOnlyHint,omitempty"`
	// Destructive true: the tool may perform destructive updates; false:
	// only additive ones. Meaningful only when ReadOnly is not true.
	Destructive *bool `json:"destructiveHint,omitempty"`
	// Idempotent true: calling it again with the same input has no further
	// effect. Meaningful only when ReadOnly is not true.
	Idempotent *bool `json:"idempotentHint,omitempty"`
	// OpenWorld true: the tool may interact with an open world of external
	// entities (a web search); false: its domain is closed (a memory).
	OpenWorld *bool `json:"openWorldHint,omitempty"`
}

// Tags returns the JSDoc block tags that [Declarations] prints after a
// tool's description, in this order: "@readonly" when ReadOnly is true;
// unless ReadOnly is true, "@destructive" or "@destructive false" when
// Destructive is set and "@idempotent" or "@idempotent false" when
// Idempotent is set; "@openWorld" or "@openWorld false" when OpenWorld is
// set. ReadOnly false prints nothing (it is the default). Unset hints
// print nothing, so a tool without annotations has a plain description.
//
//	yes := true
//	typegen.Annotations{ReadOnly: &yes}.Tags() // ["@readonly"]
func (a Annotations) Tags() []string {
	var tags []string
	tag := func(name string, v *bool) {
		switch {
		case v == nil:
		case *v:
			tags = append(tags, name)
		default:
			tags = append(tags, name+" false")
		}
	}
	readOnly := a.ReadOnly != nil && *a.ReadOnly
	if readOnly {
		tags = append(tags, "@readonly")
	} else {
		tag("@destructive", a.Destructive)
		tag("@idempotent", a.Idempotent)
	}
	tag("@openWorld", a.OpenWorld)
	return tags
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

// Surface is the complete program declaration surface of a contract
// (https://github.com/torkbot/code-mode#program-contract and https://github.com/torkbot/code-mode#schemas-tools-and-checking).
type Surface struct {
	// InputSchema is the program input's JSON Schema (the schema's output
	// form, the value after host validation). Nil or empty selects an
	// inputless contract, whose scope has no input property; present selects
	// an input-bearing one.
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
	// Namespaces are printed in order; normally one, named "codemode".
	Namespaces []Namespace `json:"namespaces"`
	// SDK adds code mode's own members to the codemode namespace, after its
	// tools: codemode.search, codemode.describe and codemode.step, with the
	// SearchResult, SearchOutput and DescribeOutput types. The namespace is added, last, when Namespaces has none
	// named codemode. A codemode tool named like an SDK member is then an
	// error.
	SDK bool `json:"sdk,omitempty"`
}

// SDKNamespace is the namespace that holds the SDK's members.
const SDKNamespace = "codemode"

// IsSDKMethod reports whether name is reserved for the SDK in
// [SDKNamespace]: step, search, describe and run (run is declared by a
// runner that keeps saved programs, through interface merging). A tool of
// that namespace must not be named so.
func IsSDKMethod(name string) bool {
	switch name {
	case "step", "search", "describe", "run":
		return true
	}
	return false
}

// sdkMembers are the SDK's members of the codemode namespace interface,
// printed when [Surface].SDK is set, after the tools. search and describe
// take the shape of Cloudflare's Code Mode discovery API
// (https://developers.cloudflare.com/agents/api-reference/codemode/: the
// codemode global, SearchResult, SearchOutput, DescribeOutput).
const sdkMembers = `  /**
   * Searches the tools (and saved programs, where there are any); at most 50
   * results, best first. Returns paths, not schemas: pass one to describe for
   * its declarations.
   */
  search(query: string): Promise<SearchOutput>;

  /** TypeScript declarations of a namespace, a namespace.tool or a saved program's name. */
  describe(target: string): Promise<DescribeOutput>;

  /**
   * Runs fn and returns its value. Wrap work that is not a tool call and may
   * give another value each time it runs (Date.now(), Math.random(), fetch):
   * where executions are recorded, its value is recorded and, when the
   * execution runs again, returned without running fn.
   */
  step<T>(name: string, fn: () => T | Promise<T>): Promise<T>;
`

// sdkTypes are printed after the namespace interfaces.
const sdkTypes = `type SearchResult = {
  path: string;
  connector: string;
  method: string;
  description?: string;
  requiresApproval?: boolean;
  kind: "method" | "snippet";
  score: number;
};

type SearchOutput = {
  results: SearchResult[];
  total: number;
  truncated: boolean;
};

type DescribeOutput = {
  path: string;
  description?: string;
  requiresApproval?: boolean;
  types: string;
  kind: "connector" | "method" | "snippet";
};
`

// Declarations renders the complete surface as .d.ts-style global script
// declarations (no import or export), in this order, separated by blank lines
// and ending in a newline: `declare namespace InputTypes { … }` when the
// program input's schema has named types ($defs), one interface per
// namespace (Tools for "codemode", FooTools for "foo"), each preceded by
// `declare namespace FooTypes { … }` with the named types its tools reach
// (the namespace's Definitions, and the root $defs of its strict tools'
// schemas), CodeModeConsole, CodeModeResult,
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
// Schemas are printed as by [Type], following
// https://github.com/torkbot/code-mode#schemas-tools-and-checking, except those of a tool whose Lenient field is set, which are
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
//   - A $defs member that two strict tools of a namespace both define
//     must be the same schema in both (Keyword "$defs" otherwise, at the
//     second): a name is one type per namespace. Its type name is the
//     member's name after its last "." or "/" ("example.com.shop.User"
//     is User), numbered (User2) when another type of the namespace or
//     TypeScript already has it.
//   - The root description of InputSchema, if any, is the JSDoc of the
//     scope's input property; root descriptions of tool schemas are not
//     printed (the tool description is).
func Declarations(s Surface) (string, error) {
	text, _, err := declarations(s, audience{})
	return text, err
}

// audience is who declarations are printed for: programs' authors, or
// the checker (forChecker: every tool method whose input is required is
// printed exact, see [ForChecker], and their names are returned).
type audience struct{ forChecker bool }

// nsPrint is how one namespace is printed: for whom, and whether the SDK's
// members follow its tools.
type nsPrint struct {
	audience
	sdk bool
}

// declarations prints s for a.
func declarations(s Surface, a audience) (string, []string, error) {
	var b strings.Builder

	input, inputDoc, inDefs, err := compileInput(&b, s.InputSchema)
	if err != nil {
		return "", nil, err
	}

	namespaces := s.Namespaces
	if s.SDK && !slices.ContainsFunc(namespaces, func(n Namespace) bool { return n.Name == SDKNamespace }) {
		namespaces = append(slices.Clip(namespaces), Namespace{Name: SDKNamespace})
	}
	namespaceNames := make(map[string]bool, len(namespaces))
	interfaceNames := make(map[string]bool, len(namespaces))
	if inDefs != nil {
		interfaceNames[inputTypesName] = true
	}
	interfaces := make([]string, len(namespaces))
	var methods []string
	for i, ns := range namespaces {
		if !isIdentifier(ns.Name) {
			return "", nil, schemaErr(ns.Name, "name", "namespace name must be a JavaScript identifier")
		}
		switch ns.Name {
		case "input", "console", "result":
			return "", nil, schemaErr(ns.Name, "name", "namespace name %q is reserved by the program scope", ns.Name)
		}
		if namespaceNames[ns.Name] {
			return "", nil, schemaErr(ns.Name, "name", "duplicate namespace")
		}
		namespaceNames[ns.Name] = true
		iface := interfaceName(ns.Name)
		if interfaceNames[iface] {
			return "", nil, schemaErr(ns.Name, "name", "interface name %s is already used by another namespace", iface)
		}
		interfaceNames[iface] = true
		interfaces[i] = iface

		defs, err := namespaceDefs(ns)
		if err != nil {
			return "", nil, err
		}
		if defs != nil {
			if interfaceNames[TypesNamespaceName(ns.Name)] {
				return "", nil, schemaErr(ns.Name, "name", "types namespace name %s is already used", TypesNamespaceName(ns.Name))
			}
			interfaceNames[TypesNamespaceName(ns.Name)] = true
		}
		sdk := s.SDK && ns.Name == SDKNamespace
		var nb strings.Builder
		names, err := writeNamespace(&nb, ns, iface, nsPrint{a, sdk}, defs)
		if err != nil {
			return "", nil, err
		}
		if err := writeNamedOf(&b, TypesNamespaceName(ns.Name), defs); err != nil {
			return "", nil, err
		}
		b.WriteString(nb.String())
		methods = append(methods, names...)
		b.WriteByte('\n')
	}
	errs, err := collectErrors(namespaces, interfaceNames)
	if err != nil {
		return "", nil, err
	}
	writeErrors(&b, errs)
	if s.SDK {
		b.WriteString(sdkTypes)
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
	for i, ns := range namespaces {
		b.WriteString("  readonly " + ns.Name + ": " + interfaces[i] + ";\n")
	}
	b.WriteString("  readonly console: CodeModeConsole;\n")
	b.WriteString("  readonly result: CodeModeResult;\n")
	b.WriteString("}\n\n")
	b.WriteString("type " + ProgramTypeName + " = (scope: " + ScopeTypeName + ") => unknown;\n")
	if a.forChecker {
		b.WriteString(exactHelpers)
	}
	return b.String(), methods, nil
}

// compileInput compiles the program input's schema, when there is one,
// and writes the named types it reaches (InputTypes) to b.
func compileInput(b *strings.Builder, schema json.RawMessage) (input *tsType, doc string, defs *defsState, err error) {
	if len(bytes.TrimSpace(schema)) == 0 {
		return nil, "", nil, nil
	}
	if defs, err = inputDefs(schema); err != nil {
		return nil, "", nil, err
	}
	t, root, err := compileSchemaIn(schema, defs)
	if err != nil {
		return nil, "", nil, prefixed(err, "input")
	}
	if err := writeNamedOf(b, inputTypesName, defs); err != nil {
		return nil, "", nil, err
	}
	return t, description(root), defs, nil
}

// fixedDeclarations are the console, result writer and content types of
// https://github.com/torkbot/code-mode#program-contract, identical for every
// surface, and the classes of the errors a tool call rejects with that
// JavaScript lacks (internal/errname; the runner makes them globals, so a
// program may test e instanceof ToolValidationError).
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

/** A tool call's input broke the tool's input schema (the tool did not run), or its output broke its output schema: one "JSON-pointer: message" line per failure. */
declare class ToolValidationError extends Error {}

/** An MCP server's tool reported an error; the message is its text. */
declare class MCPToolError extends Error {}

/** An HTTP API answered with a status outside 2xx: status is the HTTP status code, method and path the request's, body the start of the response body. */
declare class HTTPError extends Error {
  readonly status: number;
  readonly method: string;
  readonly path: string;
  readonly body: string;
}
`

// writeNamespace writes the interface of one namespace as p says, and
// returns the names of the tool methods it printed exact (for the
// checker).
func writeNamespace(b *strings.Builder, ns Namespace, iface string, p nsPrint, defs *defsState) ([]string, error) {
	sdk, exact := p.sdk, p.forChecker
	if len(ns.Tools) == 0 && !sdk {
		b.WriteString("interface " + iface + " {}\n")
		return nil, nil
	}
	b.WriteString("interface " + iface + " {\n")
	seen := make(map[string]bool, len(ns.Tools))
	var exactNames []string
	for i, tool := range ns.Tools {
		where := ns.Name + "." + tool.Name
		if !isIdentifier(tool.Name) {
			return nil, schemaErr(where, "name", "tool name must be a JavaScript identifier")
		}
		if seen[tool.Name] {
			return nil, schemaErr(where, "name", "duplicate tool")
		}
		if sdk && IsSDKMethod(tool.Name) {
			return nil, schemaErr(where, "name", "%s.%s is a member of the SDK (step, search, describe and run are reserved in the %s namespace)", SDKNamespace, tool.Name, SDKNamespace)
		}
		seen[tool.Name] = true
		if len(jsdocLines(tool.Description)) == 0 {
			return nil, schemaErr(where, "description", "tool description must not be blank")
		}
		in, out, err := toolTypes(tool, where, defs)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		writeToolJSDoc(b, tool)
		optional := tool.Lenient && noneRequired(in)
		b.WriteString("  " + tool.Name)
		switch {
		case optional:
			b.WriteString("(input?: ")
			printer{}.writeType(b, in, 1)
		case exact:
			// See exactHelpers: the argument's own type I must have no
			// property the input type lacks.
			t := printer{}.typeString(in, 1)
			check := "CodeModeExact"
			if flat(in) {
				check = "CodeModeExactFlat"
			}
			b.WriteString("<CodeModeI extends " + t + ">(input: CodeModeI & " + check + "<CodeModeI, " + t + ">")
			exactNames = append(exactNames, tool.Name)
		default:
			b.WriteString("(input: ")
			printer{}.writeType(b, in, 1)
		}
		b.WriteString("): Promise<")
		printer{}.writeType(b, out, 1)
		b.WriteString(">;\n")
	}
	if sdk {
		if len(ns.Tools) > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(sdkMembers)
	}
	b.WriteString("}\n")
	return exactNames, nil
}

// writeToolJSDoc writes a tool's description, its annotations' tags
// (Annotations.Tags) and its errors' (throwsTags) as one JSDoc comment.
func writeToolJSDoc(b *strings.Builder, tool ToolDecl) {
	// The tags are added after the description's lines are made safe,
	// which escapes any tag the description itself holds.
	lines := append(jsdocLines(tool.Description), tool.Annotations.Tags()...)
	writeJSDocLines(b, append(lines, throwsTags(tool.Errors)...), 1)
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
	in, err = compileToolSchema(tool.InputSchema, defs, tool.Name)
	if err != nil {
		return nil, nil, prefixed(err, where+".input")
	}
	out, err = compileToolSchema(tool.OutputSchema, defs, tool.Name)
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

// InterfaceName is the name of a namespace's interface in declarations:
// Tools for the codemode namespace and FooTools for foo (the scope declares
// `readonly foo: FooTools`).
func InterfaceName(namespace string) string { return interfaceName(namespace) }

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
