package typegen

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/codemode-go/codemode/internal/errname"
	"github.com/codemode-go/codemode/internal/termtext"
)

// ErrorDecl declares an error that a tool's calls may reject with: an Error
// whose name is Name, carrying Properties as own properties beside name and
// message (what a Go tool error's ErrorProperties method gives, see package
// client). [Declarations] prints it once, as
//
//	/**
//	 * Description
//	 *
//	 * Not a class: tell it by `e instanceof Error && e.name === "NotFoundError"`, then read it as `e as NotFoundError`.
//	 */
//	interface NotFoundError extends Error {
//	  readonly name: "NotFoundError";
//	  readonly repo: string;
//	}
//
// and each tool that declares it gets a JSDoc tag
// `@throws {NotFoundError} <Description's first paragraph>`. It is an interface,
// not a class: a program tells the error apart by e.name, not instanceof,
// as its JSDoc says.
type ErrorDecl struct {
	// Name is the Error's name: a JavaScript identifier ending in "Error"
	// and holding no character that prints as nothing (a joiner, a
	// variation selector: termtext.IsControl), none of JavaScript's own
	// error classes (TypeError, …) nor code mode's (ToolValidationError,
	// HTTPError, TimeoutError, … of internal/errname).
	Name string `json:"name"`
	// Description says when a call fails so; it becomes the interface's
	// JSDoc and must not be blank.
	Description string `json:"description,omitempty"`
	// Properties is the JSON Schema of an object whose properties the Error
	// carries (nil or empty for none). It is printed leniently, as
	// [LenientType] prints a foreign schema, and never fails; its index
	// signature (additionalProperties) is not printed, and a property named
	// like a member of Error.prototype or Object.prototype (name, message,
	// stack, constructor, toString, …), which the runner never sets from a
	// tool's error, is an error.
	Properties json.RawMessage `json:"properties,omitempty"`
}

// jsErrorNames are ECMAScript's error classes (ECMA-262 2024 §20.5 and
// §27.2.4.1, AggregateError; SuppressedError of explicit resource
// management), which no tool may declare as its own error.
var jsErrorNames = []string{
	"Error", "EvalError", "RangeError", "ReferenceError", "SyntaxError", "TypeError", "URIError",
	"AggregateError", "SuppressedError",
}

// reservedErrorName reports whether a tool may not declare an error named
// name: one of jsErrorNames, or a name code mode's runner and host give
// errors themselves (internal/errname: ToolValidationError, HTTPError,
// TimeoutError, …).
func reservedErrorName(name string) bool {
	return slices.Contains(jsErrorNames, name) || slices.Contains(errname.Names(), errname.Name(name))
}

// reservedErrorProperties are the property names a declared error may not
// carry: those the runner skips when it gives a tool's error its
// properties (runner/src/core.ts, reservedErrorKeys): own members every
// Error has, and the members of Error.prototype and Object.prototype.
var reservedErrorProperties = []string{
	"name", "message", "stack", "cause", "constructor", "__proto__", "toString", "toLocaleString",
	"valueOf", "hasOwnProperty", "isPrototypeOf", "propertyIsEnumerable",
	"__defineGetter__", "__defineSetter__", "__lookupGetter__", "__lookupSetter__",
}

// declaredError is an error a tool declares, checked, with its
// properties compiled (errorProperties; nil for none).
type declaredError struct {
	ErrorDecl
	props *tsType
}

// checkErrorDecl checks one error a tool declares (where names the tool)
// and compiles its properties.
func checkErrorDecl(e ErrorDecl, where string) (declaredError, error) {
	at := where + ".errors." + e.Name
	switch {
	case !isIdentifier(e.Name) || !strings.HasSuffix(e.Name, "Error"):
		return declaredError{}, schemaErr(at, "name", "error name %s must be a JavaScript identifier ending in Error", quote(e.Name))
	case strings.ContainsFunc(e.Name, termtext.IsControl):
		// An identifier may hold joiners and variation selectors, which
		// print as nothing: the interface and its @throws tag would read as
		// another error's name.
		return declaredError{}, schemaErr(at, "name", "error name %s holds a character that hides or reorders text", quote(e.Name))
	case reservedErrorName(e.Name):
		return declaredError{}, schemaErr(at, "name", "error name %s is JavaScript's or code mode's own", e.Name)
	case len(jsdocLines(e.Description)) == 0:
		return declaredError{}, schemaErr(at, "description", "error description must not be blank")
	}
	t := errorProperties(e)
	if t == nil {
		return declaredError{ErrorDecl: e}, nil
	}
	for _, p := range t.props {
		if slices.Contains(reservedErrorProperties, p.name) {
			return declaredError{}, schemaErr(at, "properties", "property %s is a member every Error has; the runner never sets it from a tool's error", quote(p.name))
		}
	}
	return declaredError{ErrorDecl: e, props: t}, nil
}

