package search

import (
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
		{"kebab-case-name", []string{"kebab", "case", "name"}},
		{"  Send a Slack message!  ", []string{"send", "a", "slack", "message"}},
		{"Über_größe", []string{"über", "größe"}},
		{"", nil},
		{"--__//", nil},
	} {
		if got := Words(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("Words(%q) = %q, want %q", tc.in, got, tc.want)
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
		if got := Terms(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("Terms(%q) = %q, want %q", tc.in, got, tc.want)
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
	docs := make([][]Field, len(catalogue))
	for i, m := range catalogue {
		docs[i] = []Field{{m.name, WeightName}, {m.ns, WeightNamespace}, {m.params, WeightParameters}, {m.desc, WeightDescription}}
	}
	return New(docs)
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
			got := names(ix, ix.Search(tc.query))
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

func TestSearchScoresDescendAndEveryHitMatches(t *testing.T) {
	ix := catalogueIndex()
	hits := ix.Search("send message to a channel")
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
		text := strings.Join(Terms(m.ns+" "+m.name+" "+m.params+" "+m.desc), " ")
		if !strings.Contains(text, "send") && !strings.Contains(text, "messag") && !strings.Contains(text, "channel") {
			t.Errorf("%s.%s matched without a query word", m.ns, m.name)
		}
	}
}

func TestEmptyIndex(t *testing.T) {
	if hits := New(nil).Search("anything"); len(hits) != 0 {
		t.Fatalf("hits = %v", hits)
	}
}

func FuzzTerms(f *testing.F) {
	for _, s := range []string{"listPullRequests", "pulls/list", "HTTPServer", "v2beta", "Über", "\xff\xfe", "ǅungla"} {
		f.Add(s)
	}
	ix := catalogueIndex()
	f.Fuzz(func(t *testing.T, s string) {
		for _, w := range Words(s) {
			if w == "" || !utf8.ValidString(w) && utf8.ValidString(s) {
				t.Fatalf("Words(%q) has %q", s, w)
			}
		}
		for _, w := range Terms(s) {
			if w == "" {
				t.Fatalf("Terms(%q) has an empty term", s)
			}
		}
		for _, h := range ix.Search(s) {
			if h.Score <= 0 || h.Doc < 0 || h.Doc >= ix.Len() {
				t.Fatalf("Search(%q) = %v", s, h)
			}
		}
	})
}

func BenchmarkWords(b *testing.B) {
	for b.Loop() {
		Words("github.create_pull_request: Create a new pull request in a GitHub repository (HTTPServer v2beta).")
	}
}
