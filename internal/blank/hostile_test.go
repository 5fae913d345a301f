package blank

import (
	"strings"
	"testing"
)

// hostileNestOf is parentheses nested depth deep around one long token (a
// string, a regular expression or a template's middle):
// each level may be arrow parameters, so a reader that speculates reads
// the string again at every level (the adversarial review of 2026-12-06
// measured 27 s of host CPU at 100 KB when the budget counted tokens).
func hostileNestOf(depth int, token string) string {
	return strings.Repeat("(a = ", depth) + token + strings.Repeat(")", depth) + "\n"
}

// The budget counts bytes: the blanker gives up on speculation that would
// read the program many times over, and esbuild reads it once. What it
// scanned before giving up is within the budget, whatever the nesting.
func TestSpeculationOverLongTokensStaysWithinTheBudget(t *testing.T) {
	long := strings.Repeat("x", 100_000)
	for _, tt := range []struct {
		depth int
		token string
	}{{20, `"` + long[:1000] + `"`}, {20, `"` + long + `"`}, {200, `"` + long[:10_000] + `"`},
		{20, "/" + long + "/"}, {20, "`${1}" + long + "`"}} {
		src := hostileNestOf(tt.depth, tt.token)
		p := &blanker{src: src, budget: blankBudget(src)}
		if _, ok := p.run(); ok {
			t.Errorf("depth %d around %.1s…, %d bytes: blanked, want a refusal past the budget", tt.depth, tt.token, len(tt.token))
		}
		if p.steps > p.budget+len(src)+1 {
			t.Errorf("depth %d around %.1s…: scanned %d bytes, budget %d", tt.depth, tt.token, p.steps, p.budget)
		}
	}
}

// BenchmarkHostileNest is the cost of reading hostileNest at 100 KB around
// a string, a regular expression and a template's middle (rescanned, not
// scanned): a few milliseconds (linear), not seconds (the second review of
// 2026-12-06 measured 23 s for the regular expression before rescans
// counted).
func BenchmarkHostileNest(b *testing.B) {
	long := strings.Repeat("x", 100_000)
	for _, token := range []string{`"` + long + `"`, "/" + long + "/", "`${1}" + long + "`"} {
		src := hostileNestOf(20, token)
		b.Run(token[:1], func(b *testing.B) {
			for b.Loop() {
				Types(src)
			}
		})
	}
}

// TestDeepChainsAreRefused: chains that open a level each without a
// bracket (type arguments, arrows, template substitutions, generic types) are refused past maxLevel rather than overflowing the
// host's stack (2.2 MB of "a<" did, a fatal error; review of 2026-12-06),
// and sources past MaxSource are refused unread.
func TestDeepChainsAreRefused(t *testing.T) {
	n := 100_000
	for _, c := range []struct{ name, src string }{
		{"type arguments", "const x = " + strings.Repeat("a<", n) + "a;"},
		{"arrows", "const f = " + strings.Repeat("a=>", n) + "1;"},
		{"templates", strings.Repeat("`${", n) + "1" + strings.Repeat("}`", n) + ";"},
		{"generic types", "let x: " + strings.Repeat("A<", n) + "B" + strings.Repeat(">", n) + ";"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, ok := Types(c.src); ok {
				t.Fatal("a chain past maxLevel was read")
			}
		})
	}
	shallow := "const f = " + strings.Repeat("a=>", 900) + "1;"
	if _, ok := Types(shallow); !ok {
		t.Fatal("a chain of 900 arrows was refused")
	}
	big := "let a = 1;\n" + strings.Repeat(" ", MaxSource)
	if _, ok := Types(big); ok {
		t.Fatal("a source past MaxSource was read")
	}
	if _, ok := Statements(big); ok {
		t.Fatal("Statements read a source past MaxSource")
	}
}
