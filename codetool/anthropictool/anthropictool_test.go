package anthropictool_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/codetool/anthropictool"
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

// TestToolParamCarriesTheDescriptor: the tool sent to the API has the
// tool's name, description and whole input schema (with
// additionalProperties), as JSON.
func TestToolParamCarriesTheDescriptor(t *testing.T) {
	tool, _ := newTool(t)
	text, err := json.Marshal(anthropictool.Tool(tool))
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Name        string         `json:"name"`
		Description string         `json:"description"`
		InputSchema map[string]any `json:"input_schema"`
	}
	if err := json.Unmarshal(text, &got); err != nil {
		t.Fatal(err)
	}
	var want map[string]any
	_ = json.Unmarshal([]byte(codetool.InputSchema), &want)
	if got.Name != "code" || got.Description != tool.Description || !reflect.DeepEqual(got.InputSchema, want) {
		t.Fatalf("tool param %s", text)
	}
}

// toolUse is a tool_use block of name with input, decoded from the API's
// JSON as a response would hold it.
func toolUse(t *testing.T, name, input string) anthropic.ContentBlockUnion {
	t.Helper()
	raw := `{"type":"tool_use","id":"toolu_x","name":` + strings.TrimSpace(mustJSON(name)) + `,"input":` + input + `}`
	var b anthropic.ContentBlockUnion
	if err := json.Unmarshal([]byte(raw), &b); err != nil {
		t.Fatal(err)
	}
	return b
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestAnswer: each kind of tool_use becomes the tool_result the model
// should see, flagged is_error for failures, and the journal records an
// execution only for a program.
func TestAnswer(t *testing.T) {
	for _, tc := range []struct {
		name, input string
		want        []string
		isError     bool
		executions  int
	}{
		{"completed", `{"code": "return (await issues.list_issues({repo: \"a\"})).map(i => i.number)"}`, []string{`"status":"completed"`, `"value":[1,2,3]`}, false, 1},
		{"paused for approval", `{"code": "await issues.close_issue({number: 2})"}`, []string{`"status":"paused"`, `"seq":1`}, false, 1},
		{"program throws", `{"code": "throw new TypeError(\"nope\")"}`, []string{`"status":"error"`, `TypeError`}, true, 1},
		{"code not a string", `{"code": 42}`, []string{`"code" is not a string`}, true, 0},
		{"extra property", `{"code": "1", "language": "ts"}`, []string{"language"}, true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tool, env := newTool(t)
			b, err := anthropictool.Answer(context.Background(), tool, toolUse(t, "code", tc.input))
			if err != nil {
				t.Fatal(err)
			}
			r := b.OfToolResult
			if r == nil || r.ToolUseID != "toolu_x" || len(r.Content) != 1 {
				t.Fatalf("block %+v", b)
			}
			text := r.Content[0].OfText.Text
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Fatalf("tool result %s, want %s in it", text, w)
				}
			}
			if r.IsError.Value != tc.isError {
				t.Fatalf("is_error %v, want %v (%s)", r.IsError.Value, tc.isError, text)
			}
			runs, err := env.Handle.Executions(context.Background(), 10)
			if err != nil || len(runs) != tc.executions {
				t.Fatalf("%d executions in the journal (%v), want %d", len(runs), err, tc.executions)
			}
		})
	}
}

// TestStep: text blocks are kept in the assistant message, every tool_use
// of the code tool is answered in one user message, and a tool_use of
// another tool is the loop's: an error naming it, no messages.
func TestStep(t *testing.T) {
	tool, env := newTool(t)
	reply := &anthropic.Message{Role: "assistant", Content: []anthropic.ContentBlockUnion{
		toolUse(t, "code", `{"code": "1 + 1"}`), toolUse(t, "code", `{"code": "2 + 2"}`),
	}}
	msgs, err := anthropictool.Step(context.Background(), tool, reply)
	if err != nil || len(msgs) != 2 || msgs[0].OfAssistant == nil || msgs[1].OfUser == nil || len(msgs[1].OfUser.Content) != 2 {
		t.Fatalf("Step: %v, %+v", err, msgs)
	}
	for i, want := range []string{`"value":2`, `"value":4`} {
		if text := msgs[1].OfUser.Content[i].OfToolResult.Content[0].OfText.Text; !strings.Contains(text, want) {
			t.Fatalf("result %d: %s, want %s", i, text, want)
		}
	}
	reply.Content = append(reply.Content, toolUse(t, "web_search", `{}`))
	if msgs, err := anthropictool.Step(context.Background(), tool, reply); err == nil || !strings.Contains(err.Error(), "web_search") || msgs != nil {
		t.Fatalf("Step with another tool: %v, %d messages", err, len(msgs))
	}
	if runs, err := env.Handle.Executions(context.Background(), 10); err != nil || len(runs) != 2 {
		t.Fatalf("%d executions (%v) after the refused step, want the first step's 2", len(runs), err)
	}
	final := &anthropic.Message{Role: "assistant", Content: []anthropic.ContentBlockUnion{}}
	if msgs, err := anthropictool.Step(context.Background(), tool, final); err != nil || len(msgs) != 1 {
		t.Fatalf("Step without tool use: %v, %d messages", err, len(msgs))
	}
}
