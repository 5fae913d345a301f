package search

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math/bits"
	"net/url"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/codemode-go/codemode/internal/jsonpointer"
)

// Definitions resolves the fragment references of a catalogue's schemas
// ("#/components/schemas/io.k8s.api.core.v1.Pod") in one JSON document,
// as an OpenAPI description's components, which its operations' schemas
// point into instead of copying them. It reads only what references
// reach, once each, and only what field collection needs: an object on a
// reference's way is skimmed for its members' places (GitHub's 969
// component schemas, 6.4 MB, are skimmed once, not decoded), and a schema
// the walk visits is read for its reference, its properties' names and
// places, and the places of its items and its allOf, anyOf and oneOf
// members (a node), its descriptions and examples skipped. A reference
// that does not resolve (malformed JSON, a missing name, not a fragment,
// more than maxRefTokens tokens) is a schema with nothing in it. Safe for concurrent use; make one per
// document with NewDefinitions and drop it once the tools' documents are
// made.
type Definitions struct {
	mu  sync.Mutex
	doc *pointerIndex
	// nodes are the schemas read so far, by their place's start in the
	// document.
	nodes map[int32]*node
	// fields are the words outputWords found, by the text of the
	// schema they were read from.
	fields map[string]*fieldWords
	// names are the words of field names, by name.
	names map[string][]string
	// seen holds sets of names a walk has kept (seenSet).
	seen sync.Pool
	// unread is the bytes of the document that may still be read into
	// nodes (readBudget).
	unread int64
}

// span is a JSON value's place in a document: doc[start:end].
type span struct{ start, end int32 }

// NewDefinitions returns the resolver of fragment references into doc, a
// JSON document (typegen.Definitions.Document). places are, by
// reference, where in doc the values references name are, when known
// (typegen.Definitions.Places; nil when not): a reference among them is
// not looked for. It does not read doc until a reference is resolved,
// and keeps doc and places: the caller must not modify them.
func NewDefinitions(doc json.RawMessage, places map[string][2]int) *Definitions {
	return &Definitions{doc: &pointerIndex{doc: doc, known: places}, nodes: map[int32]*node{}, fields: map[string]*fieldWords{}, names: map[string][]string{}, unread: readBudget(doc)}
}

// resolve returns the place of the schema the fragment reference ref
// ("#/a/b") names in the document; false when it names none.
func (d *Definitions) resolve(ref string) (span, bool) {
	if d == nil {
		return span{}, false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.doc.lookup(ref)
}

// node returns the schema at at in the document, read (once; nil, for
// good, when the document's read budget is spent).
func (d *Definitions) node(at span) *node {
	d.mu.Lock()
	defer d.mu.Unlock()
	n, ok := d.nodes[at.start]
	if !ok {
		n = readNode(d.doc.doc, at, &d.unread)
		d.nodes[at.start] = n
	}
	return n
}

// Bounds on the bytes of schema text read into nodes, from one document:
// readFactor times its size plus readBase. Reading a node skims its whole
// text, so schemas nested in one another (allOf in allOf, 512 deep, each
// holding the rest) are each read again: an 8 MB schema so nested took 2 s
// to walk. GitHub's, Stripe's, Kubernetes' and Microsoft Graph's
// descriptions read at most 1.6 times their components and 4.3 times an
// operation's own schema.
const (
	readFactor = 16
	readBase   = 1 << 20
)

// readBudget is the bytes of doc that may be read into nodes.
func readBudget(doc []byte) int64 { return readFactor*int64(len(doc)) + readBase }

// cachedFields returns the words kept for the schema text key.
func (d *Definitions) cachedFields(key []byte) (*fieldWords, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	f, ok := d.fields[string(key)]
	return f, ok
}

// keepFields keeps the words of the schema text key.
func (d *Definitions) keepFields(key []byte, fields *fieldWords) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.fields[string(key)] = fields
}

// seenSet returns an empty set of names for one walk, from those walks
// dropped (dropSeenSet) when there is one.
func (d *Definitions) seenSet() map[string]struct{} {
	if d == nil {
		return map[string]struct{}{}
	}
	if s, ok := d.seen.Get().(map[string]struct{}); ok {
		return s
	}
	return make(map[string]struct{}, maxOutputFields)
}

