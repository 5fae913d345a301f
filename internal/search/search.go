// Package search ranks documents (connector methods, OpenAPI operations,
// saved snippets) for a natural-language query.
//
// The base is Okapi BM25 over weighted fields (BM25F: Robertson, Zaragoza
// and Taylor, "Simple BM25 extension to multiple weighted fields", CIKM
// 2004). As in that paper, each field's term frequency is normalised by
// that field's own length against its average over the documents before
// the fields are weighted and summed, so a long description does not drown
// a match in a short name (GitHub's pulls/list, whose description runs to
// a page, ranked 24th for "list the open pull requests" when the whole
// document's length normalised the name).
//
// On top of the words, the ranking reads what a query asks and what an
// operation does as a verb and an object, the way people name API actions
// ("publish a release": create, release). An operation's verb comes from
// its summary's first word, its name, a verb at the end of its path
// (/invoices/{invoice}/void) or, failing those, its HTTP method (which a
// name may also give after a verb of no family: connectCoreV1GetNodeProxy
// reads); its
// object from its summary's noun phrase and its path's last object; its
// context from the objects its path is under. A query's verb is its first
// word when that is a verb (of the general families in vocabulary.go, or
// one the document's own summaries start with), its object the noun phrase
// after it, its context the words after a preposition. An operation whose
// verb agrees (same family: publish/create/add/open) and whose object is
// the query's ranks above one that only shares words with it, and an
// operation under an object the query does not mention is marked down.
//
// What the document says of each operation beside its summary counts too,
// all of it read from the document: what its input sets or chooses (its
// property names and enum values: "archive a repository" sets archived,
// "approve a pull request" creates a review whose event is APPROVE),
// whether it acts for the caller ("for the authenticated user", a path
// under /user beside /users: "list my repositories"), the one item its
// path is within ("the workflow runs of a repository"), whether it acts on
// people ("Lists the people that have starred": "who starred a
// repository") and whether it checks something ("Check if ...": "is this
// user a member").
//
// Text is split into words at every character that is not a letter or a
// digit and at identifier boundaries (listPullRequests, list_pull_requests,
// pulls/list, HTTPServer and v2beta all split), lower-cased, stripped of
// common English stop words and stemmed with the Snowball English (Porter2)
// stemmer, so "sends messages" and "send_message" meet on send and messag.
// A few common abbreviations in queries are expanded (PR, repo), and the
// abbreviations a document uses in its names and paths for words of its
// summaries (GitHub's refs for reference) are learnt from it, as are its
// compound words (an autolink is a link). Everyday words for actions are
// read as the verbs APIs use (vocabulary.go: "get rid of" deletes, "kill"
// cancels or stops, "turn on" enables, "stop requiring" removes), a
// possessive as "the Y of X", an action done "by deleting a lease" as that
// deletion, "how much" and "how many" as a reading, a generic noun after a
// noun phrase ("a stale Endpoints object") as its head, and an aside ("so
// my commits show as verified", "without merging it") counts for less. A
// name's generic nouns (Collection in deleteCollectionNamespacedEvent) are
// no words of its coverage.
//
// A document matches only through a whole stemmed word, a query word of
// four or more letters that begins a document word (repo finds
// repository), or an abbreviation; a document with no such match is never
// returned. Short prefixes do not match: one- and two-letter prefix tokens
// are how Cloudflare's Code Mode search returned weather.getForecast for
// "send slack message" (https://github.com/cloudflare/agents/issues/2296).
package search

import (
	"cmp"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
)

// minPrefix is the shortest query word that matches as a prefix.
const minPrefix = 4

// maxSettableAgree is the most terms of what an operation's input sets
// that count for it (weights.settableAgrees).
const maxSettableAgree = 2

// Index is an immutable index over documents. Build it once with New;
// Search is safe for concurrent use.
type Index struct {
	n        int
	ids      map[string]int32 // every term's id
	sorted   []string         // every term, sorted (for prefix matches)
	idf      []float64        // by term id
	postings [][]posting      // by term id
	// outPostings and outIDF are the output field's (Document.output),
	// by term id: each term once a document, normalised by the field's
	// length.
	outPostings [][]posting
	outIDF      []float64
	// mainTerms is the number of terms of the other fields: a term of
	// an output field only has an id from mainTerms on, and matches no
	// other part of the ranking (queryWord.outputs).
	mainTerms int32
	docs      []docInfo
	// aliases are abbreviations learnt from the documents, both ways.
	aliases map[int32][]int32
	// compounds are, by term, the documents' words that end with it as
	// a word of their own (link: autolink; learnCompounds).
	compounds map[int32][]int32
	// verbs are the stems the documents use as verbs (their summaries'
	// first words), and the general families' members.
	verbs map[int32]bool
	// rawVerbs are the verbs the summaries start with, as written.
	rawVerbs map[string]bool
	// family is the family bit of each general family member's stem.
	family map[int32]uint8
	// associated are, by object term, the words its operations'
	// descriptions use for it (learnAssociations).
	associated map[int32][]int32
	// heads are the terms that head some document's object.
	heads map[int32]bool
	// objectTerms are the terms of the documents' objects.
	objectTerms map[int32]bool
	// under are the pairs of a term that heads some document's object
	// and an object its path is under (comment, issue).
	under map[[2]int32]bool
	// created are the terms that head the object of a document that
	// creates.
	created map[int32]bool
	// contextRarity is, by term id, how rare it is as a context object
	// (0..1).
	contextRarity []float64
	// settableRarity is, by term id, how rare it is among what the
	// documents' inputs set (0..1): Kubernetes' resourceVersion, on every
	// list, says little.
	settableRarity []float64
	// acronyms are the initials of the documents' object phrases of three
	// words or more, and the phrase's words (pvc: persistent volume claim).
	acronyms map[string][]string
	stems    *stemmer
	pool     *sync.Pool // of *scratch
	// w are the weights it ranks with (defaultWeights unless fitting).
	w weights
}

