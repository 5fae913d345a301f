package excerpt

import "testing"

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
