package mcpconnector

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"github.com/codemode-go/codemode/contract"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// CheckedAtConnect is how many of a server's tools ContractTools checks at
// once, compiling their schemas to warn about those that degrade. The
// schemas of the tools past it are checked on each tool's first call, so
// that a catalogue of 10,000 tools does not compile 20,000 schemas before
// its first program runs.
const CheckedAtConnect = 200

// ContractTools makes each of the upstream's tools a contract tool (see
// contract.NewForeignTool): named by SanitizeToolName, described by the MCP
// description (or title), declared leniently from the server's schemas,
// carrying the server's tool annotations (contract.Annotations) and the
// policy of the server's Approval rule or Policies, validated against the
// schemas on the host, and calling CallTool. A tool whose
// schema cannot be compiled still works; for the first CheckedAtConnect
// tools its problem is in the returned warnings, and for the others it is
// reported on the tool's first call, to the upstream's OnWarning (one
// returned warning says how many tools that concerns). It returns an error
// naming both originals when two tool names sanitise alike, or when a
// policy (Server.Policies) names no tool.
func (u *Upstream) ContractTools() (tools []*contract.Tool, warnings []error, err error) {
	seen := map[string]string{}
	if n := len(u.tools); n > CheckedAtConnect {
		warnings = append(warnings, fmt.Errorf("mcp server %s: the schemas of %d of its %d tools are checked on each tool's first call, not at connect; a schema that does not compile is reported then",
			u.server, n-CheckedAtConnect, n))
	}
	used := map[string]bool{}
	for i, t := range u.tools {
		name := SanitizeToolName(t.Name)
		if other, dup := seen[name]; dup {
			return nil, nil, fmt.Errorf("mcp server %s: tools %q and %q both become %s in programs", u.server, other, t.Name, name)
		}
		seen[name] = t.Name
		desc := strings.TrimSpace(t.Description)
		if desc == "" {
			desc = strings.TrimSpace(t.Title)
		}
		if desc == "" {
			desc = "MCP tool " + t.Name + "."
		}
		if name != t.Name {
			desc += "\n\n(MCP tool name: " + t.Name + ")"
		}
		in, err := schemaText(t.InputSchema)
		if err != nil {
			return nil, nil, fmt.Errorf("mcp server %s: tool %s input schema: %w", u.server, t.Name, err)
		}
		out, err := schemaText(t.OutputSchema)
		if err != nil {
			return nil, nil, fmt.Errorf("mcp server %s: tool %s output schema: %w", u.server, t.Name, err)
		}
		mcpName := t.Name
		checked := i < CheckedAtConnect
		var tool *contract.Tool
		var check sync.Once
		tool, err = contract.NewForeignTool(name, desc, in, out, func(ctx context.Context, input json.RawMessage) (json.RawMessage, error) {
			if !checked {
				// The input schema compiled when the call was validated;
				// Degraded compiles the output schema too, once.
				check.Do(func() {
					if d := tool.Degraded(); d != nil {
						u.warn(degradedWarning(u.server, d))
					}
				})
			}
			return u.CallTool(ctx, mcpName, input)
		})
		if err != nil {
			return nil, nil, fmt.Errorf("mcp server %s: tool %s: %w", u.server, t.Name, err)
		}
		if t.Annotations != nil {
			tool = tool.WithAnnotations(annotations(t.Annotations))
		}
		if tool, err = u.withPolicy(tool, t, used); err != nil {
			return nil, nil, err
		}
		if checked {
			if d := tool.Degraded(); d != nil {
				warnings = append(warnings, degradedWarning(u.server, d))
			}
		}
		tools = append(tools, tool)
	}
	for n := range u.server.Policies {
		if !used[n] {
			return nil, nil, fmt.Errorf("mcp server %s has no tool %q (a policy names it)", u.server, n)
		}
	}
	return tools, warnings, nil
}

// withPolicy gives tool, the server's t, its policy: the one Server.Policies
// names it by (its own name or the program's), else the server's Approval
// rule's. used records the policies taken.
func (u *Upstream) withPolicy(tool *contract.Tool, t *mcp.Tool, used map[string]bool) (*contract.Tool, error) {
	p, ok := u.server.Policies[t.Name]
	if ok {
		used[t.Name] = true
	} else if p, ok = u.server.Policies[tool.Name()]; ok {
		used[tool.Name()] = true
	} else {
		p = contract.Policy{RequiresApproval: u.server.Approval.needs(t.Annotations)}
	}
	tool, err := tool.WithPolicy(p)
	if err != nil {
		return nil, fmt.Errorf("mcp server %s: %w", u.server, err)
	}
	return tool, nil
}

// degradedWarning says that a tool's schema degraded.
func degradedWarning(server Server, d error) error {
	return fmt.Errorf("mcp server %s: %w (declared loosely, not validated on the host)", server, d)
}

