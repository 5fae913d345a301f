package contract

import (
	"encoding/json"
	"net/netip"
	"reflect"
	"testing"
	"time"
)

// TestMayRefuse: which input types CheckInput decodes before the handler
// does (those encoding/json may refuse although their schema accepts the
// value), and which it leaves to the handler alone.
func TestMayRefuse(t *testing.T) {
	type plain struct {
		Location string             `json:"location"`
		Tags     []string           `json:"tags,omitempty"`
		Meta     map[string]any     `json:"meta"`
		Score    float64            `json:"score"`
		N        json.Number        `json:"n"`
		Raw      any                `json:"raw"`
		Nested   *struct{ On bool } `json:"nested"`
		Skipped  chan int           `json:"-"`
	}
	type tree struct {
		Name string  `json:"name"`
		Kids []*tree `json:"kids"`
	}
	type treeAt struct {
		At   time.Time `json:"at"`
		Kids []*treeAt `json:"kids"`
	}
	type quoted struct {
		N string `json:"n,string"`
	}
	type embedded struct{ X string }
	type embedsPointer struct {
		*embedded
		Y string
	}
	type embedsValue struct {
		embedded
		Y string
	}
	tests := []struct {
		name string
		typ  reflect.Type
		want bool
	}{
		{"strings, floats, maps, any", reflect.TypeFor[plain](), false},
		{"a recursive type of strings", reflect.TypeFor[tree](), false},
		{"a recursive type holding a time", reflect.TypeFor[treeAt](), true},
		{"an int", reflect.TypeFor[struct{ N int }](), true},
		{"a uint8 in a slice", reflect.TypeFor[[]uint8](), true},
		{"a float32", reflect.TypeFor[struct{ F float32 }](), true},
		{"a time", reflect.TypeFor[*time.Time](), true},
		{"an address", reflect.TypeFor[struct{ A netip.Addr }](), true},
		{"int map keys", reflect.TypeFor[map[int]string](), true},
		{"a non-empty interface", reflect.TypeFor[struct{ E error }](), true},
		{"the string option", reflect.TypeFor[quoted](), true},
		{"raw JSON", reflect.TypeFor[json.RawMessage](), false},
		// encoding/json refuses {"X": "a"}: "cannot set embedded pointer
		// to unexported struct".
		{"an embedded pointer to an unexported struct", reflect.TypeFor[embedsPointer](), true},
		{"an embedded unexported struct", reflect.TypeFor[embedsValue](), false},
	}
	for _, tt := range tests {
		if got := mayRefuse(tt.typ); got != tt.want {
			t.Errorf("%s (%s): mayRefuse %v, want %v", tt.name, tt.typ, got, tt.want)
		}
	}
}

// A generic type's definition names its arguments readably.
func TestTypeArgsName(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"int", "int"},
		{"string,int", "string_int"},
		{"map[string]int", "Record_string_int"},
		{"github.com/x/y.G[int]", "G_int"},
		{"[]github.com/x/y.G[int]", "Array_G_int"},
		{"*github.com/x/y.Item", "Item"},
		{"map[string][]*github.com/x/y.Item,bool", "Record_string_Array_Item_bool"},
	} {
		if got := typeArgsName(c.in); got != c.want {
			t.Errorf("typeArgsName(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
