package durable

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// canonical returns v as canonical JSON: object keys sorted, no
// insignificant space, numbers as written. It is how a call's arguments
// are recorded and compared on replay, so its output for a given input
// never changes: the text of an entry recorded by an earlier version must
// equal the text a replay computes.
//
// Arguments as the runner sends them (JSON.stringify of a small object)
// are mostly canonical already; those are copied as they are
// (isCanonical), without decoding and encoding them again (about 6 us and
// 16 allocations for {"repo":"r12"}). The result never shares v's memory.
func canonical(v json.RawMessage) (json.RawMessage, error) {
	if isCanonical(v) {
		return bytes.Clone(v), nil
	}
	return recode(v)
}

// recode is canonical's decoding path: v decoded (numbers kept as
// written) and encoded again.
func recode(v json.RawMessage) (json.RawMessage, error) {
	d := json.NewDecoder(bytes.NewReader(v))
	d.UseNumber()
	var x any
	if err := d.Decode(&x); err != nil {
		return nil, err
	}
	return encodeDecoded(x)
}

// encodeDecoded encodes x, a value decoded with UseNumber, as recode
// writes it: members in key order, no HTML escaping, no trailing newline.
func encodeDecoded(x any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(x); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// maxCanonicalDepth is the deepest nesting isCanonical reads; deeper
// values take the decoding path.
const maxCanonicalDepth = 32

// isCanonical reports whether v is one JSON value (RFC 8259) that
// canonical's decoding path would return unchanged, by a conservative
// reading: no space outside strings, object keys strictly increasing in
// byte order (as encoding/json sorts map keys; no duplicates), strings of
// printable ASCII without escapes, valid numbers, at most
// maxCanonicalDepth levels, nothing after the value. False means "not
// known to be canonical", not "invalid". FuzzIsCanonical holds the two
// paths to the same output.
func isCanonical(v []byte) bool {
	r := canonReader{b: v}
	return r.value(0) && r.i == len(v)
}

// canonReader reads b from i; each method reports whether what it read
// is canonical, leaving i after it.
type canonReader struct {
	b []byte
	i int
}

func (r *canonReader) value(depth int) bool {
	if r.i >= len(r.b) || depth > maxCanonicalDepth {
		return false
	}
	switch c := r.b[r.i]; {
	case c == '{':
		return r.object(depth)
	case c == '[':
		return r.array(depth)
	case c == '"':
		_, ok := r.str()
		return ok
	case c == '-' || (c >= '0' && c <= '9'):
		return r.number()
	}
	for _, lit := range []string{"true", "false", "null"} {
		if bytes.HasPrefix(r.b[r.i:], []byte(lit)) {
			r.i += len(lit)
			return true
		}
	}
	return false
}

func (r *canonReader) object(depth int) bool {
	r.i++ // {
	if r.i < len(r.b) && r.b[r.i] == '}' {
		r.i++
		return true
	}
	var last []byte
	for first := true; ; first = false {
		key, ok := r.str()
		if !ok || (!first && bytes.Compare(key, last) <= 0) {
			return false
		}
		last = key
		if r.i >= len(r.b) || r.b[r.i] != ':' {
			return false
		}
		r.i++
		if !r.value(depth + 1) {
			return false
		}
		if r.i >= len(r.b) {
			return false
		}
		switch r.b[r.i] {
		case ',':
			r.i++
		case '}':
			r.i++
			return true
		default:
			return false
		}
	}
}

func (r *canonReader) array(depth int) bool {
	r.i++ // [
	if r.i < len(r.b) && r.b[r.i] == ']' {
		r.i++
		return true
	}
	for {
		if !r.value(depth+1) || r.i >= len(r.b) {
			return false
		}
		switch r.b[r.i] {
		case ',':
			r.i++
		case ']':
			r.i++
			return true
		default:
			return false
		}
	}
}

// str reads a string of printable ASCII without escapes and returns its
// contents.
func (r *canonReader) str() ([]byte, bool) {
	if r.i >= len(r.b) || r.b[r.i] != '"' {
		return nil, false
	}
	start := r.i + 1
	for j := start; j < len(r.b); j++ {
		switch c := r.b[j]; {
		case c == '"':
			r.i = j + 1
			return r.b[start:j], true
		case c == '\\' || c < 0x20 || c > 0x7e:
			return nil, false
		}
	}
	return nil, false
}

// number reads -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?, which
// encoding/json writes back as it is read (json.Number).
func (r *canonReader) number() bool {
	if r.peek('-') {
		r.i++
	}
	switch {
	case r.peek('0'):
		r.i++
	case r.i < len(r.b) && r.b[r.i] >= '1' && r.b[r.i] <= '9':
		r.digits()
	default:
		return false
	}
	if r.peek('.') {
		r.i++
		if r.digits() == 0 {
			return false
		}
	}
	if r.peek('e') || r.peek('E') {
		r.i++
		if r.peek('+') || r.peek('-') {
			r.i++
		}
		if r.digits() == 0 {
			return false
		}
	}
	return true
}

func (r *canonReader) peek(c byte) bool { return r.i < len(r.b) && r.b[r.i] == c }

// digits reads a run of ASCII digits and returns its length.
func (r *canonReader) digits() int {
	start := r.i
	for r.i < len(r.b) && r.b[r.i] >= '0' && r.b[r.i] <= '9' {
		r.i++
	}
	return r.i - start
}

// canonicalArgs is canonical for a call's arguments, which the journal
// must record whole: what a person approves (ShownDigest covers the
// recorded bytes), what a replay compares and what a revert receives are
// the recorded text, while the connector receives the program's. So
// arguments that canonical would change in meaning, not only in form, are
// refused with a *lossError: a lone surrogate escape ("\ud800") or invalid
// UTF-8 (both decode to U+FFFD, so "bob\ud800" and "bob\udbff" record
// alike although a JavaScript or Python server tells them apart), or a
// key twice in one object (the record keeps the last; a server may take
// the first).
//
// The check costs a byte scan beside the decoding: the members the text
// writes are counted and compared with the keys decoded, and only text
// that fails (a surrogate escape, a duplicate) is walked again to say
// where.
func canonicalArgs(v json.RawMessage) (json.RawMessage, error) {
	if isCanonical(v) {
		return bytes.Clone(v), nil
	}
	members, surrogate := scanMembers(v)
	if surrogate || !utf8.Valid(v) {
		if err := lossless(v); err != nil {
			return nil, err
		}
	}
	d := json.NewDecoder(bytes.NewReader(v))
	d.UseNumber()
	var x any
	if err := d.Decode(&x); err != nil {
		return nil, err
	}
	if countKeys(x) != members {
		if err := lossless(v); err != nil {
			return nil, err
		}
	}
	return encodeDecoded(x)
}

// scanMembers counts the object members JSON text writes (the colons
// outside strings) and reports whether a string holds a \uD800–\uDFFF
// escape (perhaps a pair: lossless tells).
func scanMembers(v []byte) (members int, surrogate bool) {
	in := false
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case !in && c == ':':
			members++
		case c == '"':
			in = !in
		case in && c == '\\' && i+1 < len(v):
			i++
			if v[i] == 'u' && i+2 < len(v) && (v[i+1] == 'd' || v[i+1] == 'D') && strings.IndexByte("89abcdefABCDEF", v[i+2]) >= 0 {
				surrogate = true
			}
		}
	}
	return members, surrogate
}

