package openaitool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"

	"github.com/codemode-go/codemode/codetool"
)

// Tool returns t as a Chat Completions function tool: its
// name, description, and input schema as the function's parameters.
func Tool(t *codetool.Tool) openai.ChatCompletionToolUnionParam {
	var params shared.FunctionParameters
	// The tool's schema is codetool.InputSchema, a JSON object.
	_ = json.Unmarshal(t.InputSchema, &params)
	return openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
		Name:        t.Name,
		Description: openai.String(t.Description),
		Parameters:  params,
	})
}

// Answer runs one tool call of t from a model's message and returns the
// tool message that answers it: the answer's JSON, or the text of an
// *codetool.ArgumentsError so that the model can correct its arguments. It
// returns an error for a call of another tool (the agent loop answers
// those), a call that is not a function call, and when t could make no
// answer (the journal or runtime failed, ctx ended).
func Answer(ctx context.Context, t *codetool.Tool, call openai.ChatCompletionMessageToolCallUnion) (openai.ChatCompletionMessageParamUnion, error) {
	if call.Type != "function" {
		return openai.ChatCompletionMessageParamUnion{}, fmt.Errorf("openaitool: tool call %s is of type %q, not a function call", call.ID, call.Type)
	}
	if call.Function.Name != t.Name {
		return openai.ChatCompletionMessageParamUnion{}, fmt.Errorf("openaitool: tool call %s is of %q, not of %q", call.ID, call.Function.Name, t.Name)
	}
	out, err := t.Call(ctx, json.RawMessage(call.Function.Arguments))
	var ae *codetool.ArgumentsError
	switch {
	case errors.As(err, &ae):
		return openai.ToolMessage(ae.Error(), call.ID), nil
	case err != nil:
		return openai.ChatCompletionMessageParamUnion{}, fmt.Errorf("openaitool: tool call %s: %w", call.ID, err)
	}
	return openai.ToolMessage(string(out), call.ID), nil
}

// Step is one agent-loop step after a model's reply: the reply itself as
// the assistant message to send back, followed by a tool message answering
// each of its calls of t, in order. It returns only the assistant message
// when the reply calls no tool, and an error (with no messages) when the
// reply calls a tool other than t (then nothing runs) or when Answer
// fails.
func Step(ctx context.Context, t *codetool.Tool, reply openai.ChatCompletionMessage) ([]openai.ChatCompletionMessageParamUnion, error) {
	for _, call := range reply.ToolCalls {
		// Checked before anything runs: an error leaves no program run.
		if call.Type != "function" || call.Function.Name != t.Name {
			return nil, fmt.Errorf("openaitool: tool call %s is of %q (type %q), not of %q", call.ID, call.Function.Name, call.Type, t.Name)
		}
	}
	msgs := []openai.ChatCompletionMessageParamUnion{reply.ToParam()}
	for _, call := range reply.ToolCalls {
		m, err := Answer(ctx, t, call)
		if err != nil {
			return nil, err
		}
		msgs = append(msgs, m)
	}
	return msgs, nil
}
