package durable

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/codemode-go/codemode/codetool"
)

// Tool returns the code tool for a Go agent program: its descriptor (the
// name "code", a description listing the connectors with opts'
// ConnectorHints, and the input schema {code}) and a Call that runs the
// model's arguments as a new durable execution (Execute) and returns its
// output as JSON: {"status":"completed","executionId","result","logs"?},
// {"status":"paused","executionId","pending":[…]} or
// {"status":"error","executionId","error","logs"?}. Adapters for the model
// SDKs are in codetool/openaitool and codetool/anthropictool.
//
//	tool, err := h.Tool(codetool.Options{ConnectorHints: map[string]string{"github": "issues of acme/*"}})
//	…
//	out, err := tool.Call(ctx, toolCall.Arguments) // the output JSON, for the model
//
// # Notes
//   - It returns an error for a hint naming no connector (see
//     codetool.Description).
//   - A program that fails, diverges or pauses is an output, not an error:
//     Call's error is a *codetool.ArgumentsError for arguments that are not
//     {code}, or Execute's error (the journal failed, ctx ended).
//   - The description is ToolDescription's (declarations in full when they
//     fit in FullDeclarationsTokens, else the namespaces and discovery)
//     unless opts.Description replaces it.
func (h *Handle) Tool(opts codetool.Options) (*codetool.Tool, error) {
	if err := opts.CheckHints(h.ConnectorNames()); err != nil {
		return nil, fmt.Errorf("durable: %w", err)
	}
	desc := opts.Description
	if desc == "" {
		desc = h.ToolDescription(DescriptionOptions{ConnectorHints: opts.ConnectorHints})
	}
	return codetool.New(codetool.Descriptor{Name: codetool.Name, Description: desc, InputSchema: json.RawMessage(codetool.InputSchema)},
		func(ctx context.Context, code string) (json.RawMessage, error) {
			out, err := h.Execute(ctx, code)
			if err != nil {
				return nil, err
			}
			return out.MarshalJSON() // "<", ">", "&" unescaped
		}), nil
}
