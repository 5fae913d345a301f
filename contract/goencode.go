package contract

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/codemode-go/codemode/internal/jsonpointer"
)

// A typed tool's handler may return a value that its type's schema
// accepts but that encoding/json refuses to encode: a float64 NaN or
// ±Inf, a cycle of pointers, a MarshalJSON method that fails, a channel
// held in an interface. The schema is of the type, so it cannot say; the
// fault is the tool's, and no change to the program's call avoids it. So
// the refusal is reported as a *ValidationError of phase "output" naming
// where the value lies, in the JSON the program would have read and in
// the Go value, instead of encoding/json's bare message, which the
// program would read as a fault of its own call.

// encodeSearchDepth and encodeSearchBudget bound the search for the spot
// an encoding failure lies at: it enters at most encodeSearchDepth levels
// (a cycle of pointers is otherwise endless) and encodes at most
// encodeSearchBudget bytes of members that encode, each member counting
// encodeMemberCost bytes more than its encoding, so that a slice of
// millions of one-byte numbers is not encoded one item at a time. Past
// either it reports the failure at the deepest value it reached.
const (
	encodeSearchDepth  = 64
	encodeSearchBudget = 8 << 20
	encodeMemberCost   = 64
)

// encodeSpot is where an encoding failure lies: its JSON pointer, its Go
// path (the root's type, then .Field, [index] and [key]), its Go value
// and encoding/json's error for it.
type encodeSpot struct {
	ptr, goPath string
	v           reflect.Value
	err         error
}

// encodeFailure is the *ValidationError of phase "output" for tool's
// output v, which json.Marshal refused with err: one line naming the
// spot within v that encoding/json cannot encode.
func encodeFailure(tool string, v reflect.Value, err error) *ValidationError {
	budget := encodeSearchBudget
	spot := locateEncodeFailure(encodeSpot{goPath: v.Type().String(), v: v, err: err}, 0, &budget)
	at := spot.v.Type().String()
	if spot.goPath != at {
		at = spot.goPath + " (" + at + ")"
	}
	line := fmt.Sprintf("%s: the tool's Go value %s cannot be encoded as JSON (%v); the tool's code must change, no change to the call avoids it",
		pointerOrRoot(spot.ptr), at, spot.err)
	return &ValidationError{Tool: tool, Phase: "output", Lines: []string{line}}
}

// locateEncodeFailure returns the deepest spot within s.v, which
// encoding/json refuses to encode with s.err, whose value it refuses too.
// It enters a member only while depth and budget allow.
func locateEncodeFailure(s encodeSpot, depth int, budget *int) encodeSpot {
	if depth >= encodeSearchDepth || encodesItself(s.v) {
		return s
	}
	ms := encodeMembers(s)
	for i := range ms.n {
		if *budget <= 0 {
			return s
		}
		v := ms.value(i)
		if !v.IsValid() || !v.CanInterface() {
			continue
		}
		text, err := marshalValue(v)
		*budget -= len(text) + encodeMemberCost
		if err != nil {
			m := ms.spot(i)
			m.err = err
			if isCycle(err) {
				// Within a cycle every member fails alike: the first
				// value that holds it is the spot.
				return m
			}
			return locateEncodeFailure(m, depth+1, budget)
		}
	}
	return s
}

// isCycle reports whether err is encoding/json's refusal of a cycle of
// pointers (an *UnsupportedValueError "encountered a cycle via T").
func isCycle(err error) bool {
	var u *json.UnsupportedValueError
	return errors.As(err, &u) && strings.HasPrefix(u.Str, "encountered a cycle")
}

// members are the n values encoding/json writes within a value, one level
// down: value(i) is the i-th (invalid when encoding/json leaves it out),
// spot(i) its spot, whose paths are formatted only for the member the
// search enters.
type members struct {
	n     int
	value func(i int) reflect.Value
	spot  func(i int) encodeSpot
}

// encodeMembers lists the values encoding/json writes within s.v, one
// level down: a pointer's or interface's value (at the same spot), a
// struct's members, an array's items, a map's members sorted by key.
func encodeMembers(s encodeSpot) members {
	v := s.v
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return members{}
		}
		return members{n: 1, value: func(int) reflect.Value { return v.Elem() },
			spot: func(int) encodeSpot { return encodeSpot{ptr: s.ptr, goPath: s.goPath, v: v.Elem()} }}
	case reflect.Struct:
		fields := jsonFields(v.Type())
		value := func(i int) reflect.Value {
			f := fields[i]
			fv, err := v.FieldByIndexErr(f.index)
			if err != nil || ((f.omitEmpty || f.omitZero) && fv.IsZero()) {
				return reflect.Value{}
			}
			return fv
		}
		return members{n: len(fields), value: value, spot: func(i int) encodeSpot {
			return encodeSpot{ptr: jsonpointer.Append(s.ptr, fields[i].name), goPath: s.goPath + "." + fields[i].sf.Name, v: value(i)}
		}}
	case reflect.Slice, reflect.Array:
		return members{n: v.Len(), value: v.Index, spot: func(i int) encodeSpot {
			return encodeSpot{ptr: jsonpointer.Append(s.ptr, strconv.Itoa(i)), goPath: fmt.Sprintf("%s[%d]", s.goPath, i), v: v.Index(i)}
		}}
	case reflect.Map:
		type key struct {
			k    reflect.Value
			name string
		}
		keys := make([]key, 0, v.Len())
		for _, k := range v.MapKeys() {
			keys = append(keys, key{k, fmt.Sprint(k)})
		}
		slices.SortFunc(keys, func(a, b key) int { return cmp.Compare(a.name, b.name) })
		return members{n: len(keys), value: func(i int) reflect.Value { return v.MapIndex(keys[i].k) }, spot: func(i int) encodeSpot {
			k := keys[i]
			return encodeSpot{ptr: jsonpointer.Append(s.ptr, k.name), goPath: fmt.Sprintf("%s[%#v]", s.goPath, k.k), v: v.MapIndex(k.k)}
		}}
	}
	return members{}
}

// encodesItself reports whether encoding/json encodes v through a method
// (MarshalJSON or MarshalText), whose failure has no place within v.
func encodesItself(v reflect.Value) bool {
	t := v.Type()
	if t.Implements(marshalerType) || t.Implements(textMarshalerType) {
		return true
	}
	p := reflect.PointerTo(t)
	return v.CanAddr() && (p.Implements(marshalerType) || p.Implements(textMarshalerType))
}

// marshalValue encodes v as encoding/json encodes it in place: through its
// address where it has one, so that pointer-receiver methods apply.
func marshalValue(v reflect.Value) ([]byte, error) {
	if v.CanAddr() {
		return json.Marshal(v.Addr().Interface())
	}
	return json.Marshal(v.Interface())
}
