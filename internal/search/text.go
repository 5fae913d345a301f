package search

import (
	"strings"
	"unicode"

	"github.com/kljensen/snowball/english"
)

// stopWords are common English words that say nothing about a method.
var stopWords = map[string]bool{
	"a": true, "an": true, "and": true, "are": true, "as": true, "at": true, "be": true, "by": true,
	"can": true, "do": true, "for": true, "from": true, "how": true, "i": true, "in": true, "into": true,
	"is": true, "it": true, "its": true, "me": true, "my": true, "of": true, "on": true, "or": true,
	"our": true, "that": true, "the": true, "their": true, "this": true, "to": true, "was": true,
	"we": true, "what": true, "when": true, "which": true, "will": true, "with": true, "you": true,
	"your": true, "some": true, "all": true, "any": true, "please": true, "want": true, "need": true,
	"s": true, "did": true, "does": true, "who": true, "whose": true, "where": true, "am": true,
	// Indefinite pronouns stand for an object, they name none: "assign
	// someone to an issue" names the issue.
	"someone": true, "somebody": true, "something": true, "anyone": true, "anybody": true,
	"anything": true, "everyone": true, "everybody": true, "everything": true,
}

// stemmer stems words with Snowball English (Porter2), remembering each
// word's stem: an index stems the same few thousand words many times.
type stemmer struct{ memo map[string]string }

func newStemmer() *stemmer { return &stemmer{memo: map[string]string{}} }

// stem is w's stem (w lower-case).
func (s *stemmer) stem(w string) string {
	if t, ok := s.memo[w]; ok {
		return t
	}
	t := english.Stem(w, false)
	if len(s.memo) < 1<<16 {
		s.memo[w] = t
	}
	return t
}

// stemQuery is stem without remembering: an index's stemmer is read-only
// once the index is built, so that searches can share it.
func (s *stemmer) stemQuery(w string) string {
	if t, ok := s.memo[w]; ok {
		return t
	}
	return english.Stem(w, false)
}

// termQuery is term without remembering (see stemQuery).
func (s *stemmer) termQuery(w string) string {
	if stopWords[w] {
		return ""
	}
	return s.stemQuery(w)
}

// term is w's index term: its stem, or "" for a stop word.
func (s *stemmer) term(w string) string {
	if stopWords[w] {
		return ""
	}
	return s.stem(w)
}

// terms returns the index terms of text: words split at non-alphanumeric
// characters and identifier boundaries, lower-cased, without stop words,
// stemmed (Snowball English).
func terms(text string) []string {
	var out []string
	s := newStemmer()
	for _, w := range words(text) {
		if t := s.term(w); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// Terms is terms for tools outside the package: the index terms of text
// as an index makes them (vocabgen mines its associations in these terms,
// so they meet a query's words stemmed the same way).
func Terms(text string) []string { return terms(text) }

// words splits text into lower-case words: at every rune that is not a
// letter or digit, between a lower-case letter or digit and an upper-case
// letter (listPull), before the last upper-case letter of a run followed
// by a lower-case one (HTTPServer: http, server; but PRs and IDs stay
// whole), and between letters and digits (v2beta: v, 2, beta).
func words(text string) []string {
	var ws []string
	rs := []rune(text)
	start := -1
	flush := func(end int) {
		if start >= 0 && end > start {
			ws = append(ws, strings.ToLower(string(rs[start:end])))
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
		case unicode.IsUpper(r) && unicode.IsUpper(p) && i+1 < len(rs) && unicode.IsLower(rs[i+1]) && !pluralAcronym(rs, i+1):
			flush(i)
			start = i
		case unicode.IsDigit(r) != unicode.IsDigit(p):
			flush(i)
			start = i
		}
	}
	flush(len(rs))
	return ws
}

// pluralAcronym reports whether rs[i] is the "s" ending a plural acronym
// (PRs, IDsFor): a lone lower-case s not followed by a lower-case letter.
func pluralAcronym(rs []rune, i int) bool {
	return rs[i] == 's' && (i+1 == len(rs) || !unicode.IsLower(rs[i+1]))
}
