package mcpserver_test

import (
	"context"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/quickjs"
	"github.com/codemode-go/codemode/internal/fixtures"
	"github.com/codemode-go/codemode/mcpserver"
	"github.com/codemode-go/codemode/typecheck"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestSessionsAreKeyedByMCPSession: with Tool.Sessions, two HTTP clients
// each continue their own session (type-checked with the bindings in
// scope), and neither sees the other's bindings.
func TestSessionsAreKeyedByMCPSession(t *testing.T) {
	tools, err := fixtures.Tools(nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := contract.New(tools...)
	if err != nil {
		t.Fatal(err)
	}
	d := quickjs.New(quickjs.Options{Timeout: 10 * time.Second})
	t.Cleanup(func() { d.Close() })
	rt, err := client.NewRuntime(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	opts := mcpserver.Options{Tool: codetool.Options{Sessions: true}}
	// Bob's program does not type-check where n is unknown; unchecked,
	// it runs and n is undefined.
	bobSeesN := "bob undefined"
	if checker, err := typecheck.New(typecheck.Options{}); err == nil {
		t.Cleanup(func() { checker.Close() })
		opts.Tool.Checker = checker
		bobSeesN = "Cannot find name 'n'"
	} else if os.Getenv("CODEMODE_REQUIRE_TSC") != "" {
		t.Fatal(err)
	}
	srv, err := mcpserver.New(client.New(rt, c), opts)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(mcpserver.NewHTTPHandler(srv, mcpserver.HTTPOptions{}))
	defer ts.Close()
	dial := func() *mcp.ClientSession {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(context.Background(),
			&mcp.StreamableClientTransport{Endpoint: ts.URL, MaxRetries: -1, DisableStandaloneSSE: true}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	alice, bob := dial(), dial()
	tools2, err := alice.ListTools(context.Background(), nil)
	if err != nil || !strings.Contains(tools2.Tools[0].Description, "Programs continue one session") {
		t.Fatalf("the code tool's description does not say bindings persist: %v", err)
	}
	for i, st := range []struct {
		who  *mcp.ClientSession
		code string
		want string
	}{
		{alice, "let who: string = 'alice';\nlet n = 1;\nwho", "alice"},
		{bob, "const who = 'bob';\nwho", "bob"},
		{alice, "n += 1;\n`${who} ${n}`", "alice 2"},
		{bob, "`${who} ${typeof n}`", bobSeesN},
		{bob, "`${who} again`", "bob again"},
	} {
		text, isErr, err := codeText(st.who, st.code)
		if err != nil || !strings.Contains(text, st.want) || isErr != strings.Contains(st.want, "Cannot") {
			t.Fatalf("step %d: %q %v %v; want %q", i, text, isErr, err, st.want)
		}
	}
}

// TestSessionsNeedAPlainRunner: a runner whose executions pause (a
// durable one) cannot serve sessions; New says why.
func TestSessionsNeedAPlainRunner(t *testing.T) {
	_, err := mcpserver.New(handle(t, testConnector(t)), mcpserver.Options{Tool: codetool.Options{Sessions: true}})
	if err == nil || !strings.Contains(err.Error(), "Tool.Sessions needs a runner whose executions do not pause") {
		t.Fatalf("New: %v; want the refusal", err)
	}
}