// countKeys counts the keys of every object in a decoded value.
func countKeys(x any) int {
	n := 0
	switch t := x.(type) {
	case map[string]any:
		n += len(t)
		for _, v := range t {
			n += countKeys(v)
		}
	case []any:
		for _, v := range t {
			n += countKeys(v)
		}
	}
	return n
}

// lossError says where a value holds what canonical would not keep.
type lossError struct {
	pointer, problem string
}

func (e *lossError) Error() string {
	return fmt.Sprintf("%s: %s, which the journal cannot record as it is sent", e.pointer, e.problem)
}

// lossless returns a *lossError when canonical(v) would mean something else
// than v: invalid UTF-8, a lone surrogate escape, or a duplicate key. It
// returns nil for text that is not JSON (canonical reports that).
func lossless(v []byte) error {
	if !utf8.Valid(v) {
		return &lossError{pointer: "/", problem: "the text is not valid UTF-8"}
	}
	w := lossWalker{dec: json.NewDecoder(bytes.NewReader(v)), raw: v}
	w.dec.UseNumber()
	err := w.value("")
	if le, ok := err.(*lossError); ok {
		return le
	}
	return nil
}

// lossWalker reads a JSON value token by token, looking at each string's
// text as written.
type lossWalker struct {
	dec  *json.Decoder
	raw  []byte
	last int64 // input offset after the previous token
}

