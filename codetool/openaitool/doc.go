// Package openaitool adapts the code tool (package codetool) to the
// official OpenAI Go SDK (github.com/openai/openai-go/v3), Chat
// Completions: the code tool as a function tool, and the model's calls of
// it, from a ChatCompletion, answered as tool messages.
//
//	params.Tools = []openai.ChatCompletionToolUnionParam{openaitool.Tool(tool)}
//	completion, err := client.Chat.Completions.New(ctx, params)
//	…
//	msgs, err := openaitool.Step(ctx, tool, completion.Choices[0].Message)
//	params.Messages = append(params.Messages, msgs...)
package openaitool
