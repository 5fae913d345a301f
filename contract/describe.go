package contract

import (
	"fmt"

	"github.com/codemode-go/codemode/internal/typegen"
)

// NamespaceDeclarations returns the declarations of one namespace alone, as
// a discovery answer (describe) shows them: typegen.NamespaceDeclarations
// of the namespace with every tool, or with only the named tools (in the
// namespace's order), so that the text holds only the types those tools
// reach.
//
//	decls, err := c.NamespaceDeclarations("github", "create_issue")
//
// # Notes
//   - It returns an error for a namespace or tool the contract does not
//     have.
//   - The text ends with `declare const github: GithubTools;`; it is not a
//     part of TypeDefinitions, which declare the namespace in the program
//     scope.
func (c *Contract) NamespaceDeclarations(namespace string, tools ...string) (string, error) {
	for _, ns := range c.surface.Namespaces {
		if ns.Name != namespace {
			continue
		}
		if len(tools) > 0 {
			want := make(map[string]bool, len(tools))
			for _, t := range tools {
				if c.Tool(namespace, t) == nil {
					return "", fmt.Errorf("contract: namespace %s has no tool %s", namespace, t)
				}
				want[t] = true
			}
			var kept []typegen.ToolDecl
			for _, t := range ns.Tools {
				if want[t.Name] {
					kept = append(kept, t)
				}
			}
			ns.Tools = kept
		}
		d, err := typegen.NamespaceDeclarations(ns)
		if err != nil {
			return "", fmt.Errorf("contract: %w", err)
		}
		return d, nil
	}
	return "", fmt.Errorf("contract: no namespace %s", namespace)
}

// Describer returns a typegen.Describer for the namespace: it renders one
// tool's method with only the named types (Definitions) that method reaches,
// bounded in size, for a describe answer (see typegen.Describer.Tool). It
// parses the namespace's Definitions once; build it once per namespace and
// reuse it. A nil tool or an invalid namespace name or Definitions is an
// error.
func (n Namespace) Describer() (*typegen.Describer, error) {
	ns := typegen.Namespace{Name: n.Name, Definitions: n.Definitions}
	for i, t := range n.Tools {
		if t == nil {
			return nil, fmt.Errorf("contract: namespace %s: tool %d is nil", n.Name, i)
		}
		if t.policy.Callers != CallersModel {
			ns.Tools = append(ns.Tools, t.decl())
		}
	}
	d, err := typegen.NewDescriber(ns)
	if err != nil {
		return nil, fmt.Errorf("contract: %w", err)
	}
	return d, nil
}
