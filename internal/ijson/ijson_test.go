package ijson

import (
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
)

func TestOverflows(t *testing.T) {
	for _, tc := range []struct {
		lit  string
		want bool
	}{
		{"0", false},
		{"-12.5", false},
		{"1e308", false},
		{"1.7976931348623157e308", false}, // the largest double
		{"1.7976931348623158e308", false}, // rounds down to it
		{"1.7976931348623159e308", true},  // rounds up to Infinity
		{"-1.7976931348623159e308", true},
		{"1e309", true},
		{"-1e400", true},
		{"1e999", true},
		{"1E+999", true},
		{"0e999", false},
		{"0.000001e310", false},
		{"1e-400", false}, // reads as 0: loses precision, not range
		{"1e99999999999999999999", true},
		{strings.Repeat("9", 308), false},
		{strings.Repeat("9", 309), true},
		{"1" + strings.Repeat("0", 308), false}, // 1e308
		{"1" + strings.Repeat("0", 308) + "e-400", false},
		{"0." + strings.Repeat("0", 400) + "1e700", false},
	} {
		if got := Overflows([]byte(tc.lit)); got != tc.want {
			t.Errorf("Overflows(%.50s) = %v, want %v", tc.lit, got, tc.want)
		}
	}
}

func TestCheckNamesTheNumberBeyondADouble(t *testing.T) {
	for _, tc := range []struct {
		text string
		want string // the error, "" for none
	}{
		{`{"a":[1,2.5e300,-1e-400]}`, ""},
		{`1e400`, "/: 1e400 is beyond the range of a double (about ±1.8e308); a program would read it as Infinity"},
		{`{"a":{"b/c":[0, -1e999]}}`, "/a/b~1c/1: -1e999 is beyond the range of a double (about ±1.8e308); a program would read it as -Infinity"},
		{`[{"x":1},{"y":[{}, [], "s\"]", 1e309]}]`, "/1/y/3: 1e309 is beyond"},
		{`{"k\u00e9y":1E+400}`, "/kéy: 1E+400 is beyond"},
		{`{"a":1e400,"b":1e500}`, "/a: 1e400 is beyond"}, // the first
		{`[` + strings.Repeat("9", 400) + `]`, "/0: " + strings.Repeat("9", 40) + "… is beyond"},
		{`{"a":1e400`, "unexpected end of JSON input"}, // not JSON is the graver fault
		{`{"a":}`, "offset 5: invalid character '}' looking for beginning of value"},
		{`[1,]`, "offset 3: invalid character ']' looking for beginning of value"},
		{`"a`, "unexpected end of JSON input"},
	} {
		err := Check([]byte(tc.text))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("Check(%.60s) = %v, want nil", tc.text, err)
		case tc.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.want)):
			t.Errorf("Check(%.60s) = %v, want %q…", tc.text, err, tc.want)
		}
		var re *RangeError
		if isRange := errors.As(err, &re); isRange != strings.Contains(tc.want, "beyond") {
			t.Errorf("Check(%.60s): RangeError %v, error %v", tc.text, isRange, err)
		}
	}
}

func TestPointer(t *testing.T) {
	text := `{"a": [10, {"~x": 20}], "b": {"": 30}}`
	for _, tc := range []struct {
		at   string
		want string
	}{
		{`{"a"`, "/"},
		{`10`, "/a/0"},
		{`20`, "/a/1/~0x"},
		{`30`, "/b/"},
	} {
		if got := Pointer([]byte(text), strings.Index(text, tc.at)); got != tc.want {
			t.Errorf("Pointer at %s = %q, want %q", tc.at, got, tc.want)
		}
	}
}

// FuzzCheck: Check accepts what json.Valid accepts, but for numbers beyond
// a double, which it names.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{`{"a":[1,"x",null,true,{"1":-0.5}]}`, `"\u00e9\ud83d"`, `[1e308,2e-308,{"é":"€"}]`, `[1e400]`, "\"\xff\"", `{"a" :1 , "b":[ ]}`, `[01]`, `1.`, `-`, `[1e+]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		err := Check([]byte(text))
		var re *RangeError
		if lit := strings.TrimSpace(text); json.Valid([]byte(lit)) && strings.IndexAny(lit[:1], "-0123456789") == 0 {
			f, _ := strconv.ParseFloat(lit, 64)
			if got, want := errors.As(err, &re), math.IsInf(f, 0); got != want {
				t.Fatalf("Check(%q) = %v, and ParseFloat reads %v", text, err, f)
			}
		}
		if errors.As(err, &re) {
			if !json.Valid([]byte(text)) {
				t.Fatalf("Check(%q) = %v, and json.Valid refuses it", text, err)
			}
			return
		}
		if valid := json.Valid([]byte(text)); (err == nil) != valid {
			t.Fatalf("Check(%q) = %v, json.Valid = %v", text, err, valid)
		}
	})
}
