package contract

import (
	"bytes"
	"errors"
	"reflect"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/codemode-go/codemode/internal/ijson"
)

// FuzzDecodeJSON: decodeJSON accepts exactly what jsonschema.UnmarshalJSON
// (encoding/json with UseNumber) accepts, and builds the same value, but
// for a number beyond a double, which it refuses naming it.
func FuzzDecodeJSON(f *testing.F) {
	for _, seed := range []string{
		`{}`, `[]`, `null`, `true`, `false`, `0`, `-0.5e+10`, `1E2`, `"x"`, ` {"a":[1,"b",{"c":null}],"a":2} `,
		`"\u00e9\ud83d\ude00\ud800x\udc00\u0041\n\t\"\\\/"`, "\"\xff\xc3(\"", `"é😀"`, `[1,]`, `{"a"}`, `01`, `1.`, `-`,
		`[[[[[[[[[[]]]]]]]]]]`, `{"a":1}x`, "\"a\x01\"", `"\x"`, `"\u12g4"`, `"\ud800\u"`, `tru`, `nul`, ``, ` `,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		want, wantErr := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		got, gotErr := decodeJSON(data)
		var re *ijson.RangeError
		if errors.As(gotErr, &re) {
			if wantErr != nil || ijson.Check(data) == nil {
				t.Fatalf("%q: decodeJSON says %v, encoding/json %v, ijson.Check %v", data, gotErr, wantErr, ijson.Check(data))
			}
			return
		}
		if (wantErr == nil) != (gotErr == nil) {
			t.Fatalf("%q: encoding/json says %v, decodeJSON says %v", data, wantErr, gotErr)
		}
		if gotErr == nil && ijson.Check(data) != nil {
			t.Fatalf("%q: decodeJSON accepts it, ijson.Check says %v", data, ijson.Check(data))
		}
		if wantErr == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: encoding/json gives %#v, decodeJSON %#v", data, want, got)
		}
	})
}

// TestDecodeJSONDepth: nesting past encoding/json's limit is refused, as
// there, and up to it is accepted.
func TestDecodeJSONDepth(t *testing.T) {
	for _, tc := range []struct {
		depth int
		ok    bool
	}{{maxDecodeDepth, true}, {maxDecodeDepth + 1, false}} {
		data := append(bytes.Repeat([]byte("["), tc.depth), bytes.Repeat([]byte("]"), tc.depth)...)
		_, wantErr := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		_, gotErr := decodeJSON(data)
		if (gotErr == nil) != tc.ok || (wantErr == nil) != tc.ok {
			t.Errorf("depth %d: decodeJSON %v, encoding/json %v, want ok=%v", tc.depth, gotErr, wantErr, tc.ok)
		}
	}
}