// dropSeenSet gives back a set of names seenSet returned, emptied.
func (d *Definitions) dropSeenSet(s map[string]struct{}) {
	if d != nil {
		clear(s)
		d.seen.Put(s)
	}
}

// nameWords are the words of the field name name (words), split once.
func (d *Definitions) nameWords(name string) []string {
	if d == nil {
		return words(name)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	ws, ok := d.names[name]
	if !ok {
		ws = words(name)
		d.names[name] = ws
	}
	return ws
}

// pointerIndex finds the values fragment references name in one JSON
// document, keeping the members of the objects on their ways. Its zero
// value with doc set is ready to use.
type pointerIndex struct {
	doc []byte
	// members are, by the pointer of an object on a reference's way
	// ("", "/components", "/components/schemas"), its members' values'
	// places in doc; nil for a value that is not an object.
	members map[string]map[string]span
	// refs are the places references resolved to, by reference.
	refs map[string]span
	// known are places given, by reference ([start, end) in doc); one
	// that does not hold an object is not used.
	known map[string][2]int
}

// lookup returns the place of the value the fragment reference ref
// ("#/a/b", "#" for the whole document) names; false when it names none
// or has more than maxRefTokens tokens. The fragment is read as the
// declarations' printer reads it: percent-decoded (a fragment is a URI's,
// RFC 3986 section 3.5), then split at "/" into tokens, each unescaped
// (RFC 6901 section 4). Each object on a reference's way is read once,
// whatever the references that pass through it.
func (p *pointerIndex) lookup(ref string) (span, bool) {
	if p.refs == nil {
		p.members, p.refs = map[string]map[string]span{}, map[string]span{}
	}
	if at, ok := p.refs[ref]; ok {
		return at, at.end > 0
	}
	if k, ok := p.known[ref]; ok && 0 <= k[0] && k[0] < k[1] && k[1] <= len(p.doc) && p.doc[k[0]] == '{' && p.doc[k[1]-1] == '}' {
		return span{int32(k[0]), int32(k[1])}, true // an object there, as a schema is
	}
	at := span{}
	if rest, ok := fragmentPointer(ref); ok {
		at = span{0, int32(len(p.doc))}
		// The members of the object at rest[:end], by that prefix (a
		// substring of rest: no key is built).
		for end := 0; end < len(rest); {
			m, known := p.members[rest[:end]]
			if !known {
				m = objectMembers(p.doc, at)
				p.members[rest[:end]] = m
			}
			next := strings.IndexByte(rest[end+1:], '/')
			if next < 0 {
				next = len(rest)
			} else {
				next += end + 1
			}
			if at, ok = m[jsonpointer.Unescape(rest[end+1:next])]; !ok {
				at = span{}
				break
			}
			end = next
		}
	}
	p.refs[ref] = at
	return at, at.end > 0
}

// maxRefTokens bounds the tokens of a reference that resolves: each is an
// object on its way to read ("#/components/schemas/Pod" has three; a
// hostile document's reference of 9,000 tokens into objects nested as
// deep read a 400 KB schema for seconds).
const maxRefTokens = 32

// fragmentPointer is the JSON pointer a fragment reference ("#/a%20b/c")
// holds, percent-decoded ("/a b/c", "" for "#"); false when ref is not a
// fragment, is not a pointer (a plain-name anchor), does not decode to
// UTF-8 or has more than maxRefTokens tokens.
func fragmentPointer(ref string) (string, bool) {
	frag, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return "", false
	}
	frag, err := url.PathUnescape(frag)
	if err != nil || !utf8.ValidString(frag) || frag != "" && frag[0] != '/' {
		return "", false
	}
	return frag, strings.Count(frag, "/") <= maxRefTokens
}

// node is a schema as field collection reads it: the reference it is
// (its other members then do not count), its properties by name, and the
// schemas read at its own level (allOf's, anyOf's and oneOf's members,
// then items). Places are in the document the node was read from.
type node struct {
	ref   string
	props []property
	same  []span
}

// property is a property's name and the place of its schema.
type property struct {
	name string
	at   span
}

