// Package ijson checks that JSON text can reach a program as the value it
// writes: that it is JSON, and that each of its numbers is within the range
// of an IEEE 754 double. JSON's grammar allows any number (RFC 8259 section
// 6), but JavaScript's JSON.parse reads one beyond the double's range
// (1e400, -1e999) as Infinity or -Infinity, a value that JSON cannot carry
// back; I-JSON (RFC 7493 section 2.2) says such numbers must not be sent.
// A number closer to zero than the smallest double (1e-400) reads as 0, as
// its nearest double, and passes: it loses precision, as 0.1 does, not its
// meaning.
//
// The schema validator (github.com/santhosh-tekuri/jsonschema/v6) reads a
// number exactly (as a big.Rat), so a schema's integer or number passes
// 1e400; package contract asks this package about every number it decodes
// for the validator, and Check stands in for json.Valid where a value is
// checked to be JSON and nothing else, in the same one pass.
package ijson

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/codemode-go/codemode/internal/jsonpointer"
)

// RangeError is a number beyond the range of a double in a JSON text.
type RangeError struct {
	// Pointer is the JSON pointer (RFC 6901) of the number in the text, "/"
	// for the whole text.
	Pointer string
	// Number is the number as the text writes it, cut to maxNumberText
	// bytes with "…" after.
	Number string
	// Negative is true when the number reads as -Infinity.
	Negative bool
}

// Error says where the number is and why it cannot pass, as one
// "JSON-pointer: message" line:
//
//	/items/3/price: 1e400 is beyond the range of a double (about ±1.8e308); a program would read it as Infinity
func (e *RangeError) Error() string {
	inf := "Infinity"
	if e.Negative {
		inf = "-Infinity"
	}
	return fmt.Sprintf("%s: %s is beyond the range of a double (about ±1.8e308); a program would read it as %s", e.Pointer, e.Number, inf)
}

// maxNumberText bounds the number a RangeError quotes: a number of 100,000
// digits is named by its start.
const maxNumberText = 40

// RangeAt is the RangeError of the number data[start:end], a number in the
// JSON text data that Overflows reports; its pointer is found by reading
// data from its start again (a rare path: the check that finds the number
// does not track where it is).
func RangeAt(data []byte, start, end int) *RangeError {
	num := string(data[start:end])
	if len(num) > maxNumberText {
		num = num[:maxNumberText] + "…"
	}
	return &RangeError{Pointer: Pointer(data, start), Number: num, Negative: data[start] == '-'}
}

// Overflows reports whether the JSON number literal lit reads as a
// double beyond its range (JSON.parse would make it ±Infinity). lit must
// be a valid JSON number (RFC 8259 section 6). Short numbers without an
// exponent, almost all of them, are answered without parsing.
func Overflows(lit []byte) bool {
	intDigits, exp, hasExp := 0, 0, false
	i := 0
	if i < len(lit) && lit[i] == '-' {
		i++
	}
	for i < len(lit) && lit[i] >= '0' && lit[i] <= '9' {
		intDigits++
		i++
	}
	for i < len(lit) && lit[i] != 'e' && lit[i] != 'E' {
		i++
	}
	if i < len(lit) {
		hasExp = true
		exp = exponent(lit[i+1:])
	}
	// The number's magnitude is below 10^(intDigits+exp); the largest
	// double is about 1.8e308.
	if intDigits+exp <= 308 {
		return false
	}
	if !hasExp && intDigits <= 308 {
		return false
	}
	// ParseFloat rounds as JSON.parse does (to nearest): past half a unit
	// beyond the largest double it returns ±Inf (and ErrRange).
	f, _ := strconv.ParseFloat(string(lit), 64)
	return math.IsInf(f, 0)
}

// exponent reads a JSON exponent's sign and digits, saturating at ±1e6
// (far past where a double ends either way).
func exponent(b []byte) int {
	neg := false
	if len(b) > 0 && (b[0] == '+' || b[0] == '-') {
		neg = b[0] == '-'
		b = b[1:]
	}
	n := 0
	for _, c := range b {
		if n < 1e6 {
			n = n*10 + int(c-'0')
		}
	}
	if neg {
		return -n
	}
	return n
}

// Pointer is the JSON pointer (RFC 6901) of the value that starts at byte
// offset in the JSON text data, "/" for the root or when offset starts no
// value that data's start reaches. The text up to offset must be JSON's
// (a prefix of valid JSON text).
func Pointer(data []byte, offset int) string {
	s := scanner{data: data}
	s.space()
	if p, ok := s.locate("", offset); ok && p != "" {
		return p
	}
	return "/"
}

// locate reads the value at s.i, returning its pointer when it or a value
// in it starts at target; otherwise it skips the value and reports false.
func (s *scanner) locate(ptr string, target int) (string, bool) {
	if s.i == target {
		return ptr, true
	}
	if s.i >= len(s.data) {
		return "", false
	}
	open := s.data[s.i]
	if open != '{' && open != '[' {
		_ = s.value(0)
		return "", false
	}
	s.i++
	s.space()
	close := byte('}')
	if open == '[' {
		close = ']'
	}
	for n := 0; s.i < len(s.data) && s.data[s.i] != close; n++ {
		token := strconv.Itoa(n)
		if open == '{' {
			start := s.i
			if s.str() != nil {
				return "", false
			}
			token = key(s.data[start:s.i])
			s.space()
			if s.i >= len(s.data) || s.data[s.i] != ':' {
				return "", false
			}
			s.i++
			s.space()
		}
		if p, ok := s.locate(jsonpointer.Append(ptr, token), target); ok {
			return p, true
		}
		s.space()
		if s.i < len(s.data) && s.data[s.i] == ',' {
			s.i++
			s.space()
		} else if s.i >= len(s.data) || s.data[s.i] != close {
			return "", false
		}
	}
	s.i++
	return "", false
}

// key decodes a member name (a JSON string, quotes included).
func key(quoted []byte) string {
	var k string
	if err := json.Unmarshal(quoted, &k); err != nil {
		return string(quoted[1 : len(quoted)-1])
	}
	return k
}
