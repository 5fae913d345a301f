package ijson

import (
	"errors"
	"fmt"
)

// Check reports whether data is one JSON text whose numbers are all
// within the range of a double, in one pass that allocates nothing unless
// it fails. It accepts exactly the texts json.Valid accepts (invalid UTF-8
// in strings included; nesting at most 10,000 deep) except those with a
// number that Overflows, for which it returns a *RangeError naming the
// first. Any other error says why data is not JSON, at which byte offset;
// it wins over a RangeError.
func Check(data []byte) error {
	s := scanner{data: data}
	s.space()
	if err := s.value(0); err != nil {
		return err
	}
	s.space()
	if s.i < len(s.data) {
		return s.errorf("invalid character %q after top-level value", s.data[s.i])
	}
	if s.overEnd > 0 {
		return RangeAt(data, s.overStart, s.overEnd)
	}
	return nil
}

// maxDepth is encoding/json's nesting limit.
const maxDepth = 10000

// scanner reads a JSON text without building its value.
type scanner struct {
	data []byte
	i    int
	// overStart and overEnd bound the first number that Overflows; overEnd
	// is 0 while there is none.
	overStart, overEnd int
}

var errUnexpectedEnd = errors.New("unexpected end of JSON input")

func (s *scanner) errorf(format string, args ...any) error {
	return fmt.Errorf("offset %d: %s", s.i, fmt.Sprintf(format, args...))
}

func (s *scanner) space() {
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// value skips the value at s.i, depth containers deep.
func (s *scanner) value(depth int) error {
	if s.i >= len(s.data) {
		return errUnexpectedEnd
	}
	switch c := s.data[s.i]; c {
	case '{', '[':
		if depth >= maxDepth {
			return s.errorf("exceeded max depth")
		}
		return s.container(depth + 1)
	case '"':
		return s.str()
	case 't':
		return s.literal("true")
	case 'f':
		return s.literal("false")
	case 'n':
		return s.literal("null")
	default:
		if c == '-' || (c >= '0' && c <= '9') {
			return s.number()
		}
		return s.errorf("invalid character %q looking for beginning of value", c)
	}
}

func (s *scanner) literal(word string) error {
	if len(s.data)-s.i < len(word) {
		if string(s.data[s.i:]) == word[:len(s.data)-s.i] {
			return errUnexpectedEnd
		}
		return s.errorf("invalid literal")
	}
	if string(s.data[s.i:s.i+len(word)]) != word {
		return s.errorf("invalid literal")
	}
	s.i += len(word)
	return nil
}

// container skips the object or array at s.i.
func (s *scanner) container(depth int) error {
	object := s.data[s.i] == '{'
	close := byte(']')
	if object {
		close = '}'
	}
	s.i++
	s.space()
	if s.i < len(s.data) && s.data[s.i] == close {
		s.i++
		return nil
	}
	for {
		if object {
			if err := s.member(); err != nil {
				return err
			}
		}
		if err := s.value(depth); err != nil {
			return err
		}
		s.space()
		if s.i >= len(s.data) {
			return errUnexpectedEnd
		}
		switch s.data[s.i] {
		case ',':
			s.i++
			s.space()
		case close:
			s.i++
			return nil
		default:
			what := "array element"
			if object {
				what = "object key:value pair"
			}
			return s.errorf("invalid character %q after %s", s.data[s.i], what)
		}
	}
}

// member skips an object member's name and colon.
func (s *scanner) member() error {
	if s.i >= len(s.data) {
		return errUnexpectedEnd
	}
	if s.data[s.i] != '"' {
		return s.errorf("invalid character %q looking for beginning of object key string", s.data[s.i])
	}
	if err := s.str(); err != nil {
		return err
	}
	s.space()
	if s.i >= len(s.data) {
		return errUnexpectedEnd
	}
	if s.data[s.i] != ':' {
		return s.errorf("invalid character %q after object key", s.data[s.i])
	}
	s.i++
	s.space()
	return nil
}

// number skips -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?, noting
// where it is when it is the first that Overflows.
func (s *scanner) number() error {
	start := s.i
	b := s.data
	if b[s.i] == '-' {
		s.i++
	}
	if s.i >= len(b) {
		return errUnexpectedEnd
	}
	switch {
	case b[s.i] == '0':
		s.i++
	case b[s.i] >= '1' && b[s.i] <= '9':
		s.digits()
	default:
		return s.errorf("invalid character %q in numeric literal", b[s.i])
	}
	long := s.i-start > 308
	if s.i < len(b) && b[s.i] == '.' {
		s.i++
		if s.i >= len(b) {
			return errUnexpectedEnd
		}
		if s.digits() == 0 {
			return s.errorf("invalid character %q after decimal point in numeric literal", b[s.i])
		}
	}
	if s.i < len(b) && (b[s.i] == 'e' || b[s.i] == 'E') {
		long = true
		s.i++
		if s.i < len(b) && (b[s.i] == '+' || b[s.i] == '-') {
			s.i++
		}
		if s.i >= len(b) {
			return errUnexpectedEnd
		}
		if s.digits() == 0 {
			return s.errorf("invalid character %q in exponent of numeric literal", b[s.i])
		}
	}
	// Without an exponent, an integer part of at most 308 digits is below
	// 1e308: only the rest need Overflows.
	if long && s.overEnd == 0 && Overflows(b[start:s.i]) {
		s.overStart, s.overEnd = start, s.i
	}
	return nil
}

func (s *scanner) digits() int {
	n := 0
	for s.i < len(s.data) && s.data[s.i] >= '0' && s.data[s.i] <= '9' {
		s.i++
		n++
	}
	return n
}

// str skips the string at s.i (its opening quote). As json.Valid, it
// checks escapes and refuses control characters, and lets any other byte
// pass, invalid UTF-8 included.
func (s *scanner) str() error {
	s.i++ // "
	b := s.data
	for s.i < len(b) {
		c := b[s.i]
		switch {
		case c == '"':
			s.i++
			return nil
		case c < 0x20:
			return s.errorf("invalid character %q in string literal", c)
		case c == '\\':
			if s.i+1 >= len(b) {
				return errUnexpectedEnd
			}
			s.i++
			switch b[s.i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.i++
			case 'u':
				s.i++
				for k := 0; k < 4; k++ {
					if s.i >= len(b) {
						return errUnexpectedEnd
					}
					if !isHex(b[s.i]) {
						return s.errorf("invalid character %q in \\u hexadecimal character escape", b[s.i])
					}
					s.i++
				}
			default:
				return s.errorf("invalid character %q in string escape code", b[s.i])
			}
		default:
			s.i++
		}
	}
	return errUnexpectedEnd
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}
