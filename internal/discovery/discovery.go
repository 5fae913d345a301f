// Package discovery answers codemode.search and codemode.describe over a
// contract: ranked search over its tools (and over saved programs a caller
// gives with each call) and TypeScript declarations on demand. The client
// answers programs with it in every run; a runner that keeps saved
// programs passes them in.
//
// The answers take the shape of Cloudflare's Code Mode discovery API
// (https://developers.cloudflare.com/agents/api-reference/codemode/:
// SearchResult, SearchOutput, DescribeOutput), as typegen declares them for
// programs.
package discovery

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/internal/search"
	"github.com/codemode-go/codemode/internal/typegen"
)

// MaxResults is the most results a search returns (Output is truncated
// beyond it).
const MaxResults = 50

// MaxQuery is the length in bytes of a query that counts; the rest is
// ignored. A query is a few words; a program could send megabytes of
// distinct ones (about 1 s of host CPU per call for 1.75 MB).
const MaxQuery = 1000

// The kinds of results and describe answers.
const (
	KindNamespace = "connector"
	KindTool      = "method"
	KindSaved     = "snippet"
)

// SavedNamespace is the namespace of saved programs in results: they run
// through codemode.run.
const SavedNamespace = typegen.SDKNamespace

// Result is one ranked match: a tool (Path "github.create_issue",
// Connector "github", Method "create_issue") or a saved program (Path and
// Method its name, Connector "codemode").
type Result struct {
	Path             string  `json:"path"`
	Connector        string  `json:"connector"`
	Method           string  `json:"method"`
	Description      string  `json:"description,omitempty"`
	RequiresApproval bool    `json:"requiresApproval,omitempty"`
	Kind             string  `json:"kind"`  // KindTool or KindSaved
	Score            float64 `json:"score"` // BM25F, higher is better, rounded to 3 decimals
}

// Output is a search's answer: at most MaxResults results, best first;
// Total counts every match and Truncated says some were left out.
type Output struct {
	Results   []Result `json:"results"`
	Total     int      `json:"total"`
	Truncated bool     `json:"truncated"`
}

// Described is a describe's answer: the TypeScript declarations of a
// namespace (every tool), a tool, or a saved program (how to run it, with
// its input type).
type Described struct {
	Path             string `json:"path"`
	Description      string `json:"description,omitempty"`
	RequiresApproval bool   `json:"requiresApproval,omitempty"`
	Types            string `json:"types"`
	Kind             string `json:"kind"` // KindNamespace, KindTool or KindSaved
}

// Saved is a saved program as search and describe see it.
type Saved struct {
	Name        string
	Description string
	InputSchema json.RawMessage // nil: the program takes any input
	Namespaces  []string        // the namespaces its code calls
	SavedAt     int64           // a version stamp: a change re-indexes
}

// ErrUnknownTarget is wrapped by Describe's error for a target that names
// no saved program, namespace or tool.
var ErrUnknownTarget = errors.New("unknown describe target")

// Catalog is the discovery side of a contract. It is safe for concurrent
// use. The search index is built on the first search and rebuilt only when
// the saved programs change; describe answers are printed on first use
// and kept.
type Catalog struct {
	contract *contract.Contract

	mu       sync.Mutex
	tools    []doc // one per tool, in declaration order
	index    *search.Index
	indexKey string // the saved programs the index holds (savedKey)
	docs     []doc
	cache    map[string]Described
	// describers render one tool with the named types it reaches, by
	// namespace, made on first describe.
	describers map[string]*typegen.Describer
}

type doc struct {
	result Result
	doc    search.Document
}

// isSet reports whether an annotation hint is present and true.
func isSet(hint *bool) bool { return hint != nil && *hint }

// New returns the catalog of c's tools.
func New(c *contract.Contract) *Catalog {
	return &Catalog{contract: c, cache: map[string]Described{}, describers: map[string]*typegen.Describer{}}
}

