package mcpserver_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/quickjs"
	"github.com/codemode-go/codemode/internal/fixtures"
	"github.com/codemode-go/codemode/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// session serves the fixture tools' code tool to an in-process go-sdk
// client.
func session(t *testing.T, opts mcpserver.Options) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	tools, err := fixtures.Tools(nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := contract.NewNamespaced(contract.Namespace{Name: "fx", Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	d := quickjs.New(quickjs.Options{Timeout: 2 * time.Second})
	t.Cleanup(func() { d.Close() })
	rt, err := client.NewRuntime(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	srv, err := mcpserver.New(client.New(rt, c), opts)
	if err != nil {
		t.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func TestCodeToolDescription(t *testing.T) {
	cs := session(t, mcpserver.Options{})
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != 1 {
		t.Fatalf("tools %v", res.Tools)
	}
	d := res.Tools[0].Description
	for _, want := range []string{"- fx: tools ", "interface FxTools {", "const answer = await fx.getWeather({ location: \"…\" });", "MCPToolError", "Where the program runs: QuickJS-NG", "WebAssembly sandbox", "codemode.search(query)", `{"status": "completed", "executionId", "value", "logs"?} (followed by what the program appended`} {
		if !strings.Contains(d, want) {
			t.Fatalf("description lacks %q:\n%s", want, d)
		}
	}
	if strings.Contains(d, "code_result") || strings.Contains(d, `"status": "paused"`) {
		t.Fatalf("a plain runner's description speaks of pauses:\n%s", d)
	}
	cs2 := session(t, mcpserver.Options{Tool: codetool.Options{Description: "Tools: {{namespaces}}."}})
	res, _ = cs2.ListTools(context.Background(), nil)
	if got := res.Tools[0].Description; got != "Tools: fx." {
		t.Fatalf("custom description %q", got)
	}
}

// answerOf decodes an MCP result's first text item as a code tool answer.
func answerOf(t *testing.T, res *mcp.CallToolResult) (codetool.Answer, []string, int) {
	t.Helper()
	var texts []string
	images := 0
	for _, item := range res.Content {
		switch item := item.(type) {
		case *mcp.TextContent:
			texts = append(texts, item.Text)
		case *mcp.ImageContent:
			images++
		}
	}
	var a codetool.Answer
	if len(texts) == 0 {
		t.Fatalf("no text in %+v", res)
	}
	if err := json.Unmarshal([]byte(texts[0]), &a); err != nil {
		t.Fatalf("the first item is not an answer: %v\n%s", err, texts[0])
	}
	return a, texts[1:], images
}

func TestCodeToolAnswers(t *testing.T) {
	cs := session(t, mcpserver.Options{MaxTokens: 100})
	cases := []struct {
		name, code string
		status     codetool.Status
		want       string   // in the answer's JSON
		items      []string // the later text items' prefixes, in order
		images     int
	}{
		{"value", "(await fx.add({ a: 1, b: 2 })).sum", codetool.StatusCompleted, `"value":3`, nil, 0},
		{"string value", "'plain'", codetool.StatusCompleted, `"value":"plain"`, nil, 0},
		{"no value", "const r = await fx.add({ a: 1, b: 2 });", codetool.StatusCompleted, `"value":null`, nil, 0},
		{"image and text", "const img = await fx.tinyImage({}); result.appendImage(img); result.appendText('done'); 1", codetool.StatusCompleted, `"value":1`, []string{"done"}, 1},
		{"console lines", "console.log('a'); console.error('b'); 1", codetool.StatusCompleted, `"logs":["a","[stderr] b"]`, nil, 0},
		{"failure names the line", "const x = 1;\nthrow new TypeError('bad ' + x);", codetool.StatusError, `"error":"TypeError: bad 1\n  at agent.ts:2:`, nil, 0},
		{"tool error", "await fx.fail({ message: 'nope' })", codetool.StatusError, `"error":"Error: nope`, nil, 0},
		{"deadline", "while (true) {}", codetool.StatusError, `"error":"TimeoutError`, nil, 0},
		{"answer cut to the budget", "'x'.repeat(10000)", codetool.StatusCompleted, `"value":"xxxx`, nil, 0},
		{"many text items bounded", "for (let i = 0; i < 2000; i++) result.appendText('y'.repeat(300)); 'done'", codetool.StatusCompleted, `"value":"done"`, []string{"yyy", "… [1999 more text items left out"}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "code", Arguments: map[string]any{"code": c.code}})
			if err != nil {
				t.Fatal(err)
			}
			a, items, images := answerOf(t, res)
			head := res.Content[0].(*mcp.TextContent).Text
			if a.Status != c.status || res.IsError != (c.status == codetool.StatusError) || !strings.Contains(head, c.want) || images != c.images || len(items) != len(c.items) {
				t.Fatalf("isError %v, %d images, answer %s, items %q", res.IsError, images, head, items)
			}
			for i, w := range c.items {
				if !strings.HasPrefix(items[i], w) {
					t.Fatalf("item %d %q, want prefix %q", i, items[i], w)
				}
			}
			if n := len([]rune(textOf(res))); n > 400+200 {
				t.Fatalf("%d characters, over the budget", n)
			}
		})
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "code", Arguments: map[string]any{"code": "  "}})
	if err != nil || !res.IsError || !strings.Contains(textOf(res), `"code" is empty`) {
		t.Fatalf("empty code: %+v, %v", res, err)
	}
}

func textOf(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}