// token reads the next token, returning the text it was read from (with
// the separators before it).
func (w *lossWalker) token() (json.Token, []byte, error) {
	tok, err := w.dec.Token()
	if err != nil {
		return nil, nil, err
	}
	off := w.dec.InputOffset()
	text := w.raw[w.last:off]
	w.last = off
	return tok, text, nil
}

func (w *lossWalker) value(pointer string) error {
	tok, text, err := w.token()
	if err != nil {
		return err
	}
	return w.after(tok, text, pointer)
}

// after checks the value tok begins.
func (w *lossWalker) after(tok json.Token, text []byte, pointer string) error {
	switch t := tok.(type) {
	case string:
		if s := loneSurrogate(text); s != "" {
			return &lossError{pointer: or(pointer, "/"), problem: "the string holds a lone surrogate (" + s + ")"}
		}
	case json.Delim:
		if t == '{' {
			return w.object(pointer)
		}
		if t == '[' {
			for i := 0; w.dec.More(); i++ {
				if err := w.value(pointer + "/" + strconv.Itoa(i)); err != nil {
					return err
				}
			}
			_, _, err := w.token()
			return err
		}
	}
	return nil
}

func (w *lossWalker) object(pointer string) error {
	seen := map[string]bool{}
	for w.dec.More() {
		tok, text, err := w.token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		at := pointer + "/" + strings.ReplaceAll(strings.ReplaceAll(key, "~", "~0"), "/", "~1")
		if s := loneSurrogate(text); s != "" {
			return &lossError{pointer: at, problem: "the key holds a lone surrogate (" + s + ")"}
		}
		if seen[key] {
			return &lossError{pointer: at, problem: "the key appears twice in one object"}
		}
		seen[key] = true
		if err := w.value(at); err != nil {
			return err
		}
	}
	_, _, err := w.token()
	return err
}

// or is s, or alt when s is empty.
func or(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

// loneSurrogate returns the first \uXXXX escape of a JSON string's text
// that is a surrogate not in a high-low pair, or "".
func loneSurrogate(text []byte) string {
	pending := "" // a high surrogate awaiting its low half
	for i := 0; i < len(text); i++ {
		if text[i] != '\\' {
			if pending != "" {
				return pending
			}
			continue
		}
		if i+1 < len(text) && text[i+1] != 'u' {
			if pending != "" {
				return pending
			}
			i++ // an escape of one character (\\, \", \n…)
			continue
		}
		if i+6 > len(text) {
			return ""
		}
		esc := string(text[i : i+6])
		r, err := strconv.ParseUint(esc[2:], 16, 32)
		i += 5
		switch {
		case err != nil:
			return ""
		case r >= 0xdc00 && r <= 0xdfff && pending != "":
			pending = ""
		case r >= 0xdc00 && r <= 0xdfff:
			return esc
		case pending != "":
			return pending
		case r >= 0xd800 && r <= 0xdbff:
			pending = esc
		}
	}
	return pending
}
