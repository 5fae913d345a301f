package contract

import (
	"fmt"

	"github.com/codemode-go/codemode/typegen"
)

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
		ns.Tools = append(ns.Tools, t.decl())
	}
	d, err := typegen.NewDescriber(ns)
	if err != nil {
		return nil, fmt.Errorf("contract: %w", err)
	}
	return d, nil
}
