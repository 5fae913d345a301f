package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/codemode-go/codemode/connector/mcpconnector"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/internal/defaults"
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
	// connectTimeout bounds each MCP server's start.
	connectTimeout time.Duration
	// unattended is set for a run without a journal: nothing can hold a
	// call for a person, so --approval defaults to never.
	unattended bool
	// noTools is the warning printed when no tool is given, for a command
	// that says what it can still do; "" for the general one.
	noTools string
	// serving is set by the commands that serve (mcp serve, journal
	// serve): a server that asks for a sign-in is then down with the
	// codemode login command to run, instead of opening a browser (it is
	// retried in the background, and nobody may be at the terminal).
	serving bool

	// Set by build, for rebuild: the contract's input, the namespaces
	// that do not change (the tools file's, the OpenAPI documents'), the
	// MCP servers, and joined, which receives (without blocking) when an
	// MCP server that was down comes up.
	programInput *contract.Schema
	fixed        []contract.Namespace
	set          *mcpconnector.Set
	joined       chan struct{}
	// configuration is the connectors' fingerprint
	// (durable.Options.Configuration), set by build.
	configuration map[string]string
}

func (c *contractFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.tools, "tools", "", "JSON file declaring the tools, on codemode (name, description, inputSchema, outputSchema, command; requiresApproval, replay, revert, idempotent)")
	fs.StringVar(&c.mcp, "mcp", "", `an MCP server whose tools go on codemode ("mcp" beside a tools file): a command line ("npx -y @modelcontextprotocol/server-memory") or an http(s) URL`)
	fs.StringVar(&c.config, "config", "", "MCP client configuration file (mcpServers JSON); each server's tools become a namespace named after it")
	fs.StringVar(&c.approval, "approval", "", "which calls of --mcp, --config and --openapi tools need a person's approval: destructive (the default with a journal: MCP tools not marked read-only or non-destructive, HTTP methods other than GET, HEAD, OPTIONS, TRACE), always, or never (the default without a journal, where nothing can wait for a person); a config file's \"approval\" sets it per server")
	fs.IntVar(&c.maxCommands, "max-commands", defaultMaxCommands(), "most --tools commands running at once; further calls wait (the default is twice the CPUs, at least 4)")
	downServer := "left out (its namespace says why) for the rest of the command"
	if c.serving {
		downServer = "left out (its namespace says why) and retried in the background"
	}
	fs.DurationVar(&c.connectTimeout, "connect-timeout", defaults.MCPConnectTimeout, "bound on each MCP server's start, handshake and tool listing; the servers start at once, and one not up by then is "+downServer)
	c.openapi.register(fs)
}

