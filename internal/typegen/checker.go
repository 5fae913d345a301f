package typegen

import "strings"

// CheckerDeclarations are what a type checker needs, beside the text of
// [Declarations], to check programs as strictly as the host runs them. They
// are printed from the same [Surface], so a checker never reads the
// declarations' text to find the tools (package typecheck uses them).
type CheckerDeclarations struct {
	// NoPrototype merges, into each namespace interface of the
	// declarations, the names every object inherits from Object.prototype
	// (toString, valueOf, constructor, ...) typed never: at run time a
	// namespace is a null-prototype object, so codemode.toString() cannot
	// run and must not type-check. It is a separate declaration file,
	// loaded with either text.
	NoPrototype string
	// Exact replaces the declarations' text for a second check of a
	// program valid against it: every tool method whose input is required
	// is generic in its argument's type I and requires I to have no
	// property the input type lacks, at any depth, through arrays and the
	// branch of a discriminated union I belongs to:
	//
	//	getWeather(input: T): R
	//	getWeather<CodeModeI extends T>(input: CodeModeI & CodeModeExact<CodeModeI, T>): R
	//
	// Tool inputs are closed and the host rejects an unknown property, but
	// TypeScript reports one only on a fresh object literal, not on a
	// variable. A diagnostic of the second check that names ExcessMarker
	// lists the paths of the extra properties ("input.items[].extra") as
	// string literal types.
	Exact string
	// Methods are the names of the tool methods Exact made exact, in
	// declaration order (a name may repeat across namespaces). A program
	// that mentions none of them needs no second check.
	Methods []string
}

// ExcessMarker is the property that Exact requires of an argument with
// properties its tool's input does not declare; the checker's diagnostic
// for the missing property names it, followed by the extra paths.
const ExcessMarker = "codemode: properties the tool's input does not declare"

// ForChecker prints the [CheckerDeclarations] of s. It fails exactly when
// [Declarations] fails on s, with the same error.
func ForChecker(s Surface) (*CheckerDeclarations, error) {
	text, methods, err := declarations(s, audience{forChecker: true})
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	seen := map[string]bool{}
	namespaces := s.Namespaces
	if s.SDK {
		namespaces = append(namespaces[:len(namespaces):len(namespaces)], Namespace{Name: SDKNamespace})
	}
	for _, ns := range namespaces {
		iface := interfaceName(ns.Name)
		if seen[iface] {
			continue
		}
		seen[iface] = true
		b.WriteString("interface " + iface + " {\n")
		for _, name := range []string{"toString", "toLocaleString", "valueOf", "hasOwnProperty", "isPrototypeOf", "propertyIsEnumerable", "constructor"} {
			b.WriteString("  " + name + ": never;\n")
		}
		b.WriteString("}\n")
	}
	return &CheckerDeclarations{NoPrototype: b.String(), Exact: text, Methods: methods}, nil
}

// exactHelpers are the types of CheckerDeclarations.Exact. CodeModeExact is
// unknown when the argument has nothing extra (or is any), and otherwise an
// object with one property, ExcessMarker, whose type lists the paths of
// the extra properties, which the argument lacks: the checker's error names
// them. CodeModeExcess distributes over the members of a union input and
// keeps those the argument is assignable to, so a discriminated union's
// branch is checked against its own properties. CodeModeExactFlat checks
// an input of primitive properties only (see flat) with one key
// comparison instead of a recursive walk: a tool call costs the checker
// about half as much.
const exactHelpers = `
type CodeModeExcess<I, T, P extends string> =
  T extends object
    ? [I] extends [T]
      ? T extends readonly (infer V)[]
        ? I extends readonly (infer E)[] ? CodeModeExcess<E, V, ` + "`${P}[]`" + `> : never
        : { [K in keyof I]-?: K extends keyof T ? CodeModeExcess<I[K], T[K], ` + "`${P}.${K & string}`" + `> : ` + "`${P}.${K & string}`" + ` }[keyof I]
      : never
    : never;
type CodeModeExact<I, T> = 0 extends 1 & I ? unknown : CodeModeExactMark<CodeModeExcess<I, T, "input">>;
type CodeModeExactFlat<I, T> = 0 extends 1 & I ? unknown : CodeModeExactMark<` + "`input.${Exclude<keyof I, keyof T> & string}`" + `>;
type CodeModeExactMark<X> = [X] extends [never] ? unknown : { "` + ExcessMarker + `": X };
`

// flat reports whether an input type is one object of primitive properties
// (no nested object, array, union, literal or index signature), which
// CodeModeExactFlat checks.
func flat(t *tsType) bool {
	if t.kind != tsObject || len(t.props) == 0 || t.index != nil {
		return false
	}
	for _, p := range t.props {
		if p.typ.kind != tsPrimitive {
			return false
		}
	}
	return true
}
