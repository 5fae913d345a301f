package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/internal/answercut"
	"github.com/codemode-go/codemode/internal/termtext"
)

// addDirectTools lists, beside the code tool, the runner's tools that the
// model calls directly (contract.CallersModel or CallersBoth), each as an
// MCP tool of its own named "namespace.tool" ("tool" on codemode). Such a
// call runs the tool once, validated as a program's call would be, and
// is not journaled; one whose policy needs approval is asked about through
// the client first (directApproval), and refused when the client cannot
// ask.
func (s *server) addDirectTools(srv *mcp.Server, r codetool.Runner) {
	for _, d := range directTools(r) {
		t := d.tool
		if d.name == codetool.Name || d.name == resultToolName {
			s.opts.Logger.Warn(fmt.Sprintf("the direct tool %s is left out: the server's own tool has that name", d.name))
			continue
		}
		schema, err := objectSchema(t.InputDeclaration())
		if err != nil {
			s.opts.Logger.Warn(fmt.Sprintf("the direct tool %s is left out: %v", d.name, err))
			continue
		}
		srv.AddTool(&mcp.Tool{Name: d.name, Description: t.Description(), InputSchema: schema, Annotations: toolAnnotations(t.Annotations())}, s.directCall(d))
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

// directCall answers the model's call of d: its output as JSON text, cut
// to the answer budget, or its error. A call whose tool's policy needs
// approval is asked about first (directApproval).
func (s *server) directCall(d directTool) mcp.ToolHandler {
	t := d.tool
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
		if t.Policy().NeedsApproval(input) {
			if stop := s.directApproval(ctx, req, d, input); stop != nil {
				return stop, nil
			}
		}
		out, err := t.Call(ctx, input)
		if err != nil {
			s.opts.Logger.Info("direct call failed", "tool", t.Name(), "err", err)
			return textResult(true, err.Error()), nil
		}
		text, _ := answercut.CutJSON(out, s.opts.MaxTokens*4)
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

// directInput is the input request id of a direct call's approval asked
// in a result (SEP-2322).
const directInput = "approve"

// directApproval asks the person about a direct call of d with input that
// its policy says needs approval: by an elicitation request, or in the
// result from protocol 2026-07-28 on (a signed state bound to the session,
// the tool and the input). It returns nil when the person accepted, else
// the answer that ends the call (a refusal, or the question).
func (s *server) directApproval(ctx context.Context, req *mcp.CallToolRequest, d directTool, input json.RawMessage) *mcp.CallToolResult {
	if !s.elicits(req) {
		return textResult(true, fmt.Sprintf("%s needs a person's approval, and this client cannot ask them (it did not declare elicitation); nothing ran. Call it from a program, where a recorded run can wait for a person.", d.name))
	}
	if !multiRoundTrip(req) {
		ns, tool, _ := strings.Cut(d.name, ".")
		if tool == "" {
			ns, tool = contract.DefaultNamespace, d.name
		}
		if err := s.askApproval(req)(ctx, ns, tool, input); err != nil {
			return textResult(true, err.Error())
		}
		return nil
	}
	digest := programDigest(d.name, string(input))
	if req.Params.RequestState == "" {
		if limit := min(s.opts.MaxTokens*2, 4000); len(input) > limit {
			return textResult(true, fmt.Sprintf("%s needs a person's approval, and its input (%d bytes) is too long to show them whole in this client; nothing ran", d.name, len(input)))
		}
		msg := fmt.Sprintf("The model wants to run %s with %s.\n\nAccept to let it run; decline to refuse it.", d.name, termtext.EscapeJSON(string(input)))
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{directInput: &mcp.ElicitParams{Message: msg, RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{}}}},
			RequestState: s.signState(req, approvalState{Program: digest})}
	}
	st, ok := s.verify(req, req.Params.RequestState)
	if !ok || st.Program != digest {
		return textResult(true, "The approval's request state does not verify for this call; nothing ran.")
	}
	if r, ok := req.Params.InputResponses[directInput].(*mcp.ElicitResult); !ok || r.Action != "accept" {
		return textResult(true, fmt.Sprintf("%s needs a person's approval, and they did not give it; nothing ran.", d.name))
	}
	return nil
}
