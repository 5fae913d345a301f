package contract

import (
	"encoding"
	"encoding/json"
	"fmt"
	"math/big"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"time"

	invopop "github.com/invopop/jsonschema"
)

// reflector builds the JSON Schema of a Go type as encoding/json encodes
// it, and the fillPlan that makes every value of the type satisfy it (see
// fill.go). Schemas are github.com/invopop/jsonschema values, so that a
// type's JSONSchema and JSONSchemaExtend methods and its fields'
// jsonschema tags work as that package documents them.
//
// Every named struct, slice, array and map type is first reflected into a
// definition of its own; reflectType then keeps as named definitions
// ($defs, which package typegen declares as named types) those on a cycle
// and every struct but the value's own type, and inlines the rest (see
// kept).
type reflector struct {
	strict bool
	defs   map[string]*invopop.Schema // by key, as reflected
	plans  map[string]*fillPlan       // by key
	kinds  map[string]reflect.Kind    // by key
	keys   map[reflect.Type]string
	owners map[string]reflect.Type // key -> type, to keep keys unique
	paths  map[string]string       // key -> where the type was first met, for errors
	depth  int                     // nesting, to stop on a type like `type P *P`
	// plain reflects the structure of hooked types for their fill plans,
	// by type.
	plain     *reflector
	hookPlans map[reflect.Type]*fillPlan

	// absentUnknown leaves a member declared unknown out of required (see
	// toolOptions.absentUnknown).
	absentUnknown bool
}

func newReflector(o toolOptions) *reflector {
	return &reflector{strict: o.strict, absentUnknown: o.absentUnknown, defs: map[string]*invopop.Schema{}, plans: map[string]*fillPlan{},
		kinds: map[string]reflect.Kind{}, keys: map[reflect.Type]string{}, owners: map[string]reflect.Type{}, paths: map[string]string{},
		hookPlans: map[reflect.Type]*fillPlan{}}
}

// reflectError is a Go type that has no JSON Schema, at a path.
type reflectError struct {
	path string       // "Order.Items[].Callback"
	typ  reflect.Type // the offending type
	why  string
}

func (e *reflectError) Error() string {
	return fmt.Sprintf("%s (%s): %s", e.path, e.typ, e.why)
}

// where is the position of a type in the value being reflected.
type where struct {
	path string
	// addressable: encoding/json calls pointer-receiver MarshalJSON and
	// MarshalText methods here (the tool encodes a pointer to its output,
	// so everywhere but in map values).
	addressable bool
}

func (w where) field(name string) where { return where{w.path + "." + name, w.addressable} }

var (
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	numberType        = reflect.TypeFor[json.Number]()
	timeType          = reflect.TypeFor[time.Time]()
	bigIntType        = reflect.TypeFor[big.Int]()
	schemaHookType    = reflect.TypeFor[interface{ JSONSchema() *invopop.Schema }]()
	aliasHookType     = reflect.TypeFor[interface{ JSONSchemaAlias() any }]()
	extendHookType    = reflect.TypeFor[interface{ JSONSchemaExtend(*invopop.Schema) }]()
)

// maxReflectDepth bounds how deep the reflector nests: named types are
// reflected once, so only a type such as `type P *P`, or JSONSchemaAlias
// methods naming each other, reach it.
const maxReflectDepth = 10_000

// schema reflects t at w.
func (r *reflector) schema(t reflect.Type, w where) (*invopop.Schema, *fillPlan, error) {
	r.depth++
	defer func() { r.depth-- }()
	if r.depth > maxReflectDepth {
		return nil, nil, &reflectError{w.path, t, "the type refers to itself through pointers or JSONSchemaAlias methods alone, without end"}
	}
	if t.Kind() == reflect.Pointer {
		// Null only where the schema says so (see field): elsewhere a
		// null here is filled as the element's would be.
		return r.schema(t.Elem(), where{w.path, true})
	}
	if s, p, ok, err := r.hooked(t, w); ok {
		return s, p, err
	}
	if s, ok, err := r.marshaled(t, w); ok {
		return s, nil, err
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Slice, reflect.Array, reflect.Map:
		if t.Name() != "" && !isBytes(t) {
			return r.named(t, w)
		}
		return r.composite(t, w)
	case reflect.Interface:
		if r.strict {
			return nil, nil, &reflectError{w.path, t, "an interface holds any JSON value, which strict schemas refuse (they need closed objects)"}
		}
		return unknownSchema(), nil, nil
	}
	s, err := scalar(t, w)
	return s, nil, err
}