// readNode reads the schema at at in doc, taking its size from unread;
// an empty node when it is not an object, nil when it is malformed or
// unread has too little left.
func readNode(doc []byte, at span, unread *int64) *node {
	size := int64(at.end - at.start)
	if size > *unread {
		return nil
	}
	*unread -= size
	n := &node{}
	var alts [3][]span
	var items []span
	ok := eachMember(doc, at, func(key []byte, v span) bool {
		switch string(key) {
		case "$ref":
			if doc[v.start] == '"' {
				n.ref = memberName(doc[v.start+1 : v.end-1])
			}
		case "properties":
			return eachMember(doc, v, func(name []byte, p span) bool {
				n.props = append(n.props, property{memberName(name), p})
				return true
			})
		case "items":
			items = append(items, v)
		case "allOf", "anyOf", "oneOf":
			k := strings.Index("allOf anyOf oneOf", string(key)) / 6
			return eachElement(doc, v, func(e span) bool {
				alts[k] = append(alts[k], e)
				return true
			})
		}
		return true
	})
	if !ok {
		return nil
	}
	n.props = lastOfEach(n.props)
	n.same = slices.Concat(alts[0], alts[1], alts[2], items)
	return n
}

// lastOfEach are props sorted by name, one of each name: the last written,
// as a JSON decoder keeps (a hostile schema that repeats one property
// 50,000 times has one property, not 50,000 places to walk).
func lastOfEach(props []property) []property {
	slices.SortStableFunc(props, func(a, b property) int { return strings.Compare(a.name, b.name) })
	out := props[:0]
	for _, p := range props {
		if len(out) > 0 && out[len(out)-1].name == p.name {
			out[len(out)-1] = p
			continue
		}
		out = append(out, p)
	}
	return out
}

// objectMembers are the members of the JSON object at at in doc, by name,
// with their values' places; nil when it is not an object or is
// malformed.
func objectMembers(doc []byte, at span) map[string]span {
	m := map[string]span{}
	object := false
	ok := eachMember(doc, at, func(key []byte, v span) bool {
		object = true
		m[memberName(key)] = v
		return true
	})
	if !ok || !object && !isObject(doc, at) {
		return nil
	}
	return m
}

// isObject reports whether the JSON value at at in doc is an object.
func isObject(doc []byte, at span) bool {
	i := skipSpace(doc[:at.end], int(at.start))
	return i < int(at.end) && doc[i] == '{'
}

// memberName is a member's name from its text between the quotes,
// unescaped.
func memberName(key []byte) string {
	if bytes.IndexByte(key, '\\') < 0 {
		return string(key)
	}
	var name string
	if json.Unmarshal(append(append([]byte{'"'}, key...), '"'), &name) != nil {
		return string(key)
	}
	return name
}

// eachMember calls f with each member of the JSON object at at in doc: its
// name's text between the quotes, as written (escapes not undone), and
// its value's place, until f returns false. It reports false when f
// does or the object is malformed; a value that is not an object has no
// members.
func eachMember(doc []byte, at span, f func(key []byte, v span) bool) bool {
	b := doc[:at.end]
	i := skipSpace(b, int(at.start))
	if i >= len(b) || b[i] != '{' {
		return i < len(b)
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return true
	}
	for i < len(b) && b[i] == '"' {
		end := skipString(b, i)
		if end < 0 {
			return false
		}
		key := b[i+1 : end-1]
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		start := skipSpace(b, i+1)
		if end = skipValue(b, start); end < 0 || !f(key, span{int32(start), int32(end)}) {
			return false
		}
		i = skipSpace(b, end)
		switch {
		case i < len(b) && b[i] == ',':
			i = skipSpace(b, i+1)
		case i < len(b) && b[i] == '}':
			return true
		default:
			return false
		}
	}
	return false
}

// eachElement calls f with the place of each element of the JSON array at
// at in doc, until f returns false. It reports false when f does or the
// array is malformed; a value that is not an array has no elements.
func eachElement(doc []byte, at span, f func(v span) bool) bool {
	b := doc[:at.end]
	i := skipSpace(b, int(at.start))
	if i >= len(b) || b[i] != '[' {
		return i < len(b)
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return true
	}
	for i < len(b) {
		end := skipValue(b, i)
		if end < 0 || !f(span{int32(i), int32(end)}) {
			return false
		}
		i = skipSpace(b, end)
		switch {
		case i < len(b) && b[i] == ',':
			i = skipSpace(b, i+1)
		case i < len(b) && b[i] == ']':
			return true
		default:
			return false
		}
	}
	return false
}

