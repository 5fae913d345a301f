package search

import (
	"slices"
	"sort"
	"strings"
)

// familyBit is a verb family's bit in a set of families.
func familyBit(family string) uint8 {
	switch family {
	case familyCreate:
		return 1
	case familyGet:
		return 2
	case familyList:
		return 4
	case familySearch:
		return 8
	case familyUpdate:
		return 16
	case familyDelete:
		return 32
	}
	return 0
}

// auxiliaries after a noun start a clause about it.
var auxiliaries = map[string]bool{
	"do": true, "does": true, "did": true, "is": true, "are": true, "was": true, "were": true,
	"has": true, "have": true, "had": true, "can": true, "should": true, "will": true, "would": true, "been": true,
}

// asides start a clause that says why, how or what not, rather than what
// to do: "upload my GPG key so my commits show as verified", "close a pull
// request without merging it". Its words count for less (weights.aside).
var asides = map[string]bool{
	"so": true, "because": true, "since": true, "without": true, "instead": true, "rather": true,
	"unless": true,
}

// particles after a verb belong to it ("look up an event").
var particles = map[string]bool{"up": true, "out": true, "down": true, "off": true, "back": true}

// determiners come before a noun: a word before one is a verb.
var determiners = map[string]bool{
	"a": true, "an": true, "the": true, "my": true, "our": true, "your": true, "this": true, "these": true,
	"those": true, "some": true, "its": true, "their": true, "his": true, "her": true, "every": true, "each": true,
}

// familyMember holds every general family's members.
var familyMember = func() map[string]bool {
	m := map[string]bool{}
	for _, members := range verbFamilies {
		for _, w := range members {
			m[w] = true
		}
	}
	return m
}()

// summaryParts are the verbs a summary starts with ("Create or update
// file contents": create, update) and the noun phrase after them (file,
// contents).
type summaryParts struct {
	verbs, phrase []string
}

// parseSummary reads a summary's (lower-case) words: leading adverbs are
// skipped (Kubernetes' "partially update"), "re-run" is one verb, verbs
// joined by "or" or "and" all count, "returns a list of" lists, and the
// object phrase leaves out generic words ("Retrieves the details of an
// account": account). A summary that does not start with a word that can
// be a verb has neither.
func parseSummary(ws []string) summaryParts {
	i := 0
	for i < len(ws) && len(ws[i]) >= 7 && strings.HasSuffix(ws[i], "ly") {
		i++
	}
	if i >= len(ws) || !familyMember[ws[i]] && (stopWords[ws[i]] || genericNouns[ws[i]] || prepositions[ws[i]] || !letters(ws[i])) {
		return summaryParts{}
	}
	var sp summaryParts
	v := ws[i]
	if v == "re" && i+1 < len(ws) {
		i++
		v += ws[i]
	}
	sp.verbs = append(sp.verbs, v)
	i++
	for i+1 < len(ws) && (ws[i] == "or" || ws[i] == "and") && !stopWords[ws[i+1]] && !genericNouns[ws[i+1]] {
		sp.verbs = append(sp.verbs, ws[i+1])
		i += 2
	}
	if i < len(ws) && ws[i] == "for" {
		i++ // "Search for charges"
	}
	var lists bool
	sp.phrase, lists = nounPhrase(ws[i:])
	if lists {
		sp.verbs = append(sp.verbs, "list")
	}
	if n := len(sp.phrase); n > 0 && n < 4 {
		// "a list of accounts connected to your platform": connected
		// accounts.
		if k := slices.Index(ws[i:], sp.phrase[n-1]); k >= 0 && i+k+1 < len(ws) && participle(ws[i+k+1]) {
			sp.phrase = append([]string{ws[i+k+1]}, sp.phrase...)
		}
	}
	return sp
}

// participle reports whether w is most likely a past participle
// ("connected", "starred").
func participle(w string) bool {
	return len(w) > 4 && strings.HasSuffix(w, "ed")
}

// nounPhrase is the noun phrase ws start with: its words up to a
// preposition, a relative clause, a participle or the fourth word, stop
// words left out.
// Generic words are left out too, and a phrase of only generic words
// continues after "of" ("a list of your customers": customers); lists
// reports a leading "list" so skipped.
func nounPhrase(ws []string) (phrase []string, lists bool) {
	for _, w := range ws {
		switch {
		case prepositions[w]:
			if len(phrase) == 0 && w == "of" {
				continue
			}
			return phrase, lists
		case w == "that" || w == "which" || w == "who" || w == "if" || w == "whose" || w == "where" || w == "when",
			w == "i" || w == "we" || w == "you" || w == "they" || w == "he" || w == "she":
			// A relative clause: "the organizations I belong to".
			return phrase, lists
		case len(phrase) > 0 && (auxiliaries[w] || asides[w]):
			return phrase, lists // "what labels does an issue have", "a key so the machine stops"
		case stopWords[w] || determiners[w] || !letters(w) || adverb(w):
			continue // "the currently applied discount"
		case genericNouns[w]:
			if len(phrase) > 0 && genericHeads[w] {
				return phrase, lists // "a stale Endpoints object left behind": Endpoints
			}
			if w == "list" && len(phrase) == 0 {
				lists = true
			}
			continue
		case len(phrase) > 0 && len(w) > 4 && strings.HasSuffix(w, "ed"):
			// A participle after the noun ends it: "pull requests
			// associated with a commit", "repositories starred by a user".
			return phrase, lists
		}
		phrase = append(phrase, w)
		if len(phrase) == 4 {
			break
		}
	}
	return phrase, lists
}