type posting struct {
	doc int32
	tf  float32 // the fields' weighted, length-normalised frequencies, summed
}

// docInfo is what the ranking reads of one document beside its postings.
type docInfo struct {
	cover    []int32 // the name's distinct terms
	actions  []int32 // the operation's verbs' stems
	families uint8   // the verb families they belong to
	objects  [][]int32
	context  []int32 // objects its path is under
	// settable are the terms of what its input sets or chooses
	// (Document.settable), its objects' and context's left out.
	settable []int32
	shape    uint8 // shapeItem, shapeCollection or 0 (no path)
	people   bool  // it acts on people (Document.people)
	checks   bool  // it asks whether something holds (Document.checks)
	// scope is the term of the nearest item its path is under (repos in
	// /repos/{owner}/{repo}/actions/runs, workflows in
	// /repos/{owner}/{repo}/actions/workflows/{id}/runs), -1 without.
	scope int32
	// item is the term of the object of an item's path (payouts in
	// /payouts/{payout}), -1 for a collection's.
	item int32
	// self says the operation acts for the caller: its name or summary
	// says so (selfWords), or its path starts with the singular of
	// another path's first segment (GitHub's /user/repos beside
	// /users/{username}/repos, Stripe's /v1/account beside /v1/accounts).
	self bool
	// older says another operation differs from this one only in its API
	// version, a newer one (autoscaling/v2 beside v1); version is the term
	// of its own version, -1 without, so that a query that names it is
	// not turned away from it.
	older   bool
	version int32
}

// The shapes of a path: one item (/labels/{name}) or a collection
// (/labels).
const (
	shapeItem = iota + 1
	shapeCollection
)

// New indexes the documents; document i is identified by i in results.
// It ranks with the default weights (defaultWeights).
func New(documents []Document) *Index {
	return newIndex(documents, defaultWeights())
}

// newIndex indexes the documents to rank with the weights w.
func newIndex(documents []Document, w weights) *Index {
	ix := &Index{n: len(documents), w: w, pool: &sync.Pool{}, ids: map[string]int32{}, aliases: map[int32][]int32{}, compounds: map[int32][]int32{}, verbs: map[int32]bool{}, rawVerbs: map[string]bool{},
		family: map[int32]uint8{}, heads: map[int32]bool{}, objectTerms: map[int32]bool{}, under: map[[2]int32]bool{}, created: map[int32]bool{}, associated: map[int32][]int32{}, stems: newStemmer(), docs: make([]docInfo, len(documents))}
	for name, members := range verbFamilies {
		for _, w := range members {
			id := ix.id(ix.stems.stem(w))
			ix.family[id] |= familyBit(name)
			ix.verbs[id] = true
			ix.rawVerbs[w] = true
		}
	}
	described := ix.indexFields(documents)
	parsed := make([]summaryParts, len(documents))
	for i := range documents {
		parsed[i] = parseSummary(documents[i].summary)
		for _, v := range parsed[i].verbs {
			ix.verbs[ix.id(ix.stems.stem(v))] = true
			ix.rawVerbs[v] = true
		}
	}
	for i := range documents {
		if v, _, ok := ix.trailingVerb(&documents[i]); ok {
			ix.verbs[ix.id(ix.stems.stem(v))] = true
		}
	}
	ix.learnAliases(documents)
	ix.learnCompounds(documents)
	ix.learnAcronyms(parsed)
	contextDocs, settableDocs := map[int32]int{}, map[int32]int{}
	firsts := firstSegments(documents)
	for i := range documents {
		ix.docs[i] = ix.analyse(&documents[i], parsed[i])
		ix.docs[i].self = selfDocument(&documents[i], firsts)
		ix.docs[i].people, ix.docs[i].checks = documents[i].people, documents[i].checks
		for _, c := range ix.docs[i].context {
			contextDocs[c]++
		}
		for _, t := range ix.docs[i].settable {
			settableDocs[t]++
		}
		for _, o := range ix.docs[i].objects {
			for _, t := range o {
				ix.objectTerms[t] = true
			}
			if len(o) > 0 {
				ix.heads[o[len(o)-1]] = true
				if ix.docs[i].families&familyBit(familyCreate) != 0 {
					ix.created[o[len(o)-1]] = true
				}
				for _, c := range ix.docs[i].context {
					ix.under[[2]int32{o[len(o)-1], c}] = true
				}
			}
		}
	}
	ix.markOlderVersions(documents)
	ix.learnAssociations(described)
	maxIDF := math.Log(1 + (float64(ix.n)-0.5)/1.5)
	rarity := func(df int) float64 {
		return math.Log(1+(float64(ix.n)-float64(df)+0.5)/(float64(df)+0.5)) / maxIDF
	}
	ix.contextRarity = make([]float64, len(ix.ids))
	for t, df := range contextDocs {
		ix.contextRarity[t] = rarity(df)
	}
	ix.settableRarity = make([]float64, len(ix.ids))
	for t, df := range settableDocs {
		ix.settableRarity[t] = rarity(df)
	}
	ix.indexOutputs(documents)
	for w := range ix.ids {
		ix.sorted = append(ix.sorted, w)
	}
	sort.Strings(ix.sorted)
	n, terms := ix.n, len(ix.ids)
	ix.pool.New = func() any {
		return &scratch{scores: make([]float64, n), best: make([]float64, n), match: make([]float64, terms), wordOf: make([]int8, terms)}
	}
	return ix
}

