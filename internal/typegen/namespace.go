package typegen

import "strings"

// NamespaceDeclarations renders one namespace alone, as a describe answer
// shows it: the named types its tools reach (`declare namespace FooTypes
// { … }`, only those reached, when the namespace has Definitions), its
// interface (FooTools, each tool with its description as JSDoc), the
// interfaces of the errors its tools declare ([ErrorDecl]) and
// `declare const foo: FooTools;`. To describe one method, pass the
// namespace with that tool alone: the output then holds only the types
// that method needs.
//
//	typegen.NamespaceDeclarations(typegen.Namespace{Name: "github", Tools: []typegen.ToolDecl{createIssue}})
//
// # Notes
//   - Errors are those of [Declarations] for the same namespace: a name
//     that is not an identifier or is reserved, a blank description, a
//     strict schema that does not compile (*[SchemaError]).
//   - The output is a global script fragment: it declares the namespace's
//     const, so it is not meant to be concatenated with the complete
//     [Declarations], which declare the namespace in the program's scope.
func NamespaceDeclarations(ns Namespace) (string, error) {
	if !isIdentifier(ns.Name) {
		return "", schemaErr(ns.Name, "name", "namespace name must be a JavaScript identifier")
	}
	switch ns.Name {
	case "input", "console", "result":
		return "", schemaErr(ns.Name, "name", "namespace name %q is reserved by the program scope", ns.Name)
	}
	defs, err := namespaceDefs(ns)
	if err != nil {
		return "", err
	}
	iface := interfaceName(ns.Name)
	var nb strings.Builder
	if _, err := writeNamespace(&nb, ns, iface, nsPrint{}, defs); err != nil {
		return "", err
	}
	var b strings.Builder
	if err := writeNamedOf(&b, TypesNamespaceName(ns.Name), defs); err != nil {
		return "", err
	}
	b.WriteString(nb.String())
	errs, err := collectErrors([]Namespace{ns}, map[string]bool{iface: true, TypesNamespaceName(ns.Name): true})
	if err != nil {
		return "", err
	}
	b.WriteByte('\n')
	writeErrors(&b, errs) // each followed by a blank line
	b.WriteString("declare const " + ns.Name + ": " + iface + ";\n")
	return b.String(), nil
}
