package mcpserver_test

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/node"
	"github.com/codemode-go/codemode/drivers/quickjs"
	"github.com/codemode-go/codemode/internal/nodetest"
	"github.com/codemode-go/codemode/mcpserver"
)

type textIO struct {
	Text string `json:"text"`
}

// callersContract: note (programs only), send (the model only) and echo
// (both), on codemode.
func callersContract(t *testing.T) *contract.Contract {
	t.Helper()
	mk := func(name string, callers contract.Callers) *contract.Tool {
		tool, err := contract.NewTool(name, "Returns its text, "+name+".", func(ctx context.Context, in textIO) (textIO, error) { return textIO{name + ":" + in.Text}, nil })
		if err != nil {
			t.Fatal(err)
		}
		if tool, err = tool.WithPolicy(contract.Policy{Callers: callers}); err != nil {
			t.Fatal(err)
		}
		return tool
	}
	c, err := contract.New(mk("note", ""), mk("send", contract.CallersModel), mk("echo", contract.CallersBoth))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestCallersRouting: the model calls send and echo directly, beside the
// code tool; programs call note and echo, and a program calling send gets
// a TypeError saying who calls it; the declarations leave send out. On
// QuickJS and on Node.js.
func TestCallersRouting(t *testing.T) {
	c := callersContract(t)
	if d := c.TypeDefinitions(); strings.Contains(d, "send(") || !strings.Contains(d, "echo(") || !strings.Contains(d, "note(") {
		t.Fatalf("declarations:\n%s", d)
	}
	if _, err := contract.New(); err != nil {
		t.Fatal(err)
	}
	bad, _ := contract.NewTool("x", "X.", func(ctx context.Context, in textIO) (textIO, error) { return in, nil })
	if _, err := bad.WithPolicy(contract.Policy{Callers: "everyone"}); err == nil || !strings.Contains(err.Error(), `callers "everyone"`) {
		t.Errorf("an unknown Callers: %v", err)
	}
	for _, name := range []string{"quickjs", "node"} {
		t.Run(name, func(t *testing.T) {
			rt := runtimeOf(t, name)
			cs := connectRunner(t, client.New(rt, c), mcpserver.Options{}, nil)
			tools, err := cs.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tl := range tools.Tools {
				names = append(names, tl.Name)
			}
			slices.Sort(names)
			if strings.Join(names, ",") != "code,echo,send" {
				t.Fatalf("tools %v, want code beside the direct tools echo and send", names)
			}
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "send", Arguments: map[string]any{"text": "hi"}})
			if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != `{"text":"send:hi"}` {
				t.Fatalf("direct send: %+v %v", res, err)
			}
			res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "send", Arguments: map[string]any{"text": 7}})
			if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "/text") {
				t.Fatalf("direct send with a bad input: %+v %v", res, err)
			}
			out := outputOf(t, callCode(t, cs, `const a = (await codemode.note({ text: "1" })).text;
const b = (await codemode.echo({ text: "2" })).text;
let c = "";
try { await (codemode as any).send({ text: "3" }); } catch (e) { c = e.name + ": " + e.message; }
const found = (await codemode.search("returns its text send")).results.map((r) => r.path);
[a, b, c, String(found.includes("codemode.send")), String(found.includes("codemode.echo"))]`))
			var got []string
			if err := json.Unmarshal(out.Value, &got); err != nil || out.Status != codetool.StatusCompleted || got[0] != "note:1" || got[1] != "echo:2" ||
				got[2] != "TypeError: codemode.send is a tool the model calls directly, not programs: call it yourself, outside the program" ||
				got[3] != "false" || got[4] != "true" {
				t.Fatalf("program: %+v %v", out, err)
			}
		})
	}
}

// runtimeOf is a runtime of the driver name (quickjs or node) for the
// test; node skips where Node.js 24 is missing, unless
// CODEMODE_REQUIRE_NODE is set.
func runtimeOf(t *testing.T, name string) *client.Runtime {
	t.Helper()
	var rt *client.Runtime
	var err error
	switch name {
	case "quickjs":
		rt, err = client.NewRuntime(context.Background(), quickjs.New(quickjs.Options{Timeout: 20 * time.Second}))
	case "node":
		path := nodetest.Path()
		if path == "" {
			if os.Getenv("CODEMODE_REQUIRE_NODE") == "" {
				t.Skip("no Node.js 24")
			}
			t.Fatal("no Node.js 24")
		}
		rt, err = client.NewRuntime(context.Background(), node.New(node.Options{NodePath: path}))
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	return rt
}

// TestDirectCallsNeedingApprovalAreAsked: a direct tool whose policy needs
// approval runs only after the person accepted, asked through the client
// by a request or in the result; a client that cannot ask is refused. A
// direct tool named like the server's own tool, or whose input schema is
// not an object, is left out instead of breaking the server.
func TestDirectCallsNeedingApprovalAreAsked(t *testing.T) {
	var ran atomic.Int32
	mk := func(name string, schema json.RawMessage, p contract.Policy) *contract.Tool {
		tool, err := contract.NewForeignTool(name, "Sends.", schema, nil, func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) {
			ran.Add(1)
			return json.RawMessage(`"sent"`), nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if tool, err = tool.WithPolicy(p); err != nil {
			t.Fatal(err)
		}
		return tool
	}
	direct := contract.Policy{Callers: contract.CallersModel}
	c, err := contract.New(mk("send", json.RawMessage(`{"type":"object"}`), contract.Policy{Callers: contract.CallersModel, RequiresApproval: true}),
		mk("code", nil, direct), mk("untyped", json.RawMessage(`{"properties":{"a":{"type":"string"}}}`), direct),
		mk("scalar", json.RawMessage(`{"type":"string"}`), direct))
	if err != nil {
		t.Fatal(err)
	}
	rt := runtimeOf(t, "quickjs")
	for _, tc := range []struct {
		name, version, action string
		elicits               bool
		runs                  bool
	}{
		{"request accept", "2025-11-25", "accept", true, true},
		{"request decline", "2025-11-25", "decline", true, false},
		{"result accept", "", "accept", true, true},
		{"result decline", "", "decline", true, false},
		{"cannot ask", "", "", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var copts *mcp.ClientOptions
			if tc.elicits {
				copts = &mcp.ClientOptions{ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					return &mcp.ElicitResult{Action: tc.action}, nil
				}}
			}
			cs := connectOn(t, client.New(rt, c), mcpserver.Options{}, copts, tc.version)
			tools, err := cs.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tl := range tools.Tools {
				names = append(names, tl.Name)
				if tl.Name == "code" && !strings.Contains(tl.Description, "TypeScript") {
					t.Errorf("the code tool was replaced: %q", tl.Description)
				}
			}
			slices.Sort(names)
			if strings.Join(names, ",") != "code,send,untyped" {
				t.Fatalf("tools %v", names)
			}
			before := ran.Load()
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "send", Arguments: map[string]any{}})
			if err != nil {
				t.Fatal(err)
			}
			if got := ran.Load() - before; (got == 1) != tc.runs || res.IsError == tc.runs {
				t.Fatalf("ran %d times, error %v: %v", got, res.IsError, res.Content[0].(*mcp.TextContent).Text)
			}
		})
	}
}
