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
	"github.com/codemode-go/codemode/durable"
)

// weatherAndSlack are two more connectors for ranking: Cloudflare's issue
// 2296 returned weather.getForecast for "send slack message".
func weatherAndSlack(t testing.TB) []durable.Connector {
	noop := func(context.Context, json.RawMessage) (json.RawMessage, error) {
		return json.RawMessage(`{"ok":true}`), nil
	}
	return []durable.Connector{
		{Name: "weather", Instructions: "Forecasts from the national weather service.", Tools: []durable.ConnectorTool{
			{Name: "getForecast", Description: "Get the weather forecast for a city.", InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer"}},"required":["city"]}`), Execute: noop},
		}},
		{Name: "slack", Tools: []durable.ConnectorTool{
			{Name: "send_message", Description: "Send a message to a Slack channel.", RequiresApproval: true, InputSchema: json.RawMessage(`{"type":"object","properties":{"channel":{"type":"string","description":"Channel ID."},"text":{"type":"string"}},"required":["channel","text"]}`), Execute: noop},
			{Name: "list_channels", Description: "List the workspace's channels.", Execute: noop},
		}},
	}
}

func discoveryFixture(t testing.TB, ex client.Executor) (*durable.Handle, *service) {
	svc := newService()
	st := openStore(t, filepath.Join(t.TempDir(), "journal.db"))
	return newHandleOn(t, ex, st, durable.Options{}, append([]durable.Connector{svc.github()}, weatherAndSlack(t)...)...), svc
}

func paths(out durable.SearchOutput) []string {
	var p []string
	for _, r := range out.Results {
		p = append(p, r.Path)
	}
	return p
}

func TestSearchRanksMethods(t *testing.T) {
	h, _ := discoveryFixture(t, executor(t))
	ctx := context.Background()
	for _, tc := range []struct {
		query, first string
		never        string
	}{
		{"send slack message", "slack.send_message", "weather.getForecast"},
		{"open pull requests", "github.list_pull_requests", "weather.getForecast"},
		{"forecast", "weather.getForecast", "slack.send_message"},
		{"create issue", "github.create_issue", "slack.list_channels"},
		{"channel", "slack.list_channels", "github.create_issue"}, // a name word first, then a parameter name
	} {
		out, err := h.Search(ctx, tc.query)
		if err != nil {
			t.Fatal(err)
		}
		p := paths(out)
		if len(p) == 0 || p[0] != tc.first {
			t.Errorf("Search(%q) = %v, want %s first", tc.query, p, tc.first)
		}
		if strings.Contains(strings.Join(p, " "), tc.never) {
			t.Errorf("Search(%q) = %v, includes %s", tc.query, p, tc.never)
		}
		if out.Total != len(out.Results) || out.Truncated {
			t.Errorf("Search(%q): total %d, truncated %v for %d results", tc.query, out.Total, out.Truncated, len(out.Results))
		}
	}
	out, _ := h.Search(ctx, "send slack message")
	if r := out.Results[0]; !r.RequiresApproval || r.Kind != durable.KindMethod || r.Connector != "slack" || r.Method != "send_message" || r.Score <= 0 || r.Description != "Send a message to a Slack channel." {
		t.Errorf("result = %+v", r)
	}
	if out, _ := h.Search(ctx, "zebra"); len(out.Results) != 0 || out.Total != 0 || out.Results == nil {
		t.Errorf("Search(zebra) = %+v, want an empty list", out)
	}
}

func TestSearchTruncatesAtFifty(t *testing.T) {
	noop := func(context.Context, json.RawMessage) (json.RawMessage, error) { return nil, nil }
	var tools []durable.ConnectorTool
	for i := range 70 {
		tools = append(tools, durable.ConnectorTool{Name: "get_item_" + string(rune('a'+i/26)) + string(rune('a'+i%26)), Description: "Get an item.", Execute: noop})
	}
	c, err := durable.NewCatalog([]durable.Connector{{Name: "store", Tools: tools}})
	if err != nil {
		t.Fatal(err)
	}
	out := c.Search("item", nil)
	if len(out.Results) != durable.MaxSearchResults || out.Total != 70 || !out.Truncated {
		t.Fatalf("got %d results, total %d, truncated %v", len(out.Results), out.Total, out.Truncated)
	}
}

func TestDescribe(t *testing.T) {
	h, _ := discoveryFixture(t, executor(t))
	ctx := context.Background()
	m, err := h.Describe(ctx, "slack.send_message")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"interface SlackTools {", "   * Send a message to a Slack channel.", "@requiresApproval", "send_message(input: {", "/** Channel ID. */", "channel: string;", "declare const slack: SlackTools;"} {
		if !strings.Contains(m.Types, want) {
			t.Errorf("describe(slack.send_message) lacks %q:\n%s", want, m.Types)
		}
	}
	if strings.Contains(m.Types, "list_channels") || m.Kind != durable.KindMethod || !m.RequiresApproval || m.Path != "slack.send_message" {
		t.Errorf("describe(slack.send_message) = %+v", m)
	}
	c, err := h.Describe(ctx, "weather")
	if err != nil {
		t.Fatal(err)
	}
	if c.Kind != durable.KindConnector || c.Description != "Forecasts from the national weather service." || !strings.Contains(c.Types, "getForecast(input: {") {
		t.Errorf("describe(weather) = %+v", c)
	}
	for _, target := range []string{"nothing", "slack.nothing", "slack."} {
		if _, err := h.Describe(ctx, target); !errors.Is(err, durable.ErrUnknownTarget) {
			t.Errorf("Describe(%q) err = %v, want ErrUnknownTarget", target, err)
		}
	}
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
	if src.Status != durable.OutputError {
		t.Fatalf("source run: %+v", src)
	}
	src = execute(t, h, "const prs = await github.list_pull_requests({ repo: typeof input === 'undefined' ? 'agents' : input.repo });\nprs.map((p) => p.title)")
	wantStatus(t, src, durable.OutputCompleted)
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
	wantStatus(t, out, durable.OutputCompleted)
	var got struct {
		First   durable.SearchResult
		Kind    string
		Types   string
		Titles  []string
		Missing map[string]string
	}
	if err := json.Unmarshal(out.Result, &got); err != nil {
		t.Fatal(err)
	}
	if got.First.Path != "list-titles" || got.First.Kind != durable.KindSnippet {
		t.Errorf("search found %+v first", got.First)
	}
	if got.Kind != durable.KindSnippet || !strings.Contains(got.Types, `run(name: "list-titles", input: {`) {
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
	if src.Status != durable.OutputError { // input is not defined in a top-level run
		t.Fatalf("source: %+v", src)
	}
	if _, err := h.SaveSnippet(ctx, "file-issue", durable.SaveSnippetOptions{ExecutionID: src.ExecutionID}); err != nil {
		t.Fatal(err)
	}
	labels := svc.count("add_label")
	out = execute(t, h, `const r = await codemode.run("file-issue", { title: "from a snippet" }); r`)
	wantStatus(t, out, durable.OutputPaused)
	if len(out.Pending) != 1 || out.Pending[0].Method != "create_issue" {
		t.Fatalf("pending = %+v", out.Pending)
	}
	out = approve(t, h, out.ExecutionID)
	wantStatus(t, out, durable.OutputCompleted)
	if svc.count("add_label") != labels+1 || !strings.Contains(string(out.Result), `"from a snippet"`) {
		t.Errorf("add_label ran %d times, result %s", svc.count("add_label")-labels, out.Result)
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
		wantStatus(t, src, durable.OutputCompleted)
		if string(src.Result) != `"no input"` {
			t.Fatalf("program %d as an execution: %s", i, src.Result)
		}
		name := fmt.Sprintf("city-%d", i)
		if _, err := h.SaveSnippet(ctx, name, durable.SaveSnippetOptions{ExecutionID: src.ExecutionID}); err != nil {
			t.Fatal(err)
		}
		out := execute(t, h, `await codemode.run("`+name+`", { city: "London" })`)
		wantStatus(t, out, durable.OutputCompleted)
		if string(out.Result) != `"city London"` {
			t.Errorf("snippet %d: %s, want \"city London\"", i, out.Result)
		}
	}
}

// TestSnippetMissingConnector: a snippet saved where a connector existed
// resolves to {error} on a handle without it, and does not throw.
func TestSnippetMissingConnector(t *testing.T) {
	svc := newService()
	st := openStore(t, filepath.Join(t.TempDir(), "journal.db"))
	ctx := context.Background()
	full := newHandle(t, st, durable.Options{}, append([]durable.Connector{svc.github()}, weatherAndSlack(t)...)...)
	src := execute(t, full, `await weather.getForecast({ city: "Lyon" })`)
	wantStatus(t, src, durable.OutputCompleted)
	s, err := full.SaveSnippet(ctx, "forecast", durable.SaveSnippetOptions{ExecutionID: src.ExecutionID, Description: "Lyon's forecast."})
	if err != nil || strings.Join(s.Connectors, ",") != "github,weather,slack" {
		t.Fatalf("SaveSnippet = %+v, %v", s, err)
	}
	githubOnly := newHandle(t, st, durable.Options{}, svc.github())
	out := execute(t, githubOnly, `const r = await codemode.run("forecast"); r`)
	wantStatus(t, out, durable.OutputCompleted)
	if !strings.Contains(string(out.Result), `needs connector(s) weather, slack, which are not configured`) {
		t.Errorf("result = %s", out.Result)
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
	if _, err := githubOnly.SaveSnippet(ctx, "x", durable.SaveSnippetOptions{ExecutionID: "exec_nope"}); !errors.Is(err, durable.ErrNotFound) {
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
	d, err := h.Describe(ctx, "weather")
	if err != nil || d.Kind != durable.KindSnippet || d.Description != "Two." {
		t.Fatalf("Describe(weather) = %+v, %v", d, err)
	}
}

func TestToolDescription(t *testing.T) {
	h, _ := discoveryFixture(t, executor(t))
	full := h.ToolDescription(durable.DescriptionOptions{})
	for _, want := range []string{
		"- github: methods list_pull_requests, create_issue, add_label, counter, flaky (5 methods)",
		"- weather: Forecasts from the national weather service. (1 method)",
		"- slack: methods send_message, list_channels (2 methods)",
		"codemode.search(query)", "codemode.describe(target)", "codemode.step(name, fn)", "codemode.run(name, input?)",
		"const found = await codemode.search(\"list pull requests\");",
		"Do not call this tool again to retry",
		"Declarations:\n```ts\n", "interface SlackTools {", "@requiresApproval", "search(query: string): Promise<SearchOutput>;",
	} {
		if !strings.Contains(full, want) {
			t.Errorf("the default (full: the declarations are small) description lacks %q:\n%s", want, full)
		}
	}
	discover := h.ToolDescription(durable.DescriptionOptions{Declarations: durable.DeclarationsDiscover, ConnectorHints: map[string]string{"slack": "Team chat.\nIgnored second line."}})
	if strings.Contains(discover, "interface SlackTools") || !strings.Contains(discover, "- slack: Team chat. (2 methods)") || strings.Contains(discover, "Ignored") ||
		!strings.Contains(discover, "The methods' declarations are not listed here.") {
		t.Errorf("discover description:\n%s", discover)
	}
	// Past 2,000 estimated tokens of declarations, the default is discover.
	noop := func(context.Context, json.RawMessage) (json.RawMessage, error) { return nil, nil }
	var tools []durable.ConnectorTool
	for i := range 100 {
		tools = append(tools, durable.ConnectorTool{Name: fmt.Sprintf("tool_%d", i), Description: "A tool with a description long enough to count for something.", Execute: noop,
			InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"string","description":"The first parameter."}}}`)})
	}
	big := newHandle(t, openStore(t, filepath.Join(t.TempDir(), "j.db")), durable.Options{}, durable.Connector{Name: "big", Tools: tools})
	if d := big.ToolDescription(durable.DescriptionOptions{}); strings.Contains(d, "interface BigTools") || !strings.Contains(d, "- big: methods tool_0, tool_1, tool_2, tool_3, tool_4, … (100 methods)") {
		t.Errorf("a large catalogue's default description:\n%s", d)
	}
	if d := big.ToolDescription(durable.DescriptionOptions{Declarations: durable.DeclarationsFull}); !strings.Contains(d, "interface BigTools") {
		t.Error("DeclarationsFull left the declarations out")
	}
	if _, err := durable.ParseDeclarationsMode("some"); err == nil {
		t.Error("ParseDeclarationsMode accepted some")
	}
}
