package durable

import (
	"context"
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
	"github.com/codemode-go/codemode/typegen"
)

// MaxSearchResults is the most results a search returns (SearchOutput is
// truncated beyond it).
const MaxSearchResults = 50

// The kinds of search results and describe answers.
const (
	KindConnector = "connector"
	KindMethod    = "method"
	KindSnippet   = "snippet"
)

// SearchResult is one ranked match of a search (Cloudflare Code Mode's
// SearchResult): a connector method (Path "github.create_issue",
// Connector "github", Method "create_issue") or a saved snippet (Path and
// Method the snippet's name, Connector "codemode": it runs through
// codemode.run).
type SearchResult struct {
	Path             string  `json:"path"`
	Connector        string  `json:"connector"`
	Method           string  `json:"method"`
	Description      string  `json:"description,omitempty"`
	RequiresApproval bool    `json:"requiresApproval,omitempty"`
	Kind             string  `json:"kind"`  // KindMethod or KindSnippet
	Score            float64 `json:"score"` // BM25F, higher is better, rounded to 3 decimals
}

// SearchOutput is a search's answer: at most MaxSearchResults results,
// best first; Total counts every match and Truncated says some were left
// out.
type SearchOutput struct {
	Results   []SearchResult `json:"results"`
	Total     int            `json:"total"`
	Truncated bool           `json:"truncated"`
}

// DescribeOutput is a describe's answer (Cloudflare Code Mode's
// DescribeOutput): the TypeScript declarations of a connector (every
// method), a method, or a snippet (how to run it, with its input type).
type DescribeOutput struct {
	Path             string `json:"path"`
	Description      string `json:"description,omitempty"`
	RequiresApproval bool   `json:"requiresApproval,omitempty"`
	Types            string `json:"types"`
	Kind             string `json:"kind"` // KindConnector, KindMethod or KindSnippet
}

// ErrUnknownTarget is wrapped by Describe's error for a target that names
// no snippet, connector or method.
var ErrUnknownTarget = errors.New("durable: unknown describe target")

// Catalog is the discovery side of a set of connectors: ranked search over
// their methods (and saved snippets given with each call) and TypeScript
// declarations on demand. A Handle has one (Handle.Search,
// Handle.Describe); NewCatalog makes one without a journal, for tools that
// only discover. It is safe for concurrent use. The search index is built
// on the first search and rebuilt only when the snippets change; describe
// answers for connectors and methods are printed on first use and cached.
type Catalog struct {
	connectors []Connector
	tools      map[string]map[string]*ConnectorTool
	decl       *contract.Contract

	mu       sync.Mutex
	methods  []searchDoc // one per connector method, in configuration order
	index    *search.Index
	indexKey string // the snippets the index holds (snippetsKey)
	docs     []searchDoc
	cache    map[string]DescribeOutput
	// describers render one method with the named types it reaches, by
	// namespace, made on first describe.
	describers map[string]*typegen.Describer
}

type searchDoc struct {
	result SearchResult
	doc    search.Document
}

// NewCatalog builds the catalog of connectors (checked as New checks them;
// Execute functions may be nil: the catalog never calls them). It returns
// an error for an invalid connector set or a schema that does not compile.
func NewCatalog(connectors []Connector) (*Catalog, error) {
	cs := slices.Clone(connectors)
	for i := range cs {
		cs[i].Tools = slices.Clone(cs[i].Tools)
		for j := range cs[i].Tools {
			if cs[i].Tools[j].Execute == nil {
				cs[i].Tools[j].Execute = func(context.Context, json.RawMessage) (json.RawMessage, error) {
					return nil, errors.New("a catalog does not run tools")
				}
			}
		}
	}
	if err := checkConnectors(cs); err != nil {
		return nil, err
	}
	namespaces, err := declNamespaces(cs)
	if err != nil {
		return nil, err
	}
	decl, err := contract.NewNamespaced(namespaces...)
	if err != nil {
		return nil, fmt.Errorf("durable: %w", err)
	}
	return newCatalog(cs, decl), nil
}

func newCatalog(connectors []Connector, decl *contract.Contract) *Catalog {
	c := &Catalog{connectors: connectors, decl: decl, tools: map[string]map[string]*ConnectorTool{}, cache: map[string]DescribeOutput{}}
	for i := range c.connectors {
		cn := &c.connectors[i]
		c.tools[cn.Name] = map[string]*ConnectorTool{}
		for j := range cn.Tools {
			c.tools[cn.Name][cn.Tools[j].Name] = &cn.Tools[j]
		}
	}
	return c
}

