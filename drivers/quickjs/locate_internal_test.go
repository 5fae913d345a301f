package quickjs

import (
	"strings"
	"testing"

	"github.com/codemode-go/codemode/internal/blank"
	"github.com/codemode-go/codemode/internal/wire"
)

// manyFunctions is a program whose second line holds n functions with no
// recorded step after the one that fails: each matches QuickJS's column 1
// of a function without a position table.
func manyFunctions(n int) string {
	return "const a = undefined;\nconst fs = [()=>a.x," + strings.Repeat("_=>0,", n) + "];\nfs[0]();"
}

// TestFailingSiteFollowsOwnFunction checks failingSite against a walk of
// every site after each candidate (the first implementation, which took
// 2 s for manyFunctions(50000), 250 KB, in the sandbox's process and
// outside the program's CPU limit), on programs with nested functions,
// loops and many functions on one line.
func TestFailingSiteFollowsOwnFunction(t *testing.T) {
	target := failureTarget{[]blank.SiteKind{blank.SiteRead}, "x", "cannot read property"}
	for _, src := range []string{
		manyFunctions(200),
		"const a = undefined;\nconst fs = [()=>a.x,()=>a.x];\nfs[0]();",
		"function f(o) {\n  g(); return o.x + (() => o.x)();\n}\nf({});",
		"for (let i = 0; i < 3; i = i + o.x) { h(() => p.x); q.x; }",
		"const o = { m() { return a.x; } }; o.m(); b.x; (function () { c.x })();",
	} {
		sites, ok := blank.Sites(src)
		if !ok {
			t.Fatalf("Sites refused %q", src)
		}
		lines := newLineIndex(src)
		for line := 1; line <= len(lines.ends)+1; line++ {
			for col := 1; col < 80; col++ {
				got, gotOK := failingSite(sites, lines, line, col, target)
				want, wantOK := failingSiteEverySite(sites, lines, line, col, target)
				if got != want || gotOK != wantOK {
					t.Fatalf("%q at %d:%d: got %+v %v, want %+v %v", src, line, col, got, gotOK, want, wantOK)
				}
			}
		}
	}
	e := &wire.Error{Name: "TypeError", Message: "cannot read property 'x' of undefined", Stack: "    at <anonymous> (agent.ts:2:1)\n"}
	if got, want := locateFailure(manyFunctions(20000), "agent.ts", e), "    at <anonymous> (agent.ts:2:19)\n"; got != want {
		t.Errorf("located at %q, want %q", got, want)
	}
}

// failingSiteEverySite is failingSite as first written: each candidate
// walks all the sites after it, skipping other functions'.
func failingSiteEverySite(sites []blank.Site, lines lineIndex, line, col int, target failureTarget) (blank.Site, bool) {
	marked := map[int]bool{}
	for _, s := range sites {
		if recorded(s.Kind) && s.Kind != blank.SiteFunction {
			marked[s.Func] = true
		}
	}
	var found []blank.Site
	matched := false
	for i, s := range sites {
		if !recorded(s.Kind) || lines.line(s.Offset) != line {
			continue
		}
		bare := s.Kind == blank.SiteFunction && !marked[s.Func] && col == 1
		if !bare && lines.column(s.Mark) != col {
			continue
		}
		matched = true
		for _, c := range sites[i+1:] {
			if c.Func != s.Func {
				continue
			}
			if recorded(c.Kind) {
				break
			}
			if matches(c, target) && !containsOffset(found, c.Offset) {
				found = append(found, c)
			}
		}
	}
	if !matched || len(found) != 1 {
		return blank.Site{}, false
	}
	return found[0], true
}

// BenchmarkLocateManyFunctions: 250 KB of functions on one line.
func BenchmarkLocateManyFunctions(b *testing.B) {
	src := manyFunctions(50000)
	e := &wire.Error{Name: "TypeError", Message: "cannot read property 'x' of undefined", Stack: "    at <anonymous> (agent.ts:2:1)\n"}
	for b.Loop() {
		locateFailure(src, "agent.ts", e)
	}
}
