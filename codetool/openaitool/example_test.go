package openaitool_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"

	"github.com/openai/openai-go/v3"

	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/codetool/openaitool"
	"github.com/codemode-go/codemode/internal/agenttest"
)

// recordedCompletion is a Chat Completions response whose message calls
// the code tool, as the API returns it.
const recordedCompletion = `{
  "id": "chatcmpl-rec1", "object": "chat.completion", "created": 1764547200, "model": "gpt-5",
  "choices": [{
    "index": 0, "finish_reason": "tool_calls",
    "message": {
      "role": "assistant", "content": null, "refusal": null,
      "tool_calls": [{
        "id": "call_1", "type": "function",
        "function": {"name": "code", "arguments": "{\"code\":\"const open = await issues.list_issues({ repo: \\\"acme/app\\\" });\\nreturn open.filter(i => i.title.includes(\\\"Crash\\\")).map(i => i.number);\"}"}
      }]
    }
  }],
  "usage": {"prompt_tokens": 812, "completion_tokens": 64, "total_tokens": 876}
}`

// One step of an agent loop: the model's reply (recorded, so no network)
// calls the code tool; Step runs the program as a durable execution on a
// SQLite journal and returns the messages to send back.
func Example() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "openaitool")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	env, err := agenttest.New(ctx, dir)
	if err != nil {
		log.Fatal(err)
	}
	defer env.Close()
	tool, err := codetool.New(env.Handle, codetool.Options{Hints: map[string]string{"issues": "the issue tracker of acme/*"}})
	if err != nil {
		log.Fatal(err)
	}

	// The request would carry the tool:
	params := openai.ChatCompletionNewParams{Model: openai.ChatModel("gpt-5.1"), Tools: []openai.ChatCompletionToolUnionParam{openaitool.Tool(tool)}}
	fmt.Println("tool:", params.Tools[0].GetFunction().Name)

	var completion openai.ChatCompletion
	if err := json.Unmarshal([]byte(recordedCompletion), &completion); err != nil {
		log.Fatal(err)
	}
	msgs, err := openaitool.Step(ctx, tool, completion.Choices[0].Message)
	if err != nil {
		log.Fatal(err)
	}
	params.Messages = append(params.Messages, msgs...)

	// The tool message, as it is sent back:
	var sent struct {
		Role       string `json:"role"`
		ToolCallID string `json:"tool_call_id"`
		Content    string `json:"content"`
	}
	text, _ := json.Marshal(msgs[1])
	if err := json.Unmarshal(text, &sent); err != nil {
		log.Fatal(err)
	}
	var out struct {
		Status string          `json:"status"`
		Value  json.RawMessage `json:"value"`
	}
	if err := json.Unmarshal([]byte(sent.Content), &out); err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(params.Messages), "messages;", sent.Role, sent.ToolCallID, out.Status, string(out.Value))
	// Output:
	// tool: code
	// 2 messages; tool call_1 completed [1]
}
