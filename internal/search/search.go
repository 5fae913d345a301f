// Package search ranks documents (connector methods, saved snippets) for a
// natural-language query with Okapi BM25 over weighted fields (BM25F:
// Robertson, Zaragoza and Taylor, "Simple BM25 extension to multiple
// weighted fields", CIKM 2004). As in that paper, each field's term
// frequency is normalised by that field's own length against its average
// over the documents before the fields are weighted and summed, so a long
// description does not drown a match in a short name (GitHub's pulls/list,
// whose description runs to a page, ranked 24th for "list the open pull
// requests" when the whole document's length normalised the name).
//
// Text is split into words at every character that is not a letter or a
// digit and at identifier boundaries (listPullRequests, list_pull_requests,
// pulls/list, HTTPServer and v2beta all split), lower-cased, stripped of
// common English stop words and stemmed with the Snowball English (Porter2)
// stemmer, so "sends messages" and "send_message" meet on send and messag.
//
// A document matches only through a whole stemmed word, or a query word of
// four or more letters that begins a document word (repo finds repository);
// a document with no such match is never returned. Short prefixes do not
// match: one- and two-letter prefix tokens are how Cloudflare's Code Mode
// search returned weather.getForecast for "send slack message"
// (https://github.com/cloudflare/agents/issues/2296).
package search

import (
	"cmp"
	"math"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/kljensen/snowball/english"
)

// Field is one part of a document with its weight: a word in a field of
// weight 3 counts as three occurrences of a word in a field of weight 1 of
// the same relative length. Fields are matched up by position: field i of
// every document is the same kind of text (the name, the namespace, ...),
// and its length is compared with the average length of field i.
type Field struct {
	Text   string
	Weight float64
	// Coverage, when above zero, adds to a matching document's score
	// Coverage times the share of this field's words (each weighed by its
	// inverse document frequency) that the query matches: a name the query
	// covers whole (pulls_list for "list the open pull requests") ranks
	// above a longer name that shares as many words with the query but says
	// more (repos_list_pull_requests_associated_with_commit).
	Coverage float64
}

// The field weights Index uses for the parts of a method or snippet.
const (
	WeightName        = 3.0 // the method or snippet name
	WeightNamespace   = 2.0 // the connector name
	WeightParameters  = 1.5 // the input's property names
	WeightSummary     = 1.5 // the description's first paragraph (an OpenAPI operation's summary)
	WeightDescription = 1.0 // the description

	// NameCoverage is the name's Field.Coverage: a name the query covers
	// whole gains about what one or two more well-matched words add. Set on
	// the first 15 GitHub queries of bench/economy (recall@5 9/15 -> 13/15)
	// and checked on 18 written afterwards and not tuned on (14/18 ->
	// 18/18).
	NameCoverage = 4.0
)

// BM25's parameters: k1 saturates a word's frequency, b normalises by
// length (the usual values).
const (
	k1 = 1.2
	b  = 0.75
	// prefixFactor discounts a match through a prefix against a whole word.
	prefixFactor = 0.5
	// minPrefix is the shortest query word that matches as a prefix.
	minPrefix = 4
)

// Index is an immutable BM25F index over documents given as weighted
// fields. Build it once with New; Search is safe for concurrent use.
type Index struct {
	n       int            // documents
	cover   []coverField   // per document, the field whose coverage counts (Field.Coverage)
	df      map[string]int // documents containing each term
	terms   []string       // every term, sorted (for prefix matches)
	posting map[string][]posting
}

type coverField struct {
	weight float64
	terms  []string // distinct
}

type posting struct {
	doc int
	tf  float64 // the fields' weighted, length-normalised frequencies, summed
}

// New indexes the documents; document i is identified by i in results.
func New(documents [][]Field) *Index {
	ix := &Index{n: len(documents), cover: make([]coverField, len(documents)), df: map[string]int{}, posting: map[string][]posting{}}
	// Each document's terms per field, and each field's average length.
	terms := make([][][]string, len(documents))
	var total []float64
	for i, fields := range documents {
		terms[i] = make([][]string, len(fields))
		for f, field := range fields {
			terms[i][f] = Terms(field.Text)
			if f == len(total) {
				total = append(total, 0)
			}
			total[f] += float64(len(terms[i][f]))
			if field.Coverage > 0 && ix.cover[i].weight == 0 {
				ts := slices.Clone(terms[i][f])
				slices.Sort(ts)
				ix.cover[i] = coverField{weight: field.Coverage, terms: slices.Compact(ts)}
			}
		}
	}
	for i, fields := range documents {
		tf := map[string]float64{}
		for f, field := range fields {
			avg := max(total[f]/float64(len(documents)), 1)
			norm := 1 - b + b*float64(len(terms[i][f]))/avg
			for _, w := range terms[i][f] {
				tf[w] += field.Weight / norm
			}
		}
		for w, n := range tf {
			ix.df[w]++
			ix.posting[w] = append(ix.posting[w], posting{doc: i, tf: n})
		}
	}
	ix.terms = make([]string, 0, len(ix.df))
	for w := range ix.df {
		ix.terms = append(ix.terms, w)
	}
	sort.Strings(ix.terms)
	return ix
}