// markOlderVersions marks the operations that another operation, the same
// but for a newer API version, stands beside.
func (ix *Index) markOlderVersions(documents []Document) {
	newest := map[string]apiVersion{}
	for i := range documents {
		d := &documents[i]
		ix.docs[i].version = -1
		if d.versionless == "" {
			continue
		}
		v, _ := parseVersion(d.version)
		if n, ok := newest[d.versionless]; !ok || v.newer(n) {
			newest[d.versionless] = v
		}
	}
	for i := range documents {
		d := &documents[i]
		if d.versionless == "" {
			continue
		}
		v, _ := parseVersion(d.version)
		if newest[d.versionless].newer(v) {
			ix.docs[i].older = true
			ix.docs[i].version = ix.id(ix.stems.stem(d.version))
		}
	}
}

// id is term's id, a new one for a new term.
func (ix *Index) id(term string) int32 {
	if id, ok := ix.ids[term]; ok {
		return id
	}
	id := int32(len(ix.ids))
	ix.ids[term] = id
	ix.idf = append(ix.idf, 0)
	ix.postings = append(ix.postings, nil)
	return id
}

// indexFields builds the postings and idf of the documents' fields.
// It returns each document's description terms, distinct.
func (ix *Index) indexFields(documents []Document) (described [][]int32) {
	terms := make([][numFields][]int32, len(documents))
	var total [numFields]float64
	for i := range documents {
		for f, ws := range documents[i].fields {
			for _, w := range ws {
				if s := ix.stems.term(w); s != "" {
					terms[i][f] = append(terms[i][f], ix.id(s))
				}
			}
			total[f] += float64(len(terms[i][f]))
		}
	}
	described = make([][]int32, len(documents))
	tf := map[int32]float64{}
	for i := range documents {
		described[i] = slices.Compact(slices.Sorted(slices.Values(terms[i][fieldDescription])))
		clear(tf)
		for f := range numFields {
			avg := max(total[f]/float64(max(len(documents), 1)), 1)
			norm := 1 - ix.w.b + ix.w.b*float64(len(terms[i][f]))/avg
			for _, t := range terms[i][f] {
				tf[t] += ix.w.fields[f] / norm
			}
		}
		for t, n := range tf {
			ix.postings[t] = append(ix.postings[t], posting{doc: int32(i), tf: float32(n)})
		}
	}
	for t, ps := range ix.postings {
		slices.SortFunc(ps, func(x, y posting) int { return cmp.Compare(x.doc, y.doc) })
		df := float64(len(ps))
		ix.idf[t] = math.Log(1 + (float64(ix.n)-df+0.5)/(df+0.5))
	}
	return described
}

// indexOutputs builds the postings and idf of the documents' output
// fields: a term's frequency is 1 over the field's length against its
// average, as BM25F normalises the other fields, and its idf is its rarity
// among the outputs (Kubernetes' metadata, in every one, says nothing).
// It is called last: the output's terms are new terms no other part of the
// index reads.
func (ix *Index) indexOutputs(documents []Document) {
	ix.mainTerms = int32(len(ix.ids))
	terms := make([][]int32, len(documents))
	var total float64
	type read struct {
		terms []int32
	}
	shared := map[*fieldWords]read{} // NewDocument shares outputs
	for i := range documents {
		out := documents[i].output
		if out == nil {
			continue
		}
		r, ok := shared[out]
		if !ok {
			for _, w := range out.words {
				if s := ix.stems.term(w); s != "" {
					r.terms = appendNew(r.terms, ix.id(s))
				}
			}
			shared[out] = r
		}
		terms[i] = r.terms
		total += float64(len(r.terms))
	}
	ix.outPostings = make([][]posting, len(ix.ids))
	df := make([]int, len(ix.ids))
	for _, ts := range terms {
		for _, t := range ts {
			df[t]++
		}
	}
	slab := make([]posting, int(total)) // one allocation for every term's postings
	for t, n := range df {
		ix.outPostings[t], slab = slab[:0:n], slab[n:]
	}
	avg := max(total/float64(max(len(documents), 1)), 1)
	for i, ts := range terms {
		tf := float32(1 / (1 - ix.w.b + ix.w.b*float64(len(ts))/avg))
		for _, t := range ts {
			ix.outPostings[t] = append(ix.outPostings[t], posting{doc: int32(i), tf: tf})
		}
	}
	ix.outIDF = make([]float64, len(ix.ids))
	for t, ps := range ix.outPostings {
		df := float64(len(ps))
		ix.outIDF[t] = math.Log(1 + (float64(ix.n)-df+0.5)/(df+0.5))
	}
}

