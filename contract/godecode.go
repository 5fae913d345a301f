package contract

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/codemode-go/codemode/internal/jsonpointer"
)

// A typed tool's input schema says what encoding/json writes for the Go
// type, but not everything the schema accepts decodes into it: the schema
// of time.Time is a string of format "date-time", and formats are
// annotations that validation does not assert by default (JSON Schema
// Validation draft 2020-12, section 7.2.1), which keeps foreign tools'
// schemas lenient; a type with an UnmarshalText or UnmarshalJSON method
// (netip.Addr, a custom ID) is a string or any JSON value; an int64 is
// any integer. Asserting "date-time" would not be exact either: RFC 3339
// section 5.6 allows a lower-case "t" and "z" and a leap second 60,
// which time.Time's UnmarshalJSON refuses. So a typed tool's input is
// decoded into the Go type itself before the handler runs, and a value
// the type refuses is located by decodeFailures and reported as a
// *ValidationError like a schema failure.

var (
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
	rawJSONType         = reflect.TypeFor[json.RawMessage]()
)

// The search decodes each value it enters again, so its work is the
// input's size times its depth: a program could send a recursive type
// 1,000 levels deep around a 4 MiB string and keep the host busy for
// minutes. The search decodes at most decodeWorkFactor times the input's
// size plus decodeWorkBase bytes; past that it enters nothing more, and a
// failure not yet located is reported at the deepest value that holds it
// (the root at least). Each level entered costs about twice its size, so
// the factor reaches a failure four levels deep in an input of any size
// (16 MiB: a map's bad member located in 4.3 s where a valid input is
// checked in 1.2 s; the 16 MiB recursive input stopped in 0.9 s).
const (
	decodeWorkFactor = 8
	decodeWorkBase   = 1 << 20
)

// decodeSearch is one decodeFailures search: the failures found and the
// bytes it may still decode.
type decodeSearch struct {
	found  []violation
	budget int
}

// add records the failure msg at the JSON pointer at ("" for the root).
func (s *decodeSearch) add(at, msg string) {
	at = pointerOrRoot(at)
	s.found = append(s.found, violation{at: at, line: at + ": " + msg})
}

// spend reports whether the search may decode n more bytes, taking them
// from its budget when it may.
func (s *decodeSearch) spend(n int) bool {
	if n > s.budget {
		s.budget = 0
		return false
	}
	s.budget -= n
	return true
}

// decodeFailures lists the spots where raw, a value that json.Unmarshal
// refused to decode into t with err, holds what t cannot decode: one
// violation each, its line "JSON-pointer: message", in the order of t's
// fields (a map's members sorted by name). A value that decodes alone is
// not entered; a failure no member explains, or that the search's budget
// (decodeWorkFactor) does not reach, is reported at the value that holds
// it, the root "/" at least (with err).
func decodeFailures(t reflect.Type, raw json.RawMessage, err error) []violation {
	s := decodeSearch{budget: decodeWorkFactor*len(raw) + decodeWorkBase}
	locateDecodeFailures(t, raw, "", &s)
	if len(s.found) == 0 {
		s.add("", decodeMessage(t, raw, err))
	}
	return s.found
}

// unexplained is the decode failures of decoded that the schema's
// failures sv do not already report: those at no pointer that holds, or
// is, one where the schema failed. A value of the wrong JSON type fails
// both the schema and the decoding, at its own pointer or, when the
// search could not place it, at a value holding it; a date-time that is
// not one, within an input that misses a required member, fails only
// the decoding and is kept. Both lists may be as long as the input is
// wide, so the schema's pointers are sorted and searched.
func unexplained(decoded, sv []violation) []violation {
	if len(sv) == 0 {
		return decoded
	}
	failed := make([]string, len(sv))
	for i, v := range sv {
		failed[i] = v.at
	}
	slices.Sort(failed)
	var out []violation
	for _, d := range decoded {
		if !holdsAny(d.at, failed) {
			out = append(out, d)
		}
	}
	return out
}

// holdsAny reports whether the value at JSON pointer p ("/" for the root)
// is, or holds, the value at one of the pointers of sorted, which is
// sorted and not empty. The pointers under p sort together, from p+"/".
func holdsAny(p string, sorted []string) bool {
	if p == "/" {
		return true
	}
	if _, ok := slices.BinarySearch(sorted, p); ok {
		return true
	}
	i, _ := slices.BinarySearch(sorted, p+"/")
	return i < len(sorted) && strings.HasPrefix(sorted[i], p+"/")
}