// hooked is the schema a type declares itself, as invopop/jsonschema
// reads it: JSONSchema() returns it, JSONSchemaAlias() names another type
// to reflect instead. The value is still encoded by encoding/json, so its
// fill plan is that of the Go type.
func (r *reflector) hooked(t reflect.Type, w where) (*invopop.Schema, *fillPlan, bool, error) {
	switch {
	case implements(t, schemaHookType):
		s := reflect.New(t).Interface().(interface{ JSONSchema() *invopop.Schema }).JSONSchema()
		if s == nil {
			return nil, nil, true, &reflectError{w.path, t, "JSONSchema returns nil"}
		}
		c := *s // tags and annotations apply to a copy: the method may return a shared value
		return &c, r.planOf(t, w), true, nil
	case implements(t, aliasHookType):
		alias := reflect.TypeOf(reflect.New(t).Interface().(interface{ JSONSchemaAlias() any }).JSONSchemaAlias())
		if alias == nil || alias == t {
			return nil, nil, true, &reflectError{w.path, t, "JSONSchemaAlias returns nil or the type itself"}
		}
		s, _, err := r.schema(alias, w)
		return s, r.planOf(t, w), true, err
	}
	return nil, nil, false, nil
}

// planOf is the fill plan of t's Go structure, for a type whose schema a
// hook declares: a reflection of the structure alone, by a second
// reflector kept for that (whose own errors are the hook's business).
func (r *reflector) planOf(t reflect.Type, w where) *fillPlan {
	switch t.Kind() {
	case reflect.Struct, reflect.Slice, reflect.Array, reflect.Map:
	default:
		return nil
	}
	if _, ok, _ := r.marshaled(t, w); ok {
		return nil
	}
	if r.plain == nil {
		r.plain = newReflector(toolOptions{strict: r.strict})
		r.plain.plain = r.plain
	}
	if p, ok := r.plain.hookPlans[t]; ok {
		return p // reflecting t's structure reached t again
	}
	p := &fillPlan{}
	r.plain.hookPlans[t] = p
	_, q, err := r.plain.composite(t, w)
	if err == nil && q != nil {
		*p = *q
	}
	return p
}

// implements reports whether t or *t has the method set of iface, as
// invopop/jsonschema's hooks are found on either.
func implements(t, iface reflect.Type) bool {
	return t.Implements(iface) || reflect.PointerTo(t).Implements(iface)
}

// marshaled is the schema of a type that encodes itself: its MarshalJSON
// or MarshalText method runs where encoding/json calls it (a
// pointer-receiver method only where the value is addressable).
func (r *reflector) marshaled(t reflect.Type, w where) (*invopop.Schema, bool, error) {
	jsonM := t.Implements(marshalerType) || w.addressable && reflect.PointerTo(t).Implements(marshalerType)
	textM := !jsonM && (t.Implements(textMarshalerType) || w.addressable && reflect.PointerTo(t).Implements(textMarshalerType))
	if !jsonM && !textM {
		return nil, false, nil
	}
	method, iface := "MarshalJSON", marshalerType
	if textM {
		method, iface = "MarshalText", textMarshalerType
	}
	if e, ok := promoted(t, method, iface); ok {
		s, _, err := r.schema(e, where{w.path, true})
		return s, true, err
	}
	switch {
	case t == timeType:
		return &invopop.Schema{Type: "string", Format: "date-time"}, true, nil
	case t == bigIntType:
		return &invopop.Schema{Type: "integer"}, true, nil
	case textM:
		return &invopop.Schema{Type: "string"}, true, nil
	case r.strict:
		return nil, true, &reflectError{w.path, t, "the type writes its own JSON (MarshalJSON) and declares no schema (a JSONSchema method); strict schemas need one"}
	}
	// Whatever MarshalJSON writes: the host checks only that it is JSON.
	return unknownSchema(), true, nil
}