// learnAssociations finds the words an object's operations keep using in
// their descriptions for what they act on, though the object is named
// otherwise: GitHub's references (git/refs) are described with branches
// ("heads/<branch name> for branches"). A word in at least half the
// descriptions of an object's three or more operations, in at most a
// fifth of all descriptions and itself the object of some operation is
// associated with the object.
func (ix *Index) learnAssociations(described [][]int32) {
	byHead := map[int32][]int{}
	for i := range ix.docs {
		var hs []int32
		for _, o := range ix.docs[i].objects {
			if len(o) > 0 {
				hs = appendNew(hs, o[len(o)-1])
			}
		}
		for _, h := range hs {
			byHead[h] = append(byHead[h], i)
		}
	}
	df := map[int32]int{}
	for _, ts := range described {
		for _, t := range ts {
			df[t]++
		}
	}
	count := map[int32]int{}
	for h, docs := range byHead {
		if len(docs) < 3 {
			continue
		}
		clear(count)
		for _, i := range docs {
			for _, t := range described[i] {
				count[t]++
			}
		}
		for t, c := range count {
			if t != h && ix.heads[t] && 2*c >= len(docs) && 5*df[t] <= ix.n {
				ix.associated[h] = append(ix.associated[h], t)
			}
		}
	}
}

// learnAliases finds the abbreviations a document uses: a word of an
// operation's name or path that its summary does not use but begins a
// word its summary does (GitHub's git_create_ref, "Create a reference";
// repos_get, "Get a repository"). A pair seen in two documents or more is
// an alias.
func (ix *Index) learnAliases(documents []Document) {
	seen := map[[2]int32]int{}
	for i := range documents {
		d := &documents[i]
		summary := map[string]bool{}
		for _, w := range d.fields[fieldSummary] {
			if s := ix.stems.term(w); s != "" {
				summary[s] = true
			}
		}
		short := map[string]bool{}
		for _, w := range append(slices.Clone(d.name), d.fields[fieldPath]...) {
			if s := ix.stems.term(w); len(s) >= 2 && !summary[s] {
				short[s] = true
			}
		}
		for s := range short {
			for long := range summary {
				if len(long) > len(s)+1 && strings.HasPrefix(long, s) {
					seen[[2]int32{ix.id(s), ix.id(long)}]++
				}
			}
		}
	}
	for pair, n := range seen {
		if n >= 2 {
			ix.aliases[pair[0]] = append(ix.aliases[pair[0]], pair[1])
			ix.aliases[pair[1]] = append(ix.aliases[pair[1]], pair[0])
		}
	}
}

// learnCompounds finds the words of the documents' names and paths that
// are two of their words run together, the last naming what it is:
// GitHub's autolinks are links, Kubernetes' ephemeralcontainers (a path
// segment) containers. A query word matches such a compound as it matches
// a word it begins (weights.prefix). Both parts must be words of the
// documents, the first of three letters or more, the last of four.
func (ix *Index) learnCompounds(documents []Document) {
	known := map[string]bool{}
	for i := range documents {
		for _, ws := range documents[i].fields {
			for _, w := range ws {
				known[w] = true
			}
		}
	}
	ix.compounds = map[int32][]int32{}
	done := map[string]bool{}
	for i := range documents {
		d := &documents[i]
		for _, w := range append(slices.Clone(d.fields[fieldName]), d.fields[fieldPath]...) {
			if len(w) < 7 || done[w] {
				continue
			}
			done[w] = true
			for j := 3; j <= len(w)-4; j++ {
				if !known[w[:j]] || !known[w[j:]] {
					continue
				}
				part, whole := ix.stems.term(w[j:]), ix.stems.term(w)
				if part != "" && whole != "" && part != whole {
					ix.compounds[ix.id(part)] = appendNew(ix.compounds[ix.id(part)], ix.id(whole))
				}
				break
			}
		}
	}
}

