package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/connector/mcpconnector"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/durable"
	"github.com/codemode-go/codemode/durable/durablemcp"
	"github.com/codemode-go/codemode/durable/sqlite"
)

// toolsConnector is the namespace of a tools file's tools in durable runs:
// "codemode" is the durable SDK's (codemode.step), so the tools go on
// "tools", as Cloudflare's ToolSetConnector names its namespace by default.
const toolsConnector = "tools"

// durableToolSpec is a tools file entry with the durable fields:
//
//	"requiresApproval": true         a call pauses the execution until a person approves it
//	"replay": "log" | "reexecute"    reexecute: a replay runs the command again instead of
//	                                 returning the recorded result (idempotent reads only)
//	"revert": ["./undo.sh", "--x"]   compensation for rollback: receives {"args", "result"}
//	                                 as JSON on stdin; a non-zero exit is the revert's error
type durableToolSpec struct {
	toolSpec
	RequiresApproval bool           `json:"requiresApproval,omitempty"`
	Replay           durable.Replay `json:"replay,omitempty"`
	Revert           []string       `json:"revert,omitempty"`
}

// loadDurableTools reads a tools file as one durable connector named
// toolsConnector; at most maxCommands of its commands (reverts included) run
// at once.
func loadDurableTools(path string, maxCommands int) (durable.Connector, error) {
	if maxCommands < 1 {
		return durable.Connector{}, fmt.Errorf("at most %d commands at once: must be at least 1", maxCommands)
	}
	slots := make(commandSlots, maxCommands)
	raw, err := os.ReadFile(path)
	if err != nil {
		return durable.Connector{}, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var f struct {
		Description string            `json:"description,omitempty"`
		Tools       []durableToolSpec `json:"tools"`
	}
	if err := dec.Decode(&f); err != nil {
		return durable.Connector{}, fmt.Errorf("%s: %w", path, err)
	}
	dir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return durable.Connector{}, err
	}
	c := durable.Connector{Name: toolsConnector, Instructions: f.Description}
	for i, s := range f.Tools {
		where := fmt.Sprintf("%s: tools[%d] (%s)", path, i, s.Name)
		if len(s.Command) == 0 || s.Command[0] == "" {
			return durable.Connector{}, fmt.Errorf("%s: command is missing or empty", where)
		}
		if s.InputSchema == nil || s.OutputSchema == nil {
			return durable.Connector{}, fmt.Errorf("%s: inputSchema and outputSchema are required", where)
		}
		if s.Revert != nil && (len(s.Revert) == 0 || s.Revert[0] == "") {
			return durable.Connector{}, fmt.Errorf("%s: revert is empty: give a command, or leave it out", where)
		}
		t := durable.ConnectorTool{
			Name: s.Name, Description: s.Description, InputSchema: s.InputSchema, OutputSchema: s.OutputSchema,
			RequiresApproval: s.RequiresApproval, Replay: s.Replay,
			Execute: commandHandler(resolveCommand(s.Command, dir), dir, s.Env, slots),
		}
		if s.Revert != nil {
			t.Revert = revertCommand(commandHandler(resolveCommand(s.Revert, dir), dir, s.Env, slots))
		}
		c.Tools = append(c.Tools, t)
	}
	return c, nil
}

// resolveCommand resolves a relative command path (one with a slash)
// against the tools file's folder.
func resolveCommand(command []string, dir string) []string {
	argv := append([]string(nil), command...)
	if strings.Contains(argv[0], "/") && !filepath.IsAbs(argv[0]) {
		argv[0] = filepath.Join(dir, argv[0])
	}
	return argv
}

// revertCommand runs a command handler with {"args": …, "result": …} on stdin; what it
// prints is ignored, a non-zero exit (with its stderr) is the error.
func revertCommand(run contract.Handler) func(ctx context.Context, args, result json.RawMessage) error {
	return func(ctx context.Context, args, result json.RawMessage) error {
		if len(result) == 0 {
			result = json.RawMessage("null")
		}
		in, err := json.Marshal(map[string]json.RawMessage{"args": args, "result": result})
		if err != nil {
			return err
		}
		_, err = run(ctx, in)
		if err != nil && strings.Contains(err.Error(), "printed output that is not JSON") {
			return nil // a revert's output is not used
		}
		return err
	}
}

