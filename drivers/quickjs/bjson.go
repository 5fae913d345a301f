package quickjs

import (
	"bytes"
	"encoding/binary"
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// A tool's output reaches the engine as QuickJS's own serialised form of
// the value (what JS_WriteObject writes without bytecode, read back by
// JS_ReadObject) when valueEncoder can make it: for a 1 MB output, reading
// that form takes about a third of the time JSON.parse takes on the text,
// which parses numbers and looks up every property name as it goes. The
// form is QuickJS-NG's, not a documented format: valueHead is checked
// against the string head the engine itself writes (machine.stringHead), a
// differential test compares the engine's serialisation of JSON.parse's
// result with the encoder's byte for byte, and any text the encoder does
// not take goes to JSON.parse as before.

// valueHead is how QuickJS-NG's serialised form of a string starts with no
// atoms: the format's version (BC_VERSION, 0x16 in quickjs-ng v0.11), an
// empty atom table and the string tag. The encoder is used only when the
// engine writes exactly this.
var valueHead = [...]byte{bcVersion, 0x00, bcTagString}

// The serialised form's version and value tags (quickjs.c, BCTagEnum).
const (
	bcVersion     = 0x16
	bcTagNull     = 0x01
	bcTagFalse    = 0x03
	bcTagTrue     = 0x04
	bcTagFloat64  = 0x06
	bcTagString   = 0x07
	bcTagObject   = 0x08
	bcTagArray    = 0x09
	bcAtomString  = 0x01 // an atom table entry that is a string
	bcMaxIntAtom  = 1<<31 - 1
	maxValueDepth = 256 // deeper text goes to JSON.parse
)

// valueEncoder turns JSON text into the serialised form of the value
// JSON.parse makes of it (every number a float64, as JSON.parse makes
// them; property names as atoms, canonical array indexes up to 2^31-1 as
// integer atoms). It is not safe for concurrent use; its buffers are
// reused.
type valueEncoder struct {
	data  []byte
	i     int
	body  []byte
	atoms map[string]uint32
	table []byte
	count uint32
	units []uint16
	max   int // the largest form taken: formSlack more than the text
}

// A form larger than its text is refused (JSON.parse reads the text): the
// encoder's memory stays within a few times the text, where a text of
// small numbers (2 bytes each, "0,", to 9 in the form) would take 4.5
// times its size in the form and, with the buffer's growth and copies,
// about 30 times in the Go heap. formValueMax bounds what one value adds
// to the form before its own check: a number or a container's head (a
// string's bytes are checked when the form is done).
const (
	formSlack    = 64
	formValueMax = 9
)

// encode returns the serialised form of text's value, or false when text
// is not JSON as this encoder reads it (not UTF-8, nested deeper than
// maxValueDepth, or malformed) or its form would be larger than text (see
// formMax), which JSON.parse then handles. The result is valid until the
// next call.
func (e *valueEncoder) encode(text []byte) ([]byte, bool) {
	if !utf8.Valid(text) {
		return nil, false // JSON.parse sees what the engine decodes it to
	}
	e.max = len(text) + formSlack
	if cap(e.body) < e.max {
		e.body = make([]byte, 0, e.max) // never grown: the form is refused first
	}
	e.data, e.i, e.body, e.table, e.count = text, 0, e.body[:0], e.table[:0], 0
	if e.atoms == nil {
		e.atoms = map[string]uint32{}
	} else {
		clear(e.atoms)
	}
	e.space()
	if !e.value(0) {
		return nil, false
	}
	e.space()
	if e.i != len(e.data) {
		return nil, false
	}
	if len(e.table)+len(e.body) > e.max {
		return nil, false
	}
	out := make([]byte, 0, 8+len(e.table)+len(e.body))
	out = append(out, bcVersion)
	out = binary.AppendUvarint(out, uint64(e.count))
	out = append(out, e.table...)
	return append(out, e.body...), true
}

func (e *valueEncoder) space() {
	for e.i < len(e.data) {
		switch e.data[e.i] {
		case ' ', '\t', '\n', '\r':
			e.i++
		default:
			return
		}
	}
}

func (e *valueEncoder) value(depth int) bool {
	if e.i >= len(e.data) || depth >= maxValueDepth || len(e.body)+len(e.table) > e.max-formValueMax {
		return false
	}
	switch c := e.data[e.i]; {
	case c == '{':
		return e.object(depth)
	case c == '[':
		return e.array(depth)
	case c == '"':
		e.body = append(e.body, bcTagString)
		return e.str(&e.body)
	case c == 't':
		return e.literal("true", bcTagTrue)
	case c == 'f':
		return e.literal("false", bcTagFalse)
	case c == 'n':
		return e.literal("null", bcTagNull)
	case c == '-' || c >= '0' && c <= '9':
		return e.number()
	}
	return false
}

func (e *valueEncoder) literal(word string, tag byte) bool {
	if !bytes.HasPrefix(e.data[e.i:], []byte(word)) {
		return false
	}
	e.i += len(word)
	e.body = append(e.body, tag)
	return true
}

// number reads a number as JSON's grammar has it
// (https://www.rfc-editor.org/rfc/rfc8259#section-6) and writes it as a
// float64, correctly rounded as JSON.parse rounds it.
func (e *valueEncoder) number() bool {
	start := e.i
	if e.data[e.i] == '-' {
		e.i++
	}
	switch {
	case e.i < len(e.data) && e.data[e.i] == '0':
		e.i++
	case e.i < len(e.data) && e.data[e.i] >= '1' && e.data[e.i] <= '9':
		e.digits()
	default:
		return false
	}
	if e.i < len(e.data) && e.data[e.i] == '.' {
		e.i++
		if !e.digits() {
			return false
		}
	}
	if e.i < len(e.data) && (e.data[e.i] == 'e' || e.data[e.i] == 'E') {
		e.i++
		if e.i < len(e.data) && (e.data[e.i] == '+' || e.data[e.i] == '-') {
			e.i++
		}
		if !e.digits() {
			return false
		}
	}
	f, err := strconv.ParseFloat(string(e.data[start:e.i]), 64)
	if err != nil && !math.IsInf(f, 0) {
		return false // out of range is ±Infinity, as in JavaScript
	}
	if math.Abs(f) < 0x1p-1022 && (f != 0 || nonzeroDigits(e.data[start:e.i])) {
		// Subnormal, or rounded to zero: QuickJS-NG's JSON.parse
		// rounds some of these otherwise (-2.4703282292062328e-324 to
		// 0, not -5e-324, and the exact half of 5e-324, negative, to 0,
		// not -0), and the program sees what JSON.parse makes.
		return false
	}
	e.body = append(e.body, bcTagFloat64)
	e.body = binary.LittleEndian.AppendUint64(e.body, math.Float64bits(f))
	return true
}

// nonzeroDigits reports whether number, JSON text, has a digit other than
// 0 before its exponent.
func nonzeroDigits(number []byte) bool {
	for _, c := range number {
		switch {
		case c == 'e' || c == 'E':
			return false
		case c >= '1' && c <= '9':
			return true
		}
	}
	return false
}

// digits reads one or more decimal digits.
func (e *valueEncoder) digits() bool {
	start := e.i
	for e.i < len(e.data) && e.data[e.i] >= '0' && e.data[e.i] <= '9' {
		e.i++
	}
	return e.i > start
}

func (e *valueEncoder) array(depth int) bool {
	return e.list(']', bcTagArray, func() bool { return e.value(depth + 1) })
}

func (e *valueEncoder) object(depth int) bool {
	return e.list('}', bcTagObject, func() bool { return e.member(depth) })
}

// list reads an array or an object from its opening bracket to close,
// reading each item with item, and writes tag, the number of items and
// the items.
func (e *valueEncoder) list(close, tag byte, item func() bool) bool {
	e.i++ // [ or {
	e.body = append(e.body, tag)
	countAt := len(e.body)
	e.body = append(e.body, 0, 0, 0, 0, 0) // the count, as a padded ULEB128
	e.space()
	if e.i < len(e.data) && e.data[e.i] == close {
		e.i++
		return e.count5(countAt, 0)
	}
	n := uint64(0)
	for {
		e.space()
		if !item() {
			return false
		}
		n++
		e.space()
		if e.i >= len(e.data) {
			return false
		}
		switch e.data[e.i] {
		case ',':
			e.i++
		case close:
			e.i++
			return e.count5(countAt, n)
		default:
			return false
		}
	}
}

// member reads an object's property: its name, a colon and its value.
func (e *valueEncoder) member(depth int) bool {
	if e.i >= len(e.data) || e.data[e.i] != '"' || !e.key() {
		return false
	}
	e.space()
	if e.i >= len(e.data) || e.data[e.i] != ':' {
		return false
	}
	e.i++
	e.space()
	return e.value(depth + 1)
}

// count5 writes n at at as a five-byte ULEB128 (continuation bits on the
// first four), which QuickJS reads as it reads the shortest form, so that
// a count is written before the elements it counts are known.
func (e *valueEncoder) count5(at int, n uint64) bool {
	if n > math.MaxUint32 {
		return false
	}
	for k := range 4 {
		e.body[at+k] = byte(n&0x7f) | 0x80
		n >>= 7
	}
	e.body[at+4] = byte(n)
	return true
}

// key reads a property name and writes its atom reference: an integer atom
// for a canonical array index up to 2^31-1 (as JS_NewAtom makes), else an
// entry of the atom table, which holds each name once in order of first
// use.
func (e *valueEncoder) key() bool {
	start := e.i
	var name []byte
	if !e.str(&name) {
		return false
	}
	raw := e.data[start+1 : e.i-1]
	if bytes.IndexByte(raw, '\\') >= 0 {
		return false // rare: JSON.parse reads it
	}
	if n, ok := arrayIndex(raw); ok {
		e.body = binary.AppendUvarint(e.body, uint64(n)<<1|1)
		return true
	}
	idx, ok := e.atoms[string(raw)]
	if !ok {
		idx = e.count
		e.count++
		e.atoms[string(raw)] = idx
		e.table = append(e.table, bcAtomString)
		e.table = append(e.table, name...)
	}
	e.body = binary.AppendUvarint(e.body, uint64(idx+1)<<1) // the table starts at atom 1
	return true
}

// arrayIndex reports whether raw, a property name's text between its
// quotes, is a canonical decimal integer no larger than bcMaxIntAtom ("0",
// or digits not starting with 0), and its value.
func arrayIndex(raw []byte) (uint32, bool) {
	if len(raw) == 0 || len(raw) > 10 || (raw[0] == '0' && len(raw) > 1) {
		return 0, false
	}
	n := uint64(0)
	for _, c := range raw {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	return uint32(n), n <= bcMaxIntAtom
}

// str reads a JSON string and appends its serialised form to *dst: the
// ULEB128 of its length in code units times two, plus one when they are
// 16-bit, then its code units, one byte each when all are below 256 (as
// JSON.parse makes it), else two, little-endian.
func (e *valueEncoder) str(dst *[]byte) bool {
	e.i++ // "
	start := e.i
	for e.i < len(e.data) {
		c := e.data[e.i]
		if c == '"' {
			s := e.data[start:e.i]
			e.i++
			*dst = binary.AppendUvarint(*dst, uint64(len(s))<<1)
			*dst = append(*dst, s...)
			return true
		}
		if c == '\\' || c < 0x20 || c >= 0x80 {
			return e.slowStr(dst, start)
		}
		e.i++
	}
	return false
}

// slowStr reads a string with escapes or non-ASCII text from start as
// UTF-16 code units: an escaped surrogate stays as it is, as JSON.parse
// keeps it.
func (e *valueEncoder) slowStr(dst *[]byte, start int) bool {
	units := e.units[:0]
	if n := bytes.IndexByte(e.data[start:], '"'); n > cap(units) {
		// At most a unit a byte, to the closing quote (or the first
		// escaped quote): sized once, not grown a quarter at a time.
		units = make([]uint16, 0, min(n, e.max/2+1))
	}
	e.i = start
	wide := false
	for {
		if e.i >= len(e.data) || wide && len(e.body)+len(e.table)+2*len(units) > e.max {
			return false // the second: two bytes for each ASCII letter (see formSlack)
		}
		c := e.data[e.i]
		switch {
		case c == '"':
			e.i++
			e.units = units
			appendUnits(dst, units, wide)
			return true
		case c < 0x20:
			return false
		case c == '\\':
			u, ok := e.escape()
			if !ok {
				return false
			}
			units = append(units, u)
			wide = wide || u > 0xff
		case c < 0x80:
			units = append(units, uint16(c))
			e.i++
		default:
			r, size := utf8.DecodeRune(e.data[e.i:])
			e.i += size
			if r > 0xffff {
				hi, lo := utf16.EncodeRune(r)
				units = append(units, uint16(hi), uint16(lo))
				wide = true
				continue
			}
			units = append(units, uint16(r))
			wide = wide || r > 0xff
		}
	}
}

// escape reads one escape sequence at e.i and returns its code unit.
func (e *valueEncoder) escape() (uint16, bool) {
	if e.i+1 >= len(e.data) {
		return 0, false
	}
	c := e.data[e.i+1]
	e.i += 2
	switch c {
	case '"', '\\', '/':
		return uint16(c), true
	case 'b':
		return '\b', true
	case 'f':
		return '\f', true
	case 'n':
		return '\n', true
	case 'r':
		return '\r', true
	case 't':
		return '\t', true
	case 'u':
		if e.i+4 > len(e.data) {
			return 0, false
		}
		v, err := strconv.ParseUint(string(e.data[e.i:e.i+4]), 16, 16)
		if err != nil {
			return 0, false
		}
		e.i += 4
		return uint16(v), true
	}
	return 0, false
}

func appendUnits(dst *[]byte, units []uint16, wide bool) {
	if !wide {
		*dst = binary.AppendUvarint(*dst, uint64(len(units))<<1)
		for _, u := range units {
			*dst = append(*dst, byte(u))
		}
		return
	}
	*dst = binary.AppendUvarint(*dst, uint64(len(units))<<1|1)
	for _, u := range units {
		*dst = binary.LittleEndian.AppendUint16(*dst, u)
	}
}
