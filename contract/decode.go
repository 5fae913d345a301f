package contract

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/codemode-go/codemode/internal/ijson"
)

// decodeJSON decodes one JSON text into the value form the schema
// validator takes (github.com/santhosh-tekuri/jsonschema/v6): nil, bool,
// json.Number, string, []any and map[string]any. It accepts exactly what
// jsonschema.UnmarshalJSON (encoding/json with UseNumber) accepts and
// builds the same value, FuzzDecodeJSON checks both, at several times its
// speed: it works on the bytes in one pass, with no reflection and no
// token stream. As encoding/json does, invalid UTF-8 and lone surrogates in
// strings become U+FFFD, the last of duplicate names wins, and nesting
// deeper than maxDecodeDepth is an error. A number beyond the range of a
// double (ijson.Overflows), which a program would read as ±Infinity, is a
// *ijson.RangeError naming the first, when the text is JSON otherwise; the
// validator would read it exactly and let a schema's "integer" pass it.
func decodeJSON(data []byte) (any, error) {
	d := jsonDecoder{data: data}
	d.space()
	v, err := d.value(0)
	if err != nil {
		return nil, err
	}
	d.space()
	if d.i < len(d.data) {
		return nil, d.errorf("invalid character %q after top-level value", d.data[d.i])
	}
	if d.overEnd > 0 {
		return nil, ijson.RangeAt(data, d.overStart, d.overEnd)
	}
	return v, nil
}

// maxDecodeDepth is encoding/json's nesting limit.
const maxDecodeDepth = 10000

type jsonDecoder struct {
	data []byte
	i    int
	// overStart and overEnd bound the first number that overflows a
	// double; overEnd is 0 while there is none.
	overStart, overEnd int
}

func (d *jsonDecoder) errorf(format string, args ...any) error {
	return fmt.Errorf("offset %d: %s", d.i, fmt.Sprintf(format, args...))
}

var errUnexpectedEnd = errors.New("unexpected end of JSON input")