// learnAcronyms finds the initials people write for the documents' long
// object names: Kubernetes' PersistentVolumeClaim is a PVC, a
// HorizontalPodAutoscaler an HPA. An object phrase of three or four words
// (a summary's) gives its initials, kept when they are no word of the
// documents and when no other phrase of as many documents has them.
func (ix *Index) learnAcronyms(parsed []summaryParts) {
	count := map[string]map[string]int{}
	for _, sp := range parsed {
		if len(sp.phrase) < 3 || len(sp.phrase) > 4 {
			continue
		}
		var initials []byte
		for _, w := range sp.phrase {
			if !letters(w) || w[0] < 'a' || w[0] > 'z' {
				initials = nil
				break
			}
			initials = append(initials, w[0])
		}
		if initials == nil {
			continue
		}
		a := string(initials)
		if count[a] == nil {
			count[a] = map[string]int{}
		}
		count[a][strings.Join(sp.phrase, " ")]++
	}
	ix.acronyms = map[string][]string{}
	for a, phrases := range count {
		if _, known := ix.ids[ix.stems.stem(a)]; known {
			continue
		}
		best, n, tied := "", 0, false
		for p, c := range phrases {
			switch {
			case c > n:
				best, n, tied = p, c, false
			case c == n:
				tied = true
			}
		}
		if !tied {
			ix.acronyms[a] = strings.Fields(best)
		}
	}
}

// Len returns the number of documents.
func (ix *Index) Len() int { return ix.n }

// Hit is a matching document and its score (higher is better).
type Hit struct {
	Doc   int
	Score float64
}

// Search ranks the documents that match a query word and returns the
// best limit of them, best first (ties by document order; every one when
// limit is 0 or less), and how many matched in all. A query with no word
// left after stop words and stemming matches nothing.
func (ix *Index) Search(query string, limit int) (hits []Hit, total int) {
	sc := ix.pool.Get().(*scratch)
	defer ix.pool.Put(sc)
	q := ix.parseQuery(query, sc.match)
	q.indexWords(sc.wordOf)
	defer q.reset()
	if len(q.words) == 0 {
		return []Hit{}, 0
	}
	scores, best := sc.scores, sc.best
	touched, matched := sc.touched[:0], sc.matched[:0]
	for _, w := range q.words {
		matched = matched[:0]
		for _, e := range w.expansions {
			for _, p := range ix.postings[e.term] {
				s := w.factor * e.factor * ix.termScore(e.term, p)
				if best[p.doc] == 0 {
					matched = append(matched, p.doc)
				}
				best[p.doc] = max(best[p.doc], s)
			}
		}
		for _, d := range matched {
			if scores[d] == 0 {
				touched = append(touched, d)
			}
			scores[d] += best[d]
			best[d] = 0
		}
	}
	ix.addOutputs(q, scores, best, matched)
	top := topHits{limit: limit}
	for _, d := range touched {
		s := scores[d] + ix.coverage(d, q) + ix.structure(d, q)
		top.add(Hit{Doc: int(d), Score: max(s, scores[d]/100)})
		scores[d] = 0
	}
	sc.touched, sc.matched = touched, matched
	return top.sorted(), len(touched)
}

// addOutputs adds to the score of each document a query word matched
// (scores above 0) weights.output times BM25 over its output field: the
// field names of what it returns count for an operation the query names
// otherwise, and bring no other. best and matched are scratch space,
// best all zero.
func (ix *Index) addOutputs(q *query, scores, best []float64, matched []int32) {
	if ix.w.output == 0 || !q.reads() {
		return
	}
	for _, w := range q.words {
		matched = matched[:0]
		for _, e := range w.outputs {
			for _, p := range ix.outPostings[e.term] {
				if scores[p.doc] <= 0 {
					continue
				}
				tf := float64(p.tf)
				s := w.factor * e.factor * ix.outIDF[e.term] * tf * (ix.w.k1 + 1) / (tf + ix.w.k1)
				if best[p.doc] == 0 {
					matched = append(matched, p.doc)
				}
				best[p.doc] = max(best[p.doc], s)
			}
		}
		for _, d := range matched {
			scores[d] += ix.w.output * best[d]
			best[d] = 0
		}
	}
}

// reads reports whether the query reads: gets, lists or searches, or
// asks without a verb.
func (q *query) reads() bool {
	reads := familyBit(familyGet) | familyBit(familyList) | familyBit(familySearch)
	return q.family&^reads == 0 && (q.verb < 0 || q.family != 0)
}

// scratch is one search's working memory, reused through Index.pool.
type scratch struct {
	scores, best     []float64 // by document
	match            []float64 // by term: how well the query matches it
	wordOf           []int8    // by term: the query word that matches it best, from 1
	touched, matched []int32
}

// better reports whether x ranks above y.
func better(x, y Hit) bool {
	return x.Score > y.Score || x.Score == y.Score && x.Doc < y.Doc
}

// topHits keeps the best limit hits (all of them when limit <= 0) in a
// min-heap: the worst kept hit is at the root.
type topHits struct {
	limit int
	heap  []Hit
}

func (t *topHits) add(h Hit) {
	if t.limit <= 0 || len(t.heap) < t.limit {
		t.heap = append(t.heap, h)
		if t.limit > 0 {
			t.up(len(t.heap) - 1)
		}
		return
	}
	if !better(h, t.heap[0]) {
		return
	}
	t.heap[0] = h
	t.down(0)
}

