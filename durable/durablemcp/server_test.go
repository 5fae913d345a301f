package durablemcp_test

import (
	"context"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/durable"
	"github.com/codemode-go/codemode/durable/durablemcp"
	"github.com/codemode-go/codemode/typecheck"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type noInput struct{}
type okOutput struct {
	OK bool `json:"ok"`
}

// connect serves h with NewServer over in-memory transports and returns the
// client session; caps are the client's capabilities (nil: none).
func connect(t *testing.T, h *durable.Handle, opts durablemcp.ServerOptions, copts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	srv := durablemcp.NewServer(h, opts)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, copts).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func callCode(t *testing.T, cs *mcp.ClientSession, code string) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "code", Arguments: map[string]any{"code": code}})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func testConnector(t *testing.T) durable.Connector {
	t.Helper()
	ping, err := durable.FuncTool("ping", "Answers ok.", func(ctx context.Context, _ noInput) (okOutput, error) { return okOutput{true}, nil })
	if err != nil {
		t.Fatal(err)
	}
	act, err := durable.FuncTool("act", "Needs approval.", func(ctx context.Context, _ noInput) (okOutput, error) { return okOutput{true}, nil })
	if err != nil {
		t.Fatal(err)
	}
	act.RequiresApproval = true
	return durable.Connector{Name: "svc", Tools: []durable.ConnectorTool{ping, act}}
}

// The code tool's completed answer carries what the program appended, as
// items after the output's JSON.
func TestServerAnswersWithAppendedContent(t *testing.T) {
	cs := connect(t, handle(t, testConnector(t)), durablemcp.ServerOptions{}, nil)
	res := callCode(t, cs, `const r = await svc.ping({}); result.appendText("pinged " + r.ok); result.appendImage({ data: "aGk=", mimeType: "image/png" }); 1`)
	if res.IsError || len(res.Content) != 3 {
		t.Fatalf("answer %+v", res.Content)
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); !ok || tc.Text == "" || strings.Contains(tc.Text, "content") {
		t.Errorf("first item %#v: want the output's JSON without the content", res.Content[0])
	}
	if tc, ok := res.Content[1].(*mcp.TextContent); !ok || tc.Text != "pinged true" {
		t.Errorf("second item %#v, want the appended text", res.Content[1])
	}
	if ic, ok := res.Content[2].(*mcp.ImageContent); !ok || string(ic.Data) != "hi" || ic.MIMEType != "image/png" {
		t.Errorf("third item %#v, want the appended image", res.Content[2])
	}
}

// With a checker, a program that does not type-check is answered with the
// report and starts no execution; a valid one runs.
func TestServerTypeChecksPrograms(t *testing.T) {
	checker, err := typecheck.New(typecheck.Options{})
	if err != nil {
		t.Skip(err)
	}
	defer checker.Close()
	h := handle(t, testConnector(t))
	cs := connect(t, h, durablemcp.ServerOptions{Checker: checker}, nil)
	res := callCode(t, cs, "const r = await svc.ping({});\nconst n: number = r.ok;\nn")
	text := res.Content[0].(*mcp.TextContent).Text
	if !res.IsError || !strings.Contains(text, "does not type-check") || !strings.Contains(text, "2:") {
		t.Fatalf("answer %v %q", res.IsError, text)
	}
	if list, err := h.Executions(context.Background(), 0); err != nil || len(list) != 0 {
		t.Fatalf("executions after a refused program: %d %v", len(list), err)
	}
	res = callCode(t, cs, "const s = await codemode.step(\"s\", () => 1);\nconst r = await svc.ping({});\nr.ok && s === 1")
	if res.IsError {
		t.Fatalf("valid program refused: %v", res.Content[0].(*mcp.TextContent).Text)
	}
}