// promoted returns the type of the embedded field that t's method comes
// from, when t does not declare it itself but gets it by embedding (as
// github.Timestamp embeds time.Time): the value then encodes as that
// field's. The compiler generates the wrapper a promoted method is called
// through, at the position "<autogenerated>", which tells it from a method
// the type declares.
func promoted(t reflect.Type, method string, iface reflect.Type) (reflect.Type, bool) {
	if t.Kind() != reflect.Struct {
		return nil, false
	}
	m, ok := t.MethodByName(method)
	if !ok {
		m, ok = reflect.PointerTo(t).MethodByName(method)
	}
	if !ok || !m.Func.IsValid() {
		return nil, false
	}
	pc := m.Func.Pointer()
	fn := runtime.FuncForPC(pc)
	if fn == nil {
		return nil, false
	}
	if file, _ := fn.FileLine(pc); file != "<autogenerated>" {
		return nil, false
	}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.Anonymous {
			continue
		}
		e := f.Type
		if e.Kind() == reflect.Pointer {
			e = e.Elem()
		}
		if e.Implements(iface) || reflect.PointerTo(e).Implements(iface) {
			return e, true
		}
	}
	return nil, false
}

// scalar is the schema of a boolean, number or string kind.
func scalar(t reflect.Type, w where) (*invopop.Schema, error) {
	switch t.Kind() {
	case reflect.Bool:
		return &invopop.Schema{Type: "boolean"}, nil
	case reflect.Int, reflect.Int64:
		return &invopop.Schema{Type: "integer"}, nil
	case reflect.Int8, reflect.Int16, reflect.Int32:
		bits := t.Bits() - 1
		return &invopop.Schema{Type: "integer", Minimum: number(-(int64(1) << bits)), Maximum: number(int64(1)<<bits - 1)}, nil
	case reflect.Uint, reflect.Uint64, reflect.Uintptr:
		return &invopop.Schema{Type: "integer", Minimum: "0"}, nil
	case reflect.Uint8, reflect.Uint16, reflect.Uint32:
		return &invopop.Schema{Type: "integer", Minimum: "0", Maximum: number(int64(1)<<t.Bits() - 1)}, nil
	case reflect.Float32, reflect.Float64:
		return &invopop.Schema{Type: "number"}, nil
	case reflect.String:
		if t == numberType {
			return &invopop.Schema{Type: "number"}, nil
		}
		return &invopop.Schema{Type: "string"}, nil
	}
	why := "encoding/json cannot encode a " + t.Kind().String()
	return nil, &reflectError{w.path, t, why}
}

func number(n int64) json.Number { return json.Number(strconv.FormatInt(n, 10)) }

// unknownSchema is {}: any JSON value. (An empty invopop Schema marshals
// as true, which strict declarations refuse; the empty Extras keep it an
// object.)
func unknownSchema() *invopop.Schema { return &invopop.Schema{Extras: map[string]any{}} }

// isBytes reports whether encoding/json writes t as a base64 string: a
// slice of bytes whose element type does not encode itself.
func isBytes(t reflect.Type) bool {
	if t.Kind() != reflect.Slice || t.Elem().Kind() != reflect.Uint8 {
		return false
	}
	p := reflect.PointerTo(t.Elem())
	return !p.Implements(marshalerType) && !p.Implements(textMarshalerType)
}

// named reflects a named struct, slice, array or map type once, into a
// definition, and returns a reference to it.
func (r *reflector) named(t reflect.Type, w where) (*invopop.Schema, *fillPlan, error) {
	key, seen := r.keys[t]
	if !seen {
		key = r.newKey(t)
		r.keys[t] = key
		r.kinds[key] = t.Kind()
		r.paths[key] = w.path
		plan := &fillPlan{}
		r.plans[key] = plan // before reflecting: a recursive use refers to it
		r.defs[key] = nil
		// One definition serves every use, so it is reflected as
		// addressable, as all but map values are.
		s, p, err := r.composite(t, where{w.path, true})
		if err != nil {
			return nil, nil, err
		}
		r.defs[key] = s
		if p != nil {
			*plan = *p
		} else {
			r.plans[key] = nil
		}
	}
	return &invopop.Schema{Ref: refTo(key)}, r.plans[key], nil
}

