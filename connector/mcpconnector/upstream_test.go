package mcpconnector_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/connector/mcpconnector"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/quickjs"
	"github.com/codemode-go/codemode/internal/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// run connects the servers, builds a client on real QuickJS and runs code
// as a model writes it.
func run(t *testing.T, servers []mcpconnector.Server, code string) *client.Outcome {
	t.Helper()
	return runContract(t, contractOf(t, connectUp(t, mcpconnector.Options{}, servers...)), code)
}

// runContract runs code over c on real QuickJS.
func runContract(t *testing.T, c *contract.Contract, code string) *client.Outcome {
	t.Helper()
	ctx := context.Background()
	d := quickjs.New(quickjs.Options{Timeout: 20 * time.Second})
	defer d.Close()
	rt, err := client.NewRuntime(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	out, err := client.New(rt, c).RunCode(ctx, code, client.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// texts is an outcome's content and then its value, as the code tool shows
// them.
func texts(out *client.Outcome) string {
	var parts []string
	for _, c := range out.Content {
		parts = append(parts, c.Type+":"+c.Text)
	}
	if v, ok := out.ValueText(); ok {
		parts = append(parts, "value:"+v)
	}
	return strings.Join(parts, "\n")
}

func memoryServer(t *testing.T) mcpconnector.Server {
	return mcpconnector.Server{Name: "memory", Command: mcptest.Command(t, "mcp-server-memory"),
		Env: map[string]string{"MEMORY_FILE_PATH": filepath.Join(t.TempDir(), "memory.jsonl")}}
}

// TestMemoryAndFilesystemTogether uses two real servers as namespaces in
// one program: entities and relations in the memory server, then a search,
// and a file written and read back through the filesystem server.
func TestMemoryAndFilesystemTogether(t *testing.T) {
	dir := t.TempDir()
	dir, _ = filepath.EvalSymlinks(dir)
	servers := []mcpconnector.Server{
		memoryServer(t),
		// write_file is marked destructive: approval-free here, as a plain
		// run has no one to ask.
		{Name: "files", Command: mcptest.Command(t, "mcp-server-filesystem"), Args: []string{dir}, Approval: mcpconnector.ApprovalNever},
	}
	code := `
await memory.create_entities({ entities: [
  { name: "Ada", entityType: "person", observations: ["wrote the first program"] },
  { name: "Analytical Engine", entityType: "machine", observations: ["designed by Babbage"] },
] });
await memory.create_relations({ relations: [{ from: "Ada", to: "Analytical Engine", relationType: "programmed" }] });
const found = await memory.search_nodes({ query: "program" });
await files.write_file({ path: ` + "`${" + `"` + dir + `"` + "}/ada.txt`" + `, content: found.entities.map((e) => e.name).join(",") });
const back = await files.read_text_file({ path: "` + dir + `/ada.txt" });
({ names: found.entities.map((e) => e.name), relations: found.relations.length, back })
`
	out := run(t, servers, code)
	if out.Kind != client.Success {
		t.Fatalf("failed: %+v", out.Error)
	}
	var v struct {
		Names     []string `json:"names"`
		Relations int      `json:"relations"`
		Back      any      `json:"back"`
	}
	if err := json.Unmarshal(out.Value, &v); err != nil {
		t.Fatalf("%v: value %s", err, out.Value)
	}
	if strings.Join(v.Names, ",") != "Ada" || v.Relations != 1 {
		t.Fatalf("search result %+v", v)
	}
	data, err := os.ReadFile(filepath.Join(dir, "ada.txt"))
	if err != nil || string(data) != "Ada" {
		t.Fatalf("file %q, %v", data, err)
	}
	if !strings.Contains(texts(out), "Ada") {
		t.Fatalf("read back %v", v.Back)
	}
}

// TestForwardImage forwards the everything server's image with
// result.appendImage, and reads an error result as a thrown error.
func TestForwardImage(t *testing.T) {
	server := mcpconnector.Server{Command: mcptest.Command(t, "mcp-server-everything")}
	out := run(t, []mcpconnector.Server{server}, `
const r = await codemode.get_tiny_image();
for (const item of r.content) if (item.type === "image") result.appendImage(item);
const sum = await codemode.get_sum({ a: 2, b: 3 });
let caught = "";
try { await codemode.get_structured_content({ location: "Atlantis" }); } catch (e) { caught = e.name; }
({ sum, caught })
`)
	if out.Kind != client.Success {
		t.Fatalf("failed: %+v", out.Error)
	}
	if len(out.Content) != 1 || out.Content[0].Type != "image" || out.Content[0].MimeType != "image/png" || len(out.Content[0].Data) < 100 {
		t.Fatalf("content %+v", out.Content)
	}
	if v := string(out.Value); !strings.Contains(v, `"caught":"ToolValidationError"`) || !strings.Contains(v, "5") {
		t.Fatalf("value %s", v)
	}
}

// TestUpstreamCrashMidCall kills a stdio server during a call: that call
// fails with an error naming the server, and the next call starts the
// server again.
func TestUpstreamCrashMidCall(t *testing.T) {
	c := contractOf(t, connectUp(t, mcpconnector.Options{}, mcpconnector.Server{Name: "everything", Command: mcptest.Command(t, "mcp-server-everything")}))
	pids := childPIDs(t)
	errc := make(chan error, 1)
	go func() {
		_, err := c.Tool("everything", "trigger_long_running_operation").Call(context.Background(), json.RawMessage(`{"duration": 30, "steps": 2}`))
		errc <- err
	}()
	time.Sleep(300 * time.Millisecond)
	for _, pid := range pids {
		syscall.Kill(pid, syscall.SIGKILL)
	}
	select {
	case err := <-errc:
		if err == nil || !strings.Contains(err.Error(), "mcp server everything") {
			t.Fatalf("call error %v", err)
		}
		t.Logf("the call failed: %v", err)
	case <-time.After(15 * time.Second):
		t.Fatal("the call did not fail after its server died")
	}
	out, err := c.Tool("everything", "echo").Call(context.Background(), json.RawMessage(`{"message": "again"}`))
	if err != nil || !strings.Contains(string(out), "again") {
		t.Fatalf("the next call: %s, %v", out, err)
	}
}

// childPIDs lists this process's children (the server and its launcher).
func childPIDs(t *testing.T) []int {
	t.Helper()
	entries, _ := os.ReadDir("/proc")
	var pids []int
	self := os.Getpid()
	for _, e := range entries {
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(fields) > 2 && fields[1] == itoa(self) {
			pids = append(pids, atoi(e.Name()))
		}
	}
	if len(pids) == 0 {
		t.Fatal("no child process found")
	}
	return pids
}

// TestUpstreamNeverAnswers bounds a call that never answers by its context
// (in a program, the execution deadline).
func TestUpstreamNeverAnswers(t *testing.T) {
	c := contractOf(t, connectUp(t, mcpconnector.Options{}, mcpconnector.Server{Command: mcptest.Command(t, "mcp-server-everything")}))
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := c.Tool("codemode", "trigger_long_running_operation").Call(ctx, json.RawMessage(`{"duration": 60, "steps": 1}`))
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 10*time.Second {
		t.Fatalf("error %v after %v", err, time.Since(start))
	}
}

// TestMalformedSchemaDegradesOneTool serves, with the go-sdk over
// streamable HTTP, one tool whose input schema is malformed beside a good
// one: the bad tool is declared loosely and still called, the good one is
// typed and validated, and the header is sent.
func TestMalformedSchemaDegradesOneTool(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "odd", Version: "1"}, nil)
	var gotHeader string
	srv.AddTool(&mcp.Tool{Name: "bad-schema", Description: "Malformed schema.", InputSchema: json.RawMessage(`{"type": "object", "properties": {"x": {"type": "strnig"}}}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(req.Params.Arguments)}}}, nil
		})
	srv.AddTool(&mcp.Tool{Name: "good", Description: "Takes n.", InputSchema: json.RawMessage(`{"type": "object", "properties": {"n": {"type": "number"}}, "required": ["n"]}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			gotHeader = req.Extra.Header.Get("X-Test")
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
		})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close) // after the set's Close, which connectUp registers later

	var log logs
	c := contractOf(t, connectUp(t, mcpconnector.Options{Logger: log.logger()}, mcpconnector.Server{URL: ts.URL, Headers: map[string]string{"X-Test": "yes"}}))
	if w := log.String(); strings.Count(w, "level=WARN") != 1 || !strings.Contains(w, "bad_schema") {
		t.Fatalf("warnings %s", w)
	}
	decls := c.TypeDefinitions()
	if !strings.Contains(decls, "bad_schema(input") || !strings.Contains(decls, "n: number;") {
		t.Fatalf("declarations:\n%s", decls)
	}
	out, err := c.Tool("codemode", "bad_schema").Call(context.Background(), json.RawMessage(`{"x": 1}`))
	if err != nil || !strings.Contains(string(out), `"x"`) {
		t.Fatalf("bad_schema call: %s, %v", out, err)
	}
	if _, err := c.Tool("codemode", "good").Call(context.Background(), json.RawMessage(`{"n": "one"}`)); err == nil {
		t.Fatal("the good tool's input was not validated")
	}
	if _, err := c.Tool("codemode", "good").Call(context.Background(), json.RawMessage(`{"n": 1}`)); err != nil || gotHeader != "yes" {
		t.Fatalf("good call: %v, header %q", err, gotHeader)
	}
}

// TestConnectTimeoutLeavesAMuteServerOut: a command that never speaks MCP
// is down once the connect timeout passes, with a reason saying so, and
// Close stops it and its retries.
func TestConnectTimeoutLeavesAMuteServerOut(t *testing.T) {
	start := time.Now()
	// A duration of its own, so that pgrep below finds this test's process
	// and no other sleep on the machine (a "sleep 300" elsewhere failed it).
	secs := strconv.Itoa(300000 + os.Getpid())
	set, err := mcpconnector.Connect(context.Background(), []mcpconnector.Server{{Name: "mute", Command: "sleep", Args: []string{secs}}},
		mcpconnector.Options{ConnectTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if err := set.Down()["mute"]; err == nil || !strings.Contains(err.Error(), "mcp server mute (sleep): did not start, answer the MCP handshake and list its tools within 1s") ||
		time.Since(start) > 15*time.Second {
		t.Fatalf("down %v after %v", err, time.Since(start))
	}
	set.Close()
	out, _ := exec.Command("pgrep", "-f", "^sleep "+secs+"$").Output()
	if len(strings.TrimSpace(string(out))) != 0 {
		t.Fatalf("the server process is still running after Close: %s", out)
	}
}

// TestHugeHTTPResponseFailsTheCall: a streamable HTTP server answering with
// more than 16 MiB fails that call clearly, and the next call works.
func TestHugeHTTPResponseFailsTheCall(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "big", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "huge", Description: "Too much.", InputSchema: json.RawMessage(`{"type": "object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("x", 20<<20)}}}, nil
		})
	srv.AddTool(&mcp.Tool{Name: "small", Description: "Fine.", InputSchema: json.RawMessage(`{"type": "object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
		})
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{JSONResponse: true}))
	t.Cleanup(ts.Close) // after the set's Close, which connectUp registers later
	c := contractOf(t, connectUp(t, mcpconnector.Options{}, mcpconnector.Server{URL: ts.URL}))
	if _, err := c.Tool("codemode", "huge").Call(context.Background(), json.RawMessage(`{}`)); err == nil || !strings.Contains(err.Error(), "larger than 16 MiB") {
		t.Fatalf("huge: %v", err)
	}
	if out, err := c.Tool("codemode", "small").Call(context.Background(), json.RawMessage(`{}`)); err != nil || string(out) != `"ok"` {
		t.Fatalf("small after huge: %s %v", out, err)
	}
}

// TestUpstreamSeesOnlyTheMinimalEnvironment asks the everything server for
// its environment through a program: it has the inherited set and what the
// configuration gives, never the runner token or another host secret.
func TestUpstreamSeesOnlyTheMinimalEnvironment(t *testing.T) {
	t.Setenv("CODEMODE_RUNNER_TOKEN", "runner-token-7f3a")
	t.Setenv("PLANTED_SECRET", "planted-secret-91c2")
	server := mcpconnector.Server{Command: mcptest.Command(t, "mcp-server-everything"),
		Env: map[string]string{"GIVEN_BY_CONFIG": "given-5d1e"}}
	out := run(t, []mcpconnector.Server{server}, `await codemode.get_env({})`)
	if out.Kind != client.Success {
		t.Fatalf("failed: %+v", out.Error)
	}
	env := texts(out)
	for _, secret := range []string{"runner-token-7f3a", "CODEMODE_RUNNER_TOKEN", "planted-secret-91c2", "PLANTED_SECRET"} {
		if strings.Contains(env, secret) {
			t.Errorf("the server's environment holds %q:\n%s", secret, env)
		}
	}
	for _, want := range []string{`"GIVEN_BY_CONFIG": "given-5d1e"`, `"PATH": "` + os.Getenv("PATH") + `"`} {
		if !strings.Contains(env, want) {
			t.Errorf("the server's environment lacks %s:\n%s", want, env)
		}
	}
}

// TestToolsListIsBoundedAcrossPages: a server whose pages are each small
// enough but whose tools add up to more than 16 MiB is down with an
// error saying so.
func TestToolsListIsBoundedAcrossPages(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "wide", Version: "1"}, &mcp.ServerOptions{PageSize: 4})
	description := strings.Repeat("d", 1<<20)
	for i := range 16 + 4 {
		srv.AddTool(&mcp.Tool{Name: "t" + itoa(i), Description: description, InputSchema: json.RawMessage(`{"type": "object"}`)},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{}, nil
			})
	}
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{JSONResponse: true}))
	t.Cleanup(ts.Close) // after the set's Close, which connectUp registers later
	// 20 MiB under the race detector on a loaded machine may take longer
	// than the default bound, which is not what this test is about.
	set, err := mcpconnector.Connect(context.Background(), []mcpconnector.Server{{Name: "wide", URL: ts.URL}}, mcpconnector.Options{ConnectTimeout: 3 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	if err := set.Down()["wide"]; err == nil || !strings.Contains(err.Error(), "more than 16 MiB of JSON") {
		t.Fatalf("down %v, want an error naming the bound", err)
	}
}

// TestCostlySchemaDegradesOneTool: an upstream tool whose input schema would
// take exponential time to validate (24 levels of anyOf) degrades like a
// schema that does not compile: a warning naming it, and calls go through
// unvalidated on the host instead of hanging in validation.
func TestCostlySchemaDegradesOneTool(t *testing.T) {
	var defs []string
	for i := range 24 {
		defs = append(defs, fmt.Sprintf(`"l%d": {"anyOf": [{"$ref": "#/$defs/l%d"}, {"$ref": "#/$defs/l%d", "minLength": 1}]}`, i, i+1, i+1))
	}
	defs = append(defs, `"l24": {"type": "string"}`)
	schema := `{"type": "object", "properties": {"x": {"$ref": "#/$defs/l0"}}, "$defs": {` + strings.Join(defs, ", ") + `}}`
	srv := mcp.NewServer(&mcp.Implementation{Name: "hostile", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "costly", Description: "Exponential schema.", InputSchema: json.RawMessage(schema)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
		})
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(ts.Close) // after the set's Close, which connectUp registers later
	var log logs
	c := contractOf(t, connectUp(t, mcpconnector.Options{Logger: log.logger()}, mcpconnector.Server{URL: ts.URL}))
	if w := log.String(); strings.Count(w, "level=WARN") != 1 || !strings.Contains(w, "too costly") {
		t.Fatalf("warnings %s", w)
	}
	start := time.Now()
	out, err := c.Tool("codemode", "costly").Call(context.Background(), json.RawMessage(`{"x": 42}`))
	if err != nil || string(out) != `"ok"` {
		t.Fatalf("costly call: %s, %v", out, err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("the call took %s", d)
	}
}

// TestLargeCatalogueChecksSchemasOnFirstCall: of a server's tools, the
// first 200 have their schemas checked at connect (a warning names a
// degraded one then); the others are checked on their first call, which
// logs a degraded one, once.
func TestLargeCatalogueChecksSchemasOnFirstCall(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "large", Version: "1"}, nil)
	echo := func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(req.Params.Arguments)}}}, nil
	}
	bad := json.RawMessage(`{"type": "object", "properties": {"x": {"type": "strnig"}}}`)
	srv.AddTool(&mcp.Tool{Name: "a_bad", Description: "Malformed schema, listed first.", InputSchema: bad}, echo)
	for i := range 200 + 10 {
		srv.AddTool(&mcp.Tool{Name: fmt.Sprintf("t%03d", i), Description: "Takes n.", InputSchema: json.RawMessage(`{"type": "object", "properties": {"n": {"type": "number"}}}`)}, echo)
	}
	srv.AddTool(&mcp.Tool{Name: "zz_bad", Description: "Malformed schema, listed last.", InputSchema: bad}, echo)
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(ts.Close) // after the set's Close, which connectUp registers later
	var log logs
	c := contractOf(t, connectUp(t, mcpconnector.Options{Logger: log.logger()}, mcpconnector.Server{URL: ts.URL}))
	if w := log.String(); strings.Count(w, "level=WARN") != 2 || !strings.Contains(w, "12 of its 212 tools are checked on each tool's first call") ||
		!strings.Contains(w, "a_bad") || strings.Contains(w, "zz_bad") {
		t.Fatalf("warnings at connect %s, want the count of tools checked later and a_bad", w)
	}
	for range 2 {
		out, err := c.Tool("codemode", "zz_bad").Call(context.Background(), json.RawMessage(`{"x": 1}`))
		if err != nil || !strings.Contains(string(out), `"x"`) {
			t.Fatalf("zz_bad call: %s, %v", out, err)
		}
	}
	if _, err := c.Tool("codemode", "t205").Call(context.Background(), json.RawMessage(`{"n": "one"}`)); err == nil {
		t.Fatal("a tool checked on first call was not validated")
	}
	if _, err := c.Tool("codemode", "t205").Call(context.Background(), json.RawMessage(`{"n": 1}`)); err != nil {
		t.Fatal(err)
	}
	if w := log.String(); strings.Count(w, "zz_bad") != 1 || !strings.Contains(w, "not validated on the host") {
		t.Fatalf("warnings after connect %s, want zz_bad's once", w)
	}
}
