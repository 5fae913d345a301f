package blank

import (
	"strings"
	"testing"
)

// hostileNest is parentheses nested depth deep around one long string:
// each level may be arrow parameters, so a reader that speculates reads
// the string again at every level (the adversarial review of 2026-12-06
// measured 27 s of host CPU at 100 KB when the budget counted tokens).
func hostileNest(depth, size int) string {
	return strings.Repeat("(a = ", depth) + `"` + strings.Repeat("x", size) + `"` + strings.Repeat(")", depth) + "\n"
}

// The budget counts bytes: the blanker gives up on speculation that would
// read the program many times over, and esbuild reads it once. What it
// scanned before giving up is within the budget, whatever the nesting.
func TestSpeculationOverLongTokensStaysWithinTheBudget(t *testing.T) {
	for _, tt := range []struct{ depth, size int }{{20, 1000}, {20, 100_000}, {200, 10_000}} {
		src := hostileNest(tt.depth, tt.size)
		p := &blanker{src: src, budget: blankBudget(src)}
		if _, ok := p.run(); ok {
			t.Errorf("depth %d, a %d-byte string: blanked, want a refusal past the budget", tt.depth, tt.size)
		}
		if p.steps > p.budget+len(src)+1 {
			t.Errorf("depth %d, a %d-byte string: scanned %d bytes, budget %d", tt.depth, tt.size, p.steps, p.budget)
		}
	}
}

// BenchmarkHostileNest is the cost of reading hostileNest at 100 KB: a few
// milliseconds (linear), not seconds.
func BenchmarkHostileNest(b *testing.B) {
	src := hostileNest(20, 100_000)
	for b.Loop() {
		Types(src)
	}
}
