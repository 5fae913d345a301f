package mcpconnector

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/internal/toolname"
	"github.com/codemode-go/codemode/internal/typegen"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// checkedAtConnect is how many of a server's tools have their schemas
// compiled when the server joins, to warn about those that degrade. The
// schemas of the tools past it are checked on each tool's first call, so
// that a catalogue of 10,000 tools does not compile 20,000 schemas before
// its first program runs.
const checkedAtConnect = 200

// namespaceName is the namespace of s's tools: its name, or codemode for a
// single unnamed server.
func namespaceName(s Server) string {
	if s.Name == "" {
		return contract.DefaultNamespace
	}
	return s.Name
}

// namespace makes each of the upstream's tools a contract tool: named by
// programNames, described by the MCP description (or title), declared
// leniently from the server's schemas (rewritten as Server.Validate says),
// carrying the server's tool annotations and the policy of its Approval
// rule or Policies, validated on the host unless validation is off, and
// calling the server by its MCP name, which its contract.Tool.Upstream
// gives ("MCP tool get-file"). A tool that must be called as an MCP
// task is left out (tasks.go), as is a second tool of a name already
// listed. A tool whose schema cannot be compiled still works; for the
// first checkedAtConnect tools its problem is in the warnings, for the
// others it is logged on the tool's first call. Tools whose names sanitise
// alike are all declared, each warned of. It returns an error naming the
// setting when Policies names no tool.
func (u *upstream) namespace() (ns contract.Namespace, warnings []error, err error) {
	if n := len(u.tools); n > checkedAtConnect {
		warnings = append(warnings, fmt.Errorf("mcp server %s: the schemas of %d of its %d tools are checked on each tool's first call, not at connect; a schema that does not compile is reported then",
			u.server, n-checkedAtConnect, n))
	}
	var declared []*mcp.Tool
	var needTasks, twice []string
	listed := map[string]bool{}
	for _, t := range u.tools {
		switch {
		case u.tasks.required(t.Name):
			needTasks = append(needTasks, t.Name)
		case listed[t.Name]:
			twice = append(twice, t.Name)
		default:
			listed[t.Name] = true
			declared = append(declared, t)
		}
	}
	var reserved func(string) bool
	if namespaceName(u.server) == typegen.SDKNamespace {
		reserved = typegen.IsSDKMethod
	}
	names, renamed := programNames(declared, reserved)
	warnings = append(warnings, renamedWarnings(u.server, names, renamed)...)
	used := map[string]bool{}
	for i, t := range declared {
		tool, err := u.contractTool(t, names[t.Name], i < checkedAtConnect, used)
		if err != nil {
			return contract.Namespace{}, nil, err
		}
		if i < checkedAtConnect {
			if d := tool.Degraded(); d != nil {
				warnings = append(warnings, degradedWarning(u.server, d))
			}
		}
		ns.Tools = append(ns.Tools, tool)
	}
	if len(needTasks) > 0 {
		warnings = append(warnings, fmt.Errorf("mcp server %s: left out %s: the tool can only be called as an MCP task (execution.taskSupport \"required\"), which codemode does not call yet",
			u.server, strings.Join(needTasks, ", ")))
	}
	if len(twice) > 0 {
		warnings = append(warnings, fmt.Errorf("mcp server %s lists %s more than once: the first of each is declared", u.server, strings.Join(twice, ", ")))
	}
	for _, n := range slices.Sorted(maps.Keys(u.server.settingNames())) {
		switch _, policy := u.server.Policies[n]; {
		case used[n] || slices.Contains(needTasks, n):
		case policy:
			// A policy may be what makes a call wait for a person: the
			// server stays out rather than run its tools without it.
			return contract.Namespace{}, nil, fmt.Errorf("mcp server %s has no tool %q (a policy names it)", u.server, n)
		default:
			warnings = append(warnings, fmt.Errorf("mcp server %s has no tool %q (a validate or callers setting names it; the setting is ignored)", u.server, n))
		}
	}
	ns.Name, ns.Instructions = namespaceName(u.server), u.instructions
	return ns, warnings, nil
}

// programName is a tool's name in programs, and when a suffix made it
// differ from its sanitised MCP name, the MCP name of the tool that kept
// that name, or sdk when code mode's SDK has it (on the codemode
// namespace).
type programName struct {
	name   string
	keeper string
	sdk    bool
}

