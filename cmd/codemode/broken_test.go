package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codemode-go/codemode/connector/mcpconnector"
	"github.com/codemode-go/codemode/internal/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// brokenKey is the key the crashing server is configured with (in its
// arguments and its environment) and prints on its stderr.
const brokenKey = "sk_live_51BrokenServerKey0042"

// brokenConfig writes an mcpServers file with a server that crashes at
// start, one that never answers the handshake, one that comes up once the
// file ready exists, and two that work: the real memory server and the
// quirks server (real servers' tools, p).
func brokenConfig(t *testing.T, ready string) string {
	t.Helper()
	entry := func(kind string, env map[string]string, args ...string) map[string]any {
		command, base := mcptest.Server(t, kind, ready)
		for k, v := range env {
			base[k] = v
		}
		return map[string]any{"command": command, "args": args, "env": base}
	}
	cfg := map[string]any{"mcpServers": map[string]any{
		"crashing": entry(mcptest.Crash, map[string]string{"API_KEY": brokenKey}, "--api-key="+brokenKey),
		"hanging":  entry(mcptest.Mute, nil),
		"late":     entry(mcptest.Late, nil),
		"memory":   map[string]any{"command": mcptest.Command(t, "mcp-server-memory"), "env": map[string]string{"MEMORY_FILE_PATH": filepath.Join(t.TempDir(), "memory.jsonl")}},
		"p":        entry(mcptest.Quirks, nil),
	}}
	raw, _ := json.Marshal(cfg)
	return writeFile(t, "mcp.json", string(raw))
}

// brokenProgram uses the two working servers and calls the crashing one.
const brokenProgram = `
await memory.create_entities({ entities: [{ name: "ada", entityType: "person", observations: [] }] });
const shot = await p.browser_take_screenshot({ type: "png" });
let missing = "";
try { await crashing.anything({}); } catch (e) { missing = e.message; }
({ people: (await memory.read_graph({})).entities.length, shot, missing })
`

// checkClean fails the test if text holds the crashing server's key, the
// flag it was given with, or a terminal escape.
func checkClean(t *testing.T, what, text string) {
	t.Helper()
	for _, bad := range []string{brokenKey, "--api-key", "\x1b"} {
		if strings.Contains(text, bad) {
			t.Errorf("%s holds %q:\n%s", what, bad, text)
		}
	}
}

// TestRunWithBrokenServers: `codemode run --config` with one crashing and
// two hanging or late servers among working ones runs the program over
// the working ones, says which servers are up, why the others are not and
// what to check (nothing retries them in a one-shot run), and prints no
// secret or escape.
func TestRunWithBrokenServers(t *testing.T) {
	cfg := brokenConfig(t, filepath.Join(t.TempDir(), "never"))
	prog := writeFile(t, "p.ts", brokenProgram)
	code, stdout, stderr := runCLI(t, "run", "--config", cfg, "--connect-timeout", "3s", prog)
	if code != 0 || !strings.Contains(stdout, `"people":1`) || !strings.Contains(stdout, `"shot":{"type":"png"}`) || !strings.Contains(stdout, "crashing.anything is unavailable: namespace crashing has no tools: its MCP server failed to start or connect (the server exited (exit status 1)") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	for _, want := range []string{
		"codemode: MCP servers: 2 of 5 up (memory, p); down: crashing, hanging, late: failed to start or connect, and this command does not retry (the reasons are above; check each one's command line or URL, or give one slow to start more than 3s with --connect-timeout)\n",
		"codemode: warning: mcp server crashing (", "exited (exit status 1) before answering the MCP handshake", "Cannot find package 'undici'", "with key [redacted]",
		"codemode: warning: mcp server hanging (", "within 3s",
		"codemode: warning: mcp server late (", "not ready yet",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stdout+stderr, "in the background") {
		t.Errorf("a one-shot run says a server is retried in the background, which nothing does:\nstdout %s\nstderr %s", stdout, stderr)
	}
	checkClean(t, "stderr", stderr)
	checkClean(t, "stdout", stdout)
}

// syncBuffer is a buffer written by a child's stderr copier and read by
// the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestMCPServeWithBrokenServers: `codemode mcp serve` over the same
// configuration, plain and with a journal, serves the working servers; the
// description and the handshake's instructions say which servers are
// unavailable and why; when the late server comes up, clients are told the
// tool list changed and its tools are declared and callable.
func TestMCPServeWithBrokenServers(t *testing.T) {
	t.Run("plain", func(t *testing.T) { serveBroken(t) })
	t.Run("journal", func(t *testing.T) {
		serveBroken(t, "--journal", filepath.Join(t.TempDir(), "j.db"), "--approval", "never")
	})
}