// firstPerson are the words a query speaks of its caller with.
var firstPerson = map[string]bool{"i": true, "me": true, "my": true, "mine": true, "myself": true}

// selfWords are the words an operation's name or summary says it acts for
// the caller with: GitHub's "for the authenticated user", Kubernetes'
// SelfSubjectReview.
var selfWords = map[string]bool{"authenticated": true, "self": true, "me": true, "my": true, "myself": true}

// firstSegments are the documents' paths' first segments (versions left
// out), their words joined.
func firstSegments(documents []Document) map[string]bool {
	firsts := map[string]bool{}
	for i := range documents {
		if segs := documents[i].segments; len(segs) > 0 && !segs[0].param {
			firsts[strings.Join(segs[0].words, "")] = true
		}
	}
	return firsts
}

// selfDocument reports whether d acts for the caller: its name or summary
// has a self word, or its path starts with a singular whose plural starts
// another path (firsts: /user beside /users, /account beside /accounts).
func selfDocument(d *Document, firsts map[string]bool) bool {
	if slices.ContainsFunc(d.name, func(w string) bool { return selfWords[w] }) ||
		slices.ContainsFunc(d.summary, func(w string) bool { return selfWords[w] }) {
		return true
	}
	if len(d.segments) == 0 || d.segments[0].param {
		return false
	}
	first := strings.Join(d.segments[0].words, "")
	return !plural(first, nil) && (firsts[first+"s"] || firsts[first+"es"])
}

// letters reports whether w has a letter (is not a number).
func letters(w string) bool {
	for _, r := range w {
		if r < '0' || r > '9' {
			return true
		}
	}
	return false
}

// analyse reads document d's verbs, objects and context.
func (ix *Index) analyse(d *Document, sp summaryParts) docInfo {
	var info docInfo
	for _, w := range d.name {
		if genericNouns[w] && !ix.rawVerbs[w] {
			continue // "deleteCollectionNamespacedEvent": no word of what it acts on
		}
		if t := ix.stems.term(w); t != "" {
			if id := ix.id(t); !slices.Contains(info.cover, id) {
				info.cover = append(info.cover, id)
			}
		}
	}
	for _, v := range sp.verbs {
		info.actions = appendNew(info.actions, ix.id(ix.stems.stem(v)))
	}
	if len(info.actions) == 0 {
		for _, w := range d.name {
			if id, ok := ix.ids[ix.stems.stem(w)]; ok && ix.family[id] != 0 {
				info.actions = appendNew(info.actions, id)
			}
		}
	}
	// The path: a trailing verb (/invoices/{invoice}/void) is an action,
	// the last object before it the object, the others the context.
	segs := d.segments
	item := len(segs) > 0 && segs[len(segs)-1].param
	var rest []string
	if verb, r, ok := ix.trailingVerb(d); ok {
		info.actions = appendNew(info.actions, ix.id(ix.stems.stem(verb)))
		segs, rest = segs[:len(segs)-1], r
		item = len(segs) > 0 && segs[len(segs)-1].param
	}
	head := -1
	if len(rest) > 0 {
		info.objects = append(info.objects, ix.termIDs(rest))
	} else {
		for i := len(segs) - 1; i >= 0; i-- {
			if !segs[i].param {
				head = i
				break
			}
		}
	}
	if len(sp.phrase) > 0 {
		info.objects = append(info.objects, ix.termIDs(sp.phrase))
	}
	info.scope, info.item = -1, -1
	limit := len(segs)
	if head >= 0 {
		limit = head
		if ws := segs[head].words; head+1 < len(segs) && segs[head+1].param && len(ws) > 0 {
			if t := ix.stems.term(ws[len(ws)-1]); t != "" {
				info.item = ix.id(t) // "the status of a payout": /payouts/{payout}
			}
		}
	}
	for i := limit - 2; i >= 0; i-- {
		if !segs[i].param && segs[i+1].param && len(segs[i].words) > 0 {
			if t := ix.stems.term(segs[i].words[len(segs[i].words)-1]); t != "" {
				info.scope = ix.id(t)
			}
			break
		}
	}
	for i, s := range segs {
		if s.param {
			continue
		}
		ids := ix.termIDs(s.words)
		if i == head {
			info.objects = append(info.objects, ids)
			continue
		}
		for _, id := range ids {
			info.context = appendNew(info.context, id)
		}
	}
	for _, w := range d.settable {
		t := ix.stems.term(w)
		if t == "" || genericNouns[w] {
			continue
		}
		id := ix.id(t)
		if !slices.Contains(info.context, id) && !slices.ContainsFunc(info.objects, func(o []int32) bool { return slices.Contains(o, id) }) {
			info.settable = appendNew(info.settable, id)
		}
	}
	for _, a := range info.actions {
		info.families |= ix.family[a]
	}
	if len(segs) > 0 {
		info.shape = shapeCollection
		// An item's path ends with its id, or names a single thing
		// (/repos/{owner}/{repo}/license).
		if last := segs[len(segs)-1]; item || len(last.words) > 0 && !plural(last.words[len(last.words)-1], nil) {
			info.shape = shapeItem
		}
	}
	switch {
	case len(info.actions) == 0:
		info.families = httpFamily(d, len(segs) > 0, item)
	case info.families == 0 && len(d.name) > 1:
		// An action of no family whose name says, after it, the HTTP
		// method it sends on (connectCoreV1GetNodeProxy: "connect GET
		// requests to proxy of Node") reads or deletes as GET, HEAD or
		// DELETE do.
		for _, w := range d.name[1:] {
			info.families |= methodFamilies[w]
		}
	}
	return info
}