// refTo is the $ref of a definition key: a JSON pointer into the root
// $defs (RFC 6901; keys hold no "~" or "/", see newKey).
func refTo(key string) string { return "#/$defs/" + key }

// newKey names t's definition "<package path>.<type name>", with "/" as
// "." and what is not a letter, digit, "_", "-" or "." as "_" (type
// arguments are named by their last element), numbered when another type
// already has the name. Package typegen declares it by its last element.
func (r *reflector) newKey(t reflect.Type) string {
	name := t.Name()
	if open := strings.IndexByte(name, '['); open >= 0 {
		name = name[:open] + "_" + typeArgsName(strings.TrimSuffix(name[open+1:], "]"))
	}
	clean := func(s string) string {
		return strings.Map(func(c rune) rune {
			switch {
			case c == '/':
				return '.'
			case c == '.' || c == '-' || c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
				return c
			}
			return '_'
		}, s)
	}
	key := clean(t.PkgPath()) + "." + strings.ReplaceAll(clean(name), ".", "_")
	try := key
	for i := 2; r.owners[try] != nil && r.owners[try] != t; i++ {
		try = key + "_" + strconv.Itoa(i)
	}
	r.owners[try] = t
	return try
}

// typeArgsName is the part of a definition key that names a generic
// type's arguments, as reflect writes them ("string,example.com/m.Item"):
// each type's name without its package path, a slice as Array_ and a map
// as Record_ before what they hold, joined by "_" ("string_Item",
// "Record_string_int" for map[string]int, "Array_G_int" for []G[int]).
func typeArgsName(args string) string {
	var b strings.Builder
	word := func(w string) {
		if w = w[strings.LastIndexAny(w, "/.")+1:]; w == "" {
			return
		}
		if b.Len() > 0 {
			b.WriteByte('_')
		}
		b.WriteString(w)
	}
	for len(args) > 0 {
		switch {
		case strings.HasPrefix(args, "[]"):
			word("Array")
			args = args[2:]
		case strings.HasPrefix(args, "map["):
			word("Record")
			args = args[4:]
		default:
			end := strings.IndexAny(args, "[],*")
			if end < 0 {
				end = len(args)
			}
			word(args[:end])
			if end == len(args) {
				return b.String()
			}
			args = args[end+1:]
		}
	}
	return b.String()
}

// composite reflects a struct, slice, array or map type's structure.
func (r *reflector) composite(t reflect.Type, w where) (*invopop.Schema, *fillPlan, error) {
	var s *invopop.Schema
	var p *fillPlan
	var err error
	switch t.Kind() {
	case reflect.Struct:
		s, p, err = r.object(t, w)
	case reflect.Map:
		s, p, err = r.mapSchema(t, w)
	case reflect.Slice:
		if isBytes(t) {
			// encoding/json writes bytes as base64 (RFC 4648, section 4).
			s, p = &invopop.Schema{Type: "string", ContentEncoding: "base64"}, &fillPlan{empty: `""`}
			break
		}
		var items *invopop.Schema
		var ip *fillPlan
		items, ip, err = r.schema(t.Elem(), where{w.path + "[]", true})
		s, p = &invopop.Schema{Type: "array", Items: items}, &fillPlan{empty: "[]", elem: ip}
	case reflect.Array:
		var items *invopop.Schema
		var ip *fillPlan
		items, ip, err = r.schema(t.Elem(), where{w.path + "[]", w.addressable})
		if t.Elem().Kind() == reflect.Pointer && !r.strict && err == nil {
			// An array's zero value holds nil pointers.
			items, ip = &invopop.Schema{AnyOf: []*invopop.Schema{items, {Type: "null"}}}, ip.nullable()
		}
		n := uint64(t.Len())
		s = &invopop.Schema{Type: "array", Items: items, MinItems: &n, MaxItems: &n}
		if ip != nil {
			p = &fillPlan{elem: ip}
		}
	}
	if err != nil {
		return nil, nil, err
	}
	if implements(t, extendHookType) {
		reflect.New(t).Interface().(interface{ JSONSchemaExtend(*invopop.Schema) }).JSONSchemaExtend(s)
	}
	return s, p, nil
}

