package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/internal/mcptest"
	"github.com/codemode-go/codemode/internal/typescript"
)

// agent starts `codemode mcp serve` (this test binary) with args and
// connects to it over stdio with the go-sdk client, as an agent's MCP client
// would.
func agent(t *testing.T, args ...string) *mcp.ClientSession {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, append([]string{"-codemode-cli", "mcp", "serve"}, args...)...)
	cmd.Stderr = os.Stderr
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	session, err := mcp.NewClient(&mcp.Implementation{Name: "test-agent", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { session.Close() })
	return session
}

// code calls the code tool and returns the answer's text items, its images
// and whether it is an error.
func code(t *testing.T, s *mcp.ClientSession, program string) (texts []string, images []*mcp.ImageContent, isError bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "code", Arguments: map[string]any{"code": program}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			texts = append(texts, c.Text)
		case *mcp.ImageContent:
			images = append(images, c)
		}
	}
	return texts, images, res.IsError
}

// testConfig writes an mcpServers file for the three reference servers:
// memory (on a temporary file), files (the filesystem server on dir) and
// everything, each marked in its environment so a test can find it.
func testConfig(t *testing.T, dir, mark string) string {
	t.Helper()
	cfg := map[string]any{"mcpServers": map[string]any{
		"memory":     map[string]any{"command": mcptest.Command(t, "mcp-server-memory"), "env": map[string]string{"MEMORY_FILE_PATH": filepath.Join(t.TempDir(), "memory.jsonl"), "CODEMODE_TEST_MARK": mark}},
		"files":      map[string]any{"command": mcptest.Command(t, "mcp-server-filesystem"), "args": []string{dir}},
		"everything": map[string]any{"command": mcptest.Command(t, "mcp-server-everything"), "env": map[string]string{"CODEMODE_TEST_MARK": mark}},
	}}
	raw, _ := json.Marshal(cfg)
	return writeFile(t, "mcp.json", string(raw))
}