func (d *jsonDecoder) space() {
	for d.i < len(d.data) {
		switch d.data[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *jsonDecoder) value(depth int) (any, error) {
	if d.i >= len(d.data) {
		return nil, errUnexpectedEnd
	}
	switch c := d.data[d.i]; c {
	case '{':
		if depth >= maxDecodeDepth {
			return nil, d.errorf("exceeded max depth")
		}
		return d.object(depth + 1)
	case '[':
		if depth >= maxDecodeDepth {
			return nil, d.errorf("exceeded max depth")
		}
		return d.array(depth + 1)
	case '"':
		return d.str()
	case 't':
		return true, d.literal("true")
	case 'f':
		return false, d.literal("false")
	case 'n':
		return nil, d.literal("null")
	default:
		if c == '-' || (c >= '0' && c <= '9') {
			return d.number()
		}
		return nil, d.errorf("invalid character %q looking for beginning of value", c)
	}
}

func (d *jsonDecoder) literal(word string) error {
	if len(d.data)-d.i < len(word) {
		if string(d.data[d.i:]) == word[:len(d.data)-d.i] {
			return errUnexpectedEnd
		}
		return d.errorf("invalid literal")
	}
	if string(d.data[d.i:d.i+len(word)]) != word {
		return d.errorf("invalid literal")
	}
	d.i += len(word)
	return nil
}

func (d *jsonDecoder) object(depth int) (any, error) {
	d.i++ // {
	m := map[string]any{}
	d.space()
	if d.i < len(d.data) && d.data[d.i] == '}' {
		d.i++
		return m, nil
	}
	for {
		if d.i >= len(d.data) {
			return nil, errUnexpectedEnd
		}
		if d.data[d.i] != '"' {
			return nil, d.errorf("invalid character %q looking for beginning of object key string", d.data[d.i])
		}
		key, err := d.str()
		if err != nil {
			return nil, err
		}
		d.space()
		if d.i >= len(d.data) {
			return nil, errUnexpectedEnd
		}
		if d.data[d.i] != ':' {
			return nil, d.errorf("invalid character %q after object key", d.data[d.i])
		}
		d.i++
		d.space()
		v, err := d.value(depth)
		if err != nil {
			return nil, err
		}
		m[key] = v
		d.space()
		if d.i >= len(d.data) {
			return nil, errUnexpectedEnd
		}
		switch d.data[d.i] {
		case ',':
			d.i++
			d.space()
		case '}':
			d.i++
			return m, nil
		default:
			return nil, d.errorf("invalid character %q after object key:value pair", d.data[d.i])
		}
	}
}

func (d *jsonDecoder) array(depth int) (any, error) {
	d.i++ // [
	a := []any{}
	d.space()
	if d.i < len(d.data) && d.data[d.i] == ']' {
		d.i++
		return a, nil
	}
	for {
		v, err := d.value(depth)
		if err != nil {
			return nil, err
		}
		a = append(a, v)
		d.space()
		if d.i >= len(d.data) {
			return nil, errUnexpectedEnd
		}
		switch d.data[d.i] {
		case ',':
			d.i++
			d.space()
		case ']':
			d.i++
			return a, nil
		default:
			return nil, d.errorf("invalid character %q after array element", d.data[d.i])
		}
	}
}

// number scans -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
func (d *jsonDecoder) number() (any, error) {
	start := d.i
	b := d.data
	if b[d.i] == '-' {
		d.i++
	}
	digits := func() int {
		n := 0
		for d.i < len(b) && b[d.i] >= '0' && b[d.i] <= '9' {
			d.i++
			n++
		}
		return n
	}
	if d.i >= len(b) {
		return nil, errUnexpectedEnd
	}
	switch {
	case b[d.i] == '0':
		d.i++
	case b[d.i] >= '1' && b[d.i] <= '9':
		digits()
	default:
		return nil, d.errorf("invalid character %q in numeric literal", b[d.i])
	}
	long := d.i-start > 308
	if d.i < len(b) && b[d.i] == '.' {
		d.i++
		if d.i >= len(b) {
			return nil, errUnexpectedEnd
		}
		if digits() == 0 {
			return nil, d.errorf("invalid character %q after decimal point in numeric literal", b[d.i])
		}
	}
	if d.i < len(b) && (b[d.i] == 'e' || b[d.i] == 'E') {
		long = true
		d.i++
		if d.i < len(b) && (b[d.i] == '+' || b[d.i] == '-') {
			d.i++
		}
		if d.i >= len(b) {
			return nil, errUnexpectedEnd
		}
		if digits() == 0 {
			return nil, d.errorf("invalid character %q in exponent of numeric literal", b[d.i])
		}
	}
	// Without an exponent, an integer part of at most 308 digits is below
	// 1e308: only the rest need ijson.Overflows.
	if long && d.overEnd == 0 && ijson.Overflows(b[start:d.i]) {
		d.overStart, d.overEnd = start, d.i
	}
	return json.Number(b[start:d.i]), nil
}

// str decodes a string at d.i (its opening quote).
func (d *jsonDecoder) str() (string, error) {
	d.i++ // "
	start := d.i
	b := d.data
	// Fast path: ASCII without escapes.
	for d.i < len(b) {
		c := b[d.i]
		if c == '"' {
			s := string(b[start:d.i])
			d.i++
			return s, nil
		}
		if c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			break
		}
		d.i++
	}
	out := make([]byte, 0, d.i-start+16)
	out = append(out, b[start:d.i]...)
	for d.i < len(b) {
		c := b[d.i]
		switch {
		case c == '"':
			d.i++
			return string(out), nil
		case c < 0x20:
			return "", d.errorf("invalid character %q in string literal", c)
		case c == '\\':
			if d.i+1 >= len(b) {
				return "", errUnexpectedEnd
			}
			e := b[d.i+1]
			d.i += 2
			switch e {
			case '"', '\\', '/':
				out = append(out, e)
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r, err := d.hex4()
				if err != nil {
					return "", err
				}
				if utf16.IsSurrogate(r) {
					// A high surrogate followed by \\u and a low one is a
					// pair; anything else is U+FFFD, as in encoding/json.
					r2 := rune(-1)
					if d.i+1 < len(b) && b[d.i] == '\\' && b[d.i+1] == 'u' {
						save := d.i
						d.i += 2
						if x, err := d.hex4(); err == nil {
							r2 = x
						} else {
							return "", err
						}
						if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
							out = utf8.AppendRune(out, dec)
							continue
						}
						d.i = save
					}
					r = utf8.RuneError
				}
				out = utf8.AppendRune(out, r)
			default:
				return "", d.errorf("invalid character %q in string escape code", e)
			}
		case c < utf8.RuneSelf:
			out = append(out, c)
			d.i++
		default:
			r, size := utf8.DecodeRune(b[d.i:])
			if r == utf8.RuneError && size == 1 {
				out = utf8.AppendRune(out, utf8.RuneError)
			} else {
				out = append(out, b[d.i:d.i+size]...)
			}
			d.i += size
		}
	}
	return "", errUnexpectedEnd
}

func (d *jsonDecoder) hex4() (rune, error) {
	if d.i+4 > len(d.data) {
		for _, c := range d.data[d.i:] {
			if !isHex(c) {
				return 0, d.errorf("invalid character %q in \\u hexadecimal character escape", c)
			}
		}
		return 0, errUnexpectedEnd
	}
	for _, c := range d.data[d.i : d.i+4] {
		if !isHex(c) {
			return 0, d.errorf("invalid character %q in \\u hexadecimal character escape", c)
		}
	}
	v, _ := strconv.ParseUint(string(d.data[d.i:d.i+4]), 16, 32)
	d.i += 4
	return rune(v), nil
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}