func (t *topHits) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !better(t.heap[p], t.heap[i]) {
			return
		}
		t.heap[p], t.heap[i] = t.heap[i], t.heap[p]
		i = p
	}
}

func (t *topHits) down(i int) {
	for {
		worst, l, r := i, 2*i+1, 2*i+2
		if l < len(t.heap) && better(t.heap[worst], t.heap[l]) {
			worst = l
		}
		if r < len(t.heap) && better(t.heap[worst], t.heap[r]) {
			worst = r
		}
		if worst == i {
			return
		}
		t.heap[i], t.heap[worst] = t.heap[worst], t.heap[i]
		i = worst
	}
}

// sorted returns the kept hits, best first.
func (t *topHits) sorted() []Hit {
	hits := t.heap
	if hits == nil {
		hits = []Hit{}
	}
	slices.SortFunc(hits, func(x, y Hit) int {
		if c := cmp.Compare(y.Score, x.Score); c != 0 {
			return c
		}
		return cmp.Compare(x.Doc, y.Doc)
	})
	return hits
}

// coverage is document d's name coverage bonus: weights.nameCoverage times the
// idf-weighted share of its name's terms the query matches.
func (ix *Index) coverage(d int32, q *query) float64 {
	var all, hit float64
	for _, t := range ix.docs[d].cover {
		all += ix.idf[t]
		hit += ix.idf[t] * q.match[t]
	}
	if all == 0 {
		return 0
	}
	return ix.w.nameCoverage * hit / all
}

// structure is document d's verb, object and context agreement with q.
func (ix *Index) structure(d int32, q *query) float64 {
	doc := &ix.docs[d]
	reads := familyBit(familyGet) | familyBit(familyList) | familyBit(familySearch)
	var verb, object float64
	if q.family != 0 || q.verb >= 0 {
		switch {
		case len(q.alts) > 0:
			verb = ix.altsAgree(doc, q)
		case q.verb >= 0 && slices.Contains(doc.actions, q.verb), q.family&doc.families != 0:
			verb = 1
		case related(q.family, doc.families):
			verb = ix.w.relatedVerb
		case q.general && doc.families != 0:
			verb = -ix.w.verbDisagrees / ix.w.verbAgrees
		case q.verbWord != nil && q.family&reads == 0 && doc.families != 0 && doc.families&^reads == 0:
			// An action the documents do not name generally ("force
			// a branch to point at a commit") is not a reading.
			verb = -ix.w.verbDisagrees / ix.w.verbAgrees / 2
		}
		if verb < ix.w.everydayLesser && ix.verbSettable(doc, q) {
			verb = ix.w.everydayLesser // "approve a pull request": a review whose event is APPROVE
		}
		verb *= q.verbWeight
	}
	if q.object != nil {
		for _, phrase := range doc.objects {
			object = max(object, ix.objectMatch(phrase, q.object, q))
		}
	}
	if object > 0 && len(q.modifiers) > 0 {
		object *= 1 - ix.w.missedModifiers + ix.w.missedModifiers*ix.modifiersShare(doc, q)
	}
	if object == 0 && q.object != nil && ix.headInContext(doc, q) {
		object = -ix.w.contextAsObject / ix.w.objectAgrees
	}
	if q.object == nil && q.unknownObject && ix.namesObject(doc, q) {
		// "roll out a new container image to a stateful set": no
		// operation acts on an image; one that acts on something else
		// the query names is what it most likely means.
		object = ix.w.unknownObjectNamed
	}
	score := ix.w.verbAgrees*verb + ix.w.objectAgrees*object
	if verb == 1 {
		score += ix.w.bothAgree * object
	}
	// "fork a repository": GitHub's "Create a fork"; "scale a stateful
	// set": update its scale.
	if q.verbNoun && q.verbWord != nil && (headIs(doc, q.verbWord) || headIn(doc, q.madeBy)) {
		switch {
		case q.undo:
			if doc.families&familyBit(familyDelete) != 0 {
				score = max(score, ix.w.verbAgrees+ix.w.objectAgrees+ix.w.bothAgree)
			}
		case doc.families&familyBit(familyCreate) != 0:
			score = max(score, ix.w.verbAgrees+ix.w.objectAgrees+ix.w.bothAgree)
		case doc.families&familyBit(familyUpdate) != 0:
			score = max(score, ix.w.verbAgrees*0.75+ix.w.objectAgrees+ix.w.bothAgree)
		}
	}
	if q.object != nil && doc.shape != 0 && q.family&(familyBit(familyGet)|familyBit(familyUpdate)|familyBit(familyDelete)) != 0 {
		if (doc.shape == shapeItem) != q.plural {
			score += ix.w.numberAgrees
		}
	}
	score += ix.settableAgreement(doc, q)
	if q.self && doc.self {
		score += ix.w.selfAgrees
	}
	if q.people && doc.people {
		score += ix.w.peopleAgrees
	}
	if q.whether && doc.checks {
		score += ix.w.whetherAgrees
	}
	switch {
	case doc.scope >= 0 && slices.ContainsFunc(q.owners, func(w *queryWord) bool { return w.match(doc.scope) > 0 }):
		score += ix.w.scopeAgrees
	case doc.item >= 0 && slices.ContainsFunc(q.owners, func(w *queryWord) bool { return w.match(doc.item) > 0 }):
		score += ix.w.scopeAgrees / 2 // the one thing itself: "the status of a payout"
	}
	if doc.older && q.match[doc.version] == 0 {
		score -= ix.w.olderVersion // "autoscale on a custom metric": v2, unless the query says v1
	}
	agreed := 0
	for _, c := range doc.context {
		switch {
		case slices.Contains(q.spans, c):
			score -= ix.w.contextAgrees // within one of what the query spans
		case q.match[c] == 0:
			score -= ix.w.unrelatedContext * ix.contextRarity[c]
		case q.inObject(c):
			// The query's object words said it already ("workflow runs"
			// against /workflows/{id}/runs): neither for nor against.
		case agreed < 2:
			score += ix.w.contextAgrees
			agreed++
		}
	}
	return score
}

