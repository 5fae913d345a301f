package discovery

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/internal/typegen"
)

// Describe returns the declarations of target, looked up in this order: a
// saved program of that name, a namespace of that name, then
// "namespace.tool". It returns an error wrapping ErrUnknownTarget, with a
// hint, for anything else.
func (c *Catalog) Describe(target string, saved []Saved) (Described, error) {
	target = strings.TrimSpace(target)
	for _, s := range saved {
		if s.Name == target {
			return describeSaved(s), nil
		}
	}
	c.mu.Lock()
	out, ok := c.cache[target]
	c.mu.Unlock()
	if ok {
		return out, nil
	}
	out, err := c.describe(target)
	if err != nil {
		return Described{}, err
	}
	c.mu.Lock()
	c.cache[target] = out
	c.mu.Unlock()
	return out, nil
}

func (c *Catalog) describe(target string) (Described, error) {
	for _, ns := range c.contract.Namespaces() {
		if ns.Name == target {
			types, err := c.contract.NamespaceDeclarations(ns.Name)
			if err != nil {
				return Described{}, fmt.Errorf("describing %s: %w", target, err)
			}
			return Described{Path: ns.Name, Description: ns.Instructions, Types: types, Kind: KindNamespace}, nil
		}
	}
	if ns, tool, ok := strings.Cut(target, "."); ok {
		if t := c.contract.Tool(ns, tool); t != nil && t.Policy().Callers == contract.CallersModel {
			return Described{}, fmt.Errorf("%w: %s is a tool the model calls directly, not programs", ErrUnknownTarget, target)
		} else if t != nil {
			types, err := c.describeTool(ns, tool)
			if err != nil {
				return Described{}, fmt.Errorf("describing %s: %w", target, err)
			}
			p := t.Policy()
			return Described{Path: target, Description: t.Description(), RequiresApproval: p.RequiresApproval || p.ApprovalFor != nil, Types: types, Kind: KindTool}, nil
		}
		if c.hasNamespace(ns) {
			return Described{}, fmt.Errorf("%w: namespace %s has no tool %s; codemode.search(%q) finds tools, codemode.describe(%q) lists them", ErrUnknownTarget, ns, tool, tool, ns)
		}
	}
	return Described{}, fmt.Errorf("%w: %q is not a saved program, a namespace (%s) or a namespace.tool; codemode.search(words) finds tools and saved programs",
		ErrUnknownTarget, target, strings.Join(c.names(), ", "))
}

// describeTool is the TypeScript of one tool with only the named types it
// reaches, within typegen.DefaultDescribeChars (types that do not fit are
// listed by name; describing the namespace declares them all).
func (c *Catalog) describeTool(ns, tool string) (string, error) {
	c.mu.Lock()
	d := c.describers[ns]
	c.mu.Unlock()
	if d == nil {
		n, ok := c.namespace(ns)
		if !ok {
			return "", fmt.Errorf("no namespace %s", ns)
		}
		var err error
		if d, err = n.Describer(); err != nil {
			return "", err
		}
		c.mu.Lock()
		c.describers[ns] = d
		c.mu.Unlock()
	}
	text, err := d.Tool(tool, 0)
	if err != nil {
		return "", err
	}
	return strings.TrimRight(text, "\n") + "\n\ndeclare const " + ns + ": " + typegen.InterfaceName(ns) + ";\n", nil
}

func (c *Catalog) namespace(name string) (contract.Namespace, bool) {
	for _, n := range c.contract.Namespaces() {
		if n.Name == name {
			return n, true
		}
	}
	return contract.Namespace{}, false
}

func (c *Catalog) hasNamespace(name string) bool {
	_, ok := c.namespace(name)
	return ok
}

func (c *Catalog) names() []string {
	var names []string
	for _, n := range c.contract.Namespaces() {
		names = append(names, n.Name)
	}
	return names
}

// describeSaved declares how to run a saved program: codemode.run with its
// name and input type (from its input schema; unknown without one).
func describeSaved(s Saved) Described {
	input := "input?: unknown"
	if len(s.InputSchema) > 0 && string(s.InputSchema) != "null" {
		input = "input: " + strings.ReplaceAll(typegen.LenientType(s.InputSchema), "\n", "\n  ")
	}
	doc := s.Description
	if len(s.Namespaces) > 0 {
		doc += "\nUses the namespaces " + strings.Join(s.Namespaces, ", ") + "."
	}
	var b strings.Builder
	b.WriteString("interface CodemodeSnippets {\n  /**\n")
	for _, l := range strings.Split(strings.TrimSpace(doc), "\n") {
		b.WriteString(strings.TrimRight("   * "+strings.ReplaceAll(l, "*/", "*\\/"), " ") + "\n")
	}
	b.WriteString("   */\n")
	name, _ := json.Marshal(s.Name)
	b.WriteString("  run(name: " + string(name) + ", " + input + "): Promise<unknown>;\n}\n")
	return Described{Path: s.Name, Description: s.Description, Types: b.String(), Kind: KindSaved}
}