// declNamespaces are the connectors as the agent's declarations show them:
// a method that needs approval says so in its JSDoc (@requiresApproval).
func declNamespaces(connectors []Connector) ([]contract.Namespace, error) {
	var namespaces []contract.Namespace
	for _, c := range connectors {
		ns := contract.Namespace{Name: c.Name, Definitions: c.Definitions}
		for _, t := range c.Tools {
			desc := t.Description
			switch {
			case t.RequiresApproval:
				desc += "\n@requiresApproval the execution pauses here until a person approves the call"
			case t.ApprovalFor != nil:
				desc += "\n@requiresApproval some calls (by their arguments) pause the execution until a person approves them"
			}
			var ct *contract.Tool
			var err error
			if t.Declared {
				ct, err = contract.NewDeclaredTool(t.Name, desc, t.InputSchema, t.OutputSchema, t.Execute)
			} else {
				// The schemas compile on the tool's first call, not here (a
				// catalogue of thousands of methods boots in milliseconds);
				// one that does not compile fails every call of its method,
				// naming the fault, instead of passing unvalidated as a
				// foreign MCP tool's would.
				execute, name := t.Execute, c.Name
				ct, err = contract.NewForeignTool(t.Name, desc, t.InputSchema, t.OutputSchema, func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) {
					if err := ct.Degraded(); err != nil {
						return nil, fmt.Errorf("durable: connector %s: %w", name, err)
					}
					return execute(ctx, in)
				})
			}
			if err != nil {
				return nil, fmt.Errorf("durable: connector %s: %w", c.Name, err)
			}
			ns.Tools = append(ns.Tools, ct)
		}
		namespaces = append(namespaces, ns)
	}
	return namespaces, nil
}

// MaxSearchQuery is the length in bytes of a search query that counts; the
// rest is ignored.
const MaxSearchQuery = 1000

// Connectors returns the catalog's connectors. Callers must not modify
// the result.
func (c *Catalog) Connectors() []Connector { return c.connectors }

// Search ranks the connectors' methods and the snippets for query (see
// package internal/search: BM25F over names, connector names, parameter
// names and descriptions, with identifier splitting and stemming; only
// real word matches count). At most MaxSearchResults results are returned.
func (c *Catalog) Search(query string, snippets []Snippet) SearchOutput {
	// A query is a few words; a program could send megabytes of distinct
	// ones (about 1 s of host CPU per call for 1.75 MB), so only the first
	// MaxSearchQuery bytes count.
	if len(query) > MaxSearchQuery {
		cut := MaxSearchQuery
		for cut > 0 && !utf8.RuneStart(query[cut]) {
			cut--
		}
		query = query[:cut]
	}
	c.mu.Lock()
	if c.methods == nil {
		c.methods = c.methodDocs()
	}
	key := snippetsKey(snippets)
	if c.index == nil || key != c.indexKey {
		docs := slices.Clip(c.methods)
		for _, s := range snippets {
			docs = append(docs, snippetDoc(s))
		}
		documents := make([]search.Document, len(docs))
		for i, d := range docs {
			documents[i] = d.doc
		}
		c.index, c.indexKey, c.docs = search.New(documents), key, docs
	}
	index, docs := c.index, c.docs
	c.mu.Unlock()

	hits, total := index.Search(query, MaxSearchResults)
	out := SearchOutput{Results: []SearchResult{}, Total: total, Truncated: total > MaxSearchResults}
	for _, h := range hits {
		r := docs[h.Doc].result
		r.Score = math.Round(h.Score*1000) / 1000
		out.Results = append(out.Results, r)
	}
	return out
}

func (c *Catalog) methodDocs() []searchDoc {
	docs := []searchDoc{}
	for _, cn := range c.connectors {
		for _, t := range cn.Tools {
			docs = append(docs, searchDoc{
				result: SearchResult{Path: cn.Name + "." + t.Name, Connector: cn.Name, Method: t.Name,
					Description: firstParagraph(t.Description), RequiresApproval: t.RequiresApproval, Kind: KindMethod},
				doc: search.NewDocument(search.Tool{Namespace: cn.Name, Name: t.Name, Description: t.Description, InputSchema: t.InputSchema}),
			})
		}
	}
	return docs
}

func snippetDoc(s Snippet) searchDoc {
	return searchDoc{
		result: SearchResult{Path: s.Name, Connector: StepConnector, Method: s.Name, Description: firstParagraph(s.Description), Kind: KindSnippet},
		doc:    search.NewDocument(search.Tool{Namespace: strings.Join(s.Connectors, " "), Name: s.Name, Description: s.Description, InputSchema: s.InputSchema}),
	}
}

// snippetsKey identifies a snippet set for the index cache.
func snippetsKey(snippets []Snippet) string {
	var b strings.Builder
	for _, s := range snippets {
		fmt.Fprintf(&b, "%s\x00%d\x00", s.Name, s.SavedAt)
	}
	return b.String()
}

// firstParagraph is a description's first paragraph, at most 300
// characters: the search result's summary.
func firstParagraph(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.Index(s, "\n\n"); i >= 0 {
		s = s[:i]
	}
	if len(s) > 300 {
		cut := 300
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
		s = strings.TrimSpace(s[:cut]) + "…"
	}
	return s
}