// settableAgreement is weights.settableAgrees times the query's matches of what
// doc's input sets or chooses (at most maxSettableAgree of them), when the
// query names doc's object or the last object its path is under (by a
// word other than its verb). Words of the query's noun phrases count, and
// its verb when it is no general one and doc sets something (creates,
// updates or acts otherwise; "approve a pull request": a review's event
// APPROVE). A noun phrase's last word does not count when the phrase
// names doc's object or where it is ("request" in "review a pull
// request", not REQUEST_CHANGES), though a word before it does ("the open
// pull requests": state open); nor does the query's object phrase when
// the documents have operations on that object and doc's object is
// another ("the card payments capability of an account" asks for the
// capability's operations, not the account's card_payments).
func (ix *Index) settableAgreement(doc *docInfo, q *query) float64 {
	reads := familyBit(familyGet) | familyBit(familyList) | familyBit(familySearch)
	if len(doc.settable) == 0 || (q.family&reads != 0 && q.family&^reads == 0) != (doc.families&reads != 0) || !ix.namesSubject(doc, q) {
		return 0
	}
	var sum float64
	n := 0
	objectOther := -1 // whether the query's object is another operation's: unknown
	for _, t := range doc.settable {
		k := q.wordOf[t]
		if k == 0 {
			continue
		}
		w := &q.words[k-1]
		switch {
		case w == q.verbWord:
			if q.general && len(q.alts) == 0 || doc.families&(reads|familyBit(familyDelete)) != 0 {
				continue
			}
		case w.phrase == 0 || w.aside, w.head && ix.phraseNamesDoc(doc, q, w.phrase):
			continue
		case q.inObjectWord(w):
			if objectOther < 0 {
				objectOther = 0
				if ix.objectElsewhere(doc, q) {
					objectOther = 1
				}
			}
			if objectOther == 1 {
				continue
			}
		}
		sum += q.match[t] * w.factor * ix.settableRarity[t]
		if n++; n == maxSettableAgree {
			break
		}
	}
	return ix.w.settableAgrees * sum
}

// verbSettable reports whether the query's verb, no general one, is
// something doc sets (its input's property or enum value: GitHub's review
// event APPROVE, a repository's archived), and doc neither reads nor
// deletes.
func (ix *Index) verbSettable(doc *docInfo, q *query) bool {
	if q.verbWord == nil || q.general && len(q.alts) == 0 ||
		doc.families&(familyBit(familyGet)|familyBit(familyList)|familyBit(familySearch)|familyBit(familyDelete)) != 0 {
		return false
	}
	id, ok := ix.ids[q.verbWord.stem] // the word itself: "allow" is not "enabled"
	return ok && slices.Contains(doc.settable, id)
}

// objectElsewhere reports whether the query's object heads some
// operation's object and none of doc's.
func (ix *Index) objectElsewhere(doc *docInfo, q *query) bool {
	if q.object == nil {
		return false
	}
	for _, o := range doc.objects {
		if len(o) > 0 && q.object.match(o[len(o)-1]) > 0 {
			return false
		}
	}
	for _, e := range q.object.expansions {
		if ix.heads[e.term] {
			return true
		}
	}
	return false
}

// phraseNamesDoc reports whether a word of the query's noun phrase p
// matches one of doc's objects' words or its context.
func (ix *Index) phraseNamesDoc(doc *docInfo, q *query, p int8) bool {
	for i := range q.words {
		w := &q.words[i]
		if w.phrase != p {
			continue
		}
		for _, c := range doc.context {
			if w.match(c) > 0 {
				return true
			}
		}
		for _, o := range doc.objects {
			for _, t := range o {
				if w.match(t) > 0 {
					return true
				}
			}
		}
	}
	return false
}

// namesObject reports whether the query names, by a word other than its
// verb, the head of one of doc's objects.
func (ix *Index) namesObject(doc *docInfo, q *query) bool {
	for _, o := range doc.objects {
		if len(o) > 0 {
			if k := q.wordOf[o[len(o)-1]]; k > 0 && &q.words[k-1] != q.verbWord {
				return true
			}
		}
	}
	return false
}

