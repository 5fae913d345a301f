package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/quickjs"
	"github.com/codemode-go/codemode/mcpserver"
)

// The server offers one tool, code; an agent (here an in-memory MCP client)
// sends a program and gets its value back as text. Serve the *mcp.Server
// over stdio or streamable HTTP with the go-sdk in a real deployment.
func ExampleNew() {
	ctx := context.Background()
	shout, err := contract.NewTool("shout", "Shout a word: add an exclamation mark.", func(ctx context.Context, in struct {
		Word string `json:"word"`
	}) (string, error) {
		return fmt.Sprintf("%s!", in.Word), nil
	})
	if err != nil {
		log.Fatal(err)
	}
	c, err := contract.New(shout)
	if err != nil {
		log.Fatal(err)
	}
	rt, err := client.NewRuntime(ctx, quickjs.New(quickjs.Options{}))
	if err != nil {
		log.Fatal(err)
	}
	defer rt.Close()
	srv, err := mcpserver.New(client.New(rt, c), mcpserver.Options{})
	if err != nil {
		log.Fatal(err)
	}

	serverEnd, agentEnd := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, serverEnd, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer ss.Close()
	agent, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(ctx, agentEnd, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer agent.Close()

	tools, err := agent.ListTools(ctx, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(tools.Tools[0].Name)
	res, err := agent.CallTool(ctx, &mcp.CallToolParams{Name: codetool.Name, Arguments: map[string]any{
		"code": `const words = ["code", "mode"];
const loud = [];
for (const word of words) loud.push(await codemode.shout({ word }));
loud.join(" ")`,
	}})
	if err != nil {
		log.Fatal(err)
	}
	var answer codetool.Answer
	if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &answer); err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.IsError, answer.Status, string(answer.Value))
	// Output:
	// code
	// false completed "code! mode!"
}