// skipSpace is the index of the first byte at or after i in b that is no
// JSON white space.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t') {
		i++
	}
	return i
}

// skipString is the index after the JSON string starting at b[i] ('"'),
// -1 when it does not end.
func skipString(b []byte, i int) int {
	for j := i + 1; ; j += 2 {
		if j = nextQuoteOrEscape(b, j); j >= len(b) {
			return -1
		}
		if b[j] == '"' {
			return j + 1
		}
	}
}

// Eight bytes at a time: ones has each byte 1, highs each byte's high bit.
const ones, highs = 0x0101010101010101, 0x8080808080808080

// zeroBytes has the high bit of v's first zero byte set (bytes after it may
// be set too); 0 when v has none.
func zeroBytes(v uint64) uint64 { return (v - ones) &^ v & highs }

// nextQuoteOrEscape is the index of the first '"' or '\\' at or after j in
// b, len(b) when there is none. It reads eight bytes at a time.
func nextQuoteOrEscape(b []byte, j int) int {
	for ; j+8 <= len(b); j += 8 {
		x := binary.LittleEndian.Uint64(b[j:])
		if m := zeroBytes(x^(ones*'"')) | zeroBytes(x^(ones*'\\')); m != 0 {
			return j + bits.TrailingZeros64(m)/8
		}
	}
	for ; j < len(b) && b[j] != '"' && b[j] != '\\'; j++ {
	}
	return j
}

// skipValue is the index after the JSON value starting at b[i], -1 when
// it does not end. It checks only what it needs to find the end.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		return skipContainer(b, i)
	}
	j := i
	for j < len(b) && !strings.ContainsRune(",}] \n\r\t", rune(b[j])) {
		j++
	}
	if j == i {
		return -1
	}
	return j
}

// skipContainer is the index after the JSON object or array starting at
// b[i], -1 when it does not end. It reads eight bytes at a time for the
// next quote or bracket outside strings and for the next quote or
// backslash inside (a pretty-printed document is mostly indentation and
// strings).
func skipContainer(b []byte, i int) int {
	depth, inString := 0, false
	for j := i; j < len(b); {
		if j+8 <= len(b) {
			x := binary.LittleEndian.Uint64(b[j:])
			var m uint64
			if inString {
				m = zeroBytes(x^(ones*'"')) | zeroBytes(x^(ones*'\\'))
			} else {
				y := x | ones*0x20 // '[' as '{', ']' as '}'
				m = zeroBytes(x^(ones*'"')) | zeroBytes(y^(ones*'{')) | zeroBytes(y^(ones*'}'))
			}
			if m == 0 {
				j += 8
				continue
			}
			j += bits.TrailingZeros64(m) / 8
		}
		switch c := b[j]; {
		case inString && c == '\\':
			j++
		case c == '"':
			inString = !inString
		case inString:
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			if depth--; depth == 0 {
				return j + 1
			}
		}
		j++
	}
	return -1
}

// walker reads the schemas of one tool's schema text: its references
// resolve in the text itself first (a Go tool's "#/$defs/Node"), then in
// the catalogue's Definitions.
type walker struct {
	own  []byte
	defs *Definitions
	// root is own's schema once read; others are own's other schemas
	// read so far, by their place's start (nil until one is); ownRefs
	// resolves references in own.
	root     *node
	rootRead bool
	others   map[int32]*node
	ownRefs  pointerIndex
	// unread is the bytes of own that may still be read (readBudget).
	unread int64
}

// newWalker is the walker of the schema text own.
func newWalker(own []byte, defs *Definitions) *walker {
	return &walker{own: own, defs: defs, ownRefs: pointerIndex{doc: own}, unread: readBudget(own)}
}

