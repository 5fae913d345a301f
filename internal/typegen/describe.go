package typegen

import (
	"strings"
)

// DefaultDescribeChars is the size [Describer.Tool] keeps a description
// within when its caller passes no bound: 4,000 characters, about 1,000
// tokens, the goal for describing one OpenAPI operation (issue 13).
const DefaultDescribeChars = 4000

// Describer renders the declarations of single tools of one namespace, for a
// describe answer: the tool's method in its namespace interface and only the
// named types (see [Definitions]) that the method reaches, directly or
// through other named types (Definitions, and the root $defs of strict
// tool schemas). The namespace's Definitions document is parsed
// once, by [NewDescriber]; a Describer is safe for concurrent use.
type Describer struct {
	ns   Namespace
	defs *defsState // shared: root and names only; never mutated after NewDescriber
	// byName maps a type name to its canonical pointer.
	byName map[string]string
}

// NewDescriber prepares ns for [Describer.Tool]. It fails, with a
// *[SchemaError], when the namespace name is not an identifier or its
// Definitions are invalid (see [Declarations]).
func NewDescriber(ns Namespace) (*Describer, error) {
	if !isIdentifier(ns.Name) {
		return nil, schemaErr(ns.Name, "name", "namespace name must be a JavaScript identifier")
	}
	d := &Describer{ns: ns}
	defs, err := namespaceDefs(ns)
	if err != nil {
		return nil, err
	}
	if defs != nil {
		d.defs = defs
		d.byName = make(map[string]string, len(defs.names))
		for key, name := range defs.names {
			d.byName[name] = key
		}
	}
	return d, nil
}