// trailingVerb reads a verb at the end of d's path: a one-word segment
// after a parameter (/pulls/{pull_number}/merge) or the first word of a
// longer one (/runs/{run_id}/rerun-failed-jobs: rerun, and the object
// failed jobs; /releases/generate-notes). The segment's first word must be a verb
// a summary starts with (as written: /protection is not protect), or, for a POST, PUT or PATCH to a one-word segment
// that is not a plural (/invoices/{invoice}/void), is taken to be one:
// such a segment is an action on the item, not a collection under it.
func (ix *Index) trailingVerb(d *Document) (verb string, rest []string, ok bool) {
	n := len(d.segments)
	if n < 2 || d.segments[n-1].param || len(d.segments[n-1].words) == 0 {
		return "", nil, false
	}
	ws := d.segments[n-1].words
	switch {
	case !d.segments[n-2].param && len(ws) == 1:
		return "", nil, false
	case ix.rawVerbs[ws[0]]:
	case len(ws) == 1 && !strings.HasSuffix(ws[0], "s") && d.method == "POST":
	default:
		return "", nil, false
	}
	return ws[0], ws[1:], true
}

// httpFamily is the verb family an operation's HTTP method and path shape
// imply (RFC 9110 §9.3): GET reads one item or lists a collection, POST to
// a collection creates (to an item it updates, as Stripe's API does), PUT
// and PATCH update, DELETE deletes. Without a method, a read-only tool
// reads and a destructive one deletes.
func httpFamily(d *Document, hasPath, item bool) uint8 {
	switch d.method {
	case "GET", "HEAD":
		if hasPath && !item {
			return familyBit(familyList)
		}
		return familyBit(familyGet)
	case "POST":
		if item {
			return familyBit(familyUpdate)
		}
		return familyBit(familyCreate)
	case "PUT", "PATCH":
		return familyBit(familyUpdate)
	case "DELETE":
		return familyBit(familyDelete)
	}
	switch {
	case d.readOnly:
		return familyBit(familyGet)
	case d.destructive:
		return familyBit(familyDelete)
	}
	return 0
}

// methodFamilies are the verb families of the names of the HTTP methods
// that only read or delete; the others' requests may do anything.
var methodFamilies = map[string]uint8{
	"get": familyBit(familyGet), "head": familyBit(familyGet), "delete": familyBit(familyDelete),
}

// termIDs are the ids of ws's terms (stop words left out).
func (ix *Index) termIDs(ws []string) []int32 {
	var ids []int32
	for _, w := range ws {
		if t := ix.stems.term(w); t != "" {
			ids = append(ids, ix.id(t))
		}
	}
	return ids
}

func appendNew(ids []int32, id int32) []int32 {
	if slices.Contains(ids, id) {
		return ids
	}
	return append(ids, id)
}

// query is a parsed query: its words and what each matches, its verb and
// the head of its object.
type query struct {
	words []queryWord
	// match is, by term, how well the query matches it (the best factor
	// of a word that matches it); reset clears it for the next query.
	match []float64
	// wordOf is, by term, the index from 1 of the query word that matches
	// it best (indexWords), nil until set.
	wordOf []int8
	verb   int32 // the verb's term, -1 without one
	// alts are the verbs of the documents an everyday verb stands for
	// (kill: cancel, stop), most usual first; verb is the first.
	alts   []int32
	family uint8      // the verb's families
	object *queryWord // the object phrase's last word, nil without one
	// modifiers are the object phrase's other words ("pull" in "pull
	// requests").
	modifiers []*queryWord
	verbWord  *queryWord // the verb's word, nil without one
	// madeBy are the objects of the documents the verb names as a person
	// it acts on or who does it: assignees for "assign", an invitee for
	// "invite" (derivedNouns).
	madeBy []int32
	// general says the verb is of a general family (publish, remove).
	general bool
	// undo says the verb undoes another ("unassign"): verbWord is the
	// undone verb, and what it made is removed.
	undo bool
	// verbNoun says the verb may name what is made: "fork a repository"
	// is GitHub's "Create a fork", "comment on an issue" creates a
	// comment.
	verbNoun bool
	// verbWeight weighs verb agreement: weights.unknownVerbWeight for a verb
	// neither general nor the documents', whose family is a guess.
	verbWeight float64
	plural     bool // the object names many ("labels", "all pods")
	self       bool // the query speaks of the caller ("my", "I")
	people     bool // the query asks who
	whether    bool // the query asks whether something holds
	// unknownObject says the query's object phrase names nothing the
	// documents have ("a new container image").
	unknownObject bool
	// owners are the words of the singular noun phrases the query puts
	// its action in or on ("of a repository", "on an issue").
	owners []*queryWord
	all    bool // the object names all or every one ("all pods", "every pod")
	// spans are the terms of what the query spans, not one of: "pods
	// across all namespaces", "issues in every repository". An operation
	// under one of them (/namespaces/{namespace}/pods) acts within one.
	spans []int32
}

// queryWord is one distinct query word and the terms it matches.
type queryWord struct {
	stem       string
	expansions []expansion
	// outputs are the terms of output fields it matches (the
	// expansions' and terms only output fields have: Index.mainTerms).
	outputs []expansion
	factor  float64 // weighs the word's BM25F score (1 unless set)
	// phrase numbers the query's noun phrase the word is in (from 1; 0
	// in none), and head says it ends it.
	phrase int8
	head   bool
	aside  bool // the word is in an aside (asides)
}