// connectors builds the durable connectors the contract flags name: a tools
// file's tools on "tools", OpenAPI documents on their names (see
// openapiFlags.durableConnectors), and MCP servers (see mcpConnectors).
func (c *contractFlags) connectors(ctx context.Context, stderr io.Writer) ([]durable.Connector, func(), error) {
	var cs []durable.Connector
	if c.tools != "" {
		conn, err := loadDurableTools(c.tools, c.maxCommands)
		if err != nil {
			return nil, nil, fmt.Errorf("--tools: %w", err)
		}
		cs = append(cs, conn)
	}
	apis, err := c.openapi.durableConnectors(ctx, stderr)
	if err != nil {
		return nil, nil, err
	}
	cs = append(cs, apis...)
	if !c.usesMCP() {
		if c.tools == "" && !c.openapi.used() {
			fmt.Fprintln(stderr, "codemode: warning: no tools (give --tools FILE, --mcp CMD|URL, --config FILE or --openapi NAME=SPEC)")
		}
		return cs, func() {}, nil
	}
	mcps, closeMCP, err := c.mcpConnectors(ctx, stderr)
	if err != nil {
		return nil, nil, err
	}
	return append(cs, mcps...), closeMCP, nil
}

// mcpConnectors connects the MCP servers the flags name and makes each a
// durable connector (durablemcp): a server's name is its namespace, and the
// server of --mcp goes on "tools" ("codemode" is the durable SDK's), or on
// "mcp" beside a tools file. A tool
// needs approval when its MCP annotations say it may be destructive (MCP's
// defaults: a tool without annotations may be).
func (c *contractFlags) mcpConnectors(ctx context.Context, stderr io.Writer) ([]durable.Connector, func(), error) {
	servers, err := c.upstreams(ctx)
	if err != nil {
		return nil, nil, err
	}
	for i := range servers {
		if servers[i].Name == "" || servers[i].Name == contract.DefaultNamespace {
			servers[i].Name = toolsConnector
			if c.tools != "" {
				servers[i].Name = "mcp" // the tools file has "tools"
			}
		}
	}
	fmt.Fprintf(stderr, "codemode: connecting to %d MCP server(s)\n", len(servers))
	set, err := mcpconnector.ConnectAll(ctx, servers)
	if err != nil {
		return nil, nil, err
	}
	var cs []durable.Connector
	for _, u := range set.Upstreams() {
		conn, err := durablemcp.Connector(u, durablemcp.Options{})
		if err != nil {
			set.Close()
			return nil, nil, err
		}
		cs = append(cs, conn)
	}
	return cs, func() { set.Close() }, nil
}

// isDurableToolsFile reports whether path is a tools file with the durable
// fields (requiresApproval, replay, revert): such a file runs with
// --journal, on the "tools" connector, and types and check show and check
// its durable surface.
func isDurableToolsFile(path string) bool {
	raw, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	var f struct {
		Tools []map[string]json.RawMessage `json:"tools"`
	}
	if json.Unmarshal(raw, &f) != nil {
		return false
	}
	for _, t := range f.Tools {
		for _, k := range []string{"requiresApproval", "replay", "revert"} {
			if _, ok := t[k]; ok {
				return true
			}
		}
	}
	return false
}

// durableSurface is a handle over the connectors the flags name, on a
// throw-away journal and ex, for types and check of durable programs; close
// releases it.
func durableSurface(ctx context.Context, cf *contractFlags, ex client.Executor, stderr io.Writer) (*durable.Handle, func(), error) {
	cs, closeConnectors, err := cf.connectors(ctx, stderr)
	if err != nil {
		return nil, nil, err
	}
	dir, err := os.MkdirTemp("", "codemode-types-")
	if err != nil {
		closeConnectors()
		return nil, nil, err
	}
	release := func() { closeConnectors(); os.RemoveAll(dir) }
	st, err := sqlite.Open(ctx, filepath.Join(dir, "journal.db"), sqlite.Options{})
	if err != nil {
		release()
		return nil, nil, err
	}
	h, err := durable.New(st, ex, cs, durable.Options{})
	if err != nil {
		st.Close()
		release()
		return nil, nil, err
	}
	return h, func() { st.Close(); release() }, nil
}
