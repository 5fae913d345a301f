package contract

import (
	"bytes"
	"encoding/json"
	"reflect"
)

// fillPlan says where a value of a Go type may hold a nil slice, map or
// byte slice, which encoding/json writes as null while the type's schema
// (an array, an object, a base64 string) does not accept null: fill writes
// [], {} or "" there instead, so that every value Go makes of the type
// satisfies the schema and no declaration needs `| null` for them. A nil
// pointer stays null: its schema says T | null.
//
// A plan follows the Go type, so a recursive type's plan refers to itself.
type fillPlan struct {
	// empty is what null stands for here: "[]", "{}" or `""`; "" leaves
	// null alone.
	empty string
	// ptr, when set, is a pointer's plan: null stays null, and any other
	// value follows ptr.
	ptr    *fillPlan
	fields map[string]*fillPlan // a struct's members, by JSON name
	elem   *fillPlan            // an array's items or a map's values
}

// nullable is the plan of a pointer to a value planned by p.
func (p *fillPlan) nullable() *fillPlan {
	if p == nil {
		return nil
	}
	return &fillPlan{ptr: p}
}

// useful reports whether p can change any value: it reaches a spot where
// null stands for something.
func (p *fillPlan) useful() bool {
	seen := map[*fillPlan]bool{}
	var walk func(q *fillPlan) bool
	walk = func(q *fillPlan) bool {
		if q == nil || seen[q] {
			return false
		}
		seen[q] = true
		if q.empty != "" || walk(q.ptr) || walk(q.elem) {
			return true
		}
		for _, f := range q.fields {
			if walk(f) {
				return true
			}
		}
		return false
	}
	return walk(p)
}

// encodeGo encodes a Go value as a typed tool sends it: json.Marshal of a
// pointer to it, filled by its type's plan (a nil slice as [], ...). A type
// that has no schema is encoded as json.Marshal encodes it.
func encodeGo(v any) (json.RawMessage, error) {
	if v == nil {
		return json.Marshal(v)
	}
	t := reflect.TypeOf(v)
	p := reflect.New(t)
	p.Elem().Set(reflect.ValueOf(v))
	text, err := json.Marshal(p.Interface())
	if err != nil {
		return nil, err
	}
	if _, plan, err := reflectType(t, toolOptions{}); err == nil {
		text = fill(text, plan)
	}
	return text, nil
}

// fill rewrites data, one JSON text (as encoding/json writes it), by plan
// p. Text that is not JSON is returned as it is from the first fault on.
func fill(data []byte, p *fillPlan) []byte {
	if p == nil {
		return data
	}
	f := filler{data: data, out: make([]byte, 0, len(data)+16)}
	f.value(p)
	return append(f.out, data[f.i:]...)
}

// filler copies JSON text from data to out, replacing nulls by plan.
type filler struct {
	data []byte
	i    int
	out  []byte
}

func (f *filler) space() {
	for f.i < len(f.data) {
		switch f.data[f.i] {
		case ' ', '\t', '\n', '\r':
			f.out = append(f.out, f.data[f.i])
			f.i++
		default:
			return
		}
	}
}

func (f *filler) value(p *fillPlan) {
	f.space()
	if f.i >= len(f.data) {
		return
	}
	c := f.data[f.i]
	for p != nil && p.ptr != nil {
		if c == 'n' {
			p = nil // a nil pointer
			break
		}
		p = p.ptr
	}
	switch {
	case p == nil:
		f.copyValue()
	case c == 'n' && p.empty != "":
		f.out = append(f.out, p.empty...)
		f.i += len("null")
	case c == '{':
		f.object(p)
	case c == '[':
		f.array(p.elem)
	default:
		f.copyValue()
	}
}

func (f *filler) object(p *fillPlan) {
	f.out = append(f.out, '{')
	f.i++
	for {
		f.space()
		if f.i >= len(f.data) {
			return
		}
		switch f.data[f.i] {
		case '}':
			f.out = append(f.out, '}')
			f.i++
			return
		case ',':
			f.out = append(f.out, ',')
			f.i++
			continue
		}
		start := f.i
		f.copyValue() // the key
		member := p.elem
		if p.fields != nil {
			raw := f.data[start:f.i]
			key := ""
			switch {
			case len(raw) >= 2 && bytes.IndexByte(raw, '\\') < 0:
				key = string(raw[1 : len(raw)-1]) // the common case: no escapes
			case json.Unmarshal(raw, &key) != nil:
				return
			}
			member = p.fields[key]
		}
		f.space()
		if f.i >= len(f.data) || f.data[f.i] != ':' {
			return
		}
		f.out = append(f.out, ':')
		f.i++
		f.value(member)
	}
}

func (f *filler) array(elem *fillPlan) {
	f.out = append(f.out, '[')
	f.i++
	for {
		f.space()
		if f.i >= len(f.data) {
			return
		}
		switch f.data[f.i] {
		case ']':
			f.out = append(f.out, ']')
			f.i++
			return
		case ',':
			f.out = append(f.out, ',')
			f.i++
			continue
		}
		before := f.i
		f.value(elem)
		if f.i == before {
			return // not JSON: stop here
		}
	}
}

// copyValue copies one JSON value (or an object key) unchanged.
func (f *filler) copyValue() {
	start := f.i
	depth := 0
	for f.i < len(f.data) {
		switch c := f.data[f.i]; c {
		case '"':
			f.i++
			for f.i < len(f.data) && f.data[f.i] != '"' {
				if f.data[f.i] == '\\' {
					f.i++
				}
				f.i++
			}
			f.i++
		case '{', '[':
			depth++
			f.i++
		case '}', ']':
			if depth == 0 {
				f.out = append(f.out, f.data[start:f.i]...)
				return
			}
			depth--
			f.i++
		case ',', ':', ' ', '\t', '\n', '\r':
			if depth == 0 {
				f.out = append(f.out, f.data[start:f.i]...)
				return
			}
			f.i++
		default:
			f.i++
		}
		if depth == 0 && (f.data[start] == '"' || f.data[start] == '{' || f.data[start] == '[') {
			break
		}
	}
	f.i = min(f.i, len(f.data))
	f.out = append(f.out, f.data[start:f.i]...)
}