func TestMCPServeEndToEnd(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	mark := "mark-" + strconv.Itoa(os.Getpid()) + "-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	s := agent(t, "--config", testConfig(t, dir, mark), "--timeout", "8s", "--declarations", "full")

	tools, err := s.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools.Tools) != 1 || tools.Tools[0].Name != "code" {
		t.Fatalf("tools %v", tools.Tools)
	}
	desc := tools.Tools[0].Description
	for _, want := range []string{"interface MemoryTools", "search_nodes(input:", "interface FilesTools", "interface EverythingTools", "get_tiny_image(input?:", "const answer = await everything."} {
		if !strings.Contains(desc, want) {
			t.Fatalf("the code tool's description lacks %q:\n%s", want, desc)
		}
	}

	t.Run("memory entities, relations and search in one program", func(t *testing.T) {
		texts, _, isErr := code(t, s, "```ts\n"+`await memory.create_entities({ entities: [
  { name: "Grace", entityType: "person", observations: ["wrote a compiler"] },
  { name: "COBOL", entityType: "language", observations: ["designed with Grace's input"] },
] });
await memory.create_relations({ relations: [{ from: "Grace", to: "COBOL", relationType: "influenced" }] });
const hits = await memory.search_nodes({ query: "compiler" });
console.log("hits:", hits.entities.length);
({ names: hits.entities.map((e) => e.name), graph: (await memory.read_graph()).relations })
`+"```")
		a := answerOf(t, texts)
		if isErr || len(texts) != 1 || a.Status != codetool.StatusCompleted {
			t.Fatalf("answer %q (error %v)", texts, isErr)
		}
		var v struct {
			Names []string `json:"names"`
			Graph []struct {
				From, To string
			} `json:"graph"`
		}
		if err := json.Unmarshal(a.Value, &v); err != nil || strings.Join(v.Names, ",") != "Grace" || len(v.Graph) != 1 || v.Graph[0].To != "COBOL" {
			t.Fatalf("answer %s (%v)", texts[0], err)
		}
		if strings.Join(a.Logs, "\n") != "hits: 1" {
			t.Fatalf("logs %q", a.Logs)
		}
	})

	t.Run("files written and read back", func(t *testing.T) {
		texts, _, isErr := code(t, s, `async () => {
  await files.write_file({ path: "`+dir+`/notes.md", content: "# Notes\nline two" });
  const text = await files.read_text_file({ path: "`+dir+`/notes.md", tail: 1 });
  const dirs = await files.list_allowed_directories();
  return { text, dirs };
}`)
		if isErr || !strings.Contains(texts[0], "line two") || strings.Contains(texts[0], "# Notes") {
			t.Fatalf("answer %q (error %v)", texts, isErr)
		}
		if b, err := os.ReadFile(filepath.Join(dir, "notes.md")); err != nil || string(b) != "# Notes\nline two" {
			t.Fatalf("file %q %v", b, err)
		}
	})

	t.Run("upstream image forwarded", func(t *testing.T) {
		texts, images, isErr := code(t, s, `const r = await everything.get_tiny_image();
for (const item of r.content) if (item.type === "image") result.appendImage(item);
"forwarded"`)
		if isErr || len(images) != 1 || images[0].MIMEType != "image/png" || len(images[0].Data) < 50 || string(answerOf(t, texts).Value) != `"forwarded"` {
			t.Fatalf("answer %q, %d images (error %v)", texts, len(images), isErr)
		}
		if string(images[0].Data[1:4]) != "PNG" {
			t.Fatalf("image bytes %q", images[0].Data[:8])
		}
	})

	t.Run("type error answered before running", func(t *testing.T) {
		if _, err := typescript.Find(mustGetwd(t)); err != nil && os.Getenv("CODEMODE_REQUIRE_TSC") == "" {
			t.Skip("no TypeScript checker")
		}
		texts, _, isErr := code(t, s, "const hits = await memory.search_nodes({ qery: 'x' });\nhits.entities.lenght")
		if !isErr || !strings.Contains(texts[0], "does not type-check") || !strings.Contains(texts[0], "agent.ts:1:") || !strings.Contains(texts[0], "agent.ts:2:") {
			t.Fatalf("answer %q (error %v)", texts, isErr)
		}
	})

	t.Run("failure names the line", func(t *testing.T) {
		texts, _, isErr := code(t, s, "const a = await everything.echo({ message: 'hi' });\nconsole.log(a);\nthrow new RangeError('too far: ' + a);")
		a := answerOf(t, texts)
		if !isErr || a.Status != codetool.StatusError || !strings.Contains(a.Error, "RangeError: too far") || !strings.Contains(a.Error, "agent.ts:3:") || strings.Join(a.Logs, "\n") != "Echo: hi" {
			t.Fatalf("answer %q (error %v)", texts, isErr)
		}
	})

	t.Run("large answer cut to valid JSON", func(t *testing.T) {
		texts, _, isErr := code(t, s, `Array.from({ length: 4000 }, (_, i) => ({ i, text: "item number " + i }))`)
		if isErr || len(texts[0]) > 6000*4 || !json.Valid([]byte(texts[0])) || !strings.Contains(texts[0], "more items") {
			t.Fatalf("answer of %d characters, valid JSON %v, error %v: %.300s", len(texts[0]), json.Valid([]byte(texts[0])), isErr, texts[0])
		}
	})

	t.Run("upstream crash fails the call and the server keeps serving", func(t *testing.T) {
		done := make(chan []string, 1)
		go func() {
			texts, _, _ := code(t, s, `let answer = "";
try {
  await everything.trigger_long_running_operation({ duration: 30, steps: 2 });
  answer = "finished";
} catch (e) { answer = "caught: " + e.message; }
answer`)
			done <- texts
		}()
		killMarked(t, mark, "server-everything")
		select {
		case texts := <-done:
			if v := string(answerOf(t, texts).Value); !strings.HasPrefix(v, `"caught: `) || !strings.Contains(v, "mcp server everything") {
				t.Fatalf("answer %q", texts)
			}
		case <-time.After(20 * time.Second):
			t.Fatal("the program did not end after its upstream died")
		}
		texts, _, isErr := code(t, s, `(await everything.echo({ message: "after" }))`)
		if isErr || !strings.Contains(texts[0], "after") {
			t.Fatalf("next request: %q (error %v)", texts, isErr)
		}
	})

	t.Run("upstream that never answers is bounded by the deadline", func(t *testing.T) {
		if testing.Short() {
			t.Skip("waits for the 8 s deadline; go test without -short runs it")
		}
		start := time.Now()
		texts, _, isErr := code(t, s, `await everything.trigger_long_running_operation({ duration: 60, steps: 1 })`)
		if a := answerOf(t, texts); !isErr || time.Since(start) > 20*time.Second || !strings.HasPrefix(a.Error, "TimeoutError") {
			t.Fatalf("answer %q after %v (error %v)", texts, time.Since(start), isErr)
		}
	})
}

