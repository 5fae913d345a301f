package anthropictool_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/codetool/anthropictool"
	"github.com/codemode-go/codemode/internal/agenttest"
)

// recordedMessage is a Messages API response that uses the code tool, as
// the API returns it.
const recordedMessage = `{
  "id": "msg_rec1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
  "content": [
    {"type": "text", "text": "I'll look for crash reports."},
    {"type": "tool_use", "id": "toolu_1", "name": "code",
     "input": {"code": "const open = await issues.list_issues({ repo: \"acme/app\" });\nreturn open.filter(i => i.title.includes(\"Crash\")).map(i => i.number);"}}
  ],
  "stop_reason": "tool_use", "stop_sequence": null,
  "usage": {"input_tokens": 812, "output_tokens": 64}
}`

// One step of an agent loop: the model's reply (recorded, so no network)
// uses the code tool; Step runs the program as a durable execution on a
// SQLite journal and returns the messages to send back.
func Example() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "anthropictool")
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
	params := anthropic.MessageNewParams{Model: anthropic.Model("claude-sonnet-4-5"), MaxTokens: 1024, Tools: []anthropic.ToolUnionParam{anthropictool.Tool(tool)}}
	fmt.Println("tool:", *params.Tools[0].GetName())

	var reply anthropic.Message
	if err := json.Unmarshal([]byte(recordedMessage), &reply); err != nil {
		log.Fatal(err)
	}
	msgs, err := anthropictool.Step(ctx, tool, &reply)
	if err != nil {
		log.Fatal(err)
	}
	params.Messages = append(params.Messages, msgs...)

	// The tool result, as it is sent back:
	result := msgs[1].OfUser.Content[0].OfToolResult
	var out struct {
		Status string          `json:"status"`
		Value  json.RawMessage `json:"value"`
	}
	if err := json.Unmarshal([]byte(result.Content[0].OfText.Text), &out); err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(params.Messages), "messages; user:", result.ToolUseID, out.Status, string(out.Value))
	// Output:
	// tool: code
	// 2 messages; user: toolu_1 completed [1]
}
