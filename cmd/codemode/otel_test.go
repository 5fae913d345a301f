package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codemode-go/codemode/internal/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"
)

// collector is an OTLP/HTTP trace receiver: the span names it was sent.
type collector struct {
	mu    sync.Mutex
	names []string
}

func newCollector(t *testing.T) (*collector, string) {
	c := &collector{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req coltrace.ExportTraceServiceRequest
		if r.URL.Path != "/v1/traces" || proto.Unmarshal(body, &req) != nil {
			http.Error(w, "not an OTLP trace export", http.StatusBadRequest)
			return
		}
		c.mu.Lock()
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					c.names = append(c.names, s.Name)
				}
			}
		}
		c.mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
		b, _ := proto.Marshal(&coltrace.ExportTraceServiceResponse{})
		w.Write(b)
	}))
	t.Cleanup(srv.Close)
	return c, srv.URL
}

// take returns the names received since the last take.
func (c *collector) take() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.names
	c.names = nil
	return n
}

func wantSpans(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !slices.ContainsFunc(got, func(n string) bool { return strings.HasPrefix(n, w) }) {
			t.Errorf("%s: no span %q among %q", what, w, got)
		}
	}
}

// TestCommandsExportTraces: with OTEL_EXPORTER_OTLP_ENDPOINT set, run, run
// --journal, approve, mcp serve and mcp serve --journal export their spans
// over OTLP/HTTP (each process flushes before it exits).
func TestCommandsExportTraces(t *testing.T) {
	c, url := newCollector(t)
	for _, k := range []string{"OTEL_SDK_DISABLED", "OTEL_TRACES_EXPORTER", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"} {
		t.Setenv(k, "")
	}
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", url)
	f := newJournalFixture(t)

	prog := writeFile(t, "p.ts", "const r = await codemode.echo({ value: \"x\" });\nr.value\n")
	if code, _, stderr := runCLI(t, "run", "--tools", fixtureToolsFile(t), prog); code != 0 {
		t.Fatalf("run: exit %d %q", code, stderr)
	}
	wantSpans(t, "run", c.take(), "codemode.execution", "execute_tool codemode.echo")

	paused := f.output(t, exitPaused, "run", "--journal", f.journal, "--tools", f.tools, "--json", f.program)
	wantSpans(t, "run --journal", c.take(), "codemode.durable.pass", "codemode.execution", "execute_tool codemode.list_items")
	f.output(t, exitCompleted, "approve", "--tools", f.tools, "--json", paused.ExecutionID)
	wantSpans(t, "approve", c.take(), "codemode.journal.approve", "codemode.durable.pass", "execute_tool codemode.create_item")

	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	serve := func(args ...string) {
		cmd := exec.Command(self, append([]string{"-codemode-cli", "mcp", "serve", "--no-check"}, args...)...)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		session, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "code", Arguments: map[string]any{"code": `const g = await memory.read_graph({}); g.entities.length`}})
		if err != nil || res.IsError {
			t.Fatalf("code: %+v %v", res, err)
		}
		session.Close() // the server sees EOF, flushes its spans and exits
		cmd.Wait()
	}
	config := filepath.Join(f.dir, "mcp.json")
	cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"memory": map[string]any{
		"command": mcptest.Command(t, "mcp-server-memory"), "env": map[string]string{"MEMORY_FILE_PATH": filepath.Join(f.dir, "memory.jsonl")}}}})
	if err := os.WriteFile(config, cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	serve("--config", config)
	wantSpans(t, "mcp serve", c.take(), "codemode.execution", "execute_tool memory.read_graph")
	serve("--journal", f.journal, "--config", config)
	wantSpans(t, "mcp serve --journal", c.take(), "codemode.durable.pass", "execute_tool memory.read_graph")
}
