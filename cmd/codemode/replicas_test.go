package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/codemode-go/codemode/internal/pgtest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// server is a long-running command of this test binary: its process and
// the addresses it logged.
type server struct {
	cmd   *exec.Cmd
	addr  string // the service address (runner host, MCP URL)
	admin string // http://host:port of --admin
}

// startServer runs `codemode ARGS` with env and waits until its stderr
// named the service address (the first submatch of addrRe) and the admin
// address. Cleanup ends it with SIGKILL if it still runs.
func startServer(t *testing.T, env []string, addrRe *regexp.Regexp, args ...string) *server {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, append([]string{"-codemode-cli"}, args...)...)
	cmd.Env = env
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	drained := make(chan struct{})
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-drained
		_ = cmd.Wait()
	})
	s := &server{cmd: cmd}
	adminRe := regexp.MustCompile(`metrics on (http://127\.0\.0\.1:\d+)`)
	lines := bufio.NewScanner(stderr)
	var seen []string
	for (s.addr == "" || s.admin == "") && lines.Scan() {
		seen = append(seen, lines.Text())
		if m := addrRe.FindStringSubmatch(lines.Text()); m != nil {
			s.addr = m[1]
		}
		if m := adminRe.FindStringSubmatch(lines.Text()); m != nil {
			s.admin = m[1]
		}
	}
	go func() { // ends when the process's stderr closes, which Cleanup awaits
		defer close(drained)
		for lines.Scan() {
		}
	}()
	if s.addr == "" || s.admin == "" {
		t.Fatalf("codemode %s did not say where it serves:\n%s", strings.Join(args, " "), strings.Join(seen, "\n"))
	}
	return s
}

// probe returns the status of GET admin+path, or 0 when nothing answers.
func probe(admin, path string) (int, string) {
	c := http.Client{Timeout: 2 * time.Second}
	res, err := c.Get(admin + path)
	if err != nil {
		return 0, err.Error()
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// stickyProxy spreads new MCP sessions round-robin over the replicas whose
// /readyz answers 200 (as a Kubernetes Service does with its ready
// endpoints) and sends the later requests of a session to the replica
// that holds it (session affinity on Mcp-Session-Id).
type stickyProxy struct {
	replicas []*server

	mu       sync.Mutex
	next     int
	sessions map[string]*server
	unready  map[string]int // /readyz failures seen, by admin address
}

func (p *stickyProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id := r.Header.Get("Mcp-Session-Id")
	p.mu.Lock()
	target := p.sessions[id]
	p.mu.Unlock()
	if id != "" && target == nil {
		http.Error(w, "unknown session", http.StatusNotFound)
		return
	}
	if target == nil {
		if target = p.pick(); target == nil {
			http.Error(w, "no replica is ready", http.StatusServiceUnavailable)
			return
		}
	}
	u, _ := url.Parse(target.addr)
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.FlushInterval = -1                    // server-sent events go through as they come
	rp.ErrorLog = log.New(io.Discard, "", 0) // a killed replica's refusals are expected: the client sees 502
	rp.ModifyResponse = func(res *http.Response) error {
		if sid := res.Header.Get("Mcp-Session-Id"); sid != "" {
			p.mu.Lock()
			p.sessions[sid] = target
			p.mu.Unlock()
		}
		return nil
	}
	rp.ServeHTTP(w, r)
}

// pick returns the next replica whose /readyz says 200, or nil.
func (p *stickyProxy) pick() *server {
	for range p.replicas {
		p.mu.Lock()
		s := p.replicas[p.next%len(p.replicas)]
		p.next++
		p.mu.Unlock()
		if code, _ := probe(s.admin, "/readyz"); code == http.StatusOK {
			return s
		}
		p.mu.Lock()
		p.unready[s.admin]++
		p.mu.Unlock()
	}
	return nil
}

// postgresJournal returns a postgres:// journal URL in a fresh schema of
// $CODEMODE_TEST_POSTGRES, dropped after the test, or skips the test
// (fails it with CODEMODE_REQUIRE_POSTGRES=1) when the variable is unset.
func postgresJournal(t *testing.T) string {
	t.Helper()
	journal, _ := pgtest.Journal(t)
	return journal
}

// replicaAnswer is the part of a code or code_result answer the test reads.
type replicaAnswer struct {
	Status      string          `json:"status"`
	ExecutionID string          `json:"executionId"`
	Value       json.RawMessage `json:"value"`
}

// replicaRig is the test's deployment: runner hosts, MCP replicas behind
// the proxy, and what a client needs to approve from outside them.
type replicaRig struct {
	env              []string
	journal, tools   string
	runtime, effects string
	hosts, replicas  []*server
	proxy            *stickyProxy
	front            *httptest.Server
}

// TestReplicas runs three `mcp serve --http --journal postgres://…`
// replicas behind a round-robin proxy, each running programs on a pool
// over two runner hosts, and has eight clients run hundreds of programs
// whose one tool call needs approval: six clients approve when asked
// (elicitation, on the replica that runs the program), two do not declare
// elicitation, so their programs pause in the shared journal and are
// approved by `codemode approve` in another process, which replays them. A third of the way in, one
// replica and one runner host are killed. The tool appends each call to
// its own log: no call may appear twice, and every execution a client saw
// complete must appear once. The killed pieces' probes stop answering, the
// proxy routes new sessions by /readyz, and the survivors stay ready.
func TestReplicas(t *testing.T) {
	if testing.Short() {
		t.Skip("starts three MCP servers, two runner hosts and hundreds of executions")
	}
	rig := startRig(t, postgresJournal(t))
	const total, workers, asking = 300, 8, 6
	results := make([]string, total)
	var next atomic.Int64
	var kill sync.Once
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rig.work(t, w < asking, results, &next, func(i int) {
				if i == total/3 {
					kill.Do(func() {
						_ = rig.replicas[1].cmd.Process.Kill()
						_ = rig.hosts[1].cmd.Process.Kill()
					})
				}
			})
		}()
	}
	wg.Wait()
	rig.check(t, results, 2*workers)
}

