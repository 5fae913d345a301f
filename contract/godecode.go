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
)

// maxDecodeFailureLines bounds the lines of one report, as violationLines
// does.
const maxDecodeFailureLines = 20

// decodeFailures lists the spots where raw, a value valid against t's
// schema that json.Unmarshal refused to decode into t with err, holds what
// t cannot decode: one "JSON-pointer: message" line each, in the order of
// t's fields (a map's members sorted by name). A value that decodes alone
// is not entered; a failure no member explains is reported at the value
// that holds it, the root "/" at least (with err).
func decodeFailures(t reflect.Type, raw json.RawMessage, err error) []string {
	var lines []string
	locateDecodeFailures(t, raw, "", &lines)
	if len(lines) == 0 {
		lines = []string{"/: " + decodeMessage(t, raw, err)}
	}
	if len(lines) > maxDecodeFailureLines {
		lines = append(lines[:maxDecodeFailureLines], fmt.Sprintf("… and %d more", len(lines)-maxDecodeFailureLines))
	}
	return lines
}

// locateDecodeFailures appends a line for each spot within raw, at ptr,
// that t cannot decode, and reports whether it appended any.
func locateDecodeFailures(t reflect.Type, raw json.RawMessage, ptr string, lines *[]string) bool {
	for t.Kind() == reflect.Pointer {
		if string(bytes.TrimSpace(raw)) == "null" {
			return false
		}
		t = t.Elem()
	}
	err := json.Unmarshal(raw, reflect.New(t).Interface())
	if err == nil {
		return false
	}
	found := false
	if !decodesItself(t) {
		switch t.Kind() {
		case reflect.Struct:
			found = locateInStruct(t, raw, ptr, lines)
		case reflect.Map:
			found = locateInMap(t, raw, ptr, lines)
		case reflect.Slice, reflect.Array:
			if !isBytes(t) {
				found = locateInArray(t, raw, ptr, lines)
			}
		}
	}
	if !found {
		*lines = append(*lines, pointerOrRoot(ptr)+": "+decodeMessage(t, raw, err))
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

func locateInStruct(t reflect.Type, raw json.RawMessage, ptr string, lines *[]string) bool {
	var members map[string]json.RawMessage
	if json.Unmarshal(raw, &members) != nil {
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
			// The string option: decode the member as its field alone.
			host := reflect.StructOf([]reflect.StructField{{Name: "F", Type: f.sf.Type, Tag: `json:"f,string"`}})
			one, _ := json.Marshal(map[string]json.RawMessage{"f": v})
			if err := json.Unmarshal(one, reflect.New(host).Interface()); err != nil {
				*lines = append(*lines, at+": "+decodeMessage(f.sf.Type, v, err))
				found = true
			}
			continue
		}
		found = locateDecodeFailures(f.sf.Type, v, at, lines) || found
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

func locateInMap(t reflect.Type, raw json.RawMessage, ptr string, lines *[]string) bool {
	var members map[string]json.RawMessage
	if json.Unmarshal(raw, &members) != nil {
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
		if locateDecodeFailures(t.Elem(), members[k], at, lines) {
			found = true
			continue
		}
		// The member's value decodes: its name may not (a map keyed by a
		// TextUnmarshaler). A null value decodes into any type.
		one, _ := json.Marshal(map[string]any{k: nil})
		if err := json.Unmarshal(one, reflect.New(t).Interface()); err != nil {
			*lines = append(*lines, fmt.Sprintf("%s: the name %s is not a key %s decodes: %v", at, strconv.Quote(k), t.Key(), err))
			found = true
		}
	}
	return found
}

func locateInArray(t reflect.Type, raw json.RawMessage, ptr string, lines *[]string) bool {
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		return false
	}
	found := false
	for i, v := range items {
		found = locateDecodeFailures(t.Elem(), v, jsonpointer.Append(ptr, strconv.Itoa(i)), lines) || found
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
