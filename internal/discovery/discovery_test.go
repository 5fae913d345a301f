package discovery_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/internal/discovery"
	"github.com/codemode-go/codemode/internal/search"
)

func catalog(t testing.TB) *discovery.Catalog {
	t.Helper()
	noop := func(context.Context, json.RawMessage) (json.RawMessage, error) { return json.RawMessage(`null`), nil }
	tool := func(name, description, input string) *contract.Tool {
		tl, err := contract.NewForeignTool(name, description, json.RawMessage(input), nil, noop)
		if err != nil {
			t.Fatal(err)
		}
		return tl
	}
	create, err := tool("create_issue", "Creates an issue in a repository.", `{"type":"object","properties":{"repo":{"type":"string"},"title":{"type":"string"}}}`).
		WithPolicy(contract.Policy{RequiresApproval: true})
	if err != nil {
		t.Fatal(err)
	}
	c, err := contract.NewNamespaced(
		contract.Namespace{Name: "github", Instructions: "The issues and pull requests of acme.", Tools: []*contract.Tool{
			create,
			tool("list_issues", "Lists the open issues of a repository.", `{"type":"object","properties":{"repo":{"type":"string"}}}`),
		}},
		contract.Namespace{Name: "slack", Tools: []*contract.Tool{
			tool("post_message", "Posts a message to a channel.", `{"type":"object","properties":{"channel":{"type":"string"},"text":{"type":"string"}}}`),
		}},
	)
	if err != nil {
		t.Fatal(err)
	}
	return discovery.New(c)
}

var saved = []discovery.Saved{{Name: "weekly-report", Description: "Posts the week's open issues to a channel.", Namespaces: []string{"github", "slack"}, SavedAt: 1}}

func TestSearch(t *testing.T) {
	cat := catalog(t)
	tests := []struct {
		query string
		saved []discovery.Saved
		first string // "" when nothing may match
		kind  string
	}{
		{"create an issue", nil, "github.create_issue", discovery.KindTool},
		{"open an issue", nil, "github.create_issue", discovery.KindTool},
		{"list the issues of a repository", nil, "github.list_issues", discovery.KindTool},
		{"send a message to a channel", nil, "slack.post_message", discovery.KindTool},
		{"weekly report", saved, "weekly-report", discovery.KindSaved},
		{"zzzz qqqq", nil, "", ""},
		{"", nil, "", ""},
	}
	for _, tt := range tests {
		out := cat.Search(tt.query, tt.saved)
		if tt.first == "" {
			if len(out.Results) != 0 || out.Total != 0 {
				t.Errorf("%q: %+v, want no results", tt.query, out)
			}
			continue
		}
		if len(out.Results) == 0 || out.Results[0].Path != tt.first || out.Results[0].Kind != tt.kind {
			t.Errorf("%q: %+v, want %s (%s) first", tt.query, out.Results, tt.first, tt.kind)
		}
	}
	out := cat.Search("create issue", nil)
	if !out.Results[0].RequiresApproval || out.Results[0].Connector != "github" || out.Results[0].Method != "create_issue" {
		t.Errorf("result %+v", out.Results[0])
	}
}

// TestToolDocuments: the documents a fitting tool indexes rank as Search
// does, by the same paths.
func TestToolDocuments(t *testing.T) {
	cat := catalog(t)
	docs, paths := cat.ToolDocuments()
	if want := []string{"github.create_issue", "github.list_issues", "slack.post_message"}; !slices.Equal(paths, want) || len(docs) != len(want) {
		t.Fatalf("%d documents, paths %v, want %v", len(docs), paths, want)
	}
	ix := search.New(docs)
	for _, q := range []string{"create an issue", "list the issues of a repository", "send a message to a channel"} {
		hits, _ := ix.Search(q, discovery.MaxResults)
		out := cat.Search(q, nil)
		if len(hits) != len(out.Results) {
			t.Fatalf("%q: %d hits, Search %d results", q, len(hits), len(out.Results))
		}
		for i, h := range hits {
			if paths[h.Doc] != out.Results[i].Path {
				t.Errorf("%q: hit %d is %s, Search's %s", q, i, paths[h.Doc], out.Results[i].Path)
			}
		}
	}
}

func TestDescribe(t *testing.T) {
	cat := catalog(t)
	tests := []struct {
		target string
		kind   string
		has    []string // in Types
		err    string   // part of the error, when the target is unknown
	}{
		{"github", discovery.KindNamespace, []string{"create_issue(input", "list_issues(input"}, ""},
		{"github.create_issue", discovery.KindTool, []string{"create_issue(input", "@requiresApproval"}, ""},
		{" slack.post_message ", discovery.KindTool, []string{"post_message(input"}, ""},
		{"weekly-report", discovery.KindSaved, []string{`run(name: "weekly-report"`}, ""},
		{"github.delete_repo", "", nil, `namespace github has no tool delete_repo; codemode.search("delete_repo")`},
		{"jira", "", nil, `"jira" is not a saved program, a namespace (github, slack) or a namespace.tool`},
	}
	for _, tt := range tests {
		d, err := cat.Describe(tt.target, saved)
		if tt.err != "" {
			if !errors.Is(err, discovery.ErrUnknownTarget) || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%q: %v, want an unknown target error with %q", tt.target, err, tt.err)
			}
			continue
		}
		if err != nil || d.Kind != tt.kind {
			t.Errorf("%q: %+v %v, want kind %s", tt.target, d, err, tt.kind)
			continue
		}
		for _, want := range tt.has {
			if !strings.Contains(d.Types, want) {
				t.Errorf("%q: types lack %q:\n%s", tt.target, want, d.Types)
			}
		}
	}
	if d, _ := cat.Describe("github.create_issue", nil); strings.Contains(d.Types, "list_issues") {
		t.Errorf("describing one tool printed another:\n%s", d.Types)
	}
}

// FuzzSearchAndDescribe: any query and target (a program's own strings)
// get an answer or an error, never a panic, and search stays in bounds.
func FuzzSearchAndDescribe(f *testing.F) {
	for _, s := range []string{"open an issue", "github.create_issue", "", "\x00", strings.Repeat("issue ", 400), "weekly-report", "github."} {
		f.Add(s)
	}
	cat := catalog(f)
	f.Fuzz(func(t *testing.T, s string) {
		out := cat.Search(s, saved)
		if len(out.Results) > discovery.MaxResults || out.Total < len(out.Results) {
			t.Fatalf("%q: %d results of %d", s, len(out.Results), out.Total)
		}
		if _, err := cat.Describe(s, saved); err != nil && !errors.Is(err, discovery.ErrUnknownTarget) {
			t.Fatalf("%q: %v", s, err)
		}
	})
}