// phrases numbers the query raw's noun phrases in its words: runs of words
// between stop words, determiners, prepositions and the verb (verb, its
// term), the last of each its head.
func (q *query) phrases(ix *Index, raw []string, verb string) {
	var n int8
	last := -1
	for _, w := range raw {
		t := ix.stems.termQuery(w)
		i := slices.IndexFunc(q.words, func(qw queryWord) bool { return qw.stem == t })
		if t == "" || t == verb || i < 0 || determiners[w] || prepositions[w] || !letters(w) {
			last = -1
			continue
		}
		if last >= 0 && len(w) > 4 && strings.HasSuffix(w, "ed") {
			last = -1 // a participle ends a noun phrase (nounPhrase)
		}
		if last < 0 && n < 127 {
			n++
		}
		if q.words[i].phrase == 0 {
			q.words[i].phrase = n
		}
		if last >= 0 && q.words[last].phrase == n {
			q.words[last].head = false
		}
		q.words[i].head = q.words[i].phrase == n
		last = i
	}
}

type expansion struct {
	term   int32
	factor float64
}

// match is how well w matches term t: 1 for the same term, less through a
// prefix or an abbreviation, 0 for no match.
func (w *queryWord) match(t int32) float64 {
	var f float64
	for _, e := range w.expansions {
		if e.term == t {
			f = max(f, e.factor)
		}
	}
	return f
}

// parseQuery reads a query: abbreviations expanded, its verb, the noun
// phrase after it (its object) and its words. The verb is its first word
// that is not a stop word, when that is
//   - a member of a general verb family (publish: create);
//   - a verb the documents use (their summaries' first words, their paths'
//     trailing verbs): the query asks for that action, or to create one
//     ("fork a repository" is GitHub's "Create a fork");
//   - a noun of the documents used as a verb, before a determiner or "on"
//     or "to": it creates one ("comment on an issue");
//   - any other word before a determiner: an action on an existing object,
//     most likely an update ("suspend a cron job"); before a preposition
//     it says nothing ("ask for reviewers": reviewers).
//
// A query without a verb names something to look at: it reads.
func (ix *Index) parseQuery(text string, match []float64) *query {
	var raw []string
	for _, field := range strings.Fields(text) {
		ws, joined := hyphenated(field)
		for _, w := range ws {
			if long, ok := abbreviations[w]; ok && !joined {
				raw = append(raw, words(long)...)
			} else if phrase, ok := ix.acronyms[w]; ok && !joined && !stopWords[w] && !determiners[w] {
				raw = append(raw, phrase...)
			} else {
				raw = append(raw, w)
			}
		}
	}
	raw = ix.agents(phrasal(means(raw)))
	q, phrase, verbWord, _ := ix.readObject(raw, match)
	var acted []string
	if len(raw) > 2 && raw[0] == "who" && !firstPerson[raw[1]] && !firstPerson[raw[2]] {
		// "who starred a repository": the people who did it, listed;
		// the verb is theirs, not the query's ("who am I" is the
		// caller).
		q.people, q.verb, q.alts, q.family = true, -1, nil, familyBit(familyList)
		q.general, q.verbNoun, q.undo, verbWord = false, false, false, ""
		acted, phrase = phrase, nil // what they acted on is where they are listed
	}
	q.self = slices.ContainsFunc(raw, func(w string) bool { return firstPerson[w] })
	q.whether = len(raw) > 1 && auxiliaries[raw[0]] // "is this user a member", "have I starred it"
	if p := possessive(raw); len(p) > 0 {
		// "a customer's shipping address" when the customer is the
		// object (ownerPhrase), else as it is.
		if q2, phrase2, verb2, owned := ix.readObject(p, match); owned {
			q2.self, q2.whether = q.self, q.whether // "show my own account's settings" still speaks of the caller
			raw, q, phrase, verbWord = p, q2, phrase2, verb2
		}
	}
	seen := map[string]bool{}
	aside := len(raw)
	for i, w := range raw {
		if i > 0 && asides[w] {
			aside = i
			break
		}
	}
	for i, w := range raw {
		t := ix.stems.termQuery(w)
		if t == "" || seen[t] {
			continue
		}
		seen[t] = true
		qw := ix.expand(t)
		if t == verbWord && q.general {
			qw.factor = ix.w.verbWord
		}
		if i > aside {
			qw.factor *= ix.w.aside
			qw.aside = true
		}
		q.words = append(q.words, qw)
	}
	if verbWord != "" && !seen[verbWord] {
		q.words = append(q.words, ix.expand(verbWord)) // an undone verb's own word
	}
	for i := range q.words {
		if q.words[i].stem == verbWord {
			q.verbWord = &q.words[i]
			for _, a := range q.alts {
				q.words[i].expansions = append(q.words[i].expansions, expansion{a, ix.w.alias})
			}
			q.madeBy = ix.derivedNouns(verbWord)
		}
	}
	// The object's head is the phrase's last word, its modifiers the others.
	for j, w := range phrase {
		t := ix.stems.termQuery(w)
		for i := range q.words {
			if q.words[i].stem != t || len(q.words[i].expansions) == 0 {
				continue
			}
			if j == len(phrase)-1 {
				q.object = &q.words[i]
				q.all = everyOne(phrase[0], raw) || everyOne(phrase[j], raw)
				number := phrase[j]
				if k := slices.Index(raw, w); k >= 0 && k+1 < len(raw) && genericHeads[raw[k+1]] {
					number = raw[k+1] // "a stale Endpoints object" is one
				}
				q.plural = q.all || plural(number, raw)
			} else {
				q.modifiers = append(q.modifiers, &q.words[i])
			}
		}
	}
	for _, w := range q.words {
		for _, e := range w.expansions {
			q.match[e.term] = max(q.match[e.term], e.factor)
		}
	}
	q.unknownObject = len(phrase) > 0 && q.object == nil
	q.phrases(ix, raw, verbWord)
	q.owners = ix.owners(q, raw)
	for _, w := range acted {
		t := ix.stems.termQuery(w)
		for k := range q.words {
			if q.words[k].stem == t && !slices.Contains(q.owners, &q.words[k]) {
				q.owners = append(q.owners, &q.words[k])
			}
		}
	}
	q.spans = ix.spans(raw, phrase)
	switch {
	case q.family == familyBit(familyGet) && q.plural:
		q.family = familyBit(familyList) // "show me all the comments"
	case q.family == familyBit(familySearch) && q.all:
		q.family |= familyBit(familyList) // "find all unpaid invoices"
	}
	return q
}

