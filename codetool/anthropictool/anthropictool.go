package anthropictool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/codemode-go/codemode/codetool"
)

// Tool returns t as a Messages API client tool: its name,
// description and input schema (properties and required, and any other
// keyword, such as additionalProperties, as the schema's extra fields).
func Tool(t *codetool.Tool) anthropic.ToolUnionParam {
	var schema map[string]any
	// The tool's schema is codetool.InputSchema, a JSON object.
	_ = json.Unmarshal(t.InputSchema, &schema)
	in := anthropic.ToolInputSchemaParam{Properties: schema["properties"]}
	if req, ok := schema["required"].([]any); ok {
		for _, r := range req {
			if s, ok := r.(string); ok {
				in.Required = append(in.Required, s)
			}
		}
	}
	for k, v := range schema {
		if k != "type" && k != "properties" && k != "required" {
			if in.ExtraFields == nil {
				in.ExtraFields = map[string]any{}
			}
			in.ExtraFields[k] = v
		}
	}
	return anthropic.ToolUnionParam{OfTool: &anthropic.ToolParam{
		Name:        t.Name,
		Description: anthropic.String(t.Description),
		InputSchema: in,
	}}
}

// Answer runs one tool_use block of t and returns the tool_result block
// that answers it: the answer's JSON, flagged is_error when it is a failure
// (status "error"; a paused execution is not), or the text of an *codetool.ArgumentsError, flagged,
// so that the model can correct its input. It returns an error for a block
// that is not a tool_use of t (the agent loop answers other tools) and when
// t could make no answer (the journal or runtime failed, ctx ended).
func Answer(ctx context.Context, t *codetool.Tool, block anthropic.ContentBlockUnion) (anthropic.ContentBlockParamUnion, error) {
	if block.Type != "tool_use" {
		return anthropic.ContentBlockParamUnion{}, fmt.Errorf("anthropictool: a %q block is not a tool_use", block.Type)
	}
	if block.Name != t.Name {
		return anthropic.ContentBlockParamUnion{}, fmt.Errorf("anthropictool: tool_use %s is of %q, not of %q", block.ID, block.Name, t.Name)
	}
	out, err := t.Call(ctx, block.Input)
	var ae *codetool.ArgumentsError
	switch {
	case errors.As(err, &ae):
		return anthropic.NewToolResultBlock(block.ID, ae.Error(), true), nil
	case err != nil:
		return anthropic.ContentBlockParamUnion{}, fmt.Errorf("anthropictool: tool_use %s: %w", block.ID, err)
	}
	var a codetool.Answer
	failed := a.UnmarshalJSON(out) == nil && a.Status == codetool.StatusError
	return anthropic.NewToolResultBlock(block.ID, string(out), failed), nil
}

// Step is one agent-loop step after a model's reply: the reply itself as
// the assistant message to send back, followed by one user message holding
// a tool_result for each tool_use block of t, in order. It returns only the
// assistant message when the reply uses no tool, and an error (with no
// messages) when the reply uses a tool other than t (then nothing runs)
// or when Answer fails.
func Step(ctx context.Context, t *codetool.Tool, reply *anthropic.Message) ([]anthropic.MessageParam, error) {
	for _, block := range reply.Content {
		// Checked before anything runs: an error leaves no program run.
		if block.Type == "tool_use" && block.Name != t.Name {
			return nil, fmt.Errorf("anthropictool: tool_use %s is of %q, not of %q", block.ID, block.Name, t.Name)
		}
	}
	msgs := []anthropic.MessageParam{reply.ToParam()}
	var results []anthropic.ContentBlockParamUnion
	for _, block := range reply.Content {
		if block.Type != "tool_use" {
			continue
		}
		r, err := Answer(ctx, t, block)
		if err != nil {
			return nil, err
		}
		results = append(results, r)
	}
	if len(results) > 0 {
		msgs = append(msgs, anthropic.NewUserMessage(results...))
	}
	return msgs, nil
}
