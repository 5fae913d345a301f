package mcpconnector_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/connector/mcpconnector"
	"github.com/codemode-go/codemode/internal/mcptest"
)

// played is a server the test binary plays (internal/mcptest), with env
// added to its environment.
func played(t *testing.T, name, kind, ready string, env map[string]string) mcpconnector.Server {
	command, base := mcptest.Server(t, kind, ready)
	for k, v := range env {
		base[k] = v
	}
	return mcpconnector.Server{Name: name, Command: command, Env: base, Approval: mcpconnector.ApprovalNever}
}

// TestBrokenServersAreLeftOut: a server that crashes at start and two that
// never answer the handshake, among working ones (the real memory server
// and the quirks server): Connect returns within about one connect
// timeout, not one per hanging server; the working servers serve; each
// broken one is down with a reason that names it and holds no secret or
// escape, is reported once, and has an empty namespace saying why.
func TestBrokenServersAreLeftOut(t *testing.T) {
	const timeout = 4 * time.Second
	key := "sk_live_51HcrashKeyValue0099"
	servers := []mcpconnector.Server{
		played(t, "crashing", mcptest.Crash, "", map[string]string{"API_KEY": key}),
		played(t, "hanging", mcptest.Mute, "", nil),
		played(t, "hanging2", mcptest.Mute, "", nil),
		played(t, "hanging3", mcptest.Mute, "", nil),
		{Name: "memory", Command: mcptest.Command(t, "mcp-server-memory"), Env: map[string]string{"MEMORY_FILE_PATH": filepath.Join(t.TempDir(), "m.jsonl")}, Approval: mcpconnector.ApprovalNever},
		played(t, "p", mcptest.Quirks, "", nil),
	}
	servers[0].Args = []string{"--api-key=" + key}
	var log logs
	start := time.Now()
	set, err := mcpconnector.Connect(context.Background(), servers, mcpconnector.Options{ConnectTimeout: timeout, Logger: log.logger()})
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	// Three hanging servers one after the other would take three timeouts.
	if took := time.Since(start); took >= 3*timeout-time.Second {
		t.Fatalf("Connect took %v: the hanging servers were waited for in turn", took)
	}
	down := set.Down()
	if len(down) != 4 {
		t.Fatalf("down %v, want crashing and the three hanging", down)
	}
	crash := down["crashing"].Error()
	for _, want := range []string{"mcp server crashing (", "exited (exit status 1) before answering the MCP handshake", "Cannot find package 'undici'", "with key [redacted]"} {
		if !strings.Contains(crash, want) {
			t.Errorf("the crash's reason %q lacks %q", crash, want)
		}
	}
	if hang := down["hanging"].Error(); !strings.Contains(hang, "within 4s") {
		t.Errorf("the hang's reason %q does not name the timeout", hang)
	}
	all := log.String()
	for _, text := range []string{crash, all} {
		if strings.Contains(text, key) || strings.Contains(text, "\x1b") || strings.Contains(text, "--api-key") {
			t.Errorf("a message holds the key, its flag or an escape: %q", text)
		}
	}
	if n := strings.Count(all, "level=WARN"); n != 4 {
		t.Errorf("%d warnings, want one per broken server:\n%s", n, all)
	}
	ns := set.Namespaces()
	if len(ns) != 6 || len(ns[0].Tools) != 0 || !strings.HasPrefix(ns[0].Instructions, "Unavailable: the server exited (exit status 1)") || !strings.Contains(ns[0].Instructions, "Cannot find package") ||
		len(ns[4].Tools) == 0 || len(ns[5].Tools) == 0 {
		t.Fatalf("namespaces %+v", ns)
	}
	out := runContract(t, contractOf(t, set), `
await memory.create_entities({ entities: [{ name: "a", entityType: "t", observations: [] }] });
const shot = await p.browser_take_screenshot({ type: "png" });
let missing = "";
try { await crashing.anything({}); } catch (e) { missing = e.name + ": " + e.message; }
({ entities: (await memory.read_graph({})).entities.length, shot, missing })
`)
	if v := string(out.Value); out.Kind != client.Success || !strings.Contains(v, `"entities":1`) ||
		!strings.Contains(v, "TypeError: crashing.anything is unavailable: namespace crashing has no tools: its MCP server failed to start or connect (the server exited (exit status 1)") ||
		!strings.Contains(v, "with key [redacted]") || strings.Contains(v, key) {
		t.Fatalf("outcome %+v, value %s", out.Error, v)
	}
}