// ownNode is the schema at at in the tool's own schema text, read once per
// walk (a schema whose 50,000 allOf members each name it again is not
// read 512 times).
func (w *walker) ownNode(at span) *node {
	if at.start == 0 {
		if !w.rootRead {
			w.root, w.rootRead = readNode(w.own, at, &w.unread), true
		}
		return w.root
	}
	n, ok := w.others[at.start]
	if !ok {
		n = readNode(w.own, at, &w.unread)
		if w.others == nil {
			w.others = map[int32]*node{}
		}
		w.others[at.start] = n
	}
	return n
}

// place is a schema's place in the tool's own schema text or, inDefs, in
// the Definitions' document.
type place struct {
	at     span
	inDefs bool
}

// deref is the schema at p read, with its references followed (at most
// maxRefs in a row), and the place it was read from; nil when one does
// not resolve.
func (w *walker) deref(p place) (*node, place) {
	for range maxRefs {
		var n *node
		if p.inDefs {
			n = w.defs.node(p.at)
		} else {
			n = w.ownNode(p.at)
		}
		if n == nil || n.ref == "" {
			return n, p
		}
		if at, ok := w.ownRefs.lookup(n.ref); ok {
			p = place{at, false}
		} else if at, ok := w.defs.resolve(n.ref); ok {
			p = place{at, true}
		} else {
			return nil, p
		}
	}
	return nil, p
}

// maxRefs bounds the references followed in a row (a reference to a
// reference ...).
const maxRefs = 8

// Bounds of outputFields: the depth of properties it reads (a list's
// items' fields' fields: PodList items, a Pod's status, its qosClass),
// the field names it keeps, and the schemas it visits.
const (
	maxOutputDepth  = 3
	maxOutputFields = 128
	maxOutputNodes  = 512
)

// fieldWords are the words of a schema's field names, in order.
type fieldWords struct {
	words []string
}

// outputWords are the words of outputFields(schema, defs), kept in defs
// by the schema's text (an output that is one reference, as most are, is
// walked once for all the operations that return it); nil for no schema.
func outputWords(schema json.RawMessage, defs *Definitions) *fieldWords {
	if len(schema) == 0 {
		return nil
	}
	if defs != nil {
		if fw, ok := defs.cachedFields(schema); ok {
			return fw
		}
	}
	names := outputFields(schema, defs)
	fw := &fieldWords{words: make([]string, 0, 2*len(names))}
	for _, name := range names {
		fw.words = append(fw.words, defs.nameWords(name)...)
	}
	if defs != nil {
		defs.keepFields(schema, fw)
	}
	return fw
}

// outputFields are the field names of what a schema (its JSON text)
// describes, breadth first (an object's fields before its fields'
// fields), each name once, references resolved in the schema itself and
// in defs (nil: none); array items, allOf, anyOf and oneOf are read at
// their own level. At most maxOutputFields names from maxOutputDepth
// levels, at most maxOutputNodes schemas visited.
func outputFields(schema json.RawMessage, defs *Definitions) []string {
	if len(schema) == 0 {
		return nil
	}
	w := newWalker(schema, defs)
	var names []string
	seen := defs.seenSet()
	defer defs.dropSeenSet(seen)
	level, nodes := []place{{at: span{0, int32(len(schema))}}}, 0
	var next []place
	for depth := 0; depth < maxOutputDepth && len(level) > 0 && len(names) < maxOutputFields; depth++ {
		last := depth == maxOutputDepth-1
		// No more than room of this level's places and the next's are
		// visited: queueing more would only cost (a hostile schema's
		// 50,000 allOf members, each the schema again).
		room := maxOutputNodes - nodes
		for i := 0; i < len(level) && nodes < maxOutputNodes; i++ {
			n, p := w.deref(level[i])
			nodes++
			if n == nil {
				continue
			}
			for _, at := range n.same[:min(len(n.same), max(0, room-len(level)))] {
				level = append(level, place{at, p.inDefs})
			}
			for _, prop := range n.props {
				if len(names) < maxOutputFields {
					if _, ok := seen[prop.name]; !ok {
						seen[prop.name] = struct{}{}
						names = append(names, prop.name)
					}
				} else if last || len(next) >= room {
					break
				}
				if !last && len(next) < room {
					next = append(next, place{prop.at, p.inDefs})
				}
			}
		}
		level, next = next, level[:0]
	}
	return names
}