// locateDecodeFailures appends a line for each spot within raw, at ptr,
// that t cannot decode, and reports whether it appended any. It enters
// nothing once s's budget is spent.
func locateDecodeFailures(t reflect.Type, raw json.RawMessage, ptr string, s *decodeSearch) bool {
	for t.Kind() == reflect.Pointer {
		if string(bytes.TrimSpace(raw)) == "null" {
			return false
		}
		t = t.Elem()
	}
	if !s.spend(len(raw)) {
		return false
	}
	err := json.Unmarshal(raw, reflect.New(t).Interface())
	if err == nil {
		return false
	}
	found := false
	if !decodesItself(t) {
		switch t.Kind() {
		case reflect.Struct:
			found = locateInStruct(t, raw, ptr, s)
		case reflect.Map:
			found = locateInMap(t, raw, ptr, s)
		case reflect.Slice, reflect.Array:
			if !isBytes(t) {
				found = locateInArray(t, raw, ptr, s)
			}
		}
	}
	if !found {
		s.add(ptr, decodeMessage(t, raw, err))
	}
	return true
}

// decodesItself reports whether encoding/json decodes a t through a method
// of *t (UnmarshalJSON or UnmarshalText), whose failure has no place
// within the value.
func decodesItself(t reflect.Type) bool {
	p := reflect.PointerTo(t)
	return p.Implements(unmarshalerType) || p.Implements(textUnmarshalerType)
}

func locateInStruct(t reflect.Type, raw json.RawMessage, ptr string, s *decodeSearch) bool {
	var members map[string]json.RawMessage
	if !s.spend(len(raw)) || json.Unmarshal(raw, &members) != nil {
		return false
	}
	found := false
	for _, f := range jsonFields(t) {
		name, v, ok := member(members, f.name)
		if !ok {
			continue
		}
		at := jsonpointer.Append(ptr, name)
		if f.quoted {
			if !s.spend(len(v)) {
				break
			}
			// The string option: decode the member as its field alone.
			host := reflect.StructOf([]reflect.StructField{{Name: "F", Type: f.sf.Type, Tag: `json:"f,string"`}})
			one, _ := json.Marshal(map[string]json.RawMessage{"f": v})
			if err := json.Unmarshal(one, reflect.New(host).Interface()); err != nil {
				s.add(at, decodeMessage(f.sf.Type, v, err))
				found = true
			}
			continue
		}
		found = locateDecodeFailures(f.sf.Type, v, at, s) || found
	}
	return found
}

// member finds the value encoding/json gives a field named name: the
// member of that name, or else one whose name matches it without regard
// to case.
func member(members map[string]json.RawMessage, name string) (string, json.RawMessage, bool) {
	if v, ok := members[name]; ok {
		return name, v, true
	}
	for k, v := range members {
		if strings.EqualFold(k, name) {
			return k, v, true
		}
	}
	return "", nil, false
}

func locateInMap(t reflect.Type, raw json.RawMessage, ptr string, s *decodeSearch) bool {
	var members map[string]json.RawMessage
	if !s.spend(len(raw)) || json.Unmarshal(raw, &members) != nil {
		return false
	}
	found := false
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range members {
			if !yield(k) {
				return
			}
		}
	}) {
		at := jsonpointer.Append(ptr, k)
		if locateDecodeFailures(t.Elem(), members[k], at, s) {
			found = true
			continue
		}
		if s.budget == 0 {
			break
		}
		// The member's value decodes: its name may not (a map keyed by a
		// TextUnmarshaler). A null value decodes into any type.
		one, _ := json.Marshal(map[string]any{k: nil})
		if err := json.Unmarshal(one, reflect.New(t).Interface()); err != nil {
			s.add(at, fmt.Sprintf("the name %s is not a key %s decodes: %v", strconv.Quote(k), t.Key(), err))
			found = true
		}
	}
	return found
}

func locateInArray(t reflect.Type, raw json.RawMessage, ptr string, s *decodeSearch) bool {
	var items []json.RawMessage
	if !s.spend(len(raw)) || json.Unmarshal(raw, &items) != nil {
		return false
	}
	found := false
	for i, v := range items {
		found = locateDecodeFailures(t.Elem(), v, jsonpointer.Append(ptr, strconv.Itoa(i)), s) || found
	}
	return found
}