// mapSchema is a map's schema: an object whose every member is the value
// type's, with keys as encoding/json writes them.
func (r *reflector) mapSchema(t reflect.Type, w where) (*invopop.Schema, *fillPlan, error) {
	if r.strict {
		return nil, nil, &reflectError{w.path, t, "a map is an open object, which strict schemas refuse (they need closed objects)"}
	}
	k := t.Key()
	var names *invopop.Schema
	switch {
	case k.Kind() == reflect.String, k.Implements(textMarshalerType):
	case k.Kind() >= reflect.Int && k.Kind() <= reflect.Int64:
		names = &invopop.Schema{Pattern: `^(0|-?[1-9][0-9]*)$`}
	case k.Kind() >= reflect.Uint && k.Kind() <= reflect.Uintptr:
		names = &invopop.Schema{Pattern: `^(0|[1-9][0-9]*)$`}
	default:
		return nil, nil, &reflectError{w.path, t, "encoding/json cannot encode a map whose keys are not strings, integers or encoding.TextMarshaler"}
	}
	v, vp, err := r.schema(t.Elem(), where{w.path + "[" + k.String() + "]", false})
	if err != nil {
		return nil, nil, err
	}
	return &invopop.Schema{Type: "object", AdditionalProperties: v, PropertyNames: names}, &fillPlan{empty: "{}", elem: vp}, nil
}

// object is a struct's schema: a closed object of the members encoding/json
// writes (jsonFields).
func (r *reflector) object(t reflect.Type, w where) (*invopop.Schema, *fillPlan, error) {
	s := &invopop.Schema{Type: "object", Properties: invopop.NewProperties(), AdditionalProperties: invopop.FalseSchema}
	p := &fillPlan{fields: map[string]*fillPlan{}}
	for _, f := range jsonFields(t) {
		fs, fp, err := r.field(f, w.field(f.sf.Name))
		if err != nil {
			return nil, nil, err
		}
		if err := fieldTags(f, fs, s); err != nil {
			return nil, nil, &reflectError{w.path + "." + f.sf.Name, f.sf.Type, err.Error()}
		}
		if fs.AnyOf != nil && fs.AnyOf[0].Description != "" && len(fs.AnyOf) == 2 && fs.AnyOf[1].Type == "null" {
			// A nullable field's annotations belong to the property.
			fs.Description, fs.AnyOf[0].Description = fs.AnyOf[0].Description, ""
		}
		s.Properties.Set(f.name, fs)
		if r.required(f) && !(r.absentUnknown && declaresUnknown(fs)) {
			s.Required = append(s.Required, f.name)
		}
		if fp != nil {
			p.fields[f.name] = fp
		}
	}
	return s, p, nil
}

// required reports whether encoding/json always writes a member: it has no
// omitzero, and no omitempty unless its kind is never empty (a struct, an
// array of some length), and no embedded pointer on its way.
func (r *reflector) required(f jsonField) bool {
	if f.omitZero || f.viaPointer {
		return false
	}
	if !f.omitEmpty {
		return true
	}
	t := f.sf.Type
	return t.Kind() == reflect.Struct || t.Kind() == reflect.Array && t.Len() > 0
}

// declaresUnknown reports whether a member's schema is declared unknown,
// a type that admits undefined in TypeScript: annotations alone (an
// interface, json.RawMessage, a type whose MarshalJSON declares no
// schema), or that or null (a pointer to one).
func declaresUnknown(s *invopop.Schema) bool {
	if len(s.AnyOf) == 2 && s.AnyOf[1].Type == "null" {
		s = s.AnyOf[0]
	}
	c := *s
	c.Title, c.Description, c.Comments, c.Default, c.Examples = "", "", "", nil, nil
	c.Deprecated, c.ReadOnly, c.WriteOnly = false, false, false
	text, err := json.Marshal(&c)
	return err == nil && (string(text) == "true" || string(text) == "{}")
}