// TestDownServerSaysWhetherItIsRetried: a server down at Connect is said
// to be retried in the background, in its namespace's instructions, in the
// error a program that calls it gets and in the logger's warning, only
// when it is (without Options.NoRetry); with NoRetry each says that it
// failed to start or connect, and nothing more.
func TestDownServerSaysWhetherItIsRetried(t *testing.T) {
	for _, tt := range []struct {
		name    string
		noRetry bool
	}{{"retried", false}, {"not retried", true}} {
		t.Run(tt.name, func(t *testing.T) {
			var log logs
			set, err := mcpconnector.Connect(context.Background(), []mcpconnector.Server{played(t, "crashing", mcptest.Crash, "", nil)},
				mcpconnector.Options{Logger: log.logger(), NoRetry: tt.noRetry})
			if err != nil {
				t.Fatal(err)
			}
			defer set.Close()
			ns := set.Namespaces()[0]
			for what, text := range map[string]string{"instructions": ns.Instructions, "unavailable": ns.Unavailable, "log": log.String()} {
				if retried := strings.Contains(text, "in the background"); retried == tt.noRetry {
					t.Errorf("%s says it is retried %v, want %v:\n%s", what, retried, !tt.noRetry, text)
				}
			}
			if !strings.HasPrefix(ns.Unavailable, "its MCP server failed to start or connect (the server exited (exit status 1)") {
				t.Errorf("unavailable %q", ns.Unavailable)
			}
		})
	}
}

// TestLateServerJoins: a server down at Connect is retried in the
// background; once it comes up OnJoin names it, Namespaces holds its
// tools, Down no longer lists it, and its tools answer.
func TestLateServerJoins(t *testing.T) {
	ready := filepath.Join(t.TempDir(), "ready")
	joined := make(chan string, 1)
	var log logs
	set, err := mcpconnector.Connect(context.Background(), []mcpconnector.Server{played(t, "late", mcptest.Late, ready, nil)},
		mcpconnector.Options{Logger: log.logger(), OnJoin: func(name string) { joined <- name }})
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	if err := set.Down()["late"]; err == nil || !strings.Contains(err.Error(), "not ready yet") {
		t.Fatalf("down %v", err)
	}
	if err := os.WriteFile(ready, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	select {
	case name := <-joined:
		if name != "late" {
			t.Fatalf("joined %q", name)
		}
	case <-time.After(time.Minute):
		t.Fatal("the server did not join")
	}
	if len(set.Down()) != 0 || !strings.Contains(log.String(), "mcp server late (") || !strings.Contains(log.String(), "is up: 1 tools on late") {
		t.Fatalf("down %v, log %s", set.Down(), log.String())
	}
	out, err := contractOf(t, set).Tool("late", "echo").Call(context.Background(), json.RawMessage(`{"n": 1}`))
	if err != nil || string(out) != `{"n":1}` {
		t.Fatalf("echo: %s, %v", out, err)
	}
}

// TestCloseStopsRetries: Close ends the retries of a server that never
// comes up, and OnJoin is never called.
func TestCloseStopsRetries(t *testing.T) {
	joined := make(chan string, 1)
	set, err := mcpconnector.Connect(context.Background(), []mcpconnector.Server{played(t, "never", mcptest.Late, filepath.Join(t.TempDir(), "absent"), nil)},
		mcpconnector.Options{OnJoin: func(name string) { joined <- name }})
	if err != nil {
		t.Fatal(err)
	}
	if err := set.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case name := <-joined:
		t.Fatalf("%s joined after Close", name)
	default:
	}
}

// TestConnectNeedsNames: configuration errors are errors, not down
// servers.
func TestConnectNeedsNames(t *testing.T) {
	for _, c := range []struct {
		servers []mcpconnector.Server
		want    string
	}{
		{nil, "no MCP servers"},
		{[]mcpconnector.Server{{Command: "a"}, {Name: "b", Command: "b"}}, "needs a name"},
		{[]mcpconnector.Server{{Name: "a", Command: "a"}, {Name: "a", Command: "b"}}, "two servers are named a"},
	} {
		if _, err := mcpconnector.Connect(context.Background(), c.servers, mcpconnector.Options{}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Connect(%v): %v, want %q", c.servers, err, c.want)
		}
	}
}
