package durable

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestIsCanonical(t *testing.T) {
	for _, c := range []struct {
		in   string
		want bool
	}{
		{`{"repo":"r12"}`, true},
		{`{}`, true},
		{`[]`, true},
		{`{"a":1,"b":[true,false,null,-0.5e+10,"x"],"c":{"d":{}}}`, true},
		{`0`, true},
		{`"<&>"`, true},          // SetEscapeHTML(false)
		{`{"b":1,"a":2}`, false}, // keys out of order
		{`{"a":1,"a":2}`, false}, // a duplicate key: the last wins
		{`{"a": 1}`, false},      // space
		{` {}`, false},           // space before
		{`{} `, false},           // after
		{`{}{}`, false},          // a second value
		{`"\u0041"`, false},      // an escape: encoding/json writes A
		{`"é"`, false},           // not ASCII: read the slow way
		{`01`, false},            // not a JSON number
		{`1.`, false},            // nor this
		{`-`, false},             //
		{`1e`, false},            //
		{`tru`, false},           //
		{`[1,]`, false},          //
		{`{"a"}`, false},         //
		{``, false},              //
		{strings.Repeat("[", 40) + strings.Repeat("]", 40), false}, // deeper than maxCanonicalDepth
	} {
		if got := isCanonical([]byte(c.in)); got != c.want {
			t.Errorf("isCanonical(%s) = %v, want %v", c.in, got, c.want)
		}
	}
}

func TestCanonicalCopies(t *testing.T) {
	in := []byte(`{"repo":"r1"}`)
	out, err := canonical(in)
	if err != nil {
		t.Fatal(err)
	}
	in[2] = 'X'
	if string(out) != `{"repo":"r1"}` {
		t.Fatalf("canonical's result changed with its input: %s", out)
	}
}

// FuzzIsCanonical: what isCanonical accepts, the decoding path returns
// unchanged; so canonical's output does not depend on which path it took.
func FuzzIsCanonical(f *testing.F) {
	for _, s := range []string{`{"repo":"r12"}`, `{"a":[1,2.5e-3,{"b":null}],"c":"x"}`, `{"b":1,"a":2}`, `"\u00e9"`, `-0`, `1E+2`, `[{"":{}}]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if !isCanonical(in) {
			return
		}
		out, err := recode(in)
		if err != nil {
			t.Fatalf("isCanonical accepts %q, which does not decode: %v", in, err)
		}
		if !bytes.Equal(out, in) {
			t.Fatalf("isCanonical accepts %q, which canonicalises to %q", in, out)
		}
	})
}

// canonicalArgs refuses what canonical would change in meaning, saying
// where, and records the rest as canonical does.
func TestCanonicalArgs(t *testing.T) {
	for _, tt := range []struct{ in, want, err string }{
		{`{"b":1,"a":"x"}`, `{"a":"x","b":1}`, ""},
		{`{"to":"\ud83d\ude80"}`, `{"to":"🚀"}`, ""},
		{`{"to":"\\ud800"}`, `{"to":"\\ud800"}`, ""},
		{`{"to":"a\"\ud800"}`, "", `/to: the string holds a lone surrogate (\ud800)`},
		{`{"to":"\ud800x"}`, "", `/to: the string holds a lone surrogate (\ud800)`},
		{`{"to":"\ud800\n"}`, "", `/to: the string holds a lone surrogate (\ud800)`},
		{`{"to":["a", {"b/c~": "\uDFFF"}]}`, "", `/to/1/b~1c~0: the string holds a lone surrogate (\uDFFF)`},
		{`{"\udc00":1}`, "", "/\ufffd: the key holds a lone surrogate (\\udc00)"},
		{`"\ud800"`, "", `/: the string holds a lone surrogate (\ud800)`},
		{`{"to":"alice","to":"mallory"}`, "", `/to: the key appears twice in one object`},
		{`{"a":{"to":1},"b":{"to":2}}`, `{"a":{"to":1},"b":{"to":2}}`, ""},
		{"{\"to\":\"a\xffb\"}", "", `/: the text is not valid UTF-8`},
	} {
		got, err := canonicalArgs(json.RawMessage(tt.in))
		switch {
		case tt.err != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.err)):
			t.Errorf("canonicalArgs(%s) = %s, %v; want the error %q", tt.in, got, err, tt.err)
		case tt.err == "" && (err != nil || string(got) != tt.want):
			t.Errorf("canonicalArgs(%s) = %s, %v; want %s", tt.in, got, err, tt.want)
		}
	}
}

// FuzzCanonicalArgs: the byte scan refuses exactly what the walk refuses,
// and what it keeps is canonical's.
func FuzzCanonicalArgs(f *testing.F) {
	for _, s := range []string{`{"b":1,"a":2}`, `{"a":1,"a":2}`, `{"a":"\ud800"}`, `{"a":"\ud83d\ude80","b":{"c:":":"}}`, `[{"x":1},{"x":1}]`, `"\\ud800"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !json.Valid([]byte(s)) {
			return
		}
		got, err := canonicalArgs(json.RawMessage(s))
		_, lossy := err.(*lossError)
		if want := lossless([]byte(s)) != nil; lossy != want {
			t.Fatalf("canonicalArgs(%q): %v; the walk says lossy %v", s, err, want)
		}
		if err == nil {
			if want, _ := canonical(json.RawMessage(s)); !bytes.Equal(got, want) {
				t.Fatalf("canonicalArgs(%q) = %s, canonical %s", s, got, want)
			}
		}
	})
}
