package credhttp

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// minSecret is the shortest configured value that is redacted: shorter ones
// would match ordinary text (a header value "json" or "1").
const minSecret = 8

// redacted replaces a secret's every form.
const redacted = "[redacted]"

// redactor finds the forms of the configured secrets in response bytes.
type redactor struct {
	forms [][]byte // longest first, so that a value wins over its token
}

// newRedactor returns the redactor of the header values in sets.
func newRedactor(sets map[string]http.Header) *redactor {
	seen := map[string]bool{}
	var forms []string
	for _, h := range sets {
		for _, values := range h {
			for _, v := range values {
				for _, f := range secretForms(v) {
					if len(f) >= minSecret && !seen[f] {
						seen[f] = true
						forms = append(forms, f)
					}
				}
			}
		}
	}
	slices.SortFunc(forms, func(a, b string) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return strings.Compare(a, b)
	})
	r := &redactor{}
	for _, f := range forms {
		r.forms = append(r.forms, []byte(f))
	}
	return r
}

// secretForms lists the ways a header value may come back in a response
// that echoes it: as it is, the token of a "Scheme token" value, the
// credentials inside a Basic token, and each of those JSON-escaped,
// percent-encoded (query and path style, upper- and lower-case hex) and
// base64-encoded (standard and URL alphabets, at each of the three
// alignments a secret can take inside a longer encoded text).
func secretForms(v string) []string {
	v = strings.TrimSpace(v)
	raw := []string{v}
	if scheme, token, ok := strings.Cut(v, " "); ok {
		token = strings.TrimSpace(token)
		raw = append(raw, token)
		if strings.EqualFold(scheme, "Basic") {
			if dec, err := base64.StdEncoding.DecodeString(token); err == nil {
				raw = append(raw, string(dec))
				if _, pass, ok := strings.Cut(string(dec), ":"); ok {
					raw = append(raw, pass)
				}
			}
		}
	}
	var out []string
	for _, s := range raw {
		if len(s) < minSecret {
			continue
		}
		out = append(out, s)
		if q, err := json.Marshal(s); err == nil {
			j := string(q[1 : len(q)-1])
			out = append(out, j, strings.ReplaceAll(j, "/", `\/`))
		}
		for _, e := range []string{url.QueryEscape(s), url.PathEscape(s)} {
			out = append(out, e, lowerHex(e))
		}
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
			for k := range 3 {
				out = append(out, base64Core(enc, s, k))
			}
		}
	}
	return out
}

// lowerHex returns s with the hex digits of its percent-escapes in lower
// case.
func lowerHex(s string) string {
	b := []byte(s)
	for i := 0; i+2 < len(b); i++ {
		if b[i] == '%' {
			b[i+1], b[i+2] = toLower(b[i+1]), toLower(b[i+2])
		}
	}
	return string(b)
}

func toLower(c byte) byte {
	if 'A' <= c && c <= 'F' {
		return c + 'a' - 'A'
	}
	return c
}

// base64Core returns the characters of the base64 encoding of s, placed k
// bytes (mod 3) into a longer text, that depend on s alone: whatever
// surrounds s, its encoding contains them (RFC 4648 §4: each character
// carries 6 bits of the 24 of a 3-byte group).
func base64Core(enc *base64.Encoding, s string, k int) string {
	e := enc.EncodeToString(append(make([]byte, k), s...))
	start := (8*k + 5) / 6
	end := 8 * (k + len(s)) / 6
	return e[start:end]
}

// redact replaces every form of every secret in data by "[redacted]",
// returning data itself when it holds none; grow is called with the size
// of a new buffer before it is allocated, and may refuse it.
func (r *redactor) redact(data []byte, grow func(n int) error) ([]byte, error) {
	if len(r.forms) == 0 {
		return data, nil
	}
	next := make([]int, len(r.forms)) // next match of each form at or after pos, or -1
	for i, f := range r.forms {
		next[i] = bytes.Index(data, f)
	}
	first := func(pos int) (at, form int) {
		at, form = -1, -1
		for i, f := range r.forms {
			if next[i] >= 0 && next[i] < pos {
				if j := bytes.Index(data[pos:], f); j >= 0 {
					next[i] = pos + j
				} else {
					next[i] = -1
				}
			}
			if next[i] >= 0 && (at < 0 || next[i] < at) {
				at, form = next[i], i
			}
		}
		return at, form
	}
	at, form := first(0)
	if at < 0 {
		return data, nil
	}
	// Count the output first, to allocate it once.
	size, pos := 0, 0
	for a, f := at, form; a >= 0; a, f = first(pos) {
		size += a - pos + len(redacted)
		pos = a + len(r.forms[f])
	}
	size += len(data) - pos
	if err := grow(size); err != nil {
		return nil, err
	}
	for i, f := range r.forms {
		next[i] = bytes.Index(data, f)
	}
	out := make([]byte, 0, size)
	pos = 0
	for a, f := first(0); a >= 0; a, f = first(pos) {
		out = append(out, data[pos:a]...)
		out = append(out, redacted...)
		pos = a + len(r.forms[f])
	}
	return append(out, data[pos:]...), nil
}

// redactString is redact for a short text.
func (r *redactor) redactString(s string) string {
	out, _ := r.redact([]byte(s), func(int) error { return nil })
	return string(out)
}
