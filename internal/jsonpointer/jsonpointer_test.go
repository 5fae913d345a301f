package jsonpointer

import "testing"

func TestEscapeRoundTrips(t *testing.T) {
	for _, tc := range []struct{ token, escaped string }{
		{"a", "a"},
		{"a/b", "a~1b"},
		{"m~n", "m~0n"},
		{"~1", "~01"},
		{"/~", "~1~0"},
		{"", ""},
	} {
		if got := Escape(tc.token); got != tc.escaped {
			t.Errorf("Escape(%q) = %q, want %q", tc.token, got, tc.escaped)
		}
		if got := Unescape(tc.escaped); got != tc.token {
			t.Errorf("Unescape(%q) = %q, want %q", tc.escaped, got, tc.token)
		}
	}
	if got := Append("#/properties", "a/b"); got != "#/properties/a~1b" {
		t.Errorf("Append = %q", got)
	}
}

func FuzzUnescapeInvertsEscape(f *testing.F) {
	for _, s := range []string{"", "~", "/", "~0~1", "a/b~c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got := Unescape(Escape(s)); got != s {
			t.Fatalf("Unescape(Escape(%q)) = %q", s, got)
		}
	})
}
