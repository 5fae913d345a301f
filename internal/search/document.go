package search

import (
	"encoding/json"
	"html"
	"maps"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// Tool is what discovery knows of one callable thing: a connector's method
// (an MCP tool, a Go function, an OpenAPI operation) or a saved snippet.
// Only Name is required; what is unknown stays empty.
type Tool struct {
	// Namespace is the connector's name ("github"); for a snippet, the
	// connectors it uses, separated by spaces.
	Namespace string
	// Name is the method's name ("repos_create_release",
	// "listCoreV1NamespacedPod").
	Name string
	// Description is the method's documentation; its first paragraph is
	// its summary. HTML tags in it are ignored.
	Description string
	// InputSchema is the declared input's JSON Schema: its property names
	// (nested ones and array items' included, at most 64) are indexed.
	InputSchema json.RawMessage
	// OutputSchema is the declared output's JSON Schema: the names of the
	// fields it describes (breadth first, three levels deep, at most 128,
	// references followed) are indexed as a field of their own, so that
	// "what QoS class did a pod get" finds the operation that returns a
	// Pod, whose status has a qosClass.
	OutputSchema json.RawMessage
	// Definitions resolves the references of InputSchema and
	// OutputSchema that do not resolve in the schema itself (an OpenAPI
	// operation's "#/components/schemas/..."); nil when there are none.
	// One is shared by a catalogue's tools.
	Definitions *Definitions
	// ReadOnly and Destructive are the tool's annotations (MCP's
	// readOnlyHint and destructiveHint): an operation with no verb of its
	// own is taken to read, or to delete.
	ReadOnly, Destructive bool
	// Method and Path are an HTTP operation's ("POST",
	// "/repos/{owner}/{repo}/releases"). When both are empty and the
	// description's last paragraph is "METHOD /path" (optionally followed
	// by " (deprecated)"), as connector/openapi writes an operation's
	// description, they are read from there and that line is not indexed
	// as prose.
	Method, Path string
	// Tags are the operation's OpenAPI tags.
	Tags []string
	// OperationID is the operation's operationId when Name is not it
	// verbatim (connector/openapi sanitises it into Name).
	OperationID string
}

// Document is a tool made ready for New: its words by field, and the parts
// (name, summary, path) the ranking reads a verb and an object from. Make
// one with NewDocument.
type Document struct {
	fields [numFields][]string // lower-case words per field
	// name are the name's words without a leading HTTP method ("Post" in
	// Stripe's PostCustomers); summary the first sentence's words.
	name, summary []string
	segments      []segment // the path's segments, versions left out
	// version is the path's API version ("v2", "v1beta1"; "" without
	// one), versionless the method and path with versions and parameter
	// names left out: operations that differ only in version share it.
	version, versionless string
	// settable are the words of what the input lets a caller set: its
	// property names and the values its enums allow, path parameters
	// left out (settableWords).
	settable []string
	// output are the words of the field names of what the operation
	// returns (outputWords), nil when it declares none; operations that
	// return the same schema share them.
	output      *fieldWords
	method      string
	readOnly    bool
	destructive bool
	// checks says the summary asks whether something holds ("Check if
	// a repository is starred by the authenticated user").
	checks bool
	// people says the summary or the next paragraph's first sentence
	// acts on people ("Lists the people that have starred the
	// repository").
	people bool
}

// segment is a path segment: a parameter ("{owner}") or an object's words.
type segment struct {
	param bool
	words []string
}

// The fields of a document (weights.fields weighs them).
const (
	fieldName = iota
	fieldNamespace
	fieldParameters
	fieldSummary
	fieldDescription
	fieldPath
	numFields
)

// httpLine matches the last paragraph connector/openapi gives an
// operation's description: its method and path.
var httpLine = regexp.MustCompile(`^(GET|PUT|POST|DELETE|PATCH|HEAD|OPTIONS|TRACE) (/\S*)( \(deprecated\))?$`)

// htmlTag matches an HTML tag (Stripe's descriptions are HTML).
var htmlTag = regexp.MustCompile(`<[^<>]*>`)

// NewDocument prepares t for indexing. It never fails: a tool with an
// empty name and description is a document no query matches.
func NewDocument(t Tool) Document {
	desc := strings.TrimSpace(t.Description)
	method, path := strings.ToUpper(strings.TrimSpace(t.Method)), strings.TrimSpace(t.Path)
	if method == "" && path == "" {
		last := desc
		if i := strings.LastIndex(desc, "\n\n"); i >= 0 {
			last = desc[i+2:]
		}
		if m := httpLine.FindStringSubmatch(strings.TrimSpace(last)); m != nil {
			method, path = m[1], m[2]
			desc = strings.TrimSpace(strings.TrimSuffix(desc, last))
		}
	}
	desc = plainText(cutDescription(desc))
	summary := firstParagraph(desc)

	var d Document
	d.method, d.readOnly, d.destructive = method, t.ReadOnly, t.Destructive
	d.fields[fieldName] = words(t.Name)
	if t.OperationID != "" && !slices.Equal(words(t.OperationID), d.fields[fieldName]) {
		d.fields[fieldName] = append(d.fields[fieldName], words(t.OperationID)...)
	}
	d.fields[fieldNamespace] = words(t.Namespace)
	schema := parseSchema(t.InputSchema)
	d.fields[fieldParameters] = words(strings.Join(propertyNames(schema), " "))
	d.output = outputWords(t.OutputSchema, t.Definitions)
	d.fields[fieldSummary] = words(summary)
	d.fields[fieldDescription] = words(desc)
	d.name = words(t.Name)
	if len(d.name) > 1 && method != "" && d.name[0] == strings.ToLower(method) {
		d.name = d.name[1:]
	}
	d.summary = words(firstSentence(summary))
	d.checks = asksWhether(d.summary)
	d.people = namesPeople(d.summary) || namesPeople(strings.Fields(strings.ToLower(leadSentence(desc, summary))))
	var vocabulary []string // the name's words, then the summary's: at most maxVocabulary
	for _, w := range append(slices.Clone(d.name), d.fields[fieldSummary]...) {
		if len(vocabulary) == maxVocabulary {
			break
		}
		if !slices.Contains(vocabulary, w) {
			vocabulary = append(vocabulary, w)
		}
	}
	var pathParams []string
	versionless := []string{method}
	for _, s := range strings.Split(path, "/") {
		switch {
		case s == "":
		case strings.HasPrefix(s, "{") || strings.HasPrefix(s, ":"):
			d.segments = append(d.segments, segment{param: true})
			pathParams = append(pathParams, strings.Trim(s, "{}:"))
			versionless = append(versionless, "{}")
		case versionSegment(strings.ToLower(s)):
			if _, ok := parseVersion(strings.ToLower(s)); ok {
				d.version = strings.ToLower(s)
				versionless = append(versionless, "*")
			}
		default:
			versionless = append(versionless, s)
			ws := splitJoined(words(s), vocabulary)
			d.segments = append(d.segments, segment{words: ws})
			d.fields[fieldPath] = append(d.fields[fieldPath], ws...)
		}
	}
	d.settable = settableWords(schema, pathParams)
	if d.version != "" {
		d.versionless = strings.Join(versionless, "/")
	}
	for _, tag := range t.Tags {
		d.fields[fieldPath] = append(d.fields[fieldPath], words(tag)...)
	}
	return d
}

// maxLead bounds the bytes of a description's second paragraph
// leadSentence reads: only its first words matter.
const maxLead = 80

// leadSentence is the start of the first sentence after a description's
// summary (at most maxLead bytes).
func leadSentence(desc, summary string) string {
	rest := strings.TrimSpace(strings.TrimPrefix(desc, summary))
	if len(rest) > maxLead {
		rest = rest[:maxLead]
	}
	return firstSentence(firstParagraph(rest))
}

// asksWhether reports whether a summary's words ask whether something
// holds: its first word is "check", or "if" or "whether" follows its
// first word ("Check if a user is blocked", "Get whether a repository is
// starred").
func asksWhether(ws []string) bool {
	return len(ws) > 1 && (ws[0] == "check" || ws[0] == "checks" || ws[1] == "if" || ws[1] == "whether")
}

// peopleWords are the words a description names people with.
var peopleWords = map[string]bool{"people": true, "users": true, "persons": true, "user": true, "person": true}

// namesPeople reports whether a sentence's words (lower-case) name people
// first after its verb ("Lists the people that have starred...", "Gets
// the users or teams whose...").
func namesPeople(ws []string) bool {
	for i, w := range ws {
		if i == 0 {
			continue // the verb
		}
		if !determiners[w] && !stopWords[w] && w != "all" {
			return peopleWords[w]
		}
	}
	return false
}

// plainText is s without HTML tags and with HTML entities decoded, when s
// has any; otherwise s.
func plainText(s string) string {
	if !strings.ContainsAny(s, "<&") {
		return s
	}
	return html.UnescapeString(htmlTag.ReplaceAllString(s, " "))
}

// maxIndexedDescription is how much of a tool's description search reads,
// in bytes: 3.5 times the longest of GitHub's, Stripe's and Kubernetes'
// operations (4,578 bytes, GitHub), so that one tool of a hostile server
// with a description of megabytes of distinct words does not make the
// first search take seconds (4 MB took 4.5-6 s and 1 GB, most of it
// stemming each word).
const maxIndexedDescription = 16 << 10

// cutDescription is s cut to maxIndexedDescription bytes, at the last
// space before, or on a character boundary when there is none.
func cutDescription(s string) string {
	if len(s) <= maxIndexedDescription {
		return s
	}
	s = s[:maxIndexedDescription]
	if i := strings.LastIndexAny(s, " \t\n"); i > 0 {
		return s[:i]
	}
	for len(s) > 0 { // a character the cut split in two
		if r, size := utf8.DecodeLastRuneInString(s); r != utf8.RuneError || size > 1 {
			break
		}
		s = s[:len(s)-1]
	}
	return s
}

// firstParagraph is a description's first paragraph.
func firstParagraph(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.Index(s, "\n\n"); i >= 0 {
		s = s[:i]
	}
	return s
}

// firstSentence is s up to its first full stop followed by a space.
func firstSentence(s string) string {
	if i := strings.Index(s, ". "); i >= 0 {
		return s[:i]
	}
	return s
}

// maxJoined and maxVocabulary bound splitJoined's work (a segment's
// letters times the vocabulary's words) for a hostile description.
const (
	maxJoined     = 64
	maxVocabulary = 256
)

// splitJoined splits a path segment written as one word
// ("persistentvolumeclaims") into the words of vocabulary it joins
// (persistent, volume, claims), a plural ending allowed; anything else is
// returned as it is.
func splitJoined(ws []string, vocabulary []string) []string {
	if len(ws) != 1 || len(ws[0]) < 8 || len(ws[0]) > maxJoined {
		return ws
	}
	w := ws[0]
	for _, stem := range []string{w, strings.TrimSuffix(w, "s"), strings.TrimSuffix(w, "es")} {
		if parts := segmentWord(stem, vocabulary); len(parts) > 1 {
			if stem != w {
				parts[len(parts)-1] += w[len(stem):]
			}
			return parts
		}
	}
	if stem, ok := strings.CutSuffix(w, "ies"); ok { // networkpolicies: network, policies
		if parts := segmentWord(stem+"y", vocabulary); len(parts) > 1 {
			last := parts[len(parts)-1]
			parts[len(parts)-1] = last[:len(last)-1] + "ies"
			return parts
		}
	}
	return ws
}

// segmentWord splits w into words of vocabulary (each at least two
// letters), preferring fewer parts; nil when it cannot.
func segmentWord(w string, vocabulary []string) []string {
	// best[i] is the shortest split of w[:i], nil when there is none.
	best := make([][]string, len(w)+1)
	best[0] = []string{}
	for i := 1; i <= len(w); i++ {
		for _, v := range vocabulary {
			j := i - len(v)
			if len(v) < 2 || j < 0 || best[j] == nil || w[j:i] != v {
				continue
			}
			if best[i] == nil || len(best[j])+1 < len(best[i]) {
				best[i] = append(slices.Clone(best[j]), v)
			}
		}
	}
	return best[len(w)]
}

// parseSchema is an input schema decoded, nil when it is not JSON.
func parseSchema(schema json.RawMessage) any {
	if len(schema) == 0 {
		return nil
	}
	var root any
	if err := json.Unmarshal(schema, &root); err != nil {
		return nil
	}
	return root
}

// propertyNames returns the property names of an input schema (decoded),
// nested objects and array items included (depth-first, at most 64). A
// schema that is not an object gives none.
func propertyNames(root any) []string {
	var names []string
	var walk func(v any, depth int)
	walk = func(v any, depth int) {
		m, ok := v.(map[string]any)
		if !ok || depth > 4 || len(names) >= 64 {
			return
		}
		if props, ok := m["properties"].(map[string]any); ok {
			keys := make([]string, 0, len(props))
			for k := range props {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				if len(names) < 64 {
					names = append(names, k)
				}
				walk(props[k], depth+1)
			}
		}
		walk(m["items"], depth+1)
	}
	walk(root, 0)
	return names
}

// maxSettable bounds the property names and the enum values settableWords
// reads, each.
const maxSettable = 96

// settableWords are the words of what an input schema (decoded) lets a caller set
// or choose: its property names, breadth first (a property of the body
// before a property of one of its properties), and the string values its
// enums allow (GitHub's review event APPROVE, a state's "closed"), at most
// maxSettable of each; the names of the path's parameters are left out
// (they say which object, not what is set).
func settableWords(root any, pathParams []string) []string {
	var names, values []string
	level := []any{root}
	for depth := 0; depth <= 4 && len(level) > 0; depth++ {
		var next []any
		for _, v := range level {
			m, ok := v.(map[string]any)
			if !ok {
				continue
			}
			for _, e := range schemaEnum(m) {
				if len(values) < maxSettable {
					values = append(values, e)
				}
			}
			props, _ := m["properties"].(map[string]any)
			keys := slices.Sorted(maps.Keys(props))
			for _, k := range keys {
				if len(names) < maxSettable && !(depth == 0 && slices.Contains(pathParams, k)) {
					names = append(names, k)
				}
				if depth > 0 || !slices.Contains(pathParams, k) {
					next = append(next, props[k])
				}
			}
			next = append(next, m["items"])
			if alts, ok := m["anyOf"].([]any); ok {
				next = append(next, alts...)
			}
		}
		level = next
	}
	return words(strings.Join(append(names, values...), " "))
}

// schemaEnum is the string values a schema's enum allows.
func schemaEnum(m map[string]any) []string {
	e, _ := m["enum"].([]any)
	var out []string
	for _, v := range e {
		if s, ok := v.(string); ok && s != "" {
			out = append(out, s)
		}
	}
	return out
}