func serveBroken(t *testing.T, args ...string) {
	ready := filepath.Join(t.TempDir(), "ready")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	args = append([]string{"-codemode-cli", "mcp", "serve", "--no-check", "--config", brokenConfig(t, ready), "--connect-timeout", "3s"}, args...)
	cmd := exec.Command(self, args...)
	var stderr syncBuffer
	cmd.Stderr = &stderr
	changed := make(chan struct{}, 1)
	client := mcp.NewClient(&mcp.Implementation{Name: "test-agent", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case changed <- struct{}{}:
			default:
			}
		}})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	defer session.Close()
	description := func() string {
		t.Helper()
		list, err := session.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		return list.Tools[0].Description
	}
	desc := description()
	for _, want := range []string{"- crashing: Unavailable: the server exited (exit status 1) before answering the MCP handshake", "- hanging: Unavailable: did not start",
		"- late: Unavailable:", "- memory: tools create_entities", "- p: tools browser_close"} {
		if !strings.Contains(desc, want) {
			t.Errorf("the description lacks %q:\n%s", want, desc)
		}
	}
	checkClean(t, "the description", desc)
	instructions := session.InitializeResult().Instructions
	if !strings.Contains(instructions, "crashing: Unavailable:") || !strings.Contains(instructions, "Cannot find package") {
		t.Errorf("instructions %s", instructions)
	}
	checkClean(t, "the instructions", instructions)
	texts, _, isError := code(t, session, brokenProgram)
	if isError || !strings.Contains(texts[0], `"people":1`) || !strings.Contains(texts[0], "crashing.anything is unavailable: namespace crashing has no tools: its MCP server failed to start or connect (the server exited (exit status 1)") {
		t.Fatalf("answer %v", texts)
	}
	checkClean(t, "the answer", texts[0])

	if err := os.WriteFile(ready, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed:
	case <-ctx.Done():
		t.Fatalf("the tool list did not change after the late server came up:\n%s", stderr.String())
	}
	if desc := description(); !strings.Contains(desc, "- late: tools echo (1 tool)") {
		t.Errorf("the description does not list late's echo:\n%s", desc)
	}
	texts, _, isError = code(t, session, `await late.echo({ n: 1 })`)
	if isError || !strings.Contains(texts[0], `"value":{"n":1}`) {
		t.Fatalf("late.echo: %v", texts)
	}
	errText := stderr.String()
	for _, want := range []string{"codemode: MCP servers: 2 of 5 up (memory, p); down: crashing, hanging, late", "codemode: mcp server late (", "is up: 1 tools on late", "the code tool now declares"} {
		if !strings.Contains(errText, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errText)
		}
	}
	checkClean(t, "stderr", errText)
}

// TestServersStatusSaysWhichAreUp pins the status line of each mix of up
// and down servers; with none up it names none, not an empty "()". A
// command that serves says the servers that are down are retried in the
// background; a one-shot command, which does not retry them, says what to
// check.
func TestServersStatusSaysWhichAreUp(t *testing.T) {
	servers := []mcpconnector.Server{{Name: "a"}, {Name: "b"}}
	down := errors.New("exited")
	const notRetried = ": failed to start or connect, and this command does not retry (the reasons are above; check each one's command line or URL, or give one slow to start more than 15s with --connect-timeout)"
	for _, tc := range []struct {
		name    string
		serving bool
		down    map[string]error
		want    string
	}{
		{"all up", true, nil, "MCP servers up: a, b"},
		{"one down, serving", true, map[string]error{"b": down}, "MCP servers: 1 of 2 up (a); down: b, retried in the background (the reasons are above)"},
		{"all down, serving", true, map[string]error{"a": down, "b": down}, "MCP servers: none of 2 up; down: a, b, retried in the background (the reasons are above)"},
		{"all up, one-shot", false, nil, "MCP servers up: a, b"},
		{"one down, one-shot", false, map[string]error{"b": down}, "MCP servers: 1 of 2 up (a); down: b" + notRetried},
		{"all down, one-shot", false, map[string]error{"a": down, "b": down}, "MCP servers: none of 2 up; down: a, b" + notRetried},
	} {
		c := &contractFlags{serving: tc.serving, connectTimeout: 15 * time.Second}
		if got := c.serversStatus(servers, tc.down); got != tc.want {
			t.Errorf("%s: serversStatus = %q, want %q", tc.name, got, tc.want)
		}
	}
}