// startRig starts the runner hosts, the replicas and the proxy.
func startRig(t *testing.T, journal string) *replicaRig {
	dir := t.TempDir()
	rig := &replicaRig{journal: journal, effects: filepath.Join(dir, "effects.log"), tools: filepath.Join(dir, "tools.json")}
	tools, _ := json.Marshal(map[string]any{"tools": []map[string]any{{
		"name": "effect", "description": "Does something once per key.",
		"inputSchema":      json.RawMessage(`{"type":"object","properties":{"key":{"type":"string"}},"required":["key"]}`),
		"outputSchema":     json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`),
		"command":          []string{"sh", "-c", `read -r l || true; printf '%s\n' "$l" >> "$0"; echo '{"ok":true}'`, rig.effects},
		"requiresApproval": true,
	}}})
	if err := os.WriteFile(rig.tools, tools, 0o644); err != nil {
		t.Fatal(err)
	}
	var b [32]byte
	_, _ = rand.Read(b[:])
	rig.env = append(os.Environ(), tokenEnv+"="+hex.EncodeToString(b[:]))
	listen := regexp.MustCompile(`serving.* listen=(127\.0\.0\.1:\d+)`)
	for range 2 {
		rig.hosts = append(rig.hosts, startServer(t, rig.env, listen, "runner", "serve", "--listen", "127.0.0.1:0", "--admin", "127.0.0.1:0"))
	}
	rig.runtime = rig.hosts[0].addr + "," + rig.hosts[1].addr
	serving := regexp.MustCompile(`serving .* on (http://127\.0\.0\.1:\d+)`)
	for range 3 {
		rig.replicas = append(rig.replicas, startServer(t, rig.env, serving, "mcp", "serve", "--http", "127.0.0.1:0", "--admin", "127.0.0.1:0",
			"--journal", journal, "--tools", rig.tools, "--no-check", "--runtime", rig.runtime, "--pool", "2"))
	}
	rig.proxy = &stickyProxy{replicas: rig.replicas, sessions: map[string]*server{}, unready: map[string]int{}}
	rig.front = httptest.NewServer(rig.proxy)
	t.Cleanup(rig.front.Close)
	return rig
}

// work runs executions until total is reached, each on a session through
// the proxy (a new one after a session broke), and records each outcome.
// before is called with each execution's number before it starts.
func (rig *replicaRig) work(t *testing.T, elicit bool, results []string, next *atomic.Int64, before func(int)) {
	var s *mcp.ClientSession
	defer func() {
		if s != nil {
			_ = s.Close()
		}
	}()
	for {
		i := int(next.Add(1)) - 1
		if i >= len(results) {
			return
		}
		before(i)
		if s == nil {
			var err error
			if s, err = rig.connect(elicit); err != nil {
				results[i] = "failed: connecting: " + err.Error()
				continue
			}
		}
		var broken bool
		results[i], broken = rig.execute(s, fmt.Sprintf("k%d", i))
		if broken {
			_ = s.Close()
			s = nil
		}
	}
}

// connect opens an MCP session through the proxy; with elicit, the client
// accepts every approval it is asked for.
func (rig *replicaRig) connect(elicit bool) (*mcp.ClientSession, error) {
	var opts *mcp.ClientOptions
	if elicit {
		opts = &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{}}, nil
		}}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return mcp.NewClient(&mcp.Implementation{Name: "replica-test", Version: "1"}, opts).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: rig.front.URL}, nil)
}

// call calls a tool and decodes its answer; broken says the session failed.
func call(s *mcp.ClientSession, tool string, args map[string]any) (a replicaAnswer, text string, broken bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return a, err.Error(), true
	}
	if len(res.Content) > 0 {
		if tc, ok := res.Content[0].(*mcp.TextContent); ok {
			text = tc.Text
		}
	}
	if json.Unmarshal([]byte(text), &a) != nil {
		a.Status = "unreadable"
	}
	return a, text, false
}