// OnWarning sets where the upstream reports a problem found after connect
// (a degraded schema of a tool past CheckedAtConnect, at its first call):
// f is called from the calling goroutine. Without it such problems go to
// slog's default logger as warnings.
func (u *Upstream) OnWarning(f func(error)) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.onWarning = f
}

// warn reports err to OnWarning's function, or to slog's default logger.
func (u *Upstream) warn(err error) {
	u.mu.Lock()
	f := u.onWarning
	u.mu.Unlock()
	if f != nil {
		f(err)
		return
	}
	slog.Warn(err.Error())
}

// OnWarning sets every upstream's OnWarning.
func (s *Set) OnWarning(f func(error)) {
	for _, u := range s.upstreams {
		u.OnWarning(f)
	}
}

// annotations copies an upstream tool's MCP annotations. The go-sdk decodes
// readOnlyHint and idempotentHint into plain bools, so false there is
// indistinguishable from absent: it is copied as unset, which has the same
// meaning (both default to false in the MCP specification's
// ToolAnnotations).
func annotations(a *mcp.ToolAnnotations) contract.Annotations {
	trueOrUnset := func(v bool) *bool {
		if !v {
			return nil
		}
		return &v
	}
	return contract.Annotations{
		Title:       a.Title,
		ReadOnly:    trueOrUnset(a.ReadOnlyHint),
		Destructive: a.DestructiveHint,
		Idempotent:  trueOrUnset(a.IdempotentHint),
		OpenWorld:   a.OpenWorldHint,
	}
}

// schemaText encodes a schema as the client decoded it; nil stays nil.
func schemaText(s any) (json.RawMessage, error) {
	if s == nil {
		return nil, nil
	}
	if raw, ok := s.(json.RawMessage); ok {
		return raw, nil
	}
	return json.Marshal(s)
}

// Set is the connected upstreams of one configuration. It is safe for
// concurrent use.
type Set struct {
	upstreams []*Upstream
}

// ConnectAll connects to every server at once. A single server may be
// unnamed (its tools go on the codemode namespace); with more than one,
// every server needs a distinct name. If any connection fails, the others
// are closed and the error names each failing server.
func ConnectAll(ctx context.Context, servers []Server) (*Set, error) {
	if len(servers) == 0 {
		return nil, errors.New("mcpconnector: no MCP servers to connect to")
	}
	names := map[string]bool{}
	for _, s := range servers {
		if s.Name == "" && len(servers) > 1 {
			return nil, fmt.Errorf("mcpconnector: server %s needs a name: with several servers each is a namespace", s)
		}
		if names[s.Name] {
			return nil, fmt.Errorf("mcpconnector: two servers are named %s", s.Name)
		}
		names[s.Name] = true
	}
	ups := make([]*Upstream, len(servers))
	errs := make([]error, len(servers))
	var wg sync.WaitGroup
	for i, s := range servers {
		wg.Go(func() { ups[i], errs[i] = Connect(ctx, s) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		for _, u := range ups {
			if u != nil {
				u.Close()
			}
		}
		return nil, err
	}
	return &Set{upstreams: ups}, nil
}

// Upstreams returns the connected servers in configuration order.
func (s *Set) Upstreams() []*Upstream { return s.upstreams }

// Namespaces returns one contract namespace per server: codemode for a
// single unnamed server, else the server's name. Warnings are as for
// ContractTools.
func (s *Set) Namespaces() ([]contract.Namespace, []error, error) {
	var out []contract.Namespace
	var warnings []error
	for _, u := range s.upstreams {
		tools, w, err := u.ContractTools()
		if err != nil {
			return nil, nil, err
		}
		warnings = append(warnings, w...)
		name := u.server.Name
		if name == "" {
			name = contract.DefaultNamespace
		}
		out = append(out, contract.Namespace{Name: name, Tools: tools, Instructions: strings.TrimSpace(u.Instructions())})
	}
	return out, warnings, nil
}

// Contract builds an inputless contract from Namespaces.
func (s *Set) Contract() (*contract.Contract, []error, error) {
	ns, warnings, err := s.Namespaces()
	if err != nil {
		return nil, nil, err
	}
	c, err := contract.NewNamespaced(ns...)
	if err != nil {
		return nil, nil, fmt.Errorf("mcpconnector: %w", err)
	}
	return c, warnings, nil
}

// Instructions returns the servers' handshake instructions, each headed by
// its namespace, for an agent's tool description.
func (s *Set) Instructions() string {
	var b strings.Builder
	for _, u := range s.upstreams {
		if u.instructions == "" {
			continue
		}
		name := u.server.Name
		if name == "" {
			name = contract.DefaultNamespace
		}
		fmt.Fprintf(&b, "%s: %s\n", name, strings.TrimSpace(u.instructions))
	}
	return strings.TrimSpace(b.String())
}

// Close closes every upstream. A nil Set is closed already.
func (s *Set) Close() error {
	if s == nil {
		return nil
	}
	var errs []error
	for _, u := range s.upstreams {
		errs = append(errs, u.Close())
	}
	return errors.Join(errs...)
}