// spans reads what the query raw spans: the word after "across" (past
// "all" or "every"), or after "all" or "every" following a preposition,
// when it is not the object phrase's ("list pods across namespaces",
// "issues in all repositories").
func (ix *Index) spans(raw, phrase []string) []int32 {
	var out []int32
	for i := 0; i+1 < len(raw); i++ {
		j := i + 1
		switch {
		case raw[i] == "across":
			if raw[j] == "all" || raw[j] == "every" {
				j++
			}
		case (raw[i] == "all" || raw[i] == "every") && i > 0 && prepositions[raw[i-1]]:
		default:
			continue
		}
		if j >= len(raw) || slices.Contains(phrase, raw[j]) {
			continue
		}
		if id, ok := ix.ids[ix.stems.termQuery(raw[j])]; ok {
			out = appendNew(out, id)
		}
	}
	return out
}

// ownerPhrase reads "the schedule of a cron job" as an action on the cron
// job: when the object phrase's head is no object of the documents (no
// operation acts on a schedule; it is a field), or is one but never under
// the other (no path puts a reclaim policy under a persistent volume), and
// "of" or "in" follows it and the query changes it, the noun phrase after
// that is the object.
// Changing one on an object changes the object ("edit the metadata on a
// refund"). Adding such a thing to or on an object updates the object ("add an
// annotation to a pod", "add a group to a cluster role binding", where no
// operation creates a group), or into it ("write a condition into a Job's
// status"): the phrase after "to", "into" or "on" is the object
// and q's family becomes update. An "existing" owner ("edit the notes of
// an existing release") is the object whatever the documents say.
// Otherwise phrase is returned as it is.
func (ix *Index) ownerPhrase(q *query, phrase, raw []string) []string {
	if len(phrase) == 0 {
		return phrase
	}
	head := phrase[len(phrase)-1]
	adds := q.family == familyBit(familyCreate)
	changes := q.family == familyBit(familyUpdate) // "edit the metadata on a refund"
	// A thing that is an object of its own but never under the owner is
	// read as the owner's field only when it is changed or added to it:
	// "list the invoices of a customer" lists invoices.
	field := !ix.isHead(head)
	if !field && !adds && q.family != familyBit(familyUpdate) {
		return phrase
	}
	last := slices.Index(raw, head)
	for i := last + 1; last >= 0 && i < len(raw); i++ {
		w := raw[i]
		if w == "of" || w == "in" || (adds || changes) && w == "on" || adds && (w == "to" || w == "into") {
			owner, _ := nounPhrase(raw[i+1:])
			existing := slices.Contains(raw[i+1:min(i+4, len(raw))], "existing")
			if len(owner) == 0 || !ix.isHead(owner[len(owner)-1]) || !field && !existing &&
				(ix.isUnder(head, owner[len(owner)-1]) || (w == "to" || w == "into" || w == "on") && ix.isCreated(head)) {
				return phrase
			}
			if w == "to" || w == "into" || w == "on" {
				q.family = familyBit(familyUpdate)
			}
			return owner
		}
		if prepositions[w] || !stopWords[w] && !slices.Contains(phrase, w) {
			return phrase
		}
	}
	return phrase
}

// isCreated reports whether some operation creates what the word w names
// (heads its object), through its own term or a prefix of one.
func (ix *Index) isCreated(w string) bool {
	for _, e := range ix.expand(ix.stems.termQuery(w)).expansions {
		if ix.created[e.term] {
			return true
		}
	}
	return false
}

// isUnder reports whether some operation acts on the word w (heads its
// object) under the object owner (in its path's context), through their
// own terms or prefixes.
func (ix *Index) isUnder(w, owner string) bool {
	ws, os := ix.expand(ix.stems.termQuery(w)), ix.expand(ix.stems.termQuery(owner))
	for _, e := range ws.expansions {
		for _, o := range os.expansions {
			if ix.under[[2]int32{e.term, o.term}] {
				return true
			}
		}
	}
	return false
}

// isHead reports whether the word w heads some document's object, through
// its own term or a prefix of one (repo: repository).
func (ix *Index) isHead(w string) bool {
	qw := ix.expand(ix.stems.termQuery(w))
	for _, e := range qw.expansions {
		if ix.heads[e.term] {
			return true
		}
	}
	return false
}

// inObject reports whether the query's object phrase matches term t.
func (q *query) inObject(t int32) bool {
	if q.object != nil && q.object.match(t) > 0 {
		return true
	}
	for _, m := range q.modifiers {
		if m.match(t) > 0 {
			return true
		}
	}
	return false
}

// ownerPrepositions put what follows them as the one thing an action is
// in or on; "from" too when something is removed from it (otherwise it
// says where something comes from: "a pod from my controller").
var ownerPrepositions = map[string]bool{"of": true, "in": true, "on": true, "for": true, "under": true, "within": true, "inside": true}

