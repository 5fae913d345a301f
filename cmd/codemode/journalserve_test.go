package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/quickjs"
	"github.com/codemode-go/codemode/durable"
	"github.com/codemode-go/codemode/durable/store"
	"github.com/codemode-go/codemode/durable/store/sqlite"
)

func TestJournalServeCommandLines(t *testing.T) {
	t.Setenv(uiTokenEnv, "")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"journal"}, "the only subcommand is serve"},
		{[]string{"journal", "serve"}, "--journal FILE.db is required"},
		{[]string{"journal", "serve", "--journal", "j.db", "--listen", "0.0.0.0:7312"}, "is not a loopback address: set $CODEMODE_UI_TOKEN"},
		{[]string{"journal", "serve", "--journal", "j.db", "--listen", "nonsense"}, "--listen: address nonsense: missing port"},
	}
	for _, c := range cases {
		code, _, stderr := runCLI(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("codemode %s: exit %d, %q; want 2 and %q", strings.Join(c.args, " "), code, stderr, c.want)
		}
	}
	t.Setenv(uiTokenEnv, "short")
	if code, _, stderr := runCLI(t, "journal", "serve", "--journal", "j.db", "--listen", "0.0.0.0:7312"); code != 2 || !strings.Contains(stderr, "shorter than 16") {
		t.Errorf("a short token: %d %q", code, stderr)
	}
}

// TestJournalServeApprovesWithTheToolsFile pauses a run of a tools-file
// tool that needs approval, serves the journal and approves it through the
// page: the replay runs the tool's command.
func TestJournalServeApprovesWithTheToolsFile(t *testing.T) {
	tools := writeFile(t, "tools.json", `{"tools": [
  {"name": "echo", "description": "Echoes its input.", "requiresApproval": true,
   "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
   "outputSchema": {"type": "object"}, "command": ["sh", "-c", "cat"]}]}`)
	journal := filepath.Join(t.TempDir(), "journal.db")
	ns, _, err := loadTools(tools, defaultMaxCommands())
	if err != nil {
		t.Fatal(err)
	}
	c, err := contract.NewNamespaced(ns)
	if err != nil {
		t.Fatal(err)
	}
	st, err := sqlite.Open(context.Background(), journal, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	d := quickjs.New(quickjs.Options{})
	defer d.Close()
	rt, err := client.NewRuntime(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	// Recorded as `codemode run --tools` records it: a Go program's own
	// configuration would be refused by the command line.
	fp := map[string]string{}
	if err := toolsFingerprint(fp, tools); err != nil {
		t.Fatal(err)
	}
	h, err := durable.New(st, rt, c, durable.Options{Configuration: fp})
	if err != nil {
		t.Fatal(err)
	}
	out, err := h.Execute(context.Background(), `async () => (await codemode.echo({ text: "hello" })).text`)
	if err != nil || out.Status != codetool.StatusPaused {
		t.Fatalf("%+v %v", out, err)
	}

	base, stop := startJournalServe(t, "--journal", journal, "--tools", tools)
	defer func() {
		if code, stderr := stop(); code != 0 {
			t.Errorf("journal serve exited %d: %s", code, stderr)
		}
	}()
	res, err := http.Get(base + "/executions/" + out.ExecutionID)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	page := string(b)
	m := regexp.MustCompile(`name="csrf" value="([0-9a-f]+)"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no form on the page:\n%s", page)
	}
	shown := regexp.MustCompile(`name="shown" value="([0-9a-f]+)"`).FindStringSubmatch(page)
	if shown == nil {
		t.Fatalf("the approve form carries no digest of what the page shows:\n%s", page)
	}
	res, err = http.PostForm(base+"/executions/"+out.ExecutionID+"/approve", url.Values{"csrf": {m[1]}, "shown": {shown[1]}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.Contains(string(b), "Approved") {
		t.Fatalf("approve: %s\n%s", res.Status, b)
	}
	e, err := h.Execution(context.Background(), out.ExecutionID)
	if err != nil || e.Status != store.StatusCompleted || string(e.Value) != `"hello"` {
		t.Errorf("after approval: %+v %v", e, err)
	}
}

func TestTracerProviderFollowsTheEnvironment(t *testing.T) {
	for _, k := range []string{"OTEL_SDK_DISABLED", "OTEL_TRACES_EXPORTER", "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"} {
		t.Setenv(k, "")
	}
	ctx := context.Background()
	if tp, _, err := tracerProvider(ctx); tp != nil || err != nil {
		t.Errorf("without OTEL_* variables: %v %v", tp, err)
	}
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318")
	tp, shutdown, err := tracerProvider(ctx)
	if tp == nil || err != nil {
		t.Fatalf("with an endpoint: %v %v", tp, err)
	}
	sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	_ = shutdown(sctx)
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
	if _, _, err := tracerProvider(ctx); err == nil || !strings.Contains(err.Error(), "only http/protobuf") {
		t.Errorf("grpc: %v", err)
	}
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "")
	t.Setenv("OTEL_TRACES_EXPORTER", "none")
	if tp, _, err := tracerProvider(ctx); tp != nil || err != nil {
		t.Errorf("OTEL_TRACES_EXPORTER=none: %v %v", tp, err)
	}
}

// TestJournalServeWithoutToolsWarnsOnce: the page started without tools
// says once what it can still do (it said it twice, the general warning
// beside its own).
func TestJournalServeWithoutToolsWarnsOnce(t *testing.T) {
	_, stop := startJournalServe(t, "--journal", filepath.Join(t.TempDir(), "journal.db"))
	_, stderr := stop()
	if n := strings.Count(stderr, "warning: no tools"); n != 1 || !strings.Contains(stderr, "not approve or roll back") {
		t.Errorf("stderr warns %d times of no tools, want once, saying what the page cannot do:\n%s", n, stderr)
	}
}

// startJournalServe runs `codemode journal serve` with args on a free
// loopback port until its page answers, and returns the page's base URL
// and stop, which ends the command and returns its exit code and stderr.
func startJournalServe(t *testing.T, args ...string) (base string, stop func() (int, string)) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	var stderr strings.Builder
	go func() {
		done <- cli(ctx, append([]string{"journal", "serve", "--listen", addr}, args...), io.Discard, &stderr)
	}()
	stop = func() (int, string) {
		cancel()
		select {
		case code := <-done:
			return code, stderr.String()
		case <-time.After(30 * time.Second):
			t.Fatal("journal serve did not stop")
			return 0, ""
		}
	}
	base = "http://" + addr
	for i := 0; ; i++ {
		res, err := http.Get(base + "/")
		if err == nil {
			res.Body.Close()
			return base, stop
		}
		if i > 300 {
			stop()
			t.Fatalf("the page never came up: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