// Describe returns the declarations of target, looked up in this order: a
// snippet of that name, a connector of that name, then
// "connector.method". It returns an error wrapping ErrUnknownTarget, with
// a hint, for anything else.
func (c *Catalog) Describe(target string, snippets []Snippet) (DescribeOutput, error) {
	target = strings.TrimSpace(target)
	for _, s := range snippets {
		if s.Name == target {
			return describeSnippet(s), nil
		}
	}
	c.mu.Lock()
	out, ok := c.cache[target]
	c.mu.Unlock()
	if ok {
		return out, nil
	}
	out, err := c.describe(target)
	if err != nil {
		return DescribeOutput{}, err
	}
	c.mu.Lock()
	c.cache[target] = out
	c.mu.Unlock()
	return out, nil
}

func (c *Catalog) describe(target string) (DescribeOutput, error) {
	for _, cn := range c.connectors {
		if cn.Name == target {
			types, err := c.decl.NamespaceDeclarations(cn.Name)
			if err != nil {
				return DescribeOutput{}, fmt.Errorf("durable: describing %s: %w", target, err)
			}
			return DescribeOutput{Path: cn.Name, Description: cn.Instructions, Types: types, Kind: KindConnector}, nil
		}
	}
	if ns, method, ok := strings.Cut(target, "."); ok {
		if t := c.tools[ns][method]; t != nil {
			types, err := c.describeMethod(ns, method)
			if err != nil {
				return DescribeOutput{}, fmt.Errorf("durable: describing %s: %w", target, err)
			}
			return DescribeOutput{Path: target, Description: t.Description, RequiresApproval: t.RequiresApproval, Types: types, Kind: KindMethod}, nil
		}
		if c.tools[ns] != nil {
			return DescribeOutput{}, fmt.Errorf("%w: connector %s has no method %s; codemode.search(%q) finds methods, codemode.describe(%q) lists them", ErrUnknownTarget, ns, method, method, ns)
		}
	}
	return DescribeOutput{}, fmt.Errorf("%w: %q is not a snippet, a connector (%s) or a connector.method; codemode.search(words) finds methods and snippets",
		ErrUnknownTarget, target, strings.Join(c.names(), ", "))
}

// describeMethod is the TypeScript of one method with only the named types
// it reaches, within typegen.DefaultDescribeChars (types that do not fit
// are listed by name; describing the connector declares them all).
func (c *Catalog) describeMethod(ns, method string) (string, error) {
	c.mu.Lock()
	d := c.describers[ns]
	c.mu.Unlock()
	if d == nil {
		for _, n := range c.decl.NamespaceList() {
			if n.Name != ns {
				continue
			}
			var err error
			if d, err = n.Describer(); err != nil {
				return "", err
			}
		}
		if d == nil {
			return "", fmt.Errorf("no namespace %s", ns)
		}
		c.mu.Lock()
		if c.describers == nil {
			c.describers = map[string]*typegen.Describer{}
		}
		c.describers[ns] = d
		c.mu.Unlock()
	}
	text, err := d.Tool(method, 0)
	if err != nil {
		return "", err
	}
	return strings.TrimRight(text, "\n") + "\n\ndeclare const " + ns + ": " + typegen.InterfaceName(ns) + ";\n", nil
}

func (c *Catalog) names() []string {
	names := make([]string, len(c.connectors))
	for i, cn := range c.connectors {
		names[i] = cn.Name
	}
	return names
}

// describeSnippet declares how to run a snippet: codemode.run with its
// name and input type (from its input schema; unknown without one).
func describeSnippet(s Snippet) DescribeOutput {
	input := "input?: unknown"
	if len(s.InputSchema) > 0 && string(s.InputSchema) != "null" {
		input = "input: " + indentType(typegen.LenientType(s.InputSchema))
	}
	doc := s.Description
	if len(s.Connectors) > 0 {
		doc += "\nUses the connectors " + strings.Join(s.Connectors, ", ") + "."
	}
	var b strings.Builder
	b.WriteString("interface CodemodeSnippets {\n  /**\n")
	for _, l := range strings.Split(strings.TrimSpace(doc), "\n") {
		b.WriteString(strings.TrimRight("   * "+strings.ReplaceAll(l, "*/", "*\\/"), " ") + "\n")
	}
	b.WriteString("   */\n")
	name, _ := json.Marshal(s.Name)
	b.WriteString("  run(name: " + string(name) + ", " + input + "): Promise<unknown>;\n}\n")
	return DescribeOutput{Path: s.Name, Description: s.Description, Types: b.String(), Kind: KindSnippet}
}

// indentType indents a multi-line type by two spaces after its first line.
func indentType(t string) string { return strings.ReplaceAll(t, "\n", "\n  ") }
