package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemode-go/codemode/internal/mcptest"
)

// asksConfig writes an mcpServers file for the test server that asks the
// person a question (mcptest.Asks), as the namespace "asks".
func asksConfig(t *testing.T) string {
	t.Helper()
	command, env := mcptest.Server(t, mcptest.Asks, "")
	b, err := json.Marshal(map[string]any{"mcpServers": map[string]any{"asks": map[string]any{"command": command, "env": env}}})
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "asks.json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestMCPServeForwardsQuestions: an upstream server's question during a
// call reaches the person through mcp serve's own client, which sees which
// server asks; the fields the person left out get the schema's defaults
// (SEP-1034). codemode run, with nobody to ask, declines and says so.
func TestMCPServeForwardsQuestions(t *testing.T) {
	config := asksConfig(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var asked []string
	client := mcp.NewClient(&mcp.Implementation{Name: "test-agent", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked = append(asked, req.Params.Message)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"count": 2}}, nil
		}})
	cmd := exec.Command(self, "-codemode-cli", "mcp", "serve", "--config", config, "--no-check", "--journal", "")
	cmd.Stderr = os.Stderr
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// A protocol before 2026-07-28: a server may ask while a call runs.
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	texts, _, isErr := code(t, session, `await asks.ask({})`)
	if isErr || len(asked) != 1 || asked[0] != "The MCP server asks asks:\n> Which name?" {
		t.Fatalf("answer %q (error %v) after questions %q", texts, isErr, asked)
	}
	if a := answerOf(t, texts); !strings.Contains(string(a.Value), `"action":"accept"`) || !strings.Contains(string(a.Value), `"content":{"count":2,"name":"Ada"}`) {
		t.Fatalf("the server got %s", a.Value)
	}

	program := filepath.Join(t.TempDir(), "ask.ts")
	if err := os.WriteFile(program, []byte(`await asks.ask({})`), 0o644); err != nil {
		t.Fatal(err)
	}
	exit, stdout, stderr := runCLI(t, "run", "--config", config, "--journal", "", program)
	if exit != 0 || !strings.Contains(stdout, `"action":"decline"`) || !strings.Contains(stderr, `MCP server asks asked "Which name?"; declined: nobody can be asked`) {
		t.Fatalf("run: exit %d\nstdout %s\nstderr %s", exit, stdout, stderr)
	}
}

// mcp serve without a journal refuses a call that needs approval when it
// cannot ask the client during the call, and says why: the protocol
// version the client negotiated, or a client without elicitation. The
// model reads what it can do (nothing about flags: it cannot serve
// otherwise); the operator's advice goes to stderr, once.
func TestMCPServeSaysWhyAPlainRunCannotAsk(t *testing.T) {
	f := newJournalFixture(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	program, err := os.ReadFile(f.program)
	if err != nil {
		t.Fatal(err)
	}
	elicits := &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		t.Error("asked during the call")
		return &mcp.ElicitResult{Action: "decline"}, nil
	}}
	for _, c := range []struct {
		name, version string
		opts          *mcp.ClientOptions
		want          string
	}{
		{"multi round trip", "2026-07-28", elicits, "the MCP client negotiated protocol version 2026-07-28, in which a server cannot ask the client while a call runs"},
		{"no elicitation", "2025-11-25", nil, "the MCP client did not declare elicitation"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(self, "-codemode-cli", "mcp", "serve", "--tools", f.tools, "--no-check", "--journal", "")
			var stderr syncBuffer
			cmd.Stderr = &stderr
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			session, err := mcp.NewClient(&mcp.Implementation{Name: "test-agent", Version: "1"}, c.opts).Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: c.version})
			if err != nil {
				t.Fatal(err)
			}
			defer session.Close()
			for range 2 {
				texts, _, _ := code(t, session, string(program))
				a := answerOf(t, texts)
				if a.Status != "error" || !strings.Contains(a.Error, "codemode.create_item needs a person's approval before it runs, and this server cannot ask a person for it: "+c.want) ||
					!strings.Contains(a.Error, ". No change to the program can get it approved: do not call codemode.create_item again; finish without it and tell the user that it needs a person's approval, which this server is not set up to ask for") ||
					strings.Contains(a.Error, "--journal") || strings.Contains(a.Error, "--approval") {
					t.Fatalf("answer %+v", a)
				}
			}
			session.Close()
			_ = cmd.Wait()
			advice := "codemode: warning: codemode.create_item needed a person's approval, and this server cannot ask for it (" + c.want
			if n := strings.Count(stderr.String(), advice); n != 1 || strings.Count(stderr.String(), "), so the call failed: serve with --journal FILE.db (the run pauses") != 1 {
				t.Fatalf("stderr holds the operator's advice %d times, want once:\n%s", n, stderr.String())
			}
		})
	}
}
