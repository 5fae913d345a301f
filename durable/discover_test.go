package durable_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/durable"
	"github.com/codemode-go/codemode/durable/store"
)

// weatherAndSlack are two more connectors for ranking: Cloudflare's issue
// 2296 returned weather.getForecast for "send slack message".
func weatherAndSlack(t testing.TB) []connector {
	noop := func(context.Context, json.RawMessage) (json.RawMessage, error) {
		return json.RawMessage(`{"ok":true}`), nil
	}
	return []connector{
		{Name: "weather", Instructions: "Forecasts from the national weather service.", Tools: []connectorTool{
			{Name: "getForecast", Description: "Get the weather forecast for a city.", InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer"}},"required":["city"]}`), Execute: noop},
		}},
		{Name: "slack", Tools: []connectorTool{
			{Name: "send_message", Description: "Send a message to a Slack channel.", RequiresApproval: true, InputSchema: json.RawMessage(`{"type":"object","properties":{"channel":{"type":"string","description":"Channel ID."},"text":{"type":"string"}},"required":["channel","text"]}`), Execute: noop},
			{Name: "list_channels", Description: "List the workspace's channels.", Execute: noop},
		}},
	}
}

func discoveryFixture(t testing.TB, ex client.Executor) (*durable.Handle, *service) {
	svc := newService()
	st := openStore(t, filepath.Join(t.TempDir(), "journal.db"))
	return newHandleOn(t, ex, st, durable.Options{}, append([]connector{svc.github()}, weatherAndSlack(t)...)...), svc
}

// TestSnippetsSDK saves a run as a snippet and runs it from another
// program on every driver: its calls join the caller's journal with seq
// numbers after the caller's own, a snippet that needs approval pauses the
// caller and continues after approval, and a missing snippet or connector
// resolves to {error}.
func TestSnippetsSDK(t *testing.T) { onEveryDriver(t, testSnippetsSDK) }

func testSnippetsSDK(t *testing.T, ex client.Executor) {
	h, svc := discoveryFixture(t, ex)
	ctx := context.Background()
	src := execute(t, h, `async ({ github }) => { const prs = await github.list_pull_requests({ repo: input?.repo ?? "agents" }); return prs.map((p) => p.title); }`)
	// The source run reads input from its scope: undefined there, so it fails.
	if src.Status != codetool.StatusError {
		t.Fatalf("source run: %+v", src)
	}
	src = execute(t, h, "const prs = await github.list_pull_requests({ repo: typeof input === 'undefined' ? 'agents' : input.repo });\nprs.map((p) => p.title)")
	wantStatus(t, src, codetool.StatusCompleted)
	if _, err := h.SaveSnippet(ctx, "list-titles", durable.SaveSnippetOptions{ExecutionID: src.ExecutionID, Description: "Titles of the open pull requests of a repository.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"repo":{"type":"string"}},"required":["repo"]}`)}); err != nil {
		t.Fatal(err)
	}
	out := execute(t, h, `async ({ github, codemode }) => {
		const found = await codemode.search("titles");
		const d = await codemode.describe("list-titles");
		await github.add_label({ title: "before" });
		const titles = await codemode.run("list-titles", { repo: "codemode" });
		const missing = await codemode.run("no-such-snippet");
		return { first: found.results[0], kind: d.kind, types: d.types, titles, missing };
	}`)
	wantStatus(t, out, codetool.StatusCompleted)
	var got struct {
		First   struct{ Path, Kind string }
		Kind    string
		Types   string
		Titles  []string
		Missing map[string]string
	}
	if err := json.Unmarshal(out.Value, &got); err != nil {
		t.Fatal(err)
	}
	if got.First.Path != "list-titles" || got.First.Kind != "snippet" {
		t.Errorf("search found %+v first", got.First)
	}
	if got.Kind != "snippet" || !strings.Contains(got.Types, `run(name: "list-titles", input: {`) {
		t.Errorf("describe(list-titles) = %s %q", got.Kind, got.Types)
	}
	if strings.Join(got.Titles, ",") != "Fix codemode,Docs" {
		t.Errorf("titles = %v", got.Titles)
	}
	if !strings.Contains(got.Missing["error"], `no snippet named "no-such-snippet"`) {
		t.Errorf("missing = %v", got.Missing)
	}
	e := record(t, h, out.ExecutionID)
	var calls []string
	for i, l := range e.Log {
		calls = append(calls, l.Connector+"."+l.Method)
		if i > 0 && l.Seq <= e.Log[i-1].Seq {
			t.Errorf("seq not increasing: %d after %d", l.Seq, e.Log[i-1].Seq)
		}
	}
	if strings.Join(calls, " ") != "github.add_label codemode.run github.list_pull_requests codemode.run" {
		t.Errorf("journal = %v", calls)
	}

	// A snippet whose action needs approval pauses the caller; approval
	// continues it without running the snippet's earlier calls again.
	src = execute(t, h, `await github.add_label({ title: "x" }); await github.create_issue({ title: input.title })`)
	if src.Status != codetool.StatusError { // input is not defined in a top-level run
		t.Fatalf("source: %+v", src)
	}
	if _, err := h.SaveSnippet(ctx, "file-issue", durable.SaveSnippetOptions{ExecutionID: src.ExecutionID}); err != nil {
		t.Fatal(err)
	}
	labels := svc.count("add_label")
	out = execute(t, h, `const r = await codemode.run("file-issue", { title: "from a snippet" }); r`)
	wantStatus(t, out, codetool.StatusPaused)
	if len(out.Pending) != 1 || out.Pending[0].Method != "create_issue" {
		t.Fatalf("pending = %+v", out.Pending)
	}
	out = approve(t, h, out.ExecutionID)
	wantStatus(t, out, codetool.StatusCompleted)
	if svc.count("add_label") != labels+1 || !strings.Contains(string(out.Value), `"from a snippet"`) {
		t.Errorf("add_label ran %d times, result %s", svc.count("add_label")-labels, out.Value)
	}
}

// TestSnippetModuleReadsItsInput: a snippet saved as a module reads the
// input codemode.run gives it as input, as the checker declares it, and
// from its scope. It read undefined before (input was a variable only in
// the statement form), and fell back silently (a new user's trial).
func TestSnippetModuleReadsItsInput(t *testing.T) {
	h, _, _ := fixture(t)
	ctx := context.Background()
	for i, code := range []string{
		`export default async function () { return typeof input === "object" && input !== null ? "city " + input.city : "no input"; }`,
		`export default async function ({ input }: AgentProgramScope) { return input === undefined ? "no input" : "city " + input.city; }`,
	} {
		src := execute(t, h, code)
		wantStatus(t, src, codetool.StatusCompleted)
		if string(src.Value) != `"no input"` {
			t.Fatalf("program %d as an execution: %s", i, src.Value)
		}
		name := fmt.Sprintf("city-%d", i)
		if _, err := h.SaveSnippet(ctx, name, durable.SaveSnippetOptions{ExecutionID: src.ExecutionID}); err != nil {
			t.Fatal(err)
		}
		out := execute(t, h, `await codemode.run("`+name+`", { city: "London" })`)
		wantStatus(t, out, codetool.StatusCompleted)
		if string(out.Value) != `"city London"` {
			t.Errorf("snippet %d: %s, want \"city London\"", i, out.Value)
		}
	}
}

// TestSnippetMissingConnector: a snippet saved where a connector existed
// resolves to {error} on a handle without it, and does not throw.
func TestSnippetMissingConnector(t *testing.T) {
	svc := newService()
	st := openStore(t, filepath.Join(t.TempDir(), "journal.db"))
	ctx := context.Background()
	full := newHandle(t, st, durable.Options{}, append([]connector{svc.github()}, weatherAndSlack(t)...)...)
	src := execute(t, full, `await weather.getForecast({ city: "Lyon" })`)
	wantStatus(t, src, codetool.StatusCompleted)
	s, err := full.SaveSnippet(ctx, "forecast", durable.SaveSnippetOptions{ExecutionID: src.ExecutionID, Description: "Lyon's forecast."})
	if err != nil || strings.Join(s.Connectors, ",") != "github,weather,slack" {
		t.Fatalf("SaveSnippet = %+v, %v", s, err)
	}
	githubOnly := newHandle(t, st, durable.Options{}, svc.github())
	out := execute(t, githubOnly, `const r = await codemode.run("forecast"); r`)
	wantStatus(t, out, codetool.StatusCompleted)
	if !strings.Contains(string(out.Value), `needs the namespace(s) weather, slack, which this run does not have`) {
		t.Errorf("result = %s", out.Value)
	}
	list, err := githubOnly.Snippets(ctx)
	if err != nil || len(list) != 1 || list[0].Name != "forecast" || list[0].Code != `await weather.getForecast({ city: "Lyon" })` {
		t.Fatalf("Snippets = %+v, %v", list, err)
	}
	if ok, err := githubOnly.DeleteSnippet(ctx, "forecast"); !ok || err != nil {
		t.Fatalf("DeleteSnippet = %v, %v", ok, err)
	}
	if ok, _ := githubOnly.DeleteSnippet(ctx, "forecast"); ok {
		t.Fatal("DeleteSnippet reported a second delete")
	}
	if _, err := githubOnly.SaveSnippet(ctx, "-bad name", durable.SaveSnippetOptions{ExecutionID: src.ExecutionID}); err == nil {
		t.Error("SaveSnippet accepted a bad name")
	}
	if _, err := githubOnly.SaveSnippet(ctx, "x", durable.SaveSnippetOptions{ExecutionID: "exec_nope"}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("SaveSnippet of an unknown execution: %v", err)
	}
}

// TestDescribePrecedence: a snippet named like a connector is described
// as the snippet (snippet > connector > method).
func TestDescribePrecedence(t *testing.T) {
	h, _ := discoveryFixture(t, executor(t))
	ctx := context.Background()
	src := execute(t, h, `1 + 1`)
	if _, err := h.SaveSnippet(ctx, "weather", durable.SaveSnippetOptions{ExecutionID: src.ExecutionID, Description: "Two."}); err != nil {
		t.Fatal(err)
	}
	out := execute(t, h, `await codemode.describe("weather")`)
	wantStatus(t, out, codetool.StatusCompleted)
	var d struct{ Kind, Description string }
	if err := json.Unmarshal(out.Value, &d); err != nil || d.Kind != "snippet" || d.Description != "Two." {
		t.Fatalf("describe(weather) = %s, %v", out.Value, err)
	}
}