// programNames names each tool in programs by toolname.Sanitize of its
// MCP name (sanitizeToolName,
// https://developers.cloudflare.com/agents/tools/codemode/api-reference/).
// When several tools sanitise alike (get-file, get_file), one keeps the
// name: the one whose MCP name it is, else the first MCP name in byte
// order; the others, in byte order, take the name suffixed "_2", "_3", …,
// skipping a suffixed name another tool sanitises to. The names depend on
// the set of MCP names only, not on the order the server lists them in, so
// that a server listing the same tools again (a restart, a reconnect, the
// next process) gives each the same name, which stored programs and
// durable journals name it by. A name reserved reports true for (the
// SDK's search, describe, step and run on the codemode namespace) is kept
// by none of its tools: they are all suffixed. renamed lists the groups
// that collided or took a reserved name, keeper first, by their shared
// name in byte order.
func programNames(tools []*mcp.Tool, reserved func(string) bool) (names map[string]programName, renamed [][]string) {
	groups := map[string][]string{}
	for _, t := range tools {
		base := toolname.Sanitize(t.Name)
		groups[base] = append(groups[base], t.Name)
	}
	names = make(map[string]programName, len(tools))
	taken := make(map[string]bool, len(groups))
	for base := range groups {
		taken[base] = true
	}
	for _, base := range slices.Sorted(maps.Keys(groups)) {
		g := groups[base]
		slices.SortFunc(g, func(a, b string) int {
			if (a == base) != (b == base) {
				if a == base {
					return -1
				}
				return 1
			}
			return strings.Compare(a, b)
		})
		suffixed, keeper := g[1:], g[0]
		if reserved != nil && reserved(base) {
			suffixed, keeper = g, ""
		} else {
			names[g[0]] = programName{name: base}
		}
		if len(suffixed) == 0 {
			continue
		}
		renamed = append(renamed, g)
		k := 2
		for _, mcpName := range suffixed {
			for taken[base+"_"+strconv.Itoa(k)] {
				k++
			}
			n := base + "_" + strconv.Itoa(k)
			taken[n] = true
			names[mcpName] = programName{name: n, keeper: keeper, sdk: keeper == ""}
		}
	}
	return names, renamed
}

// renamedWarnings says, per group of tools that sanitised alike, which
// tool kept the name and what the others are called:
// `mcp server x: tools "get_file" and "get-file" both become get_file in
// programs: "get_file" keeps it, "get-file" is get_file_2`.
func renamedWarnings(server Server, names map[string]programName, renamed [][]string) []error {
	var out []error
	for _, g := range renamed {
		quoted := make([]string, len(g))
		for i, n := range g {
			quoted[i] = strconv.Quote(n)
		}
		if pn := names[g[0]]; pn.sdk {
			parts := make([]string, len(g))
			for i, n := range g {
				parts[i] = quoted[i] + " is " + names[n].name
			}
			base := toolname.Sanitize(g[0])
			out = append(out, fmt.Errorf("mcp server %s: %s in programs, since %s.%s belongs to code mode's SDK", server, strings.Join(parts, ", "), contract.DefaultNamespace, base))
			continue
		}
		which := fmt.Sprintf("tools %s and %s all become %s", strings.Join(quoted[:len(g)-1], ", "), quoted[len(g)-1], names[g[0]].name)
		if len(g) == 2 {
			which = fmt.Sprintf("tools %s and %s both become %s", quoted[0], quoted[1], names[g[0]].name)
		}
		parts := []string{quoted[0] + " keeps it"}
		for i, n := range g[1:] {
			parts = append(parts, quoted[i+1]+" is "+names[n].name)
		}
		out = append(out, fmt.Errorf("mcp server %s: %s in programs: %s", server, which, strings.Join(parts, ", ")))
	}
	return out
}

// settingNames are the tool names the server's per-tool settings use.
func (s Server) settingNames() map[string]bool {
	names := map[string]bool{}
	for n := range s.Policies {
		names[n] = true
	}
	for n := range s.ValidateTools {
		names[n] = true
	}
	for n := range s.Callers {
		names[n] = true
	}
	return names
}

// setting returns the value m holds for a tool, by its MCP name or its
// name in programs, recording the key in used.
func setting[V any](m map[string]V, mcpName, name string, used map[string]bool) (V, bool) {
	for _, k := range []string{mcpName, name} {
		if v, ok := m[k]; ok {
			used[k] = true
			return v, true
		}
	}
	var zero V
	return zero, false
}

