package mcpconnector_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/connector/mcpconnector"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/quickjs"
)

// An MCP server's tools become a namespace of its name: here a streamable
// HTTP server (any MCP server works the same way, or a command over
// stdio), connected, made a contract, and called by a program.
func ExampleConnect() {
	ctx := context.Background()
	upstream := mcp.NewServer(&mcp.Implementation{Name: "weather", Version: "1"}, nil)
	// Read-only: by default a call of a tool that may be destructive (MCP's
	// default hint) needs a person's approval (Server.Approval).
	upstream.AddTool(&mcp.Tool{Name: "forecast", Description: "Tomorrow's forecast for a city.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
		InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in struct{ City string }
			if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "sunny in " + in.City}}}, nil
		})
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return upstream }, nil))
	defer ts.Close()

	set, err := mcpconnector.Connect(ctx, []mcpconnector.Server{{Name: "weather", URL: ts.URL}}, mcpconnector.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer set.Close()
	c, err := contract.NewNamespaced(set.Namespaces()...)
	if err != nil {
		log.Fatal(err)
	}
	d := quickjs.New(quickjs.Options{})
	defer d.Close()
	rt, err := client.NewRuntime(ctx, d)
	if err != nil {
		log.Fatal(err)
	}
	defer rt.Close()
	out, err := client.New(rt, c).RunCode(ctx, `await weather.forecast({ city: "Oslo" })`, client.RunOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(string(out.Value))
	// Output: "sunny in Oslo"
}
