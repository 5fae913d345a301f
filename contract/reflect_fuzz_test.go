package contract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"reflect"
	"testing"
	"time"

	"github.com/codemode-go/codemode/internal/typegen"
)

// fuzzBytes hands out fuzz input one choice at a time (zero once spent).
type fuzzBytes struct {
	data []byte
	i    int
}

func (b *fuzzBytes) next(n int) int {
	if b.i >= len(b.data) {
		return 0
	}
	v := int(b.data[b.i]) % n
	b.i++
	return v
}

// FuzzEmbedded is a named struct the generated shapes embed.
type FuzzEmbedded struct {
	ID   int      `json:"id"`
	Tags []string `json:"tags,omitempty"`
	Name string
}

// fuzzType builds a Go type from fuzz input: scalars, slices, maps,
// pointers, arrays, interfaces, times, bytes, and structs (reflect.StructOf)
// whose fields carry json tags that rename, omit, quote, collide and embed.
func fuzzType(b *fuzzBytes, depth int) reflect.Type {
	leaves := []reflect.Type{reflect.TypeFor[bool](), reflect.TypeFor[int8](), reflect.TypeFor[string](), reflect.TypeFor[float64](),
		reflect.TypeFor[uint16](), reflect.TypeFor[any](), reflect.TypeFor[time.Time](), reflect.TypeFor[[]byte](),
		reflect.TypeFor[json.RawMessage](), reflect.TypeFor[*big.Int](), reflect.TypeFor[json.Number](), reflect.TypeFor[FuzzEmbedded]()}
	k := b.next(8)
	if depth > 3 {
		k = 0
	}
	switch k {
	case 1:
		return reflect.SliceOf(fuzzType(b, depth+1))
	case 2:
		return reflect.MapOf(reflect.TypeFor[string](), fuzzType(b, depth+1))
	case 3:
		return reflect.PointerTo(fuzzType(b, depth+1))
	case 4:
		return reflect.ArrayOf(b.next(3), fuzzType(b, depth+1))
	case 5:
		return reflect.MapOf(reflect.TypeFor[int32](), fuzzType(b, depth+1))
	case 6, 7:
		var fields []reflect.StructField
		used := map[string]bool{}
		for i := range b.next(5) {
			f := reflect.StructField{Name: fmt.Sprintf("F%d", i), Type: fuzzType(b, depth+1)}
			if b.next(6) == 0 {
				f = reflect.StructField{Name: "FuzzEmbedded", Type: reflect.TypeFor[FuzzEmbedded](), Anonymous: true}
				if b.next(2) == 0 {
					f.Type = reflect.TypeFor[*FuzzEmbedded]()
				}
			}
			names := []string{"", "a", "b", "id", "-", "name"}
			opts := []string{"", ",omitempty", ",omitzero", ",string", ",omitempty,string"}
			tag := names[b.next(len(names))] + opts[b.next(len(opts))]
			if tag == "-" {
				tag = "-,"
			}
			if tag != "" {
				f.Tag = reflect.StructTag(`json:"` + tag + `"`)
			}
			if used[f.Name] {
				continue
			}
			used[f.Name] = true
			fields = append(fields, f)
		}
		return reflect.StructOf(fields)
	}
	return leaves[b.next(len(leaves))]
}

// fuzzValue fills v (settable) from fuzz input. A pointer is left nil only
// in a struct field or an array: NewTool's rule declares a pointer
// elsewhere (the value itself, a slice element, a map value) not null, and
// a nil one there a bug of the handler.
func fuzzValue(v reflect.Value, b *fuzzBytes, depth int) {
	fuzzValueAt(v, b, depth, pointerSet)
}

// pointerRule says whether a pointer may be left nil.
type pointerRule int

const (
	pointerSet pointerRule = iota
	pointerMayBeNil
)

func fuzzValueAt(v reflect.Value, b *fuzzBytes, depth int, rule pointerRule) {
	if (depth > 6 || b.next(4) == 0) && (rule == pointerMayBeNil || v.Kind() != reflect.Pointer) {
		return // the zero value
	}
	switch v.Type() {
	case reflect.TypeFor[time.Time]():
		v.Set(reflect.ValueOf(time.Unix(int64(b.next(256))*86400*37, 0).UTC()))
		return
	case reflect.TypeFor[json.RawMessage]():
		v.Set(reflect.ValueOf(json.RawMessage([]string{`null`, `{"a":[1,"x"]}`, `"s"`}[b.next(3)])))
		return
	case reflect.TypeFor[json.Number]():
		v.SetString([]string{"0", "-1.5", "12e3"}[b.next(3)])
		return
	}
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(b.next(2) == 1)
	case reflect.Int8, reflect.Int32:
		v.SetInt(int64(b.next(256)) - 128)
	case reflect.Int:
		v.SetInt(int64(b.next(256)))
	case reflect.Uint16, reflect.Uint8:
		v.SetUint(uint64(b.next(256)))
	case reflect.Float64:
		v.SetFloat(float64(b.next(256)-128) / 4)
	case reflect.String:
		v.SetString([]string{"", "x", "é\u2028<>&", "\"q\""}[b.next(4)])
	case reflect.Slice:
		n := b.next(3)
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := range n {
			fuzzValue(s.Index(i), b, depth+1)
		}
		v.Set(s)
	case reflect.Array:
		for i := range v.Len() {
			fuzzValueAt(v.Index(i), b, depth+1, pointerMayBeNil)
		}
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		for range b.next(3) {
			k := reflect.New(v.Type().Key()).Elem()
			fuzzValue(k, b, depth+1)
			e := reflect.New(v.Type().Elem()).Elem()
			fuzzValue(e, b, depth+1)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		if v.Type() == reflect.TypeFor[*big.Int]() {
			p = reflect.ValueOf(big.NewInt(int64(b.next(256)) - 128))
		} else {
			fuzzValue(p.Elem(), b, depth+1)
		}
		v.Set(p)
	case reflect.Interface:
		values := []any{nil, 1.5, "s", map[string]any{"k": nil}, []any{}, FuzzEmbedded{}}
		if x := values[b.next(len(values))]; x != nil {
			v.Set(reflect.ValueOf(x))
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if f := v.Type().Field(i); f.IsExported() || f.Anonymous && f.Type.Kind() == reflect.Struct {
				fuzzValueAt(v.Field(i), b, depth+1, pointerMayBeNil)
			}
		}
	}
}