// Tool renders the tool named name as TypeScript declarations of at most
// maxChars characters (0 selects [DefaultDescribeChars]): a `declare
// namespace FooTypes { … }` holding the named types the method reaches, in
// the order they are first reached (the input's before the output's, then
// breadth first), and `interface FooTools { … }` holding the method alone,
// printed as [Declarations] prints it, then the interfaces of the errors
// the tool declares ([ErrorDecl]). The text is valid TypeScript when
// loaded beside the namespace's full declarations, which declare every type
// it names.
//
// When the full rendering is longer than maxChars it is made smaller in
// these steps, each applied only while the text is still too long:
//  1. named types are printed compactly: one line each, without property
//     descriptions;
//  2. the method's description is cut to its first paragraph and its last
//     line (for an OpenAPI operation: the summary, then method and path),
//     with "…" between;
//  3. named types are shown in reach order while they fit, a type only
//     when the type that reached it is shown (or the method reaches it
//     directly); a closing line comment lists those not shown ("// Not
//     shown: FooTypes.A, FooTypes.B"), which a describe of the namespace
//     declares.
//
// The method's own signature is never cut, so a text may still exceed
// maxChars when the method alone does. A tool that is not in ns is an error
// naming it; a tool with an invalid strict schema fails as in
// [Declarations].
func (d *Describer) Tool(name string, maxChars int) (string, error) {
	if maxChars <= 0 {
		maxChars = DefaultDescribeChars
	}
	var tool *ToolDecl
	for i := range d.ns.Tools {
		if d.ns.Tools[i].Name == name {
			tool = &d.ns.Tools[i]
			break
		}
	}
	if tool == nil {
		return "", schemaErr(d.ns.Name+"."+name, "name", "no tool %s in namespace %s", name, d.ns.Name)
	}
	var defs *defsState
	if d.defs != nil {
		defs = d.defs.fresh()
	}
	iface := interfaceName(d.ns.Name)
	method := func(t ToolDecl) (string, error) {
		var b strings.Builder
		one := Namespace{Name: d.ns.Name, Tools: []ToolDecl{t}}
		if _, err := writeNamespace(&b, one, iface, nsPrint{}, defs); err != nil {
			return "", err
		}
		return b.String(), nil
	}
	full, err := method(*tool)
	if err != nil {
		return "", err
	}
	var decls []namedDecl
	if defs != nil {
		if decls, err = defs.compileNamed(); err != nil {
			return "", err
		}
	}
	short := func() (string, error) {
		if s := shortDescription(tool.Description); s != tool.Description {
			t := *tool
			t.Description = s
			return method(t)
		}
		return full, nil
	}
	text, err := fitDescription(TypesNamespaceName(d.ns.Name), full, short, decls, 0, maxChars)
	if err != nil || len(tool.Errors) == 0 {
		return text, err
	}
	// The errors the method's @throws tags name, never cut: a program
	// needs their properties to handle them.
	errs, err := collectErrors([]Namespace{{Name: d.ns.Name, Tools: []ToolDecl{*tool}}}, nil)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString(text)
	b.WriteByte('\n')
	writeErrors(&b, errs)
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// Type renders the named type name (as in [Definitions].Names, without the
// types namespace: "pull_request") like [Describer.Tool] renders a method:
// `declare namespace FooTypes { … }` with the type first, always shown, then
// the named types it reaches, within maxChars by the same steps (the first
// step applies to the type itself too). A name that the namespace does not
// define is an error naming it.
func (d *Describer) Type(name string, maxChars int) (string, error) {
	if maxChars <= 0 {
		maxChars = DefaultDescribeChars
	}
	key, ok := "", false
	if d.defs != nil {
		key, ok = d.byName[name]
	}
	if !ok {
		return "", schemaErr(TypesNamespaceName(d.ns.Name)+"."+name, "name", "no named type %s in namespace %s", name, d.ns.Name)
	}
	defs := d.defs.fresh()
	defs.named(key)
	decls, err := defs.compileNamed()
	if err != nil {
		return "", err
	}
	none := func() (string, error) { return "", nil }
	return fitDescription(TypesNamespaceName(d.ns.Name), "", none, decls, 1, maxChars)
}

// fitDescription renders the named types decls, then the method text, within
// maxChars by the steps that [Describer.Tool] documents; short returns the
// method with its description shortened. The first pinned declarations are
// always shown.
func fitDescription(typesName, method string, short func() (string, error), decls []namedDecl, pinned, maxChars int) (string, error) {
	render := func(m string, compact bool, shown []namedDecl, hidden []string) string {
		var b strings.Builder
		if len(shown) > 0 {
			if compact {
				writeNamedCompact(&b, typesName, shown)
			} else {
				writeNamed(&b, typesName, shown)
			}
			if m != "" {
				b.WriteByte('\n')
			}
		}
		b.WriteString(m)
		if len(hidden) > 0 {
			b.WriteString("// Not shown: " + strings.Join(hidden, ", ") + "\n")
		}
		return b.String()
	}
	if text := render(method, false, decls, nil); len(text) <= maxChars {
		return text, nil
	}
	if text := render(method, true, decls, nil); len(text) <= maxChars {
		return text, nil
	}
	m, err := short()
	if err != nil {
		return "", err
	}
	// A pinned type (the one Type describes) is shown even over the
	// bound. Keep types in reach order while they fit; a type that does not fit
	// is listed, and a later, smaller one may still be shown.
	var shown []namedDecl
	var hidden []string
	visible := make([]bool, len(decls))
	// later[i] is the length of the names of decls[i:], joined: room kept
	// for the not-shown line in case none of them fits.
	later := make([]int, len(decls)+1)
	for i := len(decls) - 1; i >= 0; i-- {
		later[i] = later[i+1] + len(typesName) + 1 + len(decls[i].name) + 2
	}
	for i, decl := range decls {
		if decl.parent >= 0 && !visible[decl.parent] {
			hidden = append(hidden, typesName+"."+decl.name)
			continue
		}
		try := append(shown[:len(shown):len(shown)], decl)
		notShown := 0
		if len(hidden) > 0 || i+1 < len(decls) {
			notShown = len("// Not shown: \n") + len(strings.Join(hidden, ", ")) + 2 + later[i+1]
		}
		if i < pinned || len(render(m, true, try, nil))+notShown <= maxChars {
			shown = try
			visible[i] = true
			continue
		}
		hidden = append(hidden, typesName+"."+decl.name)
	}
	return render(m, true, shown, hidden), nil
}

// shortDescription is a description's first paragraph and its last line,
// with "…" between, when it has more; else the description.
func shortDescription(desc string) string {
	lines := jsdocLines(desc)
	end := 0
	for end < len(lines) && lines[end] != "" {
		end++
	}
	if end >= len(lines)-1 {
		return desc
	}
	return strings.Join(lines[:end], "\n") + "\n…\n" + lines[len(lines)-1]
}

// writeNamedCompact writes the types namespace with one line per named
// type and no property descriptions.
func writeNamedCompact(b *strings.Builder, typesName string, decls []namedDecl) {
	b.WriteString("declare namespace " + typesName + " {\n")
	p := printer{compact: true}
	for _, d := range decls {
		if isInterface(d.typ) {
			b.WriteString("  interface " + d.name + " ")
			p.writeObject(b, d.typ, 1)
			b.WriteString("\n")
			continue
		}
		b.WriteString("  type " + d.name + " = ")
		p.writeType(b, d.typ, 1)
		b.WriteString(";\n")
	}
	b.WriteString("}\n")
}