// field is the schema of one struct member: its type's, written as a string
// under the string option, and T | null for a pointer that is written when
// nil (one without omitempty or omitzero) unless the schemas are strict.
func (r *reflector) field(f jsonField, w where) (*invopop.Schema, *fillPlan, error) {
	s, p, err := r.schema(f.sf.Type, w)
	if err != nil {
		return nil, nil, err
	}
	if f.quoted {
		s = quotedSchema(f.sf.Type, s)
	}
	if f.sf.Type.Kind() == reflect.Pointer && !f.omitEmpty && !f.omitZero && !r.strict {
		s, p = &invopop.Schema{AnyOf: []*invopop.Schema{s, {Type: "null"}}}, p.nullable()
	}
	return s, p, nil
}

// quotedSchema is the schema of a member with the string option, which
// encoding/json writes as a JSON string holding the value's JSON text (the
// option applies to booleans, numbers and strings, through one pointer).
// A type that encodes itself ignores the option.
func quotedSchema(t reflect.Type, s *invopop.Schema) *invopop.Schema {
	base := t
	if base.Name() == "" && base.Kind() == reflect.Pointer {
		base = base.Elem()
	}
	if implements(base, marshalerType) || implements(base, textMarshalerType) {
		return s
	}
	switch base.Kind() {
	case reflect.Bool:
		return &invopop.Schema{Type: "string", Enum: []any{"true", "false"}}
	case reflect.String:
		if base == numberType {
			return &invopop.Schema{Type: "string", Pattern: `^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`}
		}
		return &invopop.Schema{Type: "string", Pattern: `^"`}
	case reflect.Float32, reflect.Float64:
		return &invopop.Schema{Type: "string", Pattern: `^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return &invopop.Schema{Type: "string", Pattern: `^(0|[1-9][0-9]*)$`}
	}
	return &invopop.Schema{Type: "string", Pattern: `^(0|-?[1-9][0-9]*)$`}
}

// fieldTags applies a member's jsonschema, jsonschema_description and
// jsonschema_extras tags to its schema s (and an oneof_required or
// anyof_required tag to the struct's schema parent) exactly as
// invopop/jsonschema does, by reflecting a one-field struct with those
// tags whose field's schema is s. Requiredness and nullability follow
// encoding/json, so the required and nullable tags are ignored, and so is
// "-": encoding/json still writes the member.
func fieldTags(f jsonField, s, parent *invopop.Schema) error {
	var tags []string
	for _, name := range []string{"jsonschema", "jsonschema_description", "jsonschema_extras"} {
		v, ok := f.sf.Tag.Lookup(name)
		if !ok {
			continue
		}
		if name == "jsonschema" {
			var kept []string
			for _, o := range strings.Split(v, ",") {
				if o != "required" && o != "nullable" && o != "-" {
					kept = append(kept, o)
				}
			}
			v = strings.Join(kept, ",")
		}
		tags = append(tags, name+":"+strconv.Quote(v))
	}
	if len(tags) == 0 {
		return nil
	}
	target := s
	if len(s.AnyOf) == 2 && s.AnyOf[1].Type == "null" {
		target = s.AnyOf[0]
	}
	type marker struct{}
	markerType := reflect.TypeFor[marker]()
	host := reflect.StructOf([]reflect.StructField{{Name: "F", Type: markerType, Tag: reflect.StructTag(`json:"f" ` + strings.Join(tags, " "))}})
	re := &invopop.Reflector{Anonymous: true, DoNotReference: true, ExpandedStruct: true,
		Mapper: func(t reflect.Type) *invopop.Schema {
			if t != markerType {
				return nil
			}
			c := *target
			if target.Extras != nil {
				c.Extras = make(map[string]any, len(target.Extras))
				for k, v := range target.Extras {
					c.Extras[k] = v
				}
			}
			return &c
		}}
	var got *invopop.Schema
	var panicked any
	func() {
		defer func() { panicked = recover() }()
		got = re.ReflectFromType(host)
	}()
	if panicked != nil {
		return fmt.Errorf("its jsonschema tags do not apply: %v", panicked)
	}
	prop, _ := got.Properties.Get("f")
	*target = *prop
	parent.OneOf = append(parent.OneOf, got.OneOf...)
	parent.AnyOf = append(parent.AnyOf, got.AnyOf...)
	return nil
}