// Len returns the number of documents.
func (ix *Index) Len() int { return ix.n }

// Hit is a matching document and its score (higher is better).
type Hit struct {
	Doc   int
	Score float64
}

// Search returns every document that matches a query word, best first (ties
// by document order). A query with no word left after stop words and
// stemming matches nothing.
func (ix *Index) Search(query string) []Hit {
	scores := map[int]float64{}
	seen := map[string]bool{}
	for _, q := range Terms(query) {
		if seen[q] {
			continue
		}
		seen[q] = true
		if _, ok := ix.df[q]; ok {
			ix.add(scores, q, 1)
		}
		if len(q) < minPrefix {
			continue
		}
		// Whole words that q begins (repo -> repositori); the best one per
		// document counts, discounted.
		best := map[int]float64{}
		i := sort.SearchStrings(ix.terms, q)
		for ; i < len(ix.terms) && strings.HasPrefix(ix.terms[i], q); i++ {
			t := ix.terms[i]
			if t == q {
				continue
			}
			for _, p := range ix.posting[t] {
				best[p.doc] = max(best[p.doc], ix.termScore(t, p))
			}
		}
		for d, s := range best {
			scores[d] += prefixFactor * s
		}
	}
	for d := range scores {
		scores[d] += ix.coverage(d, seen)
	}
	hits := make([]Hit, 0, len(scores))
	for d, s := range scores {
		hits = append(hits, Hit{Doc: d, Score: s})
	}
	slices.SortFunc(hits, func(x, y Hit) int {
		if c := cmp.Compare(y.Score, x.Score); c != 0 {
			return c
		}
		return cmp.Compare(x.Doc, y.Doc)
	})
	return hits
}

// coverage is document d's Field.Coverage bonus for the query's terms:
// the idf-weighted share of the field's words that a query term equals or,
// with minPrefix letters or more, begins.
func (ix *Index) coverage(d int, query map[string]bool) float64 {
	c := ix.cover[d]
	if c.weight == 0 {
		return 0
	}
	var all, hit float64
	for _, t := range c.terms {
		w := ix.idf(t)
		all += w
		for q := range query {
			if q == t || (len(q) >= minPrefix && strings.HasPrefix(t, q)) {
				hit += w
				break
			}
		}
	}
	if all == 0 {
		return 0
	}
	return c.weight * hit / all
}

func (ix *Index) idf(term string) float64 {
	n, df := float64(ix.n), float64(ix.df[term])
	return math.Log(1 + (n-df+0.5)/(df+0.5))
}

func (ix *Index) add(scores map[int]float64, term string, factor float64) {
	for _, p := range ix.posting[term] {
		scores[p.doc] += factor * ix.termScore(term, p)
	}
}

// termScore is BM25F's contribution of one term to one document: the
// term's pseudo-frequency (already length-normalised per field) saturated
// by k1, times its inverse document frequency.
func (ix *Index) termScore(term string, p posting) float64 {
	return ix.idf(term) * p.tf * (k1 + 1) / (p.tf + k1)
}

// stopWords are common English words that say nothing about a method.
var stopWords = map[string]bool{
	"a": true, "an": true, "and": true, "are": true, "as": true, "at": true, "be": true, "by": true,
	"can": true, "do": true, "for": true, "from": true, "how": true, "i": true, "in": true, "into": true,
	"is": true, "it": true, "its": true, "me": true, "my": true, "of": true, "on": true, "or": true,
	"our": true, "that": true, "the": true, "their": true, "this": true, "to": true, "was": true,
	"we": true, "what": true, "when": true, "which": true, "will": true, "with": true, "you": true,
	"your": true, "some": true, "all": true, "any": true, "please": true, "want": true, "need": true,
}

// Terms returns the index terms of text: words split at non-alphanumeric
// characters and identifier boundaries, lower-cased, without stop words,
// stemmed (Snowball English).
func Terms(text string) []string {
	var out []string
	for _, w := range Words(text) {
		if stopWords[w] {
			continue
		}
		if s := english.Stem(w, false); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// Words splits text into lower-case words: at every rune that is not a
// letter or digit, between a lower-case letter or digit and an upper-case
// letter (listPull), before the last upper-case letter of a run followed
// by a lower-case one (HTTPServer: http, server), and between letters and
// digits (v2beta: v, 2, beta).
func Words(text string) []string {
	var words []string
	rs := []rune(text)
	start := -1
	flush := func(end int) {
		if start >= 0 && end > start {
			words = append(words, strings.ToLower(string(rs[start:end])))
		}
		start = -1
	}
	for i, r := range rs {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush(i)
			continue
		}
		if start < 0 {
			start = i
			continue
		}
		p := rs[i-1]
		switch {
		case unicode.IsUpper(r) && (unicode.IsLower(p) || unicode.IsDigit(p)):
			flush(i)
			start = i
		case unicode.IsUpper(r) && unicode.IsUpper(p) && i+1 < len(rs) && unicode.IsLower(rs[i+1]):
			flush(i)
			start = i
		case unicode.IsDigit(r) != unicode.IsDigit(p):
			flush(i)
			start = i
		}
	}
	flush(len(rs))
	return words
}
