package toolname

import (
	"testing"

	"github.com/codemode-go/codemode/contract"
)

func TestSanitize(t *testing.T) {
	cases := map[string]string{
		"read_file":        "read_file",
		"read-file":        "read_file",
		"files.read":       "files_read",
		"github/list prs":  "github_list_prs",
		"ns:tool":          "ns_tool",
		"2fa":              "_2fa",
		"delete":           "delete_",
		"then":             "then_",
		"toString":         "toString_",
		"__proto__":        "__proto___",
		"héllo wörld!":     "hllo_wrld",
		"":                 "_",
		"!!!":              "_",
		"$ok":              "$ok",
		"get-tiny-image":   "get_tiny_image",
		"constructor":      "constructor_",
		"already_fine_123": "already_fine_123",
	}
	for in, want := range cases {
		got := Sanitize(in)
		if got != want {
			t.Errorf("Sanitize(%q) = %q, want %q", in, got, want)
		}
		if err := contract.CheckToolName(got); err != nil {
			t.Errorf("Sanitize(%q) = %q, which is not a tool name: %v", in, got, err)
		}
	}
}

func FuzzSanitize(f *testing.F) {
	for _, s := range []string{"a-b", "2x", "delete", "", "\xff", "a b.c/d:e"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if err := contract.CheckToolName(Sanitize(s)); err != nil {
			t.Fatalf("%q -> %q: %v", s, Sanitize(s), err)
		}
	})
}
