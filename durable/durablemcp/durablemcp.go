// Package durablemcp makes the tools of an upstream MCP server (a
// connector/mcpconnector Upstream) a durable connector: each MCP tool is a
// method of one namespace, journaled like any connector call. The embedder
// sets approval, replay and revert per tool; approval defaults from the
// tool's MCP annotations (a tool that may be destructive needs approval),
// as Cloudflare's McpConnector lets a derived connector decorate each tool
// (https://developers.cloudflare.com/agents/api-reference/codemode/).
//
// NewServer serves a durable handle's code tool over MCP: each program is a
// durable execution, and the answer is its output (completed, paused with
// the pending actions, or error).
package durablemcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/codemode-go/codemode/connector/mcpconnector"
	"github.com/codemode-go/codemode/durable"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Policy is what the embedder sets for one MCP tool.
type Policy struct {
	// RequiresApproval, when set, says whether a call pauses the execution
	// for a person's approval; nil takes DefaultApproval of the tool's
	// annotations.
	RequiresApproval *bool
	// Replay is the replay policy (durable.ReplayLog when empty);
	// durable.ReplayReexecute only for idempotent reads without approval.
	Replay durable.Replay
	// Revert, optional, compensates an applied call during a rollback (for
	// example by calling the server's delete tool); it receives the
	// recorded arguments and result.
	Revert func(ctx context.Context, args, result json.RawMessage) error
}

// Options configure Connector.
type Options struct {
	// Name is the connector's namespace; "" takes the server's configured
	// name.
	Name string
	// Tools holds policies by tool name, as the server spells it or as
	// programs call it (mcpconnector.SanitizeToolName); tools without one
	// get the default policy. A name that matches no tool is an error.
	Tools map[string]Policy
	// OnPassEnd and DisposeExecution are the connector's lifecycle hooks
	// (see durable.Connector).
	OnPassEnd        func(ctx context.Context, executionID string, status durable.Status) error
	DisposeExecution func(ctx context.Context, executionID string, status durable.Status) error
}

// DefaultApproval reports whether a tool with annotations a needs approval
// by default: unless it is read-only, when it may be destructive. MCP's
// defaults apply to hints left out (readOnlyHint false, destructiveHint
// true: https://modelcontextprotocol.io/specification/2025-06-18/schema#toolannotations),
// so a tool without annotations needs approval.
func DefaultApproval(a *mcp.ToolAnnotations) bool {
	if a == nil {
		return true
	}
	if a.ReadOnlyHint {
		return false
	}
	return a.DestructiveHint == nil || *a.DestructiveHint
}

// Connector returns the upstream's tools as a durable connector: methods
// named by mcpconnector.SanitizeToolName, described by the MCP description
// (or title), with the server's schemas, each call made with
// Upstream.CallTool (an MCP error result is the method's error). It returns
// an error when the connector has no name, two tool names sanitise alike, a
// policy names no tool, or a schema cannot be encoded; durable.New checks
// the rest (a reexecute policy with approval, names).
func Connector(u *mcpconnector.Upstream, opts Options) (durable.Connector, error) {
	name := opts.Name
	if name == "" {
		name = u.Server().Name
	}
	if name == "" {
		return durable.Connector{}, fmt.Errorf("durablemcp: mcp server %s: the connector needs a name (Options.Name)", u.Server())
	}
	c := durable.Connector{Name: name, Instructions: strings.TrimSpace(u.Instructions()),
		OnPassEnd: opts.OnPassEnd, DisposeExecution: opts.DisposeExecution}
	used := map[string]bool{}
	seen := map[string]string{}
	for _, t := range u.Tools() {
		method := mcpconnector.SanitizeToolName(t.Name)
		if other, dup := seen[method]; dup {
			return durable.Connector{}, fmt.Errorf("durablemcp: mcp server %s: tools %q and %q both become %s in programs", u.Server(), other, t.Name, method)
		}
		seen[method] = t.Name
		policy, ok := opts.Tools[t.Name]
		if ok {
			used[t.Name] = true
		} else if policy, ok = opts.Tools[method]; ok {
			used[method] = true
		}
		desc := strings.TrimSpace(t.Description)
		if desc == "" {
			desc = strings.TrimSpace(t.Title)
		}
		if desc == "" {
			desc = "MCP tool " + t.Name + "."
		}
		if method != t.Name {
			desc += "\n\n(MCP tool name: " + t.Name + ")"
		}
		in, err := schemaText(t.InputSchema)
		if err != nil {
			return durable.Connector{}, fmt.Errorf("durablemcp: mcp server %s: tool %s input schema: %w", u.Server(), t.Name, err)
		}
		out, err := schemaText(t.OutputSchema)
		if err != nil {
			return durable.Connector{}, fmt.Errorf("durablemcp: mcp server %s: tool %s output schema: %w", u.Server(), t.Name, err)
		}
		approval := DefaultApproval(t.Annotations)
		if policy.RequiresApproval != nil {
			approval = *policy.RequiresApproval
		}
		mcpName := t.Name
		c.Tools = append(c.Tools, durable.ConnectorTool{
			Name: method, Description: desc, InputSchema: in, OutputSchema: out,
			RequiresApproval: approval, Replay: policy.Replay, Revert: policy.Revert,
			Execute: func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
				return u.CallTool(ctx, mcpName, args)
			},
		})
	}
	for n := range opts.Tools {
		if !used[n] {
			return durable.Connector{}, fmt.Errorf("durablemcp: mcp server %s has no tool %q (a policy names it)", u.Server(), n)
		}
	}
	return c, nil
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