// FuzzReflectedSchemasHoldGoValues: for generated struct shapes, the
// reflected schema compiles and prints, and every value Go makes of the
// type, encoded and filled as NewTool sends it, passes it and decodes back.
func FuzzReflectedSchemasHoldGoValues(f *testing.F) {
	for _, seed := range [][]byte{
		{6, 4, 1, 0, 0, 2, 3, 0, 1, 2, 0, 0, 0, 1, 1},
		{7, 3, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 255, 254},
		{6, 5, 3, 1, 1, 2, 0, 2, 4, 3, 2, 5, 4, 6, 7, 1, 0, 3, 2, 1, 9, 9, 9, 9},
		{6, 2, 0, 9, 0, 0, 4, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
	} {
		f.Add(seed, []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
	}
	f.Fuzz(func(t *testing.T, shape, value []byte) {
		typ := fuzzType(&fuzzBytes{data: shape}, 0)
		raw, plan, err := reflectType(typ, toolOptions{})
		if err != nil {
			t.Fatalf("reflecting %s: %v", typ, err)
		}
		s, err := NewSchema(raw)
		if err != nil {
			t.Fatalf("schema of %s does not compile: %v\n%s", typ, err, raw)
		}
		decl := typegen.ToolDecl{Name: "t", Description: "T.", InputSchema: raw, OutputSchema: raw}
		if _, err := typegen.NamespaceDeclarations(typegen.Namespace{Name: DefaultNamespace, Tools: []typegen.ToolDecl{decl}}); err != nil {
			t.Fatalf("declaring %s: %v\n%s", typ, err, raw)
		}
		for round := range 3 {
			v := reflect.New(typ)
			fuzzValue(v.Elem(), &fuzzBytes{data: value, i: round * 7}, 0)
			text, err := json.Marshal(v.Interface())
			if err != nil {
				t.Fatalf("encoding %#v: %v", v.Elem().Interface(), err)
			}
			sent := fill(text, plan)
			if err := s.Validate(sent); err != nil {
				t.Fatalf("a %s that Go made fails its schema: %v\nsent: %s\nschema: %s", typ, err, sent, raw)
			}
			if err := json.Unmarshal(sent, reflect.New(typ).Interface()); err != nil {
				t.Fatalf("%s sent as %s does not decode back: %v", typ, sent, err)
			}
		}
	})
}

// fuzzPlan builds a fill plan from fuzz input.
func fuzzPlan(b *fuzzBytes, depth int) *fillPlan {
	if depth > 4 {
		return nil
	}
	switch b.next(6) {
	case 0:
		return nil
	case 1:
		return fuzzPlan(b, depth+1).nullable()
	case 2:
		return &fillPlan{fields: map[string]*fillPlan{"a": fuzzPlan(b, depth+1), "": fuzzPlan(b, depth+1)}}
	}
	return &fillPlan{empty: []string{"", "[]", "{}", `""`}[b.next(4)], elem: fuzzPlan(b, depth+1)}
}

// planned is what fill must make of a decoded value v by plan p.
func planned(v any, p *fillPlan) any {
	for p != nil && p.ptr != nil {
		if v == nil {
			return nil
		}
		p = p.ptr
	}
	if p == nil {
		return v
	}
	switch x := v.(type) {
	case nil:
		if p.empty != "" {
			var e any
			_ = json.Unmarshal([]byte(p.empty), &e)
			return e
		}
	case map[string]any:
		for k, m := range x {
			q := p.elem
			if p.fields != nil {
				q = p.fields[k]
			}
			x[k] = planned(m, q)
		}
	case []any:
		for i, m := range x {
			x[i] = planned(m, p.elem)
		}
	}
	return v
}

// FuzzFill: on any JSON text and plan, fill writes JSON whose value is the
// input's with exactly the planned nulls replaced.
func FuzzFill(f *testing.F) {
	f.Add([]byte(`{"a":null,"b":[null,{"a":null}],"":{"x":null}}`), []byte{2, 3, 1, 4, 2, 5, 0, 3, 2})
	f.Add([]byte(` [ null , [ ] , { "a" : "n\"ull" } ] `), []byte{4, 1, 3, 2})
	f.Add([]byte(`null`), []byte{5, 1})
	f.Add([]byte(`{"\u0061":null}`), []byte{2, 5, 1})
	f.Fuzz(func(t *testing.T, data, planBytes []byte) {
		if !json.Valid(data) {
			return
		}
		p := fuzzPlan(&fuzzBytes{data: planBytes}, 0)
		out := fill(data, p)
		if !json.Valid(out) {
			t.Fatalf("fill(%s) = %s, not JSON", data, out)
		}
		var in, got any
		_ = json.Unmarshal(data, &in)
		_ = json.Unmarshal(out, &got)
		want, _ := json.Marshal(planned(in, p))
		have, _ := json.Marshal(got)
		if !bytes.Equal(want, have) {
			t.Fatalf("fill(%s) = %s, want %s", data, have, want)
		}
	})
}
