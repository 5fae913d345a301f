package excerpt

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestLines(t *testing.T) {
	src := []string{"one", "two", "three"}
	for _, tc := range []struct {
		name      string
		line, col int
		want      string
	}{
		{"middle", 2, 2, "  1 | one\n> 2 | two\n    |  ^\n  3 | three\n"},
		{"first", 1, 1, "> 1 | one\n    | ^\n  2 | two\n"},
		{"last without column", 3, 0, "  2 | two\n> 3 | three\n"},
		{"outside", 4, 1, ""},
		{"zero", 0, 1, ""},
		{"column past the line", 2, 5, "  1 | one\n> 2 | two\n  3 | three\n"},
		{"column just past the line", 2, 4, "  1 | one\n> 2 | two\n    |    ^\n  3 | three\n"},
		{"huge column", 2, 1 << 62, "  1 | one\n> 2 | two\n  3 | three\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Lines(src, tc.line, tc.col); got != tc.want {
				t.Errorf("Lines(%d, %d) =\n%q\nwant\n%q", tc.line, tc.col, got, tc.want)
			}
		})
	}
	ten := make([]string, 10)
	if got, want := Lines(ten, 9, 1), "   8 | \n>  9 | \n     | ^\n  10 | \n"; got != want {
		t.Errorf("width: %q, want %q", got, want)
	}
}

// TestLongLinesShowAWindow: a long line shows maxShown bytes around the
// column, cut at character boundaries, with the caret under the column.
func TestLongLinesShowAWindow(t *testing.T) {
	long := strings.Repeat("ab", 300) + "X" + strings.Repeat("ż", 300)
	col := strings.Index(long, "X") + 1
	got := Lines([]string{long}, 1, col)
	rows := strings.Split(got, "\n")
	text := strings.TrimPrefix(rows[0], "> 1 | ")
	caret := strings.TrimPrefix(rows[1], "    | ")
	if !strings.HasPrefix(text, "…") || !strings.HasSuffix(text, "…") || len(text) > maxShown+2*len("…") || !utf8.ValidString(text) {
		t.Fatalf("window %q", text)
	}
	if at := strings.Index(caret, "^"); []rune(text)[at] != 'X' {
		t.Fatalf("the caret is under %q, not X:\n%s", []rune(text)[at], got)
	}
	if got := Lines([]string{long}, 1, 1); !strings.HasPrefix(got, "> 1 | abab") || !strings.Contains(got, "    | ^\n") {
		t.Fatalf("column 1: %q", got)
	}
}

// FuzzLines: any line and column render without a panic, within a bound.
func FuzzLines(f *testing.F) {
	f.Add("const a = 1;", 5)
	f.Add(strings.Repeat("x", 1000), 1<<40)
	f.Add("żółw", -3)
	f.Fuzz(func(t *testing.T, line string, col int) {
		got := Lines([]string{"a", line, "b"}, 2, col)
		if len(got) > 3*(maxShown+40)+maxShown+40 {
			t.Fatalf("%d bytes for a %d-byte line", len(got), len(line))
		}
	})
}
