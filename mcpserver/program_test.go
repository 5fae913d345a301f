package mcpserver_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/mcpserver"
)

// With ApprovePrograms, the person sees each program whole before it runs,
// asked by a request (protocols before 2026-07-28) or in the result (from
// 2026-07-28, SEP-2322; the go-sdk client answers and retries by itself),
// for a plain runner and a durable one; a program they decline does not
// run, and a client that cannot ask is refused.
func TestServerApprovesProgramsFirst(t *testing.T) {
	var pings atomic.Int32
	ping, err := contract.NewTool("ping", "Answers ok.", func(ctx context.Context, _ noInput) (okOutput, error) {
		pings.Add(1)
		return okOutput{true}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	ns := contract.Namespace{Name: "svc", Tools: []*contract.Tool{ping}}
	c, err := contract.NewNamespaced(ns)
	if err != nil {
		t.Fatal(err)
	}
	runners := map[string]func(t *testing.T) codetool.Runner{
		"plain":   func(t *testing.T) codetool.Runner { return client.New(runtimeOf(t, "quickjs"), c) },
		"durable": func(t *testing.T) codetool.Runner { return handle(t, ns) },
	}
	const program = `(await svc.ping({})).ok`
	for _, runner := range []string{"plain", "durable"} {
		for _, version := range []string{"2025-11-25", ""} {
			for _, action := range []string{"accept", "decline"} {
				t.Run(runner+"/"+version+"/"+action, func(t *testing.T) {
					var asked []string
					cs := connectOn(t, runners[runner](t), mcpserver.Options{ApprovePrograms: true}, &mcp.ClientOptions{
						ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
							asked = append(asked, req.Params.Message)
							return &mcp.ElicitResult{Action: action}, nil
						}}, version)
					before := pings.Load()
					res := callCode(t, cs, program)
					text := res.Content[0].(*mcp.TextContent).Text
					if len(asked) != 1 || !strings.Contains(asked[0], program) {
						t.Fatalf("asked %q", asked)
					}
					ran := pings.Load() - before
					switch action {
					case "accept":
						if res.IsError || ran != 1 || !strings.Contains(text, `"value":true`) {
							t.Fatalf("approved: error %v, %d calls, %s", res.IsError, ran, text)
						}
					default:
						if !res.IsError || ran != 0 || !strings.Contains(text, "nothing ran") {
							t.Fatalf("declined: error %v, %d calls, %s", res.IsError, ran, text)
						}
					}
				})
			}
		}
	}
	t.Run("no elicitation", func(t *testing.T) {
		cs := connectRunner(t, client.New(runtimeOf(t, "quickjs"), c), mcpserver.Options{ApprovePrograms: true}, nil)
		res := callCode(t, cs, program)
		if text := res.Content[0].(*mcp.TextContent).Text; !res.IsError || !strings.Contains(text, "cannot ask them") {
			t.Fatalf("answered %v %s", res.IsError, text)
		}
	})
}
