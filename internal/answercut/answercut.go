package answercut

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Cut bounds text to about maxChars characters
// (truncateResponse and truncateResult, https://developers.cloudflare.com/agents/tools/codemode/api-reference/). Text within the budget is returned
// as it is. A JSON object or array is cut structurally, so the result is
// still valid JSON in the same layout (indented or compact): members are
// kept in order while they fit, then one marker says how many were left out
// (an array's last item "… N more items", an object's member "…": "N more
// keys: logs"), and a long string is cut with "… [N more characters]". The work
// is linear in the size of text. Other text is cut at a UTF-8 boundary with
// a marker giving the shown and total sizes.
func Cut(text string, maxChars int) string {
	if utf8.RuneCountInString(text) <= maxChars {
		return text
	}
	trimmed := bytes.TrimSpace([]byte(text))
	if len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[') && json.Valid(trimmed) {
		if out, ok := CutJSON(trimmed, maxChars); ok {
			return out
		}
	}
	return cutText(text, maxChars, utf8.RuneCountInString(text))
}

// cutText keeps the start of text and says how much was cut, of total
// characters.
func cutText(text string, maxChars, total int) string {
	keep := max(maxChars-80, 0)
	i, n := 0, 0
	for i < len(text) && n < keep {
		_, size := utf8.DecodeRuneInString(text[i:])
		i += size
		n++
	}
	return fmt.Sprintf("%s\n… [truncated: %d of %d characters shown]", text[:i], n, total)
}

// CutJSON encodes the JSON value text within maxChars characters (counted
// as bytes, which are never fewer), cut structurally as Cut cuts JSON; false
// when text is not one JSON value or not even a cut form fits.
func CutJSON(text []byte, maxChars int) (string, bool) {
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	v, err := decodeOrdered(dec)
	if err != nil {
		return "", false
	}
	e := budgetEncoder{indent: bytes.Contains(text, []byte("\n"))}
	out, ok := e.encode(v, 0, maxChars)
	return out, ok
}

// budgetEncoder writes JSON values within a byte budget.
type budgetEncoder struct {
	indent bool
}

// minString is the smallest budget in which a cut string is still shown.
const minString = 40

// encode returns v's encoding in at most budget bytes, cut structurally,
// or false when not even a cut form fits.
func (e budgetEncoder) encode(v any, depth, budget int) (string, bool) {
	switch x := v.(type) {
	case *object:
		return e.container(depth, budget, '{', '}', len(x.keys), func(i, b int) (string, bool) {
			k, _ := json.Marshal(x.keys[i])
			sep := ":"
			if e.indent {
				sep = ": "
			}
			head := string(k) + sep
			val, ok := e.encode(x.vals[i], depth+1, b-len(head))
			return head + val, ok
		}, func(from int) string {
			m, _ := marshal(moreKeys(x.keys[from:]))
			if e.indent {
				return `"…": ` + m
			}
			return `"…":` + m
		})
	case []any:
		return e.container(depth, budget, '[', ']', len(x), func(i, b int) (string, bool) {
			return e.encode(x[i], depth+1, b)
		}, func(from int) string { return fmt.Sprintf(`"… %d more items"`, len(x)-from) })
	case string:
		full, _ := marshal(x)
		if len(full) <= budget {
			return full, true
		}
		if budget < minString {
			return "", false
		}
		// Keep as much of the start as fits beside the marker.
		runes := []rune(x)
		lo, hi := 0, len(runes)
		for lo < hi {
			mid := (lo + hi + 1) / 2
			cut, _ := marshal(string(runes[:mid]) + fmt.Sprintf("… [%d more characters]", len(runes)-mid))
			if len(cut) <= budget {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		cut, _ := marshal(string(runes[:lo]) + fmt.Sprintf("… [%d more characters]", len(runes)-lo))
		return cut, len(cut) <= budget
	default:
		out, err := marshal(x)
		return out, err == nil && len(out) <= budget
	}
}

// container encodes n members (member(i, budget)) between open and close,
// stopping with more(from) as the last member when members from on do not
// fit.
func (e budgetEncoder) container(depth, budget int, open, close byte, n int, member func(i, budget int) (string, bool), more func(from int) string) (string, bool) {
	nl, pad, padIn := "", "", ""
	if e.indent {
		nl, pad, padIn = "\n", strings.Repeat("  ", depth), strings.Repeat("  ", depth+1)
	}
	if n == 0 {
		return string([]byte{open, close}), budget >= 2
	}
	var b strings.Builder
	b.WriteByte(open)
	// Room for the closing bracket and, until the last member, a marker.
	closing := len(nl) + len(pad) + 1
	for i := 0; i < n; i++ {
		sep := ""
		if i > 0 {
			sep = ","
		}
		reserve := 0
		if i < n-1 {
			reserve = 1 + len(nl) + len(padIn) + len(more(i+1))
		}
		room := budget - b.Len() - len(sep) - len(nl) - len(padIn) - closing - reserve
		m, ok := "", false
		if room > 0 {
			m, ok = member(i, room)
		}
		if !ok {
			if i == 0 && budget-b.Len()-len(nl)-len(padIn)-closing < len(more(0)) {
				return "", false
			}
			b.WriteString(sep + nl + padIn + more(i))
			break
		}
		b.WriteString(sep + nl + padIn + m)
	}
	b.WriteString(nl + pad)
	b.WriteByte(close)
	return b.String(), b.Len() <= budget
}

// moreKeysNames bounds the names a "more keys" marker lists, in bytes.
const moreKeysNames = 60

// moreKeys is the marker of an object's members left out: how many and,
// within moreKeysNames bytes, which ("2 more keys: logs, error"), so a
// reader knows what is missing; names past the bound are "…".
func moreKeys(keys []string) string {
	unit := "keys"
	if len(keys) == 1 {
		unit = "key"
	}
	var names []string
	size := 0
	for _, k := range keys {
		if size+len(k) > moreKeysNames {
			names = append(names, "…")
			break
		}
		names = append(names, k)
		size += len(k) + 2
	}
	return fmt.Sprintf("%d more %s: %s", len(keys), unit, strings.Join(names, ", "))
}

// marshal encodes a scalar without HTML escaping.
func marshal(v any) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimRight(b.String(), "\n"), nil
}

// object is a JSON object that keeps its members' order.
type object struct {
	keys []string
	vals []any
}

// decodeOrdered decodes one JSON value, objects as *object.
func decodeOrdered(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := &object{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				v, err := decodeOrdered(dec)
				if err != nil {
					return nil, err
				}
				o.keys, o.vals = append(o.keys, k), append(o.vals, v)
			}
			_, err := dec.Token()
			return o, err
		case '[':
			a := []any{}
			for dec.More() {
				v, err := decodeOrdered(dec)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			_, err := dec.Token()
			return a, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	default:
		return t, nil
	}
}