// contractTool makes the server's tool t the contract tool pn.name;
// checked says its schemas are checked at connect (else on its first
// call).
func (u *upstream) contractTool(t *mcp.Tool, pn programName, checked bool, used map[string]bool) (*contract.Tool, error) {
	name := pn.name
	desc := strings.TrimSpace(t.Description)
	if desc == "" {
		desc = strings.TrimSpace(t.Title)
	}
	if desc == "" {
		desc = "MCP tool " + t.Name + "."
	}
	switch {
	case pn.sdk:
		desc += fmt.Sprintf("\n\n(MCP tool name: %s; named %s because %s.%s belongs to code mode's SDK)", t.Name, name, contract.DefaultNamespace, toolname.Sanitize(t.Name))
	case pn.keeper != "":
		desc += fmt.Sprintf("\n\n(MCP tool name: %s; named %s because the server's tool %s is %s)", t.Name, name, pn.keeper, toolname.Sanitize(t.Name))
	case name != t.Name:
		desc += "\n\n(MCP tool name: " + t.Name + ")"
	}
	mode := u.server.Validate
	if m, ok := setting(u.server.ValidateTools, t.Name, name, used); ok {
		mode = m
	}
	if err := mode.check(); err != nil {
		return nil, fmt.Errorf("mcp server %s: tool %s: %w", u.server, t.Name, err)
	}
	in, out, err := u.schemas(t, mode)
	if err != nil {
		return nil, err
	}
	mcpName := t.Name
	var tool *contract.Tool
	var check sync.Once
	call := func(ctx context.Context, input json.RawMessage) (json.RawMessage, error) {
		if !checked {
			// The input schema compiled when the call was validated;
			// Degraded compiles the output schema too, once.
			check.Do(func() {
				if d := tool.Degraded(); d != nil {
					u.log.Warn(degradedWarning(u.server, d).Error())
				}
			})
		}
		return u.call(ctx, mcpName, input)
	}
	if mode == ValidateOff {
		tool, err = contract.NewDeclaredTool(name, desc, in, out, call)
	} else {
		tool, err = contract.NewForeignTool(name, desc, in, out, call)
	}
	if err != nil {
		return nil, fmt.Errorf("mcp server %s: tool %s: %w", u.server, t.Name, err)
	}
	// The name in programs may move to another MCP tool when the
	// server's tool list changes (programNames): a journal records which
	// tool a call named.
	tool = tool.WithUpstream(upstreamName(t.Name))
	if t.Annotations != nil {
		tool = tool.WithAnnotations(annotations(t.Annotations))
	}
	p, ok := setting(u.server.Policies, t.Name, name, used)
	if !ok {
		p = contract.Policy{RequiresApproval: u.server.Approval.needs(t.Annotations)}
	}
	if c, ok := setting(u.server.Callers, t.Name, name, used); ok {
		p.Callers = c
	}
	if tool, err = tool.WithPolicy(p); err != nil {
		return nil, fmt.Errorf("mcp server %s: %w", u.server, err)
	}
	return tool, nil
}

// upstreamName is the contract.Tool.Upstream of the MCP tool mcpName:
// "MCP tool " and the name, byte for byte. Journals compare it with what
// they recorded, so its form never changes.
func upstreamName(mcpName string) string { return "MCP tool " + mcpName }

// schemas are t's input and output schemas as mode declares them: as
// written for ValidateStrict, with their export quirks rewritten (see
// schema.go) otherwise.
func (u *upstream) schemas(t *mcp.Tool, mode Validation) (in, out json.RawMessage, err error) {
	if in, err = schemaText(t.InputSchema); err != nil {
		return nil, nil, fmt.Errorf("mcp server %s: tool %s input schema: %w", u.server, t.Name, err)
	}
	if out, err = schemaText(t.OutputSchema); err != nil {
		return nil, nil, fmt.Errorf("mcp server %s: tool %s output schema: %w", u.server, t.Name, err)
	}
	if mode == ValidateStrict {
		return in, out, nil
	}
	// A schema relax cannot read stays as written: NewForeignTool
	// degrades it with a warning, as it would have.
	if r, err := relaxInput(in); err == nil {
		in = r
	}
	if r, err := relaxOutput(out); err == nil {
		out = r
	}
	return in, out, nil
}

// degradedWarning says that a tool's schema degraded.
func degradedWarning(server Server, d error) error {
	return fmt.Errorf("mcp server %s: %w (declared loosely, not validated on the host)", server, d)
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