func pointerOrRoot(ptr string) string {
	if ptr == "" {
		return "/"
	}
	return ptr
}

// decodeMessage says why t does not decode raw (err): what it got and
// what the Go type wants.
func decodeMessage(t reflect.Type, raw json.RawMessage, err error) string {
	got := excerpt(raw)
	switch {
	case t == timeType:
		return fmt.Sprintf(`got %s, want an RFC 3339 date-time such as "2026-01-02T15:04:05Z" or "2026-01-02T15:04:05.5+01:00" (%s)`, got, timeProblem(err))
	case decodesItself(t):
		return fmt.Sprintf("got %s, which %s does not decode: %v", got, t, err)
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		lo, hi := int64(-1)<<(t.Bits()-1), int64(1)<<(t.Bits()-1)-1
		return fmt.Sprintf("got %s, want an integer from %d to %d (%s), in digits without a fraction or exponent", got, lo, hi, t)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		hi := uint64(math.MaxUint64) >> (64 - t.Bits())
		return fmt.Sprintf("got %s, want an integer from 0 to %d (%s), in digits without a fraction or exponent", got, hi, t)
	case reflect.Float32:
		return fmt.Sprintf("got %s, want a number within float32's range (about ±3.4e38)", got)
	}
	return fmt.Sprintf("got %s, which %s does not decode: %v", got, t, err)
}

// timeProblem is what time.Time's UnmarshalJSON found wrong, without the
// value and layout the message repeats: `cannot parse "" as "T"`, `month
// out of range`.
func timeProblem(err error) string {
	var pe *time.ParseError
	switch {
	case !errors.As(err, &pe):
		return err.Error()
	case pe.Message != "":
		return strings.TrimPrefix(pe.Message, ": ")
	}
	return fmt.Sprintf("cannot parse %q as %q", pe.ValueElem, pe.LayoutElem)
}

// excerpt is raw as a short quotation: compact JSON, cut after 60 bytes.
func excerpt(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		b.Reset()
		b.Write(bytes.TrimSpace(raw))
	}
	s := b.String()
	if len(s) > 60 {
		cut := 60
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

// mayRefuse reports whether encoding/json may refuse a value of t that its
// reflected schema accepts, so that CheckInput must decode the input to
// know (the handler decodes it again): t decodes itself (time.Time,
// netip.Addr, an UnmarshalJSON or UnmarshalText method), or holds a
// number of a kind narrower than JSON's (an integer refuses 1e3 and 1.0,
// a float32 overflows), a map whose keys are not strings, a non-empty
// interface, a field with the ",string" option, or a kind encoding/json
// does not decode. A type of strings, booleans, float64s, json.Number,
// empty interfaces and slices, maps and structs of them decodes whatever
// its schema accepts, and is decoded once, by the handler.
func mayRefuse(t reflect.Type) bool { return refuses(t, map[reflect.Type]bool{}) }

// refuses is mayRefuse, seen holding the types being looked at (a
// recursive type refuses only through its other parts).
func refuses(t reflect.Type, seen map[reflect.Type]bool) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if seen[t] {
		return false
	}
	seen[t] = true
	if t == rawJSONType {
		return false // it keeps any JSON text as it is
	}
	if decodesItself(t) {
		return true
	}
	switch t.Kind() {
	case reflect.Bool, reflect.String, reflect.Float64:
		return false
	case reflect.Interface:
		return t.NumMethod() > 0
	case reflect.Slice, reflect.Array:
		return refuses(t.Elem(), seen)
	case reflect.Map:
		return t.Key().Kind() != reflect.String || decodesItself(t.Key()) || refuses(t.Elem(), seen)
	case reflect.Struct:
		for f := range t.Fields() {
			tag := f.Tag.Get("json")
			if tag == "-" {
				continue
			}
			if f.Anonymous && !f.IsExported() && f.Type.Kind() == reflect.Pointer {
				return true // encoding/json cannot set an embedded pointer to an unexported struct: any of its fields refused
			}
			if _, opts, _ := strings.Cut(tag, ","); slices.Contains(strings.Split(opts, ","), "string") || refuses(f.Type, seen) {
				return true
			}
		}
		return false
	}
	return true
}
