package contract

import (
	"cmp"
	"reflect"
	"slices"
	"strings"
	"unicode"
)

// jsonField is one member that encoding/json writes for a struct: its
// name, the field it comes from (through embedded structs) and the tag
// options that change how it is written.
type jsonField struct {
	name   string
	tagged bool  // the name comes from the json tag
	index  []int // field indexes from the outer struct
	sf     reflect.StructField
	// viaPointer: an embedded pointer lies on the way, so a nil one leaves
	// the member out.
	viaPointer                  bool
	omitEmpty, omitZero, quoted bool
}

// jsonFields lists the members encoding/json writes for the struct type t,
// in the order it writes them. It follows encoding/json's rules
// (https://pkg.go.dev/encoding/json#Marshal): exported fields, and the
// fields of embedded structs as if they were the outer struct's; a json tag
// names a field, "-" leaves it out, omitempty, omitzero and string change
// how it is written; among fields of one name the least deeply embedded
// wins, a tagged one breaking a tie at that depth, and a tie that remains
// leaves the name out.
func jsonFields(t reflect.Type) []jsonField {
	type level struct {
		typ        reflect.Type
		index      []int
		viaPointer bool
	}
	var fields []jsonField
	next := []level{{typ: t}}
	nextCount := map[reflect.Type]int{}
	visited := map[reflect.Type]bool{}
	for len(next) > 0 {
		current := next
		count := nextCount
		next, nextCount = nil, map[reflect.Type]int{}
		for _, l := range current {
			if visited[l.typ] {
				continue
			}
			visited[l.typ] = true
			for i := range l.typ.NumField() {
				sf := l.typ.Field(i)
				if sf.Anonymous {
					et := sf.Type
					if et.Kind() == reflect.Pointer {
						et = et.Elem()
					}
					if !sf.IsExported() && et.Kind() != reflect.Struct {
						continue
					}
				} else if !sf.IsExported() {
					continue
				}
				tag := sf.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, opts, _ := strings.Cut(tag, ",")
				if !validTagName(name) {
					name = ""
				}
				index := append(slices.Clip(l.index), i)
				ft := sf.Type
				if ft.Name() == "" && ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if name != "" || !sf.Anonymous || ft.Kind() != reflect.Struct {
					f := jsonField{name: name, tagged: name != "", index: index, sf: sf, viaPointer: l.viaPointer,
						omitEmpty: hasOption(opts, "omitempty"), omitZero: hasOption(opts, "omitzero")}
					if f.name == "" {
						f.name = sf.Name
					}
					if hasOption(opts, "string") {
						switch ft.Kind() {
						case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
							reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
							reflect.Float32, reflect.Float64, reflect.String:
							f.quoted = true
						}
					}
					fields = append(fields, f)
					if count[l.typ] > 1 {
						// The struct is embedded twice at this depth: the
						// duplicate makes the name ambiguous below.
						fields = append(fields, f)
					}
					continue
				}
				nextCount[ft]++
				if nextCount[ft] == 1 {
					next = append(next, level{typ: ft, index: index, viaPointer: l.viaPointer || sf.Type.Kind() == reflect.Pointer})
				}
			}
		}
	}
	return dominantFields(fields)
}

// dominantFields keeps, for each name, the field encoding/json writes (see
// jsonFields), in field order.
func dominantFields(fields []jsonField) []jsonField {
	slices.SortStableFunc(fields, func(a, b jsonField) int {
		if c := strings.Compare(a.name, b.name); c != 0 {
			return c
		}
		if c := cmp.Compare(len(a.index), len(b.index)); c != 0 {
			return c
		}
		if a.tagged != b.tagged {
			if a.tagged {
				return -1
			}
			return 1
		}
		return slices.Compare(a.index, b.index)
	})
	var out []jsonField
	for i := 0; i < len(fields); {
		j := i + 1
		for j < len(fields) && fields[j].name == fields[i].name {
			j++
		}
		group := fields[i:j]
		i = j
		if len(group) > 1 && len(group[0].index) == len(group[1].index) && group[0].tagged == group[1].tagged {
			continue // ambiguous: encoding/json writes neither
		}
		out = append(out, group[0])
	}
	slices.SortFunc(out, func(a, b jsonField) int { return slices.Compare(a.index, b.index) })
	return out
}

func hasOption(opts, name string) bool {
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		if o == name {
			return true
		}
	}
	return false
}

// validTagName reports whether encoding/json accepts name from a json tag:
// letters, digits and punctuation other than backslash and quotes.
func validTagName(name string) bool {
	if name == "" {
		return false
	}
	for _, c := range name {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}