// answerOf decodes the code tool's JSON answer, the first text item.
func answerOf(t *testing.T, texts []string) codetool.Answer {
	t.Helper()
	var a codetool.Answer
	if len(texts) == 0 || json.Unmarshal([]byte(texts[0]), &a) != nil {
		t.Fatalf("not a JSON answer: %q", texts)
	}
	return a
}

// killMarked SIGKILLs, once one exists, every process whose command line
// contains what and whose environment contains mark.
func killMarked(t *testing.T, mark, what string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	time.Sleep(500 * time.Millisecond) // let the call reach the server
	for time.Now().Before(deadline) {
		killed := 0
		entries, _ := os.ReadDir("/proc")
		for _, e := range entries {
			pid, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			env, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
			cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
			if strings.Contains(string(env), "CODEMODE_TEST_MARK="+mark) && strings.Contains(string(cmdline), what) {
				syscall.Kill(pid, syscall.SIGKILL)
				killed++
			}
		}
		if killed > 0 {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatal("no marked upstream process found")
}

// TestMCPServeHTTP serves the code tool over streamable HTTP.
func TestMCPServeHTTP(t *testing.T) {
	url, _ := serveHTTP(t, "--mcp", mcptest.Command(t, "mcp-server-everything"), "--no-check")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := mcp.NewClient(&mcp.Implementation{Name: "test-agent", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	texts, _, isErr := code(t, s, `const { sum } = { sum: await codemode.get_sum({ a: 20, b: 22 }) };
sum`)
	if isErr || !strings.Contains(texts[0], "42") {
		t.Fatalf("answer %q (error %v)", texts, isErr)
	}
}

// serveHTTP starts `codemode mcp serve --http 127.0.0.1:0` with args (this
// test binary) for the test, and returns its URL once it listens, with
// the lines it wrote to stderr before.
func serveHTTP(t *testing.T, args ...string) (url string, before []string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, append([]string{"-codemode-cli", "mcp", "serve", "--http", "127.0.0.1:0"}, args...)...)
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	drained := make(chan struct{})
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		<-drained
		cmd.Wait()
	})
	addr := regexp.MustCompile(`serving .* on (http://127\.0\.0\.1:\d+)`)
	lines := bufio.NewScanner(stderr)
	for url == "" && lines.Scan() {
		if m := addr.FindStringSubmatch(lines.Text()); m != nil {
			url = m[1]
		}
		before = append(before, lines.Text())
	}
	go func() { // ends when the server's stderr closes, which Cleanup awaits
		defer close(drained)
		for lines.Scan() {
		}
	}()
	if url == "" {
		t.Fatal("the server did not say where it listens")
	}
	return url, before
}

// TestMCPServeAdmin: --admin serves health, readiness and the metrics of
// the programs the server ran, in the Prometheus text format.
func TestMCPServeAdmin(t *testing.T) {
	url, before := serveHTTP(t, "--tools", filepath.Join("..", "..", "examples", "cli", "tools.json"), "--no-check", "--admin", "127.0.0.1:0")
	admin := ""
	for _, line := range before {
		if m := regexp.MustCompile(`metrics on (http://127\.0\.0\.1:\d+)`).FindStringSubmatch(line); m != nil {
			admin = m[1]
		}
	}
	if admin == "" {
		t.Fatalf("no admin address in %q", before)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := mcp.NewClient(&mcp.Implementation{Name: "test-agent", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if texts, _, isErr := code(t, s, `(await codemode.getWeather({ location: "Oslo" })).location`); isErr {
		t.Fatalf("program failed: %q", texts)
	}
	get := func(path string) (int, string) {
		t.Helper()
		res, err := http.Get(admin + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	if code, body := get("/healthz"); code != 200 {
		t.Errorf("/healthz: %d %q", code, body)
	}
	if code, body := get("/readyz"); code != 200 || !strings.Contains(body, "runtime: ok") {
		t.Errorf("/readyz: %d %q", code, body)
	}
	code, body := get("/metrics")
	for _, want := range []string{`codemode_executions_total{`, `outcome="success"`, `codemode_tool_calls_total{`, `codemode_tool="codemode.getWeather"`,
		`codemode_mcp_programs_running`, `codemode_execution_duration_seconds_bucket`} {
		if code != 200 || !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s (%d):\n%s", want, code, lastBytes(body, 3000))
		}
	}
}
