// Package anthropictool adapts the code tool (package codetool) to the
// Anthropic Go SDK (github.com/anthropics/anthropic-sdk-go/v2), Messages
// API: the code tool as a client tool, and the model's tool_use blocks
// of it, from a Message, answered as tool_result blocks.
//
//	params.Tools = []anthropic.ToolUnionParam{anthropictool.Tool(tool)}
//	msg, err := client.Messages.New(ctx, params)
//	…
//	reply, err := anthropictool.Step(ctx, tool, msg)
//	params.Messages = append(params.Messages, reply...)
package anthropictool