// owners are the words of the noun phrases after an owner preposition
// whose head names one thing ("in a repository", not "on commits" or "in
// every repository").
func (ix *Index) owners(q *query, raw []string) []*queryWord {
	var out []*queryWord
	for i, w := range raw {
		from := w == "from" && q.family&familyBit(familyDelete) != 0 // "remove a coupon from a subscription"
		if !ownerPrepositions[w] && !from || i+1 >= len(raw) || raw[i+1] == "all" || raw[i+1] == "every" {
			continue
		}
		phrase, _ := nounPhrase(raw[i+1:])
		if len(phrase) == 0 || plural(phrase[len(phrase)-1], nil) {
			continue
		}
		for _, p := range phrase {
			t := ix.stems.termQuery(p)
			for k := range q.words {
				if q.words[k].stem == t && !slices.Contains(out, &q.words[k]) {
					out = append(out, &q.words[k])
				}
			}
		}
	}
	return out
}

// indexWords sets q.wordOf to wordOf (by term, all 0) with, for each
// term the query matches, the index from 1 of the word matching it best.
func (q *query) indexWords(wordOf []int8) {
	q.wordOf = wordOf
	for i, w := range q.words {
		for _, e := range w.expansions {
			if k := wordOf[e.term]; (k == 0 || q.words[k-1].match(e.term) < e.factor) && i < 127 {
				wordOf[e.term] = int8(i + 1)
			}
		}
	}
}

// inObjectWord reports whether w is the query's object or one of its
// modifiers.
func (q *query) inObjectWord(w *queryWord) bool {
	return w == q.object || slices.Contains(q.modifiers, w)
}

// reset clears what q set in its match and wordOf slices.
func (q *query) reset() {
	for _, w := range q.words {
		for _, e := range w.expansions {
			q.match[e.term] = 0
			if q.wordOf != nil {
				q.wordOf[e.term] = 0
			}
		}
	}
	q.spans = nil
}

// readVerb sets q's verb and families from raw (see parseQuery) and
// returns the object phrase and the verb's term ("" without one).
func (ix *Index) readVerb(q *query, raw []string) (phrase []string, verb string) {
	for i, w := range raw {
		if stopWords[w] || !letters(w) || adverb(w) || i == 0 && (auxiliaries[w] || w == "why" || w == "whether") {
			continue // a question: "has the daemon set finished", "why is my namespace terminating"
		}
		if i > 0 && raw[i-1] == "how" && (w == "much" || w == "many") {
			continue // a question of quantity reads: "how much of a quota is used"
		}
		t := ix.stems.termQuery(w)
		id, known := ix.ids[t]
		next := ""
		if i+1 < len(raw) {
			next = raw[i+1]
		}
		after := raw[i+1:]
		for len(after) > 0 && (particles[after[0]] || after[0] == "for") { // "look up", "search for"
			after = after[1:]
		}
		switch {
		case ix.everyday(q, w):
			phrase, _ = nounPhrase(after)
			return phrase, t
		case known && ix.verbs[id]:
			q.verb, q.family, q.general = id, ix.family[id], ix.family[id] != 0
			q.verbNoun = !q.general
			switch {
			case q.family&familyBit(familyGet) != 0 && next == "all":
				q.family = familyBit(familyList)
			case w == "set" && next == "up":
				q.family = familyBit(familyCreate) // "set up autoscaling"
			case w == "make" && ix.complemented(after):
				q.family = familyBit(familyUpdate) // "make a storage class the default"
			}
			phrase, _ = nounPhrase(after)
			return phrase, t
		case strings.HasPrefix(w, "un") && len(w) > 5 && ix.knownWord(w[2:]):
			// "unassign someone from an issue": undo it, remove what it
			// made (the assignees).
			q.family, q.verbNoun, q.undo = familyBit(familyDelete), true, true
			phrase, _ = nounPhrase(after)
			return phrase, ix.stems.termQuery(w[2:])
		case known && ix.heads[id] && (determiners[next] || next == "on" || next == "to"):
			// It makes one, or sets it on the object: read the object as
			// what is made, with less certainty.
			q.family, q.verbNoun, q.verbWeight = familyBit(familyCreate), true, ix.w.unknownVerbWeight
			phrase, _ = nounPhrase(after)
			if next == "on" || next == "to" {
				phrase = nil // "comment on an issue": the issue is where
			}
			return phrase, t
		case determiners[next]:
			q.family, q.verbWeight = familyBit(familyUpdate), ix.w.unknownVerbWeight
			phrase, _ = nounPhrase(after)
			return phrase, t
		case prepositions[next] && !(known && ix.heads[id]):
			phrase, _ = nounPhrase(raw[i+2:])
			return phrase, ""
		case i == 0 && !ix.objectWord(w) && ix.objectWord(next):
			// A first word no object of the documents has, before one
			// that is: an imperative ("enable card issuing", "pull
			// funds from a bank account").
			q.family, q.verbWeight = familyBit(familyUpdate), ix.w.unknownVerbWeight
			phrase, _ = nounPhrase(after)
			return phrase, t
		}
		// No verb: a look at one thing, or a list of many ("what labels
		// does an issue have").
		q.family = familyBit(familyGet)
		phrase, _ = nounPhrase(raw[i:])
		for len(phrase) > 1 && !ix.objectWord(phrase[len(phrase)-1]) && ix.objectWord(phrase[len(phrase)-2]) {
			phrase = phrase[:len(phrase)-1] // "which roles exist": a verb, no object's word
		}
		if subject := ix.questionSubject(phrase, raw); len(subject) > 0 {
			return subject, "" // "which handler does a runtime class map to": read the runtime class
		}
		if len(phrase) > 0 && plural(phrase[len(phrase)-1], raw) {
			q.family = familyBit(familyList)
		}
		return phrase, ""
	}
	return nil, ""
}

