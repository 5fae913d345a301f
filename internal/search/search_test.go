package search

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestWordsSplitsIdentifiers(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"listPullRequests", []string{"list", "pull", "requests"}},
		{"list_pull_requests", []string{"list", "pull", "requests"}},
		{"pulls/list", []string{"pulls", "list"}},
		{"github.create_pull_request", []string{"github", "create", "pull", "request"}},
		{"HTTPServer", []string{"http", "server"}},
		{"getURLForID", []string{"get", "url", "for", "id"}},
		{"v2beta", []string{"v", "2", "beta"}},
		{"list my PRs", []string{"list", "my", "prs"}},
		{"getIDsForURLs", []string{"get", "ids", "for", "urls"}},
		{"kebab-case-name", []string{"kebab", "case", "name"}},
		{"  Send a Slack message!  ", []string{"send", "a", "slack", "message"}},
		{"Über_größe", []string{"über", "größe"}},
		{"", nil},
		{"--__//", nil},
	} {
		if got := words(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("words(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestTermsStemsAndDropsStopWords(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"Sends a message to the channel", []string{"send", "messag", "channel"}},
		{"send_messages", []string{"send", "messag"}},
		{"listing repositories", []string{"list", "repositori"}},
		{"the of to", nil},
	} {
		if got := terms(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("terms(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// catalogue is a small catalogue shaped like connector methods: name,
// namespace, parameter names, description.
var catalogue = []struct{ ns, name, params, desc string }{
	{"weather", "getForecast", "city days", "Get the weather forecast for a city."},
	{"weather", "getCurrentConditions", "city", "Current temperature, wind and humidity."},
	{"slack", "send_message", "channel text thread_ts", "Send a message to a Slack channel or thread."},
	{"slack", "list_channels", "limit cursor", "List the channels of the workspace."},
	{"github", "create_pull_request", "owner repo title head base body", "Create a new pull request in a GitHub repository."},
	{"github", "list_pull_requests", "owner repo state", "List pull requests of a repository."},
	{"github", "create_issue", "owner repo title body labels", "Open a new issue."},
	{"email", "send_email", "to subject body", "Send an email message."},
}

func catalogueIndex() *Index {
	docs := make([]Document, len(catalogue))
	for i, m := range catalogue {
		docs[i] = NewDocument(Tool{Namespace: m.ns, Name: m.name, Description: m.desc, InputSchema: schemaOf(m.params)})
	}
	return New(docs)
}

// schemaOf is an object schema with the named properties.
func schemaOf(params string) json.RawMessage {
	props := map[string]any{}
	for _, p := range strings.Fields(params) {
		props[p] = map[string]any{"type": "string"}
	}
	raw, _ := json.Marshal(map[string]any{"type": "object", "properties": props})
	return raw
}

func names(ix *Index, hits []Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, catalogue[h.Doc].ns+"."+catalogue[h.Doc].name)
	}
	return out
}

// TestRanking pins the ranking cases, among them Cloudflare's issue 2296:
// "send slack message" must rank slack.send_message first and must not
// return weather.getForecast, which shares no word with the query.
func TestRanking(t *testing.T) {
	ix := catalogueIndex()
	for _, tc := range []struct {
		query   string
		first   string
		never   []string
		noMatch bool
	}{
		{query: "send slack message", first: "slack.send_message", never: []string{"weather.getForecast", "weather.getCurrentConditions", "github.create_issue"}},
		{query: "create a pull request", first: "github.create_pull_request", never: []string{"weather.getForecast", "slack.list_channels"}},
		{query: "listPullRequests", first: "github.list_pull_requests"},
		{query: "pulls/list", first: "github.list_pull_requests"},
		{query: "weather forecast for Paris", first: "weather.getForecast", never: []string{"slack.send_message"}},
		{query: "humidity", first: "weather.getCurrentConditions"},
		{query: "repo", first: "github.list_pull_requests"},                                                 // a parameter name
		{query: "repositories", first: "github.list_pull_requests", never: []string{"github.create_issue"}}, // the shorter of the two that say repository
		{query: "email", first: "email.send_email"},
		{query: "s", noMatch: true},
		{query: "se sl me", noMatch: true}, // short prefixes never match
		{query: "the of to", noMatch: true},
		{query: "kubernetes deployment", noMatch: true},
	} {
		t.Run(tc.query, func(t *testing.T) {
			got := names(ix, all(ix.Search(tc.query, 0)))
			if tc.noMatch {
				if len(got) != 0 {
					t.Fatalf("Search(%q) = %q, want no result", tc.query, got)
				}
				return
			}
			if len(got) == 0 || got[0] != tc.first {
				t.Fatalf("Search(%q) = %q, want %s first", tc.query, got, tc.first)
			}
			for _, n := range tc.never {
				if slices.Contains(got, n) {
					t.Errorf("Search(%q) = %q, which includes %s", tc.query, got, n)
				}
			}
		})
	}
}

// TestLongDescriptionDoesNotDrownName pins GitHub's pulls/list, which
// ranked 24th for "list the open pull requests of a repository" among
// GitHub's 1,223 operations when one length (the whole document's, a page
// of description) normalised every field, and operations whose longer
// names share as many words with the query ranked first. Each field is now
// normalised by its own length, the summary is a field of its own and a
// name the query covers whole gains (Field.Coverage).
func TestLongDescriptionDoesNotDrownName(t *testing.T) {
	draft := strings.Repeat("Draft pull requests are available in public repositories with GitHub Free and GitHub Free for organizations, "+
		"GitHub Pro, and legacy per-repository billing plans. This endpoint supports the following custom media types. ", 4)
	ops := []struct{ name, params, summary, rest string }{
		{"pulls_list", "owner repo state head base sort direction per_page page", "List pull requests",
			"Lists pull requests in a specified repository. " + draft},
		{"repos_list_pull_requests_associated_with_commit", "owner repo commit_sha per_page page", "List pull requests associated with a commit",
			"Lists the merged pull request that introduced the commit to the repository. If the commit is not present in the default branch, it will return merged and open pull requests associated with the commit."},
		{"interactions_update_pull_request_creation_cap_for_repo", "owner repo", "Update pull request creation cap for a repository",
			"Updates the pull request creation cap for a repository. The cap limits the number of open pull requests a user can have at one time."},
		{"pulls_get", "owner repo pull_number", "Get a pull request", "Lists details of a pull request by providing its number. " + draft},
		{"issues_list_for_repo", "owner repo state labels", "List repository issues", "List issues in a repository. Only open issues will be listed."},
		{"repos_get", "owner repo", "Get a repository", "The parent and source objects are present when the repository is a fork."},
	}
	docs := make([]Document, len(ops))
	for i, op := range ops {
		docs[i] = NewDocument(Tool{Namespace: "github", Name: op.name, Description: op.summary + "\n\n" + op.rest, InputSchema: schemaOf(op.params)})
	}
	ix := New(docs)
	for _, tc := range []struct{ query, first string }{
		{"list the open pull requests of a repository", "pulls_list"},
		{"get one pull request", "pulls_get"},
	} {
		hits, _ := ix.Search(tc.query, 0)
		var got []string
		for _, h := range hits {
			got = append(got, ops[h.Doc].name)
		}
		if len(got) == 0 || got[0] != tc.first {
			t.Errorf("Search(%q) = %q, want %s first", tc.query, got, tc.first)
		}
	}
}

func TestSearchScoresDescendAndEveryHitMatches(t *testing.T) {
	ix := catalogueIndex()
	hits, _ := ix.Search("send message to a channel", 0)
	if len(hits) < 2 {
		t.Fatalf("hits = %v", hits)
	}
	for i, h := range hits {
		if h.Score <= 0 {
			t.Errorf("hit %d has score %v", i, h.Score)
		}
		if i > 0 && hits[i-1].Score < h.Score {
			t.Errorf("hits out of order at %d: %v", i, hits)
		}
		m := catalogue[h.Doc]
		text := strings.Join(terms(m.ns+" "+m.name+" "+m.params+" "+m.desc), " ")
		if !strings.Contains(text, "send") && !strings.Contains(text, "messag") && !strings.Contains(text, "channel") {
			t.Errorf("%s.%s matched without a query word", m.ns, m.name)
		}
	}
}

func TestEmptyIndex(t *testing.T) {
	if hits, total := New(nil).Search("anything", 0); len(hits) != 0 || total != 0 {
		t.Fatalf("hits = %v", hits)
	}
}

func FuzzTerms(f *testing.F) {
	for _, s := range []string{"listPullRequests", "pulls/list", "HTTPServer", "v2beta", "Über", "\xff\xfe", "ǅungla"} {
		f.Add(s)
	}
	ix := catalogueIndex()
	f.Fuzz(func(t *testing.T, s string) {
		for _, w := range words(s) {
			if w == "" || !utf8.ValidString(w) && utf8.ValidString(s) {
				t.Fatalf("words(%q) has %q", s, w)
			}
		}
		for _, w := range terms(s) {
			if w == "" {
				t.Fatalf("terms(%q) has an empty term", s)
			}
		}
		for _, h := range all(ix.Search(s, 0)) {
			if h.Score <= 0 || h.Doc < 0 || h.Doc >= ix.Len() {
				t.Fatalf("Search(%q) = %v", s, h)
			}
		}
	})
}

func BenchmarkWords(b *testing.B) {
	for b.Loop() {
		words("github.create_pull_request: Create a new pull request in a GitHub repository (HTTPServer v2beta).")
	}
}

// all drops Search's total.
func all(hits []Hit, _ int) []Hit { return hits }

// A description of megabytes is read to its first maxIndexedDescription
// bytes: words past the cut find nothing, words before it are found, and a
// cut inside a character leaves no broken one.
func TestLongDescriptionIsCut(t *testing.T) {
	var b strings.Builder
	b.WriteString("Opens the vault. ")
	for i := 0; b.Len() < 4<<20; i++ {
		fmt.Fprintf(&b, "w%dx ", i)
	}
	b.WriteString("zebracorn")
	doc := NewDocument(Tool{Name: "open_vault", Description: b.String()})
	ix := New([]Document{doc})
	if hits, _ := ix.Search("vault", 5); len(hits) != 1 {
		t.Errorf("vault: %v", hits)
	}
	if hits, _ := ix.Search("zebracorn", 5); len(hits) != 0 {
		t.Errorf("a word past the cut was indexed: %v", hits)
	}
	for _, c := range []struct{ in, want string }{
		{strings.Repeat("é", maxIndexedDescription), strings.Repeat("é", maxIndexedDescription/2)},
		{"a " + strings.Repeat("x", maxIndexedDescription), "a"},
		{"short", "short"},
	} {
		if got := cutDescription(c.in); got != c.want {
			t.Errorf("cutDescription(%.20q…) = %.20q… (%d bytes), want %.20q… (%d bytes)", c.in, got, len(got), c.want, len(c.want))
		}
	}
}
