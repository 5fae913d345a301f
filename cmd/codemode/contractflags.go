package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/codemode-go/codemode/connector/mcpconnector"
	"github.com/codemode-go/codemode/contract"
)

// contractFlags are the flags that define the contract, the same in every
// mode (plain or with a journal): a tools file's tools on codemode, MCP
// servers (--mcp, unnamed, on codemode; --config, each on its name) and
// OpenAPI documents (each on its name), and an optional input schema.
type contractFlags struct {
	tools       string
	inputSchema string
	mcp         string
	config      string
	approval    string
	openapi     openapiFlags
	maxCommands int
	// unattended is set for a run without a journal: nothing can hold a
	// call for a person, so --approval defaults to never.
	unattended bool
}

func (c *contractFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.tools, "tools", "", "JSON file declaring the tools, on codemode (name, description, inputSchema, outputSchema, command; requiresApproval, replay, revert, idempotent)")
	fs.StringVar(&c.inputSchema, "input-schema", "", "JSON Schema file of the program input (makes the contract input-bearing; plain runs only)")
	fs.StringVar(&c.mcp, "mcp", "", `an MCP server whose tools go on codemode ("mcp" beside a tools file): a command line ("npx -y @modelcontextprotocol/server-memory") or an http(s) URL`)
	fs.StringVar(&c.config, "config", "", "MCP client configuration file (mcpServers JSON); each server's tools become a namespace named after it")
	fs.StringVar(&c.approval, "approval", "", "which calls of --mcp, --config and --openapi tools need a person's approval: destructive (the default with a journal: MCP tools not marked read-only or non-destructive, HTTP methods other than GET, HEAD, OPTIONS, TRACE), always, or never (the default without a journal, where nothing can wait for a person); a config file's \"approval\" sets it per server")
	fs.IntVar(&c.maxCommands, "max-commands", defaultMaxCommands(), "most --tools commands running at once; further calls wait (the default is twice the CPUs, at least 4)")
	c.openapi.register(fs)
}

// usesMCP reports whether tools come from MCP servers.
func (c *contractFlags) usesMCP() bool { return c.mcp != "" || c.config != "" }

// any reports whether any tools source was given.
func (c *contractFlags) any() bool { return c.tools != "" || c.usesMCP() || c.openapi.used() }

// approvalRule is --approval as an MCP server's rule; without the flag,
// never for an unattended run and the connector's default (destructive)
// otherwise.
func (c *contractFlags) approvalRule() (mcpconnector.Approval, error) {
	switch a := mcpconnector.Approval(c.approval); a {
	case "":
		if c.unattended {
			return mcpconnector.ApprovalNever, nil
		}
		return a, nil
	case mcpconnector.ApprovalDestructive, mcpconnector.ApprovalAlways, mcpconnector.ApprovalNever:
		return a, nil
	}
	return "", usageError{fmt.Sprintf("--approval %q: want destructive, always or never", c.approval)}
}

// methodApproval is --approval as an OpenAPI document's rule: nil (unsafe
// methods) for destructive.
func (c *contractFlags) methodApproval() func(string) bool {
	rule, _ := c.approvalRule() // checked by build
	switch rule {
	case mcpconnector.ApprovalAlways:
		return func(string) bool { return true }
	case mcpconnector.ApprovalNever:
		return func(string) bool { return false }
	}
	return nil
}

// build makes the contract: the tools file on codemode, the MCP servers
// (connected: progress and schema warnings on stderr) and the OpenAPI
// documents. The returned close disconnects the MCP servers.
func (c *contractFlags) build(ctx context.Context, stderr io.Writer) (*contract.Contract, func(), error) {
	input, err := c.input()
	if err != nil {
		return nil, nil, err
	}
	if _, err := c.approvalRule(); err != nil {
		return nil, nil, err
	}
	var namespaces []contract.Namespace
	if c.tools != "" {
		ns, err := loadTools(c.tools, c.maxCommands)
		if err != nil {
			return nil, nil, fmt.Errorf("--tools: %w", err)
		}
		namespaces = append(namespaces, ns)
	}
	apis, err := c.openapi.namespaces(ctx, c.methodApproval(), stderr)
	if err != nil {
		return nil, nil, err
	}
	namespaces = append(namespaces, apis...)
	set, mcps, err := c.connect(ctx, stderr)
	if err != nil {
		return nil, nil, err
	}
	namespaces = append(namespaces, mcps...)
	closeSet := func() { set.Close() }
	if !c.any() {
		fmt.Fprintln(stderr, "codemode: warning: no tools (give --tools FILE, --mcp CMD|URL, --config FILE or --openapi NAME=SPEC)")
	}
	var ct *contract.Contract
	if input != nil {
		ct, err = contract.NewNamespacedWithInput(input, namespaces...)
	} else {
		ct, err = contract.NewNamespaced(namespaces...)
	}
	if err != nil {
		closeSet()
		return nil, nil, err
	}
	return ct, closeSet, nil
}

