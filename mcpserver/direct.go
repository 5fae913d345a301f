package mcpserver

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/contract"
)

// addDirectTools lists, beside the code tool, the runner's tools that the
// model calls directly (contract.CallersModel or CallersBoth), each as an
// MCP tool of its own named "namespace.tool" ("tool" on codemode). Such a
// call runs the tool once, validated as a program's call would be; the
// client's own approval of the tool call is the person's decision, so a
// direct call is neither journaled nor asked about again.
func (s *server) addDirectTools(srv *mcp.Server, r codetool.Runner) {
	for _, d := range directTools(r) {
		t := d.tool
		schema := t.InputDeclaration()
		if len(schema) == 0 {
			schema = json.RawMessage(`{"type":"object"}`)
		}
		srv.AddTool(&mcp.Tool{Name: d.name, Description: t.Description(), InputSchema: schema, Annotations: toolAnnotations(t.Annotations())}, s.directCall(t))
	}
}

// directTool is a tool the model calls directly, and its MCP name.
type directTool struct {
	name string
	tool *contract.Tool
}

// directTools are the runner's tools the model calls directly, named
// "namespace.tool" ("tool" on codemode).
func directTools(r codetool.Runner) []directTool {
	var out []directTool
	for _, ns := range r.Contract().Namespaces() {
		for _, t := range ns.Tools {
			if t.Policy().Callers == "" {
				continue
			}
			name := ns.Name + "." + t.Name()
			if ns.Name == contract.DefaultNamespace {
				name = t.Name()
			}
			out = append(out, directTool{name, t})
		}
	}
	return out
}

// directNames are directTools' names.
func directNames(r codetool.Runner) []string {
	var out []string
	for _, d := range directTools(r) {
		out = append(out, d.name)
	}
	return out
}

// directCall answers the model's call of t: its output as JSON text, cut
// to the answer budget, or its error.
func (s *server) directCall(t *contract.Tool) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if s.opts.Timeout > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, s.opts.Timeout)
			defer cancel()
		}
		input := req.Params.Arguments
		if len(input) == 0 {
			input = json.RawMessage(`{}`)
		}
		out, err := t.Call(ctx, input)
		if err != nil {
			s.opts.Logger.Info("direct call failed", "tool", t.Name(), "err", err)
			return textResult(true, err.Error()), nil
		}
		text, _ := truncateJSON(out, s.opts.MaxTokens*4)
		return textResult(false, text), nil
	}
}

// toolAnnotations are a contract tool's annotations as MCP states them.
func toolAnnotations(a contract.Annotations) *mcp.ToolAnnotations {
	out := &mcp.ToolAnnotations{Title: a.Title, DestructiveHint: a.Destructive, OpenWorldHint: a.OpenWorld}
	if a.ReadOnly != nil {
		out.ReadOnlyHint = *a.ReadOnly
	}
	if a.Idempotent != nil {
		out.IdempotentHint = *a.Idempotent
	}
	return out
}