// namesSubject reports whether the query names one of doc's objects (its
// head) or the last object its path is under.
func (ix *Index) namesSubject(doc *docInfo, q *query) bool {
	named := func(t int32) bool { k := q.wordOf[t]; return k > 0 && &q.words[k-1] != q.verbWord }
	for _, o := range doc.objects {
		if len(o) > 0 && named(o[len(o)-1]) {
			return true
		}
	}
	return len(doc.context) > 0 && named(doc.context[len(doc.context)-1])
}

// altsAgree is how well doc's verbs agree with an everyday verb's
// alternatives (query.alts): 1 with the most usual the documents use,
// weights.everydayLesser with another, and as for any general verb otherwise.
func (ix *Index) altsAgree(doc *docInfo, q *query) float64 {
	for k, a := range q.alts {
		if slices.Contains(doc.actions, a) || ix.family[a]&doc.families != 0 {
			if k == 0 {
				return 1
			}
			return ix.w.everydayLesser
		}
	}
	switch {
	case related(q.family, doc.families):
		return ix.w.relatedVerb
	case doc.families != 0:
		return -ix.w.verbDisagrees / ix.w.verbAgrees
	}
	return 0
}

// objectMatch is how well the query's object matches one of an
// operation's object phrases: 1 when its head is the query's head (less
// through a prefix or abbreviation), 0.4 when the query's head is another
// of its words; words of the phrase the query does not have lower it
// ("admin branch protection" for "branch protection").
func (ix *Index) objectMatch(phrase []int32, object *queryWord, q *query) float64 {
	if len(phrase) == 0 {
		return 0
	}
	head := phrase[len(phrase)-1]
	f := object.match(head)
	if f == 0 {
		for _, t := range phrase[:len(phrase)-1] {
			f = max(f, ix.w.otherWordObject*object.match(t))
		}
		for _, t := range ix.associated[head] {
			f = max(f, ix.w.association*object.match(t))
		}
	}
	if f == 0 || len(phrase) == 1 {
		return f
	}
	var all, missed float64
	for _, t := range phrase[:len(phrase)-1] {
		all += ix.idf[t]
		if q.match[t] == 0 {
			missed += ix.idf[t]
		}
	}
	if all == 0 {
		return f
	}
	return f * (1 - ix.w.extraModifier*missed/all)
}

// headInContext reports whether one of doc's objects is headed by a word
// the query says where the action happens, not what it acts on ("a
// commit" in "create a branch from a commit").
func (ix *Index) headInContext(doc *docInfo, q *query) bool {
	for _, phrase := range doc.objects {
		if len(phrase) == 0 {
			continue
		}
		h := phrase[len(phrase)-1]
		if q.match[h] > 0 && !q.inObject(h) && (q.verbWord == nil || q.verbWord.match(h) == 0) {
			return true
		}
	}
	return false
}

// headIs reports whether w heads one of doc's objects.
func headIs(doc *docInfo, w *queryWord) bool {
	for _, phrase := range doc.objects {
		if len(phrase) > 0 && w.match(phrase[len(phrase)-1]) == 1 {
			return true
		}
	}
	return false
}

// headIn reports whether one of doc's objects is headed by one of terms.
func headIn(doc *docInfo, terms []int32) bool {
	for _, phrase := range doc.objects {
		if len(phrase) > 0 && slices.Contains(terms, phrase[len(phrase)-1]) {
			return true
		}
	}
	return false
}

// modifiersShare is the idf-weighted share of the query's object
// modifiers ("pull" in "pull requests") that doc's objects or name have.
func (ix *Index) modifiersShare(doc *docInfo, q *query) float64 {
	var all, hit float64
	for _, m := range q.modifiers {
		w := ix.wordIDF(m)
		all += w
		var f float64
		for _, phrase := range doc.objects {
			for _, t := range phrase {
				f = max(f, m.match(t))
			}
		}
		for _, t := range doc.cover {
			f = max(f, m.match(t))
		}
		hit += w * f
	}
	if all == 0 {
		return 1
	}
	return hit / all
}

// wordIDF is the idf of a query word's own term (its first expansion when
// that is the word itself), else of the rarest term it matches.
func (ix *Index) wordIDF(w *queryWord) float64 {
	var idf float64
	for _, e := range w.expansions {
		idf = max(idf, ix.idf[e.term])
	}
	return idf
}

// related reports whether the families of a query and of an operation half
// agree (get, list and search).
func related(query, doc uint8) bool {
	look := familyBit(familyGet) | familyBit(familyList) | familyBit(familySearch)
	return query&look != 0 && doc&look != 0
}

// termScore is BM25F's contribution of one term to one document: the
// term's pseudo-frequency (already length-normalised per field) saturated
// by k1, times its inverse document frequency.
func (ix *Index) termScore(term int32, p posting) float64 {
	tf := float64(p.tf)
	return ix.idf[term] * tf * (ix.w.k1 + 1) / (tf + ix.w.k1)
}
