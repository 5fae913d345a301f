package mcptest

import (
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serverEnv names the server a test binary plays (see Play).
const serverEnv = "CODEMODE_MCPTEST_SERVER"

// readyEnv names the file whose existence lets the "late" server start.
const readyEnv = "CODEMODE_MCPTEST_READY"

// The servers Play plays.
const (
	// Crash writes an error in colour to stderr, with the value of the
	// API_KEY variable its configuration gives it (as a server that echoes
	// its key does), and exits 1: a package that fails to import.
	Crash = "crash"
	// Mute reads its input and never answers: a server that hangs at
	// start (a network call before the handshake, without a network).
	Mute = "mute"
	// Late exits 1 until the file Server's ready argument names exists,
	// then serves an echo tool: a server that comes up later.
	Late = "late"
	// Quirks serves the real servers' tools of testdata/ (their input
	// schemas as exported), each answering with the arguments it received.
	Quirks = "quirks"
	// Asks serves a tool "ask" that asks the person (an elicitation) for
	// a name, with the default "Ada", and a count, and answers with the
	// action and fields it got back as JSON.
	Asks = "asks"
)

//go:embed testdata/*.json
var quirkFiles embed.FS

// Server returns the command and environment that make the running test
// binary play the server kind (Crash, Mute, Late, Quirks) through Play;
// ready is the file Late waits for (ignored by the others). The test
// binary's TestMain must call Play first.
func Server(t testing.TB, kind, ready string) (command string, env map[string]string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return self, map[string]string{serverEnv: kind, readyEnv: ready}
}

// Play makes the test binary the server its environment names (see
// Server) and exits when the server ends; without one it returns at once.
// Call it first in TestMain.
func Play() {
	kind := os.Getenv(serverEnv)
	if kind == "" {
		return
	}
	switch kind {
	case Crash:
		fmt.Fprintf(os.Stderr, "\x1b[31mError [ERR_MODULE_NOT_FOUND]:\x1b[0m Cannot find package 'undici' imported from server.js\n    with key %s\n", os.Getenv("API_KEY"))
		os.Exit(1)
	case Mute:
		_, _ = io.Copy(io.Discard, os.Stdin)
		select {} // closing its input does not end it: only a signal does
	case Late:
		if _, err := os.Stat(os.Getenv(readyEnv)); err != nil {
			fmt.Fprintln(os.Stderr, "not ready yet")
			os.Exit(1)
		}
		serve(echoTools("echo"))
	case Quirks:
		serve(quirkTools())
	case Asks:
		serveAsks()
	}
	fmt.Fprintf(os.Stderr, "mcptest: no server %q\n", kind)
	os.Exit(2)
}

// serve serves tools over stdio and exits.
func serve(tools []*mcp.Tool) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "mcptest", Version: "1"}, nil)
	for _, t := range tools {
		srv.AddTool(t, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(req.Params.Arguments)}}}, nil
		})
	}
	if err := srv.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// echoTools are tools named names that take any object.
func echoTools(names ...string) []*mcp.Tool {
	var tools []*mcp.Tool
	for _, n := range names {
		tools = append(tools, &mcp.Tool{Name: n, Description: "Answers with its arguments.", InputSchema: json.RawMessage(`{"type": "object"}`)})
	}
	return tools
}

// quirkTools are the tools of testdata/*.json, their input schemas as
// listed.
func quirkTools() []*mcp.Tool {
	entries, _ := quirkFiles.ReadDir("testdata")
	var tools []*mcp.Tool
	for _, e := range entries {
		data, err := quirkFiles.ReadFile(path.Join("testdata", e.Name()))
		if err != nil {
			panic(err)
		}
		var list struct {
			Tools []struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				InputSchema json.RawMessage `json:"inputSchema"`
			} `json:"tools"`
		}
		if err := json.Unmarshal(data, &list); err != nil {
			panic(fmt.Sprintf("%s: %v", e.Name(), err))
		}
		for _, t := range list.Tools {
			// Without their output schemas: the tools answer with their
			// arguments, not what the real ones return.
			tools = append(tools, &mcp.Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema})
		}
	}
	return tools
}

// QuirkSchema returns the input schema of the real server's tool named
// name in testdata/ (for example "browser_take_screenshot"), as listed.
func QuirkSchema(t testing.TB, name string) json.RawMessage {
	t.Helper()
	for _, tool := range quirkTools() {
		if tool.Name == name {
			return tool.InputSchema.(json.RawMessage)
		}
	}
	t.Fatalf("mcptest: no tool %s in testdata", name)
	return nil
}

// serveAsks serves the Asks server over stdio and exits.
func serveAsks() {
	srv := mcp.NewServer(&mcp.Implementation{Name: "mcptest-asks", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "ask", Description: "Asks the person for a name.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			// Asked in the result (SEP-2322); the go-sdk asks older clients
			// by a request of its own and calls the handler again.
			res, ok := req.Params.InputResponses["name"].(*mcp.ElicitResult)
			if !ok {
				return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"name": &mcp.ElicitParams{Message: "Which name?", RequestedSchema: json.RawMessage(
					`{"type":"object","properties":{"name":{"type":"string","default":"Ada"},"count":{"type":"integer"}}}`)}}}, nil
			}
			out, _ := json.Marshal(map[string]any{"action": res.Action, "content": res.Content})
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(out)}}}, nil
		})
	if err := srv.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}
