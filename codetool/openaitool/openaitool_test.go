package openaitool_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"

	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/codetool/openaitool"
	"github.com/codemode-go/codemode/internal/agenttest"
)

func newTool(t *testing.T) (*codetool.Tool, *agenttest.Env) {
	t.Helper()
	env, err := agenttest.New(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { env.Close() })
	tool, err := codetool.New(env.Handle, codetool.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return tool, env
}

// TestToolParamCarriesTheDescriptor: the function tool sent to the API has
// the tool's name, description and schema, as JSON.
func TestToolParamCarriesTheDescriptor(t *testing.T) {
	tool, _ := newTool(t)
	text, err := json.Marshal(openaitool.Tool(tool))
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Type     string `json:"type"`
		Function struct {
			Name        string         `json:"name"`
			Description string         `json:"description"`
			Parameters  map[string]any `json:"parameters"`
		} `json:"function"`
	}
	if err := json.Unmarshal(text, &got); err != nil {
		t.Fatal(err)
	}
	var want map[string]any
	_ = json.Unmarshal([]byte(codetool.InputSchema), &want)
	if got.Type != "function" || got.Function.Name != "code" || got.Function.Description != tool.Description || !reflect.DeepEqual(got.Function.Parameters, want) {
		t.Fatalf("tool param %s", text)
	}
}

// toolCall is a function call of name with arguments, decoded from the
// API's JSON as a response would hold it.
func toolCall(t *testing.T, name, arguments string) openai.ChatCompletionMessageToolCallUnion {
	t.Helper()
	raw, _ := json.Marshal(map[string]any{"id": "call_x", "type": "function", "function": map[string]any{"name": name, "arguments": arguments}})
	var c openai.ChatCompletionMessageToolCallUnion
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

// content is a tool message's text.
func content(t *testing.T, m openai.ChatCompletionMessageParamUnion) string {
	t.Helper()
	if m.OfTool == nil {
		t.Fatalf("not a tool message: %+v", m)
	}
	return m.OfTool.Content.OfString.Value
}

// TestAnswer: each kind of call becomes the tool message the model
// should see, and the journal records an execution only for a program.
func TestAnswer(t *testing.T) {
	for _, tc := range []struct {
		name, arguments string
		want            []string // in the tool message
		executions      int
	}{
		{"completed", `{"code": "return (await issues.list_issues({repo: \"a\"})).length"}`, []string{`"status":"completed"`, `"value":3`}, 1},
		{"paused for approval", `{"code": "await issues.close_issue({number: 2})"}`, []string{`"status":"paused"`, `"method":"close_issue"`}, 1},
		{"program throws", `{"code": "throw new Error(\"nope\")"}`, []string{`"status":"error"`, `nope`}, 1},
		{"code missing", `{"program": "1"}`, []string{"bad arguments", "code"}, 0},
		{"not JSON", `{"code": `, []string{"bad arguments"}, 0},
		{"code empty", `{"code": "  "}`, []string{`"code" is empty`}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tool, env := newTool(t)
			m, err := openaitool.Answer(context.Background(), tool, toolCall(t, "code", tc.arguments))
			if err != nil {
				t.Fatal(err)
			}
			text := content(t, m)
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Fatalf("tool message %s, want %s in it", text, w)
				}
			}
			if m.OfTool.ToolCallID != "call_x" {
				t.Fatalf("tool_call_id %q", m.OfTool.ToolCallID)
			}
			runs, err := env.Handle.Executions(context.Background(), 10)
			if err != nil || len(runs) != tc.executions {
				t.Fatalf("%d executions in the journal (%v), want %d", len(runs), err, tc.executions)
			}
		})
	}
}

// TestStepRefusesAnotherTool: a reply that calls a tool the adapter does
// not own is the agent loop's to answer: an error naming it, no message.
func TestStepRefusesAnotherTool(t *testing.T) {
	tool, _ := newTool(t)
	reply := openai.ChatCompletionMessage{Role: "assistant", ToolCalls: []openai.ChatCompletionMessageToolCallUnion{toolCall(t, "search_web", `{}`)}}
	msgs, err := openaitool.Step(context.Background(), tool, reply)
	if err == nil || !strings.Contains(err.Error(), "search_web") || msgs != nil {
		t.Fatalf("Step: %v, %d messages", err, len(msgs))
	}
}

// TestStepWithoutToolCalls: a final answer needs no tool message.
func TestStepWithoutToolCalls(t *testing.T) {
	tool, _ := newTool(t)
	var reply openai.ChatCompletionMessage
	if err := json.Unmarshal([]byte(`{"role":"assistant","content":"Done."}`), &reply); err != nil {
		t.Fatal(err)
	}
	msgs, err := openaitool.Step(context.Background(), tool, reply)
	if err != nil || len(msgs) != 1 || msgs[0].OfAssistant == nil {
		t.Fatalf("Step: %v, %+v", err, msgs)
	}
}