// errorProperties compiles e's properties leniently: nil when it has
// none, or when they are not an object type.
func errorProperties(e ErrorDecl) *tsType {
	if absentSchema(e.Properties) {
		return nil
	}
	t := lenientCompile(e.Properties)
	if t.kind != tsObject {
		return nil
	}
	return t
}

// sameError reports whether a and b declare the same error: two tools may
// declare one error if they declare it alike.
func sameError(a, b ErrorDecl) bool {
	if a.Name != b.Name || strings.TrimSpace(a.Description) != strings.TrimSpace(b.Description) {
		return false
	}
	var ca, cb bytes.Buffer
	if json.Compact(&ca, a.Properties) != nil || json.Compact(&cb, b.Properties) != nil {
		return bytes.Equal(bytes.TrimSpace(a.Properties), bytes.TrimSpace(b.Properties))
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}

// collectErrors gathers the errors the tools of namespaces declare, each
// once, in the order first declared, and checks them: a name taken by a
// printed type (taken), or declared twice unlike, is an error. An error
// declared again alike is neither checked nor compiled again.
func collectErrors(namespaces []Namespace, taken map[string]bool) ([]declaredError, error) {
	var out []declaredError
	byName := map[string]int{}
	for _, ns := range namespaces {
		for _, tool := range ns.Tools {
			where := ns.Name + "." + tool.Name
			for _, e := range tool.Errors {
				if i, ok := byName[e.Name]; ok {
					if !sameError(out[i].ErrorDecl, e) {
						return nil, schemaErr(where+".errors."+e.Name, "name", "error %s is declared by another tool with another description or properties", e.Name)
					}
					continue
				}
				d, err := checkErrorDecl(e, where)
				if err != nil {
					return nil, err
				}
				if taken[e.Name] {
					return nil, schemaErr(where+".errors."+e.Name, "name", "error name %s is already the name of a declared type", e.Name)
				}
				byName[e.Name] = len(out)
				out = append(out, d)
			}
		}
	}
	return out, nil
}

// writeErrors prints the interfaces of errs (see [ErrorDecl]), each
// JSDoc saying how a program tells the error apart (narrowing).
func writeErrors(b *strings.Builder, errs []declaredError) {
	for _, e := range errs {
		writeJSDoc(b, e.Description+"\n\n"+narrowing(e.Name), 0)
		b.WriteString("interface " + e.Name + " extends Error {\n")
		b.WriteString("  readonly name: " + quote(e.Name) + ";\n")
		if t := e.props; t != nil {
			p := printer{readonly: true}
			for _, prop := range t.props {
				writeJSDocLines(b, append(jsdocLines(prop.description), prop.tags...), 1)
				b.WriteString("  readonly " + propertyName(prop.name))
				if prop.optional {
					b.WriteByte('?')
				}
				b.WriteString(": ")
				p.writeType(b, prop.typ, 1)
				b.WriteString(";\n")
			}
		}
		b.WriteString("}\n\n")
	}
}

// narrowing says how a program tells the declared error name apart: an
// interface has no value at run time, so `e instanceof NotFoundError`
// is a type error, and a ReferenceError where it runs unchecked.
func narrowing(name string) string {
	return "Not a class: tell it by `e instanceof Error && e.name === " + quote(name) + "`, then read it as `e as " + name + "`."
}

// throwsTags are the JSDoc tags of the errors a tool declares:
// `@throws {NotFoundError} <the description's first paragraph>`, its
// lines joined by spaces.
func throwsTags(errs []ErrorDecl) []string {
	tags := make([]string, 0, len(errs))
	for _, e := range errs {
		var para []string
		for _, l := range jsdocLines(e.Description) {
			if strings.TrimSpace(l) == "" {
				break
			}
			para = append(para, strings.TrimSpace(l))
		}
		tags = append(tags, strings.TrimSpace("@throws {"+e.Name+"} "+strings.Join(para, " ")))
	}
	return tags
}
