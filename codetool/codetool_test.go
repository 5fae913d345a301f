package codetool_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/typecheck"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// fakeRunner answers from a function and records the programs it ran;
// its contract has a github and a slack namespace.
type fakeRunner struct {
	c       *contract.Contract
	ran     []string
	answer  func(code string) (codetool.Answer, error)
	invalid bool // ValidateCode finds every program invalid
}

func newFakeRunner(t *testing.T) *fakeRunner {
	t.Helper()
	mk := func(name, desc string) *contract.Tool {
		tool, err := contract.NewRawTool(name, desc, json.RawMessage(`{"type":"object","properties":{"repo":{"type":"string"}},"required":["repo"],"additionalProperties":false}`), json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`),
			func(context.Context, json.RawMessage) (json.RawMessage, error) { return json.RawMessage(`{}`), nil })
		if err != nil {
			t.Fatal(err)
		}
		return tool
	}
	c, err := contract.NewNamespaced(
		contract.Namespace{Name: "github", Instructions: "# GitHub\n\nThe issues of acme.", Tools: []*contract.Tool{mk("create_issue", "Creates an issue."), mk("list_issues", "Lists the issues.")}},
		contract.Namespace{Name: "slack", Tools: []*contract.Tool{mk("post", "Posts a message.")}})
	if err != nil {
		t.Fatal(err)
	}
	return &fakeRunner{c: c, answer: func(string) (codetool.Answer, error) {
		return codetool.Answer{Status: codetool.StatusCompleted, ExecutionID: "run_1", Value: json.RawMessage(`1`)}, nil
	}}
}

func (f *fakeRunner) Execute(ctx context.Context, code string) (codetool.Answer, error) {
	f.ran = append(f.ran, code)
	return f.answer(code)
}
func (f *fakeRunner) Contract() *contract.Contract { return f.c }
func (f *fakeRunner) TypeDefinitions() string      { return f.c.TypeDefinitions() }
func (f *fakeRunner) Environment() string          { return "a test double" }
func (f *fakeRunner) ValidateCode(ctx context.Context, checker *typecheck.Checker, code string) (*typecheck.Result, error) {
	if f.invalid {
		return &typecheck.Result{Report: "agent.ts:1:1 - error TS2304: Cannot find name 'x'."}, nil
	}
	return &typecheck.Result{Valid: true}, nil
}

// fakeApprover is a fakeRunner that pauses.
type fakeApprover struct{ *fakeRunner }

func (f fakeApprover) Answer(context.Context, string) (codetool.Answer, error) {
	return codetool.Answer{}, nil
}
func (f fakeApprover) ApprovePending(context.Context, string, []uint64) (codetool.Answer, error) {
	return codetool.Answer{}, nil
}
func (f fakeApprover) Reject(context.Context, string, uint64) (bool, error) { return false, nil }

// TestCallRunsOnlyValidArguments: Call hands the program to the runner and
// passes its answer and error through; bad arguments never reach it.
func TestCallRunsOnlyValidArguments(t *testing.T) {
	r := newFakeRunner(t)
	boom := errors.New("journal down")
	r.answer = func(code string) (codetool.Answer, error) {
		if code == "fail" {
			return codetool.Answer{}, boom
		}
		return codetool.Answer{Status: codetool.StatusCompleted, ExecutionID: "run_1"}, nil
	}
	tool, err := codetool.New(r, codetool.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if out, err := tool.Call(context.Background(), json.RawMessage(`{"code":"ok"}`)); err != nil || string(out) != `{"status":"completed","executionId":"run_1","value":null}` {
		t.Fatalf("Call: %s, %v", out, err)
	}
	if _, err := tool.Call(context.Background(), json.RawMessage(`{"code":"fail"}`)); !errors.Is(err, boom) {
		t.Fatalf("Call: %v, want the runner's error", err)
	}
	if _, err := tool.Call(context.Background(), json.RawMessage(`{"cod":"x"}`)); err == nil {
		t.Fatal("bad arguments ran")
	}
	if strings.Join(r.ran, ",") != "ok,fail" {
		t.Fatalf("the runner ran %q", r.ran)
	}
}

// TestCallAsksApprovalOfTheProgram: with Options.ApproveProgram, the
// approver sees each program whole before it runs; one it refuses is an
// error answer saying so, and the runner never sees it.
func TestCallAsksApprovalOfTheProgram(t *testing.T) {
	r := newFakeRunner(t)
	r.answer = func(code string) (codetool.Answer, error) {
		return codetool.Answer{Status: codetool.StatusCompleted, ExecutionID: "run_1"}, nil
	}
	var shown []string
	tool, err := codetool.New(r, codetool.Options{ApproveProgram: func(ctx context.Context, code string) error {
		shown = append(shown, code)
		if strings.Contains(code, "delete") {
			return errors.New("the person said no")
		}
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	if out, err := tool.Call(context.Background(), json.RawMessage(`{"code":"await codemode.list({})"}`)); err != nil || !strings.Contains(string(out), `"completed"`) {
		t.Fatalf("an approved program: %s, %v", out, err)
	}
	out, err := tool.Call(context.Background(), json.RawMessage(`{"code":"await codemode.delete({})"}`))
	if err != nil || !strings.Contains(string(out), `"status":"error"`) || !strings.Contains(string(out), "not approved, so nothing ran: the person said no") {
		t.Fatalf("a refused program: %s, %v", out, err)
	}
	if strings.Join(r.ran, ",") != "await codemode.list({})" || len(shown) != 2 {
		t.Fatalf("the runner ran %q after the approver saw %q", r.ran, shown)
	}
}

// TestCallTypeChecks: with a checker, a program that does not type-check
// is an error answer with the report, and nothing runs.
func TestCallTypeChecks(t *testing.T) {
	r := newFakeRunner(t)
	r.invalid = true
	checked, err := codetool.New(r, codetool.Options{Checker: &typecheck.Checker{}}) // the fake never uses it
	if err != nil {
		t.Fatal(err)
	}
	out, err := checked.Call(context.Background(), json.RawMessage(`{"code":"x"}`))
	var a codetool.Answer
	if err != nil || a.UnmarshalJSON(out) != nil || a.Status != codetool.StatusError || !strings.HasPrefix(a.Error, "The program does not type-check, so nothing ran.") || !strings.Contains(a.Error, "TS2304") || len(r.ran) != 0 {
		t.Fatalf("answer %s, %v; ran %q", out, err, r.ran)
	}
	unchecked, err := codetool.New(r, codetool.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if out, err := unchecked.Call(context.Background(), json.RawMessage(`{"code":"x"}`)); err != nil || a.UnmarshalJSON(out) != nil || a.Status != codetool.StatusCompleted || len(r.ran) != 1 {
		t.Fatalf("without a checker: %s, %v", out, err)
	}
}

// TestDescription: the generated texts, pinned by golden files; hints for
// namespaces that do not exist, or of more than one line, are errors; a
// given description replaces the generated one, placeholders filled.
func TestDescription(t *testing.T) {
	r := newFakeRunner(t)
	hints := codetool.Options{Hints: map[string]string{"github": "issues and pull requests of acme/*"}}
	for _, tc := range []struct {
		golden string
		runner codetool.Runner
		opts   codetool.Options
	}{
		{"plain.golden", r, hints},
		{"approver.golden", fakeApprover{r}, codetool.Options{Hints: hints.Hints, ResultTool: "code_result", SeparateContent: true}},
		{"discover.golden", r, codetool.Options{Declarations: codetool.DeclarationsDiscover}},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			got, err := describe(tc.runner, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", tc.golden)
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Fatalf("description:\n%s\nwant (%s):\n%s", got, path, want)
			}
		})
	}
	for _, bad := range []codetool.Options{
		{Hints: map[string]string{"jira": "tickets"}},
		{Hints: map[string]string{"slack": "a\nb"}},
		{Declarations: "some"},
	} {
		if _, err := describe(r, bad); err == nil {
			t.Errorf("%+v: accepted", bad)
		}
	}
	if got, err := describe(r, codetool.Options{Description: "Mine: {{namespaces}}."}); err != nil || got != "Mine: github and slack." {
		t.Fatalf("given description: %q, %v", got, err)
	}
	// Past 2,000 estimated tokens of declarations, the default is discover.
	var tools []*contract.Tool
	for i := range 100 {
		tool, err := contract.NewRawTool(fmt.Sprintf("tool_%d", i), "A tool with a description long enough to count for something.",
			json.RawMessage(`{"type":"object","properties":{"a":{"type":"string","description":"The first parameter."}},"additionalProperties":false}`), json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`),
			func(context.Context, json.RawMessage) (json.RawMessage, error) { return nil, nil })
		if err != nil {
			t.Fatal(err)
		}
		tools = append(tools, tool)
	}
	big, err := contract.NewNamespaced(contract.Namespace{Name: "big", Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	r.c = big
	if d, _ := describe(r, codetool.Options{}); strings.Contains(d, "interface BigTools") || !strings.Contains(d, "- big: tools tool_0, tool_1, tool_2, tool_3, tool_4, … (100 tools)") {
		t.Errorf("a large catalogue's default description:\n%s", d)
	}
	if d, _ := describe(r, codetool.Options{Declarations: codetool.DeclarationsFull}); !strings.Contains(d, "interface BigTools") {
		t.Error("DeclarationsFull left the declarations out")
	}
}

// describe is the description of the code tool over r with opts.
func describe(r codetool.Runner, opts codetool.Options) (string, error) {
	tool, err := codetool.New(r, opts)
	if err != nil {
		return "", err
	}
	return tool.Description, nil
}

// TestAnswerJSON: each status encodes only its fields, "<", ">" and "&"
// as they are, and decodes back.
func TestAnswerJSON(t *testing.T) {
	cases := []struct {
		a    codetool.Answer
		want string
	}{
		{codetool.Answer{Status: codetool.StatusCompleted, ExecutionID: "exec_1"}, `{"status":"completed","executionId":"exec_1","value":null}`},
		{codetool.Answer{Status: codetool.StatusCompleted, ExecutionID: "run_1", Value: json.RawMessage(`"a > b"`), Content: []contract.Content{{Type: "text", Text: "x & y"}}},
			`{"status":"completed","executionId":"run_1","value":"a > b","content":[{"type":"text","text":"x & y"}]}`},
		{codetool.Answer{Status: codetool.StatusPaused, ExecutionID: "exec_1", Pending: []codetool.Pending{{Seq: 2, Connector: "github", Method: "create_issue", Args: json.RawMessage(`{"x":"<y>"}`)}}},
			`{"status":"paused","executionId":"exec_1","pending":[{"seq":2,"connector":"github","method":"create_issue","args":{"x":"<y>"}}]}`},
		{codetool.Answer{Status: codetool.StatusPaused, ExecutionID: "exec_1"}, `{"status":"paused","executionId":"exec_1","pending":[]}`},
		{codetool.Answer{Status: codetool.StatusError, ExecutionID: "exec_1", Error: "boom", Logs: []string{"a"}}, `{"status":"error","executionId":"exec_1","error":"boom","logs":["a"]}`},
		{codetool.Answer{Status: codetool.StatusError, Error: "does not type-check"}, `{"status":"error","error":"does not type-check"}`},
	}
	for _, c := range cases {
		b, err := c.a.MarshalJSON()
		if err != nil || string(b) != c.want {
			t.Errorf("MarshalJSON = %s, %v; want %s", b, err, c.want)
		}
		var back codetool.Answer
		if err := json.Unmarshal(b, &back); err != nil || back.Status != c.a.Status || back.ExecutionID != c.a.ExecutionID || back.Error != c.a.Error {
			t.Errorf("Unmarshal(%s) = %+v, %v", b, back, err)
		}
	}
	if _, err := (codetool.Answer{Status: "running"}).MarshalJSON(); err == nil {
		t.Error("an unknown status encoded")
	}
	var a codetool.Answer
	if err := json.Unmarshal([]byte(`{"status":"running"}`), &a); err == nil {
		t.Error("an unknown status decoded")
	}
}

// TestNewRefusesSessionsOverARunnerThatPauses: a durable runner replays its
// program from the start, so a session's bindings cannot be carried in;
// New says so rather than failing every call later.
func TestNewRefusesSessionsOverARunnerThatPauses(t *testing.T) {
	r := newFakeRunner(t)
	if _, err := codetool.New(fakeApprover{r}, codetool.Options{Sessions: true}); err == nil || !strings.Contains(err.Error(), "Sessions") {
		t.Fatalf("New(approver, Sessions) = %v; want an error naming Sessions", err)
	}
	if _, err := codetool.New(r, codetool.Options{Sessions: true}); err != nil {
		t.Fatalf("New(plain runner, Sessions) = %v", err)
	}
}

// TestCallCutsLargeAnswers: a program that returns and prints a great deal
// gets an answer within the budget (6,000 estimated tokens by default,
// Options.MaxTokens otherwise), still valid JSON, saying what was left
// out; a negative MaxTokens leaves it whole.
func TestCallCutsLargeAnswers(t *testing.T) {
	items := make([]string, 20000)
	for i := range items {
		items[i] = fmt.Sprintf("item %d abcdefghij", i)
	}
	value, err := json.Marshal(items)
	if err != nil {
		t.Fatal(err)
	}
	logs := make([]string, 3000)
	for i := range logs {
		logs[i] = "line " + strings.Repeat("x", 100)
	}
	for _, c := range []struct {
		name      string
		maxTokens int
		most      int    // characters; 0: whole
		contains  string // in the answer
	}{
		{"default budget", 0, 24000, "more items"},
		{"a budget of its own", 500, 2000, "more items"},
		{"whole", -1, 0, `"item 19999 abcdefghij"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newFakeRunner(t)
			r.answer = func(string) (codetool.Answer, error) {
				return codetool.Answer{Status: codetool.StatusCompleted, ExecutionID: "run_1", Value: value, Logs: logs}, nil
			}
			tool, err := codetool.New(r, codetool.Options{MaxTokens: c.maxTokens})
			if err != nil {
				t.Fatal(err)
			}
			out, err := tool.Call(context.Background(), json.RawMessage(`{"code":"1"}`))
			if err != nil {
				t.Fatal(err)
			}
			if !json.Valid(out) || !strings.Contains(string(out), c.contains) {
				t.Fatalf("answer (valid %v) lacks %q: %.300s", json.Valid(out), c.contains, out)
			}
			n := len([]rune(string(out)))
			if c.most > 0 && n > c.most {
				t.Fatalf("answer of %d characters, budget %d", n, c.most)
			}
			if c.most == 0 && n < len(value) {
				t.Fatalf("answer of %d characters was cut", n)
			}
			var a codetool.Answer
			if err := a.UnmarshalJSON(out); err != nil || a.Status != codetool.StatusCompleted {
				t.Fatalf("the cut answer reads back as %+v, %v", a, err)
			}
		})
	}
}
