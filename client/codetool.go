package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/codemode-go/codemode/codetool"
)

// Tool returns the code tool for a Go agent program: its descriptor (the
// name "code", a description listing the contract's namespaces with opts'
// ConnectorHints, and the input schema {code}) and a Call that runs the
// model's arguments with RunCode and returns the outcome as JSON:
// {"kind":"success","value"?,"content"?} or
// {"kind":"program-failed","error":{"name","message","stack"?}}. Adapters
// for the model SDKs are in codetool/openaitool and codetool/anthropictool;
// a durable handle has its own (durable.Handle.Tool), which journals.
//
//	tool, err := cl.Tool(codetool.Options{})
//	…
//	out, err := tool.Call(ctx, toolCall.Arguments) // the outcome JSON, for the model
//
// # Notes
//   - It returns an error for a hint naming no namespace (see
//     codetool.Description).
//   - Call's error is a *codetool.ArgumentsError for arguments that are not
//     {code}, or RunCode's error (the runtime failed, ctx ended); a program
//     that fails is an outcome, not an error.
//   - The description holds the contract's declarations
//     (TypeDefinitions), printed on first use.
func (c *Client) Tool(opts codetool.Options) (*codetool.Tool, error) {
	var names []string
	for _, n := range c.contract.NamespaceList() {
		names = append(names, n.Name)
	}
	desc, err := codetool.Description(codetool.Catalogue{Namespaces: names, Declarations: c.contract.TypeDefinitions()}, opts)
	if err != nil {
		return nil, fmt.Errorf("codemode: %w", err)
	}
	return codetool.New(codetool.Descriptor{Name: codetool.Name, Description: desc, InputSchema: json.RawMessage(codetool.InputSchema)},
		func(ctx context.Context, code string) (json.RawMessage, error) {
			out, err := c.RunCode(ctx, code, RunOptions{})
			if err != nil {
				return nil, err
			}
			var buf bytes.Buffer // "<", ">" and "&" as they are, for the model
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(out); err != nil {
				return nil, err
			}
			return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
		}), nil
}