// questionSubject reads "which X does Y VERB" where X (phrase) is nothing
// the documents act on (a field: a runtime class's handler, a role's
// permissions) and Y is: the question is about Y, which it returns; nil
// otherwise.
func (ix *Index) questionSubject(phrase, raw []string) []string {
	if len(phrase) == 0 || ix.isHead(phrase[len(phrase)-1]) {
		return nil
	}
	k := slices.Index(raw, phrase[len(phrase)-1])
	if k < 0 || k+2 >= len(raw) || !auxiliaries[raw[k+1]] || k > 0 && raw[k-1] == "how" {
		return nil // "how long did a run take" asks how, not about a field
	}
	subject, _ := nounPhrase(raw[k+2:])
	for len(subject) > 1 && !ix.objectWord(subject[len(subject)-1]) {
		subject = subject[:len(subject)-1] // "a runtime class map": map is the verb
	}
	if len(subject) == 0 || !ix.isHead(subject[len(subject)-1]) {
		return nil
	}
	return subject
}

// objectPronouns stand for the object of a verb.
var objectPronouns = map[string]bool{"it": true, "them": true, "someone": true, "somebody": true, "something": true, "one": true}

// complemented reports whether the words after a verb are its object and
// then a complement that says what the object is to be: a determiner
// after an object of the documents or a pronoun ("make a storage class
// the cluster default", "make someone an owner"; not "make sure the ...").
func (ix *Index) complemented(after []string) bool {
	object := false
	for _, w := range after {
		switch {
		case determiners[w]:
			if object {
				return true
			}
		case prepositions[w]:
			object = false
		case objectPronouns[w]:
			object = true
		case !stopWords[w]:
			object = ix.isHead(w)
		}
	}
	return false
}

// readObject reads raw's verb and object (readVerb, ownerPhrase) into a
// new query; owned reports that the object is an owner ownerPhrase found.
func (ix *Index) readObject(raw []string, match []float64) (q *query, phrase []string, verb string, owned bool) {
	q = &query{match: match, verb: -1, verbWeight: 1}
	phrase, verb = ix.readVerb(q, raw)
	owner := ix.ownerPhrase(q, phrase, raw)
	return q, owner, verb, !slices.Equal(owner, phrase)
}

// possessive rewrites the query's first possessive "X's Y" as "Y of X"
// ("update a customer's shipping address": the shipping address of a
// customer), for ownerPhrase to read; nil without one.
func possessive(raw []string) []string {
	k := slices.Index(raw, "s")
	if k < 1 || stopWords[raw[k-1]] || raw[k-1] == "let" || !letters(raw[k-1]) {
		return nil
	}
	j := k - 1
	for j > 0 && !stopWords[raw[j-1]] && !determiners[raw[j-1]] && !prepositions[raw[j-1]] && j > 1 {
		j--
	}
	e := k + 1
	for e < len(raw) && e-k <= 3 && !stopWords[raw[e]] && !prepositions[raw[e]] && letters(raw[e]) {
		e++
	}
	if e == k+1 {
		return nil
	}
	out := append(slices.Clone(raw[:j]), raw[k+1:e]...)
	out = append(append(out, "of"), raw[j:k]...)
	return append(out, raw[e:]...)
}

// hyphenated is the words of one whitespace-separated field of a query,
// and whether they were joined by hyphens into one word ("one-off",
// "in-person", "sub-issues"): then a part that is a stop word, a
// preposition or a particle says nothing of its own and is left out (a
// one-off job is not "off" a job), and the rest are not abbreviations
// (sub-issues are no subscriptions). "re-run" is one verb, rerun, as in
// summaries (parseSummary), and a phrasal verb written with a hyphen
// ("thumbs-up") stays whole.
func hyphenated(field string) (ws []string, joined bool) {
	ws = words(field)
	if len(ws) < 2 || !strings.Contains(field, "-") {
		return ws, false
	}
	if _, ok := phrasalVerbs[[2]string{ws[0], ws[1]}]; ok && len(ws) == 2 {
		return ws, false
	}
	if ws[0] == "re" {
		ws = append([]string{"re" + ws[1]}, ws[2:]...)
	}
	kept := ws[:0:0]
	for _, w := range ws {
		if !stopWords[w] && !prepositions[w] && !particles[w] {
			kept = append(kept, w)
		}
	}
	return kept, true
}

// means puts first the means a query names its action by ("force a volume
// to detach by removing its attachment object"): what it does is what the
// means does, and the rest follows as an aside, its purpose ("removing its
// attachment object so force a volume to detach"); raw when it names none.
func means(raw []string) []string {
	for k := 1; k+1 < len(raw); k++ {
		if raw[k] == "by" && len(raw[k+1]) > 5 && strings.HasSuffix(raw[k+1], "ing") {
			return append(append(slices.Clone(raw[k+1:]), "so"), raw[:k]...)
		}
	}
	return raw
}

