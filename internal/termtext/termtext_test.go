package termtext

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEscapeAndClean(t *testing.T) {
	cases := []struct{ in, escaped, cleaned string }{
		{"plain\n\ttext", "plain\n\ttext", "plain\n\ttext"},
		{"\x1b[31mred\x1b[0m", `\x1b[31mred\x1b[0m`, "red"},
		{"title \x1b]0;pwned\x07 link \x1b]8;;http://x\x1b\\y", `title \x1b]0;pwned\x07 link \x1b]8;;http://x\x1b\y`, "title  link y"},
		{"cr\rbell\abs\b del\x7f c1\u009b", `cr\x0dbell\x07bs\x08 del\x7f c1\x9b`, `cr\x0dbell\x07bs\x08 del\x7f c1\x9b`},
		{"bidi \u202eevil\u2066", `bidi \u202eevil\u2066`, `bidi \u202eevil\u2066`},
		{"safe\u200b\u2060\ufeffvalue \u00ad", `safe\u200b\u2060\ufeffvalue \xad`, `safe\u200b\u2060\ufeffvalue \xad`},
		{"bad \xff utf-8", "bad \uFFFD utf-8", "bad \uFFFD utf-8"},
		{"ESC alone \x1b", `ESC alone \x1b`, `ESC alone \x1b`},
	}
	for _, c := range cases {
		if got := Escape(c.in); got != c.escaped {
			t.Errorf("Escape(%q) = %q, want %q", c.in, got, c.escaped)
		}
		if got := Clean(c.in); got != c.cleaned {
			t.Errorf("Clean(%q) = %q, want %q", c.in, got, c.cleaned)
		}
	}
}

func FuzzClean(f *testing.F) {
	for _, s := range []string{"\x1b[1;31mred", "\x1b]8;;http://x\x1b\\link", "a\x00b", "\xc2\x9b2J", "\u202e", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, out := range []string{Escape(s), Clean(s)} {
			if strings.ContainsFunc(out, IsControl) || !utf8.ValidString(out) {
				t.Fatalf("%q became %q, which holds a control character or invalid UTF-8", s, out)
			}
		}
	})
}

// TestQuote: a JSON literal that decodes to the string, with what hides or
// reorders text escaped and HTML characters left as they are.
func TestQuote(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain", `"plain"`},
		{`say "hi" \ now`, `"say \"hi\" \\ now"`},
		{"a\nb\x00", `"a\nb\u0000"`},
		{"del\x7f c1\u0085 rlo\u202e iso\u2066 zw\u200b", `"del\u007f c1\u0085 rlo\u202e iso\u2066 zw\u200b"`},
		{"<b>&</b>", `"<b>&</b>"`},
		{"bad\xffutf8", `"bad\ufffdutf8"`},
	} {
		got := Quote(c.in)
		if got != c.want {
			t.Errorf("Quote(%q) = %s, want %s", c.in, got, c.want)
		}
		var back string
		if err := json.Unmarshal([]byte(got), &back); err != nil || back != strings.ToValidUTF8(c.in, "\uFFFD") {
			t.Errorf("Quote(%q) = %s decodes to %q, %v", c.in, got, back, err)
		}
	}
}
