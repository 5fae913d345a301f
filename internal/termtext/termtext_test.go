package termtext

import (
	"encoding/json"
	"reflect"
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

// Every character that hides text or reorders it is escaped, not only the
// best known: Unicode's format characters (category Cf: the Arabic letter
// mark U+061C, a bidirectional mark like U+200E; the deprecated format
// characters U+206A–U+206F; the interlinear annotation marks, which hide
// the text between them; the tag characters U+E0000–U+E007F, an invisible
// copy of ASCII: "ok" followed by tags spelling "rm -rf" reads as "ok"),
// the line and paragraph separators (a line break to some readers, none to
// others), the fillers that print as blank (Hangul fillers), the
// variation selectors and the combining grapheme joiner (invisible on the
// characters they follow). An adversarial review found each one shown raw.
func TestEscapeHidingCharacters(t *testing.T) {
	for _, c := range []struct{ in, escaped, quoted string }{
		{"alm\u061cx", `alm\u061cx`, `"alm\u061cx"`},
		{"nss\u206ax\u206f", `nss\u206ax\u206f`, `"nss\u206ax\u206f"`},
		{"mvs\u180ex", `mvs\u180ex`, `"mvs\u180ex"`},
		{"ann\ufff9hidden\ufffbx", `ann\ufff9hidden\ufffbx`, `"ann\ufff9hidden\ufffbx"`},
		{"ok\U000E0072\U000E006D", `ok\U000e0072\U000e006d`, `"ok\udb40\udc72\udb40\udc6d"`},
		{"tag\U000E0001", `tag\U000e0001`, `"tag\udb40\udc01"`},
		{"ls\u2028ps\u2029", `ls\u2028ps\u2029`, `"ls\u2028ps\u2029"`},
		{"fill\u3164\u115f\u1160\uffa0", `fill\u3164\u115f\u1160\uffa0`, `"fill\u3164\u115f\u1160\uffa0"`},
		{"vs a\ufe0f a\U000E0100 cgj\u034f", `vs a\ufe0f a\U000e0100 cgj\u034f`, `"vs a\ufe0f a\udb40\udd00 cgj\u034f"`},
		{"music\U0001D173", `music\U0001d173`, `"music\ud834\udd73"`},
		{"fine: é 🚀 日本", "fine: é 🚀 日本", `"fine: é 🚀 日本"`},
	} {
		if got := Escape(c.in); got != c.escaped {
			t.Errorf("Escape(%q) = %s, want %s", c.in, got, c.escaped)
		}
		got := Quote(c.in)
		if got != c.quoted {
			t.Errorf("Quote(%q) = %s, want %s", c.in, got, c.quoted)
		}
		var back string
		if err := json.Unmarshal([]byte(got), &back); err != nil || back != c.in {
			t.Errorf("Quote(%q) = %s decodes to %q, %v", c.in, got, back, err)
		}
	}
}

// Lines ends a line where JavaScript does, and escapes each.
func TestLines(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"", []string{""}},
		{"a", []string{"a"}},
		{"a\n", []string{"a"}},
		{"a\n\n", []string{"a", ""}},
		{"a\r\nb\rc\u2028d\u2029e\nf", []string{"a", "b", "c", "d", "e", "f"}},
		{"// x \u202e y\tz\x1b[2J", []string{`// x \u202e y` + "\t" + `z\x1b[2J`}},
		{"bad\xff\r", []string{"bad\uFFFD"}},
	} {
		if got := Lines(c.in); strings.Join(got, "|") != strings.Join(c.want, "|") || len(got) != len(c.want) {
			t.Errorf("Lines(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// EscapeJSON keeps compact JSON the same value, its hiding characters
// escaped.
func TestEscapeJSON(t *testing.T) {
	in := "{\"to\":\"bob\u202e\U000E0041\u0085\",\"n\":1}"
	want := `{"to":"bob\u202e\udb40\udc41\u0085","n":1}`
	got := EscapeJSON(in)
	if got != want {
		t.Fatalf("EscapeJSON(%q) = %s, want %s", in, got, want)
	}
	var a, b any
	if json.Unmarshal([]byte(in), &a) != nil || json.Unmarshal([]byte(got), &b) != nil || !reflect.DeepEqual(a, b) {
		t.Fatalf("EscapeJSON changed the value: %v and %v", a, b)
	}
}