// input is the --input-schema, or nil.
func (c *contractFlags) input() (*contract.Schema, error) {
	if c.inputSchema == "" {
		return nil, nil
	}
	raw, err := os.ReadFile(c.inputSchema)
	if err != nil {
		return nil, fmt.Errorf("--input-schema: %w", err)
	}
	s, err := contract.NewSchema(raw)
	if err != nil {
		return nil, fmt.Errorf("--input-schema %s: %w", c.inputSchema, err)
	}
	return s, nil
}

// connect connects the MCP servers the flags name and returns their
// namespaces; the set is nil without servers.
func (c *contractFlags) connect(ctx context.Context, stderr io.Writer) (*mcpconnector.Set, []contract.Namespace, error) {
	servers, err := c.upstreams()
	if err != nil || len(servers) == 0 {
		return nil, nil, err
	}
	fmt.Fprintf(stderr, "codemode: connecting to %d MCP server(s)\n", len(servers))
	set, err := mcpconnector.ConnectAll(ctx, servers)
	if err != nil {
		return nil, nil, err
	}
	set.OnWarning(func(w error) { fmt.Fprintf(stderr, "codemode: warning: %s\n", oneLine(w.Error())) })
	ns, warnings, err := set.Namespaces()
	if err != nil {
		set.Close()
		return nil, nil, err
	}
	for _, w := range warnings {
		fmt.Fprintf(stderr, "codemode: warning: %s\n", oneLine(w.Error()))
	}
	return set, ns, nil
}

// upstreams are the MCP servers the flags name: --config's, each on its
// name, and --mcp's on codemode (on "mcp" when a tools file or --config
// has codemode's tools), all under --approval unless the file set a rule.
func (c *contractFlags) upstreams() ([]mcpconnector.Server, error) {
	rule, err := c.approvalRule()
	if err != nil {
		return nil, err
	}
	var servers []mcpconnector.Server
	if c.config != "" {
		s, err := mcpconnector.LoadConfig(c.config)
		if err != nil {
			return nil, fmt.Errorf("--config: %w", err)
		}
		servers = s
	}
	if c.mcp != "" {
		s, err := mcpconnector.ParseTarget(c.mcp)
		if err != nil {
			return nil, fmt.Errorf("--mcp: %w", err)
		}
		s.Name = contract.DefaultNamespace
		if c.tools != "" || hasServer(servers, contract.DefaultNamespace) {
			s.Name = "mcp"
		}
		servers = append(servers, s)
	}
	for i := range servers {
		if servers[i].Approval == "" {
			servers[i].Approval = rule
		}
	}
	return servers, nil
}

func hasServer(servers []mcpconnector.Server, name string) bool {
	for _, s := range servers {
		if s.Name == name {
			return true
		}
	}
	return false
}

// given is the tools flags as the command was given them, for a hint that
// repeats them (" --tools tools.json"); header values are not repeated
// (they may hold secrets): --header-env names the variable they came from.
func (c *contractFlags) given() string {
	var b strings.Builder
	add := func(flag, value string) {
		if strings.ContainsAny(value, " \t'\"\\$`;&|<>()*?!#~") {
			value = "'" + strings.ReplaceAll(value, "'", `'\''`) + "'"
		}
		fmt.Fprintf(&b, " --%s %s", flag, value)
	}
	if c.tools != "" {
		add("tools", c.tools)
	}
	if c.mcp != "" {
		add("mcp", c.mcp)
	}
	if c.config != "" {
		add("config", c.config)
	}
	if c.approval != "" {
		add("approval", c.approval)
	}
	c.openapi.given(add)
	if b.Len() == 0 {
		return " --tools FILE" // not given: the tools the execution ran with
	}
	return b.String()
}
