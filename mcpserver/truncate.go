package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// Truncate bounds text to about maxChars characters (seed 001,
// truncateResponse and truncateResult). Text within the budget is returned
// as it is. A JSON object or array is cut structurally, so the result is
// still valid JSON in the same layout: the largest arrays lose their tail
// items (replaced by one "… N more items" string) and the longest strings
// their ends (marked "… [N more characters]"), until it fits. Other text is
// cut at a UTF-8 boundary with a marker giving the shown and total sizes.
func Truncate(text string, maxChars int) string {
	if utf8.RuneCountInString(text) <= maxChars {
		return text
	}
	trimmed := bytes.TrimSpace([]byte(text))
	if len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[') && json.Valid(trimmed) {
		if out, ok := truncateJSON(trimmed, maxChars); ok {
			return out
		}
	}
	return cutText(text, maxChars)
}

// cutText keeps the start of text and says how much was cut.
func cutText(text string, maxChars int) string {
	total := utf8.RuneCountInString(text)
	keep := max(maxChars-80, 0)
	i, n := 0, 0
	for i < len(text) && n < keep {
		_, size := utf8.DecodeRuneInString(text[i:])
		i += size
		n++
	}
	return fmt.Sprintf("%s\n… [truncated: %d of %d characters shown]", text[:i], n, total)
}

// truncateJSON shrinks a JSON value until its indented encoding fits.
func truncateJSON(text []byte, maxChars int) (string, bool) {
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	v, err := decodeOrdered(dec)
	if err != nil {
		return "", false
	}
	indent := bytes.Contains(text, []byte("\n"))
	for range 200 {
		out, err := encode(v, indent)
		if err != nil {
			return "", false
		}
		if utf8.RuneCount(out) <= maxChars {
			return string(out), true
		}
		if !shrink(&v) {
			return "", false
		}
	}
	return "", false
}

func encode(v any, indent bool) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if indent {
		enc.SetIndent("", "  ")
	}
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// spot is a shrinkable place in a value: an array or a string, with its
// encoded size and a setter.
type spot struct {
	size int
	set  func(any)
	val  any
}

// shrink halves the largest array or string in *v and reports whether
// anything could shrink.
func shrink(v *any) bool {
	var best spot
	var walk func(x any, set func(any)) int
	walk = func(x any, set func(any)) int {
		size := 0
		switch x := x.(type) {
		case *object:
			for i, k := range x.keys {
				size += len(k) + 4 + walk(x.vals[i], func(nv any) { x.vals[i] = nv })
			}
		case []any:
			for i, item := range x {
				size += 2 + walk(item, func(nv any) { x[i] = nv })
			}
			if len(x) > 1 && size > best.size {
				best = spot{size: size, set: set, val: x}
			}
		case string:
			size = len(x) + 2
			if utf8.RuneCountInString(x) > 40 && size > best.size {
				best = spot{size: size, set: set, val: x}
			}
		default:
			b, _ := json.Marshal(x)
			size = len(b)
		}
		return size
	}
	walk(*v, func(nv any) { *v = nv })
	switch x := best.val.(type) {
	case []any:
		keep := len(x) / 2
		if n, ok := x[len(x)-1].(string); ok && len(x) > 1 && isMoreMarker(n) {
			// Already cut once: count the items the marker stands for.
			keep = (len(x) - 1) / 2
		}
		dropped := countDropped(x, keep)
		best.set(append(append([]any{}, x[:keep]...), fmt.Sprintf("… %d more items", dropped)))
		return true
	case string:
		runes := []rune(x)
		keep := len(runes) / 2
		best.set(fmt.Sprintf("%s… [%d more characters]", string(runes[:keep]), len(runes)-keep))
		return true
	}
	return false
}

// isMoreMarker reports whether s is a marker shrink left at an array's end.
func isMoreMarker(s string) bool {
	var n int
	_, err := fmt.Sscanf(s, "… %d more items", &n)
	return err == nil
}

// countDropped is how many items cutting x to keep items drops, counting
// the items an earlier marker at its end stood for.
func countDropped(x []any, keep int) int {
	dropped := len(x) - keep
	if s, ok := x[len(x)-1].(string); ok && isMoreMarker(s) {
		var n int
		fmt.Sscanf(s, "… %d more items", &n)
		dropped += n - 1
	}
	return dropped
}

// object is a JSON object that keeps its members' order.
type object struct {
	keys []string
	vals []any
}

// MarshalJSON encodes the members in their order.
func (o *object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, err := json.Marshal(k)
		if err != nil {
			return nil, err
		}
		b.Write(kb)
		b.WriteByte(':')
		vb, err := json.Marshal(o.vals[i])
		if err != nil {
			return nil, err
		}
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
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
