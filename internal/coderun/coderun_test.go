package coderun

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestCode: the arguments a model may send, and what each gives.
func TestCode(t *testing.T) {
	for _, tc := range []struct {
		name, args, code, reason string
	}{
		{"program", `{"code": "return 1"}`, "return 1", ""},
		{"unicode", `{"code": "return \"\u00e9\""}`, `return "é"`, ""},
		{"missing", `{}`, "", `"code" is missing`},
		{"null", `{"code": null}`, "", `"code" is not a string`},
		{"number", `{"code": 1}`, "", `"code" is not a string`},
		{"blank", `{"code": " \n"}`, "", `"code" is empty`},
		{"extra property", `{"code": "1", "lang": "ts"}`, "", `unknown field "lang"`},
		{"array", `["1"]`, "", "not a JSON object"},
		{"cut short", `{"code": "1"`, "", "not a JSON object"},
		{"two objects", `{"code": "1"} {}`, "", "text after the JSON object"},
		{"empty", ``, "", "not a JSON object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, reason := Code(json.RawMessage(tc.args))
			switch {
			case tc.reason == "" && (reason != "" || code != tc.code):
				t.Fatalf("Code: %q, %q, want %q", code, reason, tc.code)
			case tc.reason != "" && (code != "" || !strings.Contains(reason, tc.reason)):
				t.Fatalf("Code: %q, %q, want a reason about %s", code, reason, tc.reason)
			}
		})
	}
}

// FuzzCode: any bytes give a non-empty program or a reason, never a
// panic.
func FuzzCode(f *testing.F) {
	for _, s := range []string{`{"code":"1"}`, `{"code":""}`, `{}`, `[]`, `{"code":"a","b":1}`, `{"code":"\ud800"}`, `nul`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		code, reason := Code(data)
		if (reason == "") == (strings.TrimSpace(code) == "") {
			t.Fatalf("Code(%q): %q, %q", data, code, reason)
		}
	})
}