// phrasal rewrites the query's first phrasal verb (phrasalVerbs) as the
// word an API would use: "get rid of a label" is "delete a label", "turn a
// workflow back on" "enable a workflow", "take a coupon off a
// subscription" "remove a coupon from a subscription".
func phrasal(raw []string) []string {
	for i, w := range raw {
		if stopWords[w] || adverb(w) {
			continue
		}
		if (w == "stop" || w == "quit" || w == "cease") && i+1 < len(raw) && len(raw[i+1]) > 5 && strings.HasSuffix(raw[i+1], "ing") {
			// "stop requiring signed commits": no longer doing something
			// removes what does it.
			return append(append(slices.Clone(raw[:i]), "remove"), raw[i+1:]...)
		}
		for j := i + 1; j < len(raw) && j <= i+6; j++ {
			if rest := raw[j+1:]; raw[j] == "off" && j > i+1 && len(rest) > 0 && !prepositions[rest[0]] {
				// "kick someone off a team", "strip every label off an
				// issue": whatever the verb, off a place removes from it.
				out := append(slices.Clone(raw[:i]), "remove")
				out = append(append(out, raw[i+1:j]...), "from")
				return append(out, rest...)
			}
			with, ok := phrasalVerbs[[2]string{w, raw[j]}]
			if !ok {
				continue
			}
			out := append(slices.Clone(raw[:i]), with...)
			out = append(out, raw[i+1:j]...)
			if len(out) > 0 && out[len(out)-1] == "back" {
				out = out[:len(out)-1]
			}
			rest := raw[j+1:]
			if raw[j] == "rid" && len(rest) > 0 && rest[0] == "of" {
				rest = rest[1:]
			}
			return append(out, rest...)
		}
		return raw // only the query's first word can be its verb
	}
	return raw
}

// everyday sets q's verb to the documents' verbs the everyday verb w
// stands for (everydayVerbs), w itself first when the documents use it;
// it reports whether they use any.
func (ix *Index) everyday(q *query, w string) bool {
	alts, ok := everydayVerbs[w]
	if !ok {
		return false
	}
	for _, a := range append([]string{w}, alts...) {
		if id, ok := ix.ids[ix.stems.termQuery(a)]; ok && ix.verbs[id] && !slices.Contains(q.alts, id) {
			q.alts = append(q.alts, id)
			q.family |= ix.family[id]
		}
	}
	if len(q.alts) == 0 {
		return false
	}
	q.verb, q.general = q.alts[0], true
	return true
}

// derivedNouns are the objects of the documents that are the verb v (a
// term) with -e, -ee, -er or -or: the person it acts on or who does it
// (assign: assignee, stemmed assigne).
func (ix *Index) derivedNouns(v string) []int32 {
	var out []int32
	for _, suffix := range []string{"e", "ee", "er", "or"} {
		if id, ok := ix.ids[v+suffix]; ok && ix.heads[id] {
			out = append(out, id)
		}
	}
	return out
}

// agents reads "who is watching this repository" as a list of the
// watchers of the repository when the documents name the people who do
// it with the verb and -er (watcher, follower) and make them an object.
func (ix *Index) agents(raw []string) []string {
	if len(raw) < 3 || raw[0] != "who" {
		return raw
	}
	i := 1
	for i < len(raw) && (auxiliaries[raw[i]] || raw[i] == "is") {
		i++
	}
	if i >= len(raw) || i == len(raw)-1 {
		return raw
	}
	agent := ix.stems.termQuery(raw[i]) + "er"
	if !ix.isHead(agent) {
		return raw
	}
	return append([]string{"list", agent, "of"}, raw[i+1:]...)
}

// adverb reports whether w is most likely an adverb ("temporarily"): it
// says how, and is not the query's verb.
func adverb(w string) bool {
	return len(w) >= 7 && strings.HasSuffix(w, "ly")
}

// objectWord reports whether the word w is a word of some document's
// object (its own term).
func (ix *Index) objectWord(w string) bool {
	id, ok := ix.ids[ix.stems.termQuery(w)]
	return ok && ix.objectTerms[id]
}

// knownWord reports whether w is a verb or an object of the documents.
func (ix *Index) knownWord(w string) bool {
	id, ok := ix.ids[ix.stems.termQuery(w)]
	return ok && (ix.verbs[id] || ix.heads[id])
}

// everyOne reports whether "all" or "every" comes before w in the query raw.
func everyOne(w string, raw []string) bool {
	i := slices.Index(raw, w)
	return i > 0 && (raw[i-1] == "all" || raw[i-1] == "every")
}

// plural reports whether the object word w (in the query raw) names many:
// a plural ("labels") or a word after "all" or "every".
func plural(w string, raw []string) bool {
	if everyOne(w, raw) {
		return true
	}
	return len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is")
}

// expand is the query word t (a term) with the terms it matches: itself,
// its abbreviations and, with minPrefix letters or more, the terms it
// begins (repo: repositori).
func (ix *Index) expand(t string) queryWord {
	qw := queryWord{stem: t, factor: 1}
	if id, ok := ix.ids[t]; ok && id >= ix.mainTerms {
		qw.outputs = append(qw.outputs, expansion{id, 1})
	} else if ok {
		qw.expansions = append(qw.expansions, expansion{id, 1})
		for _, a := range ix.aliases[id] {
			qw.expansions = append(qw.expansions, expansion{a, ix.w.alias})
		}
		for _, c := range ix.compounds[id] {
			qw.expansions = append(qw.expansions, expansion{c, ix.w.prefix})
		}
	}
	if len(t) >= minPrefix {
		for i := sort.SearchStrings(ix.sorted, t); i < len(ix.sorted) && strings.HasPrefix(ix.sorted[i], t); i++ {
			if id := ix.ids[ix.sorted[i]]; ix.sorted[i] != t && id >= ix.mainTerms {
				qw.outputs = append(qw.outputs, expansion{id, ix.w.prefix})
			} else if ix.sorted[i] != t {
				qw.expansions = append(qw.expansions, expansion{id, ix.w.prefix})
			}
		}
	}
	qw.outputs = append(qw.outputs, qw.expansions...)
	return qw
}
