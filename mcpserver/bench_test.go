package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"testing"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/connector/mcpconnector"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/quickjs"
	"github.com/codemode-go/codemode/internal/mcptest"
	"github.com/codemode-go/codemode/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkUpstreamCall compares one upstream MCP tool call (the everything
// server's echo, over stdio) made directly by a go-sdk client with the same
// call made from a program through codemode:
//
//   - direct: the go-sdk client calls echo.
//   - program-call: per call inside a program that makes 50 calls in a loop
//     (ns/call), the cost of a tool call from a program through codemode.
//   - code-tool: an agent's whole code tool request (go-sdk client to the
//     codemode MCP server in process) whose program makes one call.
func BenchmarkUpstreamCall(b *testing.B) {
	ctx := context.Background()
	server := mcpconnector.Server{Command: mcptest.Command(b, "mcp-server-everything")}
	args := json.RawMessage(`{"message": "hello"}`)

	b.Run("direct", func(b *testing.B) {
		// A go-sdk client session of its own, calling the server.
		session, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: exec.Command(server.Command)}, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer session.Close()
		b.ResetTimer()
		for b.Loop() {
			if _, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: args}); err != nil {
				b.Fatal(err)
			}
		}
	})

	set, err := mcpconnector.Connect(ctx, []mcpconnector.Server{server}, mcpconnector.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer set.Close()
	c, err := contract.NewNamespaced(set.Namespaces()...)
	if err != nil {
		b.Fatal(err)
	}
	d := quickjs.New(quickjs.Options{Timeout: time.Minute})
	defer d.Close()
	rt, err := client.NewRuntime(ctx, d)
	if err != nil {
		b.Fatal(err)
	}
	defer rt.Close()
	cl := client.New(rt, c)

	b.Run("program-call", func(b *testing.B) {
		const calls = 50
		program := fmt.Sprintf("for (let i = 0; i < %d; i++) await codemode.echo({ message: 'hello' });", calls)
		b.ResetTimer()
		for b.Loop() {
			out, err := cl.RunCode(ctx, program, client.RunOptions{})
			if err != nil || out.Kind != client.Success {
				b.Fatal(err, out)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*calls), "ns/call")
	})

	b.Run("code-tool", func(b *testing.B) {
		srv, err := mcpserver.New(cl, mcpserver.Options{})
		if err != nil {
			b.Fatal(err)
		}
		st, ct := mcp.NewInMemoryTransports()
		ss, err := srv.Connect(ctx, st, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer ss.Close()
		agent, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(ctx, ct, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer agent.Close()
		params := &mcp.CallToolParams{Name: "code", Arguments: map[string]any{"code": "(await codemode.echo({ message: 'hello' }))"}}
		b.ResetTimer()
		for b.Loop() {
			res, err := agent.CallTool(ctx, params)
			if err != nil || res.IsError {
				b.Fatal(err, res)
			}
		}
	})
}
