package codeform

import (
	"context"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/internal/esbuildchild"
)

// MaxNesting finds brackets a program hides from one reading of "/" (the
// adversarial review of 2026-12-06): in what one reading takes for a
// regular expression after a variable named of or a member name, in a
// string that a regular expression's quote opens for a reading that takes
// the "/" for a division, or behind closing brackets in literals. Literals
// every reading agrees on do not count.
func TestMaxNestingSeesBracketsHiddenFromOneReading(t *testing.T) {
	const n = 300
	deep := strings.Repeat("(a = ", n) + "1" + strings.Repeat(")", n)
	arrows := func(level string) string { return strings.Repeat(level, n) + "1" + strings.Repeat(") => 1", n) }
	tests := []struct {
		name    string
		code    string
		atLeast int
		atMost  int
	}{
		{"plain", "f(g([{a: 1}]))", 4, 4},
		{"brackets in literals every reading agrees on", "const s = \"((((\" + '[[' + `{{${x}` + /\\((/.source; // ((((\nf(1)", 1, 1},
		{"regular expressions with groups", strings.Repeat("s.match(/(a)(b)[(]/);\n", n), 1, 1},
		{"a division read as a regular expression", "let of = 1\nof / " + deep + " / 1", n, -1},
		{"a member named typeof", "x.typeof / " + deep + " / 1", n, -1},
		{"after a postfix increment", "a++ / " + deep + " / 1", n, -1},
		{"two readings misled into one string", "let of = 1\nof / 2 + /\"/.source; " + deep + "; \"\"", n, -1},
		{"closes in literals to cancel opens", "let of = 1\nof / 2 + /\"/.x; " + arrows("(a = ')', b = ") + "; \"\"", n, -1},
		{"closes in regular expressions after an if", arrows("(a = () => { if (x) /)/.test(s) }, b = "), n, -1},
		{"closes in a regular expression after a block", arrows("(a = () => { {} /)/.test(s) }, b = "), n, -1},
		{"a quote in a regular expression after export default", "export default /\"/.source; " + deep + "; \"\"", n, -1},
		{"a division after type arguments (second review)", "let x = f<T> / [" + arrows("(a = ')', b = ") + "] / 1", n, -1},
		{"a division after a non-null assertion", "let x = a! / [" + arrows("(a = ')', b = ") + "] / 1", n, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := MaxNesting(tt.code)
			if got < tt.atLeast || tt.atMost >= 0 && got > tt.atMost {
				t.Errorf("MaxNesting = %d, want %d to %d", got, tt.atLeast, tt.atMost)
			}
		})
	}
}

// BenchmarkNormalizeLongTail is Normalize over 16,000 continuation lines
// before 50,000 trailing spaces: linear (about 14 ms), where trimming the
// whole tail for every candidate line took over 2 s (adversarial review of
// 2026-12-06, M2).
func BenchmarkNormalizeLongTail(b *testing.B) {
	code := "1\n" + strings.Repeat("+1\n", 16000) + strings.Repeat(" ", 50000)
	es := esbuildchild.New(context.Background(), nil)
	defer es.Close()
	for b.Loop() {
		Normalize(code, []string{"codemode", "console", "result"}, "", es)
	}
}
