package mcpserver_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/codemode-go/codemode/client"
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
	srv := mcpserver.New(client.New(rt, c), opts)
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
	for _, want := range []string{"In scope: fx (the tools", "interface FxTools {", "const answer = await fx.getWeather({ location: \"…\" });", "MCPToolError", "Where the program runs: QuickJS-NG", "WebAssembly sandbox"} {
		if !strings.Contains(d, want) {
			t.Fatalf("description lacks %q:\n%s", want, d)
		}
	}
	if strings.Contains(d, "{{") {
		t.Fatalf("a placeholder is left:\n%s", d)
	}
	cs2 := session(t, mcpserver.Options{Description: "Tools: {{namespaces}}. {{example}}"})
	res, _ = cs2.ListTools(context.Background(), nil)
	if got := res.Tools[0].Description; !strings.HasPrefix(got, "Tools: fx. const answer = await fx.") {
		t.Fatalf("custom description %q", got)
	}
}

func TestCodeToolAnswers(t *testing.T) {
	cs := session(t, mcpserver.Options{MaxTokens: 100})
	cases := []struct {
		name, code string
		isError    bool
		want       []string // each text item's prefix, in order
		images     int
	}{
		{"value", "(await fx.add({ a: 1, b: 2 })).sum", false, []string{"3"}, 0},
		{"string value as it is", "'plain'", false, []string{"plain"}, 0},
		{"no value", "const r = await fx.add({ a: 1, b: 2 });", false, []string{"The program finished and returned no value."}, 0},
		{"image and text", "const img = await fx.tinyImage({}); result.appendImage(img); 'done'", false, []string{"done"}, 1},
		{"console block", "console.log('a'); console.error('b'); 1", false, []string{"1", "Console output:\na\n[stderr] b"}, 0},
		{"failure names the line", "const x = 1;\nthrow new TypeError('bad ' + x);", true, []string{"The program failed with TypeError: bad 1\n    at <anonymous> (agent.ts:2:"}, 0},
		{"tool error", "await fx.fail({ message: 'nope' })", true, []string{"The program failed with Error: nope"}, 0},
		{"deadline", "while (true) {}", true, []string{"The program failed with TimeoutError"}, 0},
		{"empty code", "  ", true, []string{"the code tool takes"}, 0},
		{"answer cut to the budget", "'x'.repeat(10000)", false, []string{"xxxx"}, 0},
		{"many text items bounded", "for (let i = 0; i < 2000; i++) result.appendText('y'.repeat(300)); 'done'", false, []string{"yyy", "… [2000 more text items left out"}, 0},
		{"console total told", "for (let i = 0; i < 1000; i++) console.log('line ' + i); 0", false, []string{"0", "Console output:\nline 0"}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "code", Arguments: map[string]any{"code": c.code}})
			if err != nil {
				t.Fatal(err)
			}
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
			if res.IsError != c.isError || images != c.images || len(texts) != len(c.want) {
				t.Fatalf("isError %v, %d images, texts %q", res.IsError, images, texts)
			}
			for i, w := range c.want {
				if !strings.HasPrefix(texts[i], w) {
					t.Fatalf("text %d %q, want prefix %q", i, texts[i], w)
				}
				if len([]rune(texts[i])) > 400+80 {
					t.Fatalf("text %d has %d characters, over the budget", i, len([]rune(texts[i])))
				}
			}
		})
	}
}
