package mcpserver_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/durable"
	"github.com/codemode-go/codemode/mcpserver"
)

// A saved program offered as a tool, on a server that shows each program
// to a person before it runs, runs the code the person was shown or
// nothing. The question showed the code the tool was listed with (the
// last tools/list), while the run looked the snippet up by name when it
// ran: a snippet saved again meanwhile (codemode snippet save, here while
// the person decides) ran its new code under the old approval (an
// adversarial review, December 2026).
func TestSnippetToolRunsTheCodeShown(t *testing.T) {
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			h := handle(t, testConnector(t))
			var mu sync.Mutex
			var asked []string
			resave := func() {} // set once both versions exist
			cs := connectOn(t, h, mcpserver.Options{ApprovePrograms: true, SnippetsAsTools: true}, &mcp.ClientOptions{
				ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					mu.Lock()
					defer mu.Unlock()
					asked = append(asked, req.Params.Message)
					if strings.Contains(req.Params.Message, "the saved program report") {
						resave()
					}
					return &mcp.ElicitResult{Action: "accept"}, nil
				}}, version)
			v1 := outputOf(t, callCode(t, cs, `"report v1"`))
			v2 := outputOf(t, callCode(t, cs, `"report v2: something else"`))
			if v1.Status != codetool.StatusCompleted || v2.Status != codetool.StatusCompleted {
				t.Fatalf("sources: %+v %+v", v1, v2)
			}
			if _, err := h.SaveSnippet(context.Background(), "report", durable.SaveSnippetOptions{ExecutionID: v1.ExecutionID, Description: "A report."}); err != nil {
				t.Fatal(err)
			}
			toolNames(t, cs) // the tool is listed with v1
			resave = func() {
				if _, err := h.SaveSnippet(context.Background(), "report", durable.SaveSnippetOptions{ExecutionID: v2.ExecutionID, Description: "A report."}); err != nil {
					t.Error(err)
				}
			}
			res := callTool(t, cs, "report") // the client answers a question asked in a result itself
			text := allText(res)
			mu.Lock()
			defer mu.Unlock()
			if strings.Contains(text, "something else") || !strings.Contains(text, "nothing") {
				t.Fatalf("the person was shown %q, and the run answered %s", asked[len(asked)-1], text)
			}
			t.Log(text)
		})
	}
}

// callTool calls the tool name with no arguments.
func callTool(t *testing.T, cs *mcp.ClientSession, name string) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// allText joins the text contents of res.
func allText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text + "\n")
		}
	}
	return b.String()
}

// The signature of a question asked in a result covers the saved
// program's code as it is, not as it was shown escaped: a snippet saved
// again, between the question and the answer, with code that reads the
// same once escaped (a right-to-left override for the text "\u202e", which
// String.raw tells apart) does not run under the approval of the other.
func TestSnippetToolSignsTheCodeNotItsEscapedText(t *testing.T) {
	h := handle(t, testConnector(t))
	resave := func() {}
	cs := connectOn(t, h, mcpserver.Options{ApprovePrograms: true, SnippetsAsTools: true}, &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			if strings.Contains(req.Params.Message, "the saved program report") {
				resave()
			}
			return &mcp.ElicitResult{Action: "accept"}, nil
		}}, "2026-07-28")
	literal := outputOf(t, callCode(t, cs, "String.raw`\\u202e`"))
	override := outputOf(t, callCode(t, cs, "String.raw`\u202e`"))
	if literal.Status != codetool.StatusCompleted || override.Status != codetool.StatusCompleted || string(literal.Value) == string(override.Value) {
		t.Fatalf("sources: %+v %+v", literal, override)
	}
	if _, err := h.SaveSnippet(context.Background(), "report", durable.SaveSnippetOptions{ExecutionID: literal.ExecutionID, Description: "A report."}); err != nil {
		t.Fatal(err)
	}
	toolNames(t, cs)
	resave = func() {
		if _, err := h.SaveSnippet(context.Background(), "report", durable.SaveSnippetOptions{ExecutionID: override.ExecutionID, Description: "A report."}); err != nil {
			t.Error(err)
		}
	}
	if text := allText(callTool(t, cs, "report")); !strings.Contains(text, "nothing") {
		t.Fatalf("the person approved the code with the text \\u202e, and the run answered %s", text)
	}
}