// registerInput registers --input-schema, for the commands whose programs
// can be given an input (run, check, types): nothing else has a way to
// pass one.
func (c *contractFlags) registerInput(fs *flag.FlagSet) {
	fs.StringVar(&c.inputSchema, "input-schema", "", "JSON Schema file of the program input (makes the contract input-bearing; plain runs only)")
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
// (connected: progress, status and warnings on stderr) and the OpenAPI
// documents. The returned close disconnects the MCP servers.
func (c *contractFlags) build(ctx context.Context, stderr io.Writer) (*contract.Contract, func(), error) {
	input, err := c.input()
	if err != nil {
		return nil, nil, err
	}
	if _, err := c.approvalRule(); err != nil {
		return nil, nil, err
	}
	if c.connectTimeout <= 0 {
		return nil, nil, usageError{"--connect-timeout must be positive"}
	}
	c.programInput = input
	c.fixed = nil
	if c.tools != "" {
		ns, warnings, err := loadTools(c.tools, c.maxCommands)
		if err != nil {
			return nil, nil, fmt.Errorf("--tools: %w", err)
		}
		for _, w := range warnings {
			fmt.Fprintln(stderr, "codemode: warning: --tools: "+w)
		}
		c.fixed = append(c.fixed, ns)
	}
	apis, err := c.openapi.namespaces(ctx, c.methodApproval(), stderr)
	if err != nil {
		return nil, nil, err
	}
	c.fixed = append(c.fixed, apis...)
	if c.configuration, err = c.fingerprint(); err != nil {
		return nil, nil, err
	}
	if c.set, err = c.connect(ctx, stderr); err != nil {
		return nil, nil, err
	}
	closeSet := func() { c.set.Close() }
	if !c.any() {
		warning := cmp.Or(c.noTools, "no tools (give --tools FILE, --mcp CMD|URL, --config FILE or --openapi NAME=SPEC)")
		fmt.Fprintln(stderr, "codemode: warning: "+warning)
	}
	ct, err := c.rebuild()
	if err != nil {
		closeSet()
		return nil, nil, err
	}
	return ct, closeSet, nil
}

// fingerprint is the configuration fingerprint of the connectors the
// flags name (durable.Options.Configuration): the tools file's digest,
// each OpenAPI document's base URL, digest and header names, each MCP
// server's command line or URL digest and header and environment names,
// and the tools that have a revert (of c.fixed, which build sets first).
func (c *contractFlags) fingerprint() (map[string]string, error) {
	fp := map[string]string{}
	if c.tools != "" {
		if err := toolsFingerprint(fp, c.tools); err != nil {
			return nil, err
		}
	}
	revertsFingerprint(fp, c.fixed)
	if err := c.openapi.fingerprint(fp); err != nil {
		return nil, err
	}
	servers, err := c.upstreams()
	if err != nil {
		return nil, err
	}
	for _, s := range servers {
		mcpFingerprint(fp, s)
	}
	return fp, nil
}

// rebuild makes the contract again from what build made, with the MCP
// servers as they are now (a server that was down may have joined).
func (c *contractFlags) rebuild() (*contract.Contract, error) {
	namespaces := slices.Clone(c.fixed)
	if c.set != nil {
		namespaces = append(namespaces, c.set.Namespaces()...)
	}
	k, err := contract.NewNamespaced(namespaces...)
	if err != nil || c.programInput == nil {
		return k, err
	}
	return k.WithInput(c.programInput)
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

// connect connects the MCP servers the flags name (nil without servers)
// and says on stderr which are up.
func (c *contractFlags) connect(ctx context.Context, stderr io.Writer) (*mcpconnector.Set, error) {
	servers, err := c.upstreams()
	if err != nil || len(servers) == 0 {
		return nil, err
	}
	if err := withSignIn(servers, c.config, c.serving, stderr); err != nil {
		return nil, err
	}
	fmt.Fprintf(stderr, "codemode: connecting to %d MCP server(s)\n", len(servers))
	c.joined = make(chan struct{}, 1)
	// A command that is not serving runs one program and exits: a server
	// that comes up later would join nothing.
	set, err := mcpconnector.Connect(ctx, servers, mcpconnector.Options{ConnectTimeout: c.connectTimeout, Logger: lineLogger(stderr), NoRetry: !c.serving,
		OnJoin: func(string) {
			select {
			case c.joined <- struct{}{}:
			default: // a rebuild is due already
			}
		}})
	if err != nil {
		return nil, err
	}
	fmt.Fprintln(stderr, "codemode: "+c.serversStatus(servers, set.Down()))
	return set, nil
}

// serversStatus is one line saying which MCP servers are up: "MCP servers
// up: a, b", "MCP servers: 2 of 3 up (a, b); down: c, retried in the
// background (the reasons are above)" or, with none up, "MCP servers: none
// of 1 up; down: c, …". A command that is not serving does not retry: it
// says what to check instead.
func (c *contractFlags) serversStatus(servers []mcpconnector.Server, down map[string]error) string {
	var up, out []string
	for _, s := range servers {
		name := s.Name
		if _, isDown := down[name]; isDown {
			out = append(out, name)
		} else {
			up = append(up, name)
		}
	}
	if len(out) == 0 {
		return "MCP servers up: " + strings.Join(up, ", ")
	}
	why := ", retried in the background (the reasons are above)"
	if !c.serving {
		why = fmt.Sprintf(": failed to start or connect, and this command does not retry (the reasons are above; check each one's command line or URL, or give one slow to start more than %s with --connect-timeout)", c.connectTimeout)
	}
	if len(up) == 0 {
		return fmt.Sprintf("MCP servers: none of %d up; down: %s%s", len(servers), strings.Join(out, ", "), why)
	}
	return fmt.Sprintf("MCP servers: %d of %d up (%s); down: %s%s", len(up), len(servers), strings.Join(up, ", "), strings.Join(out, ", "), why)
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
		s, err := parseTarget(c.mcp)
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
		return unknownTools // not given: the tools the execution ran with
	}
	return b.String()
}