// execute runs the program for key and returns "ok" when it completed
// with key as its value (approved on the replica, or paused and then
// approved by `codemode approve`), else what happened.
func (rig *replicaRig) execute(s *mcp.ClientSession, key string) (string, bool) {
	a, text, broken := call(s, "code", map[string]any{"code": fmt.Sprintf("await codemode.effect({ key: %q });\n%q", key, key)})
	if broken || a.Status != "paused" {
		if !broken && a.Status == "completed" && string(a.Value) == `"`+key+`"` {
			return "ok", false
		}
		return "failed: " + text, broken
	}
	self, _ := os.Executable()
	approve := exec.Command(self, "-codemode-cli", "approve", "--journal", rig.journal, "--tools", rig.tools, "--runtime", rig.runtime, "--json", a.ExecutionID)
	approve.Env = rig.env
	var out, errOut bytes.Buffer
	approve.Stdout, approve.Stderr = &out, &errOut
	if err := approve.Run(); err != nil {
		show := exec.Command(self, "-codemode-cli", "show", "--journal", rig.journal, a.ExecutionID)
		shown, _ := show.CombinedOutput()
		return fmt.Sprintf("failed: approve: %v: %s; codemode show: %s", err, errOut.String(), shown), false
	}
	// The approving process's answer, not code_result: a replica prunes
	// ended executions beyond the 50 newest (durable.DefaultMaxExecutions),
	// which with eight clients can happen before a code_result.
	if json.Unmarshal(out.Bytes(), &a) != nil || a.Status != "completed" || string(a.Value) != `"`+key+`"` {
		return "failed: approve answered " + out.String(), false
	}
	return "ok", false
}

// check compares the outcomes with the tool's own log and the probes.
func (rig *replicaRig) check(t *testing.T, results []string, maxFailed int) {
	raw, err := os.ReadFile(rig.effects)
	if err != nil {
		t.Fatal(err)
	}
	calls := map[string]int{}
	inputless := 0
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		if line == "" {
			// The tool's command was started but read no input: the
			// replica that started it was killed before it wrote the
			// call (the shell reads EOF and logs an empty line). No
			// key's effect happened.
			inputless++
			continue
		}
		var in struct{ Key string }
		if json.Unmarshal([]byte(line), &in) != nil || in.Key == "" {
			t.Errorf("the tool's log has a line that is no call: %q", line)
		}
		calls[in.Key]++
	}
	if inputless > maxFailed {
		t.Errorf("%d tool commands read no input; at most %d calls were in flight on the killed replica", inputless, maxFailed)
	}
	failed := 0
	for i, r := range results {
		key := fmt.Sprintf("k%d", i)
		switch {
		case calls[key] > 1:
			t.Errorf("%s: the tool ran %d times (doubled)", key, calls[key])
		case r == "ok" && calls[key] != 1:
			t.Errorf("%s: the client saw it complete, and the tool ran %d times (lost)", key, calls[key])
		case r != "ok":
			failed++
			t.Logf("%s (tool ran %d times): %s", key, calls[key], r)
		}
	}
	t.Logf("%d executions, %d failed around the kills, %d tool calls logged, %d commands without input", len(results), failed, len(calls), inputless)
	if failed > maxFailed {
		t.Errorf("%d executions failed; at most %d were in flight on the killed replica and host", failed, maxFailed)
	}
	for _, s := range []*server{rig.replicas[1], rig.hosts[1]} {
		if code, _ := probe(s.admin, "/healthz"); code != 0 {
			t.Errorf("%s/healthz answers %d after the kill", s.admin, code)
		}
	}
	for _, s := range []*server{rig.replicas[0], rig.replicas[2], rig.hosts[0]} {
		if code, body := probe(s.admin, "/readyz"); code != http.StatusOK {
			t.Errorf("%s/readyz: %d %s", s.admin, code, body)
		}
	}
	rig.proxy.mu.Lock()
	defer rig.proxy.mu.Unlock()
	if rig.proxy.unready[rig.replicas[1].admin] == 0 {
		t.Errorf("the proxy never saw the killed replica's /readyz fail")
	}
	per := map[*server]int{}
	for _, s := range rig.proxy.sessions {
		per[s]++
	}
	for i, s := range rig.replicas {
		if per[s] == 0 {
			t.Errorf("replica %d took no session", i)
		}
	}
}