// Search ranks the tools and the saved programs for query (package
// internal/search: BM25F over names, namespaces, parameter names and
// descriptions). At most MaxResults results are returned.
func (c *Catalog) Search(query string, saved []Saved) Output {
	if len(query) > MaxQuery {
		cut := MaxQuery
		for cut > 0 && !utf8.RuneStart(query[cut]) {
			cut--
		}
		query = query[:cut]
	}
	index, docs := c.indexFor(saved)
	hits, total := index.Search(query, MaxResults)
	out := Output{Results: []Result{}, Total: total, Truncated: total > MaxResults}
	for _, h := range hits {
		r := docs[h.Doc].result
		r.Score = math.Round(h.Score*1000) / 1000
		out.Results = append(out.Results, r)
	}
	return out
}

// indexFor returns the index over the tools and saved, built when saved
// differs from the last call's.
func (c *Catalog) indexFor(saved []Saved) (*search.Index, []doc) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tools == nil {
		c.tools = toolDocs(c.contract)
	}
	key := savedKey(saved)
	if c.index == nil || key != c.indexKey {
		docs := slices.Clip(c.tools)
		for _, s := range saved {
			docs = append(docs, savedDoc(s))
		}
		documents := make([]search.Document, len(docs))
		for i, d := range docs {
			documents[i] = d.doc
		}
		c.index, c.indexKey, c.docs = search.New(documents), key, docs
	}
	return c.index, c.docs
}

// ToolDocuments are the search documents of the catalog's tools as
// Search indexes them (no saved programs) and each one's path, for tools
// that fit the ranking's weights on query sets (bench/economy -fit).
func (c *Catalog) ToolDocuments() ([]search.Document, []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tools == nil {
		c.tools = toolDocs(c.contract)
	}
	documents, paths := make([]search.Document, len(c.tools)), make([]string, len(c.tools))
	for i, d := range c.tools {
		documents[i], paths[i] = d.doc, d.result.Path
	}
	return documents, paths
}

func toolDocs(c *contract.Contract) []doc {
	docs := []doc{}
	for _, ns := range c.Namespaces() {
		var defs *search.Definitions
		if ns.Definitions != nil {
			defs = search.NewDefinitions(ns.Definitions.Document, ns.Definitions.Places)
		}
		for _, t := range ns.Tools {
			if t.Policy().Callers == contract.CallersModel {
				continue // the model calls it directly; programs never do
			}
			desc := t.Description()
			docs = append(docs, doc{
				result: Result{Path: ns.Name + "." + t.Name(), Connector: ns.Name, Method: t.Name(),
					Description: firstParagraph(desc), RequiresApproval: t.Policy().RequiresApproval || t.Policy().ApprovalFor != nil, Kind: KindTool},
				doc: search.NewDocument(search.Tool{Namespace: ns.Name, Name: t.Name(), Description: desc, InputSchema: t.InputDeclaration(),
					OutputSchema: t.OutputDeclaration(), Definitions: defs, ReadOnly: isSet(t.Annotations().ReadOnly), Destructive: isSet(t.Annotations().Destructive)}),
			})
		}
	}
	return docs
}

func savedDoc(s Saved) doc {
	return doc{
		result: Result{Path: s.Name, Connector: SavedNamespace, Method: s.Name, Description: firstParagraph(s.Description), Kind: KindSaved},
		doc:    search.NewDocument(search.Tool{Namespace: strings.Join(s.Namespaces, " "), Name: s.Name, Description: s.Description, InputSchema: s.InputSchema}),
	}
}

// savedKey identifies a set of saved programs for the index cache.
func savedKey(saved []Saved) string {
	var b strings.Builder
	for _, s := range saved {
		fmt.Fprintf(&b, "%s\x00%d\x00", s.Name, s.SavedAt)
	}
	return b.String()
}

// firstParagraph is a description's first paragraph, at most 300 bytes:
// a result's summary.
func firstParagraph(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.Index(s, "\n\n"); i >= 0 {
		s = s[:i]
	}
	if len(s) > 300 {
		cut := 300
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = strings.TrimSpace(s[:cut]) + "…"
	}
	return s
}
