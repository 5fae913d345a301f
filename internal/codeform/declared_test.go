package codeform_test

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/internal/codeform"
)

func TestDeclared(t *testing.T) {
	for _, tc := range []struct {
		code string
		want []string
	}{
		{"let counter = 0;\ncounter", []string{"counter"}},
		{"const a = 1, b = [1, 2], c = f(x, y);", []string{"a", "b", "c"}},
		{"var m: Map<string, number> = new Map(), n = 2", []string{"m", "n"}},
		{"const { a, b: c, d = 1, ...e } = obj;", []string{"a", "c", "d", "e"}},
		{"const [x, , [y, z = 2], ...w] = arr;", []string{"x", "y", "z", "w"}},
		{"const { a: { b, c: [d] } } = o", []string{"b", "d"}},
		{"function f(a) { let inner = 1; return a }\nasync function g() {}\nfunction* gen() {}", []string{"f", "g", "gen"}},
		{"class A { m() { const x = 1 } }", []string{"A"}},
		{"const s = \"let fake = 1\"; // const fake2 = 1\n/* var fake3 */ `${'let fake4'}`", []string{"s"}},
		{"if (x) { let hidden = 1 }\nfor (let i = 0; i < 3; i++) {}", nil},
		{"const f = (a, b) => a + b, g = 1;", []string{"f", "g"}},
		{"let a = 1,\n  b = 2;\nb", []string{"a", "b"}},
		{"let t: (a: number, b: string) => void = () => {}, u = 1", []string{"t", "u"}},
		{"await codemode.x({}); let a = 1; const b = 2", []string{"a", "b"}},
		{"let await = 1; const 日本 = 2", nil},
		{"let a = 1; let a = 2", []string{"a"}},
	} {
		if got := codeform.Declared(tc.code); !slices.Equal(got, tc.want) {
			t.Errorf("Declared(%q) = %q; want %q", tc.code, got, tc.want)
		}
	}
}

var identifier = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)

// FuzzDeclared: any text gives names without a panic, and each is an
// identifier.
func FuzzDeclared(f *testing.F) {
	for _, s := range []string{"let a = 1", "const {a, b: [c]} = x", "var m: Map<string, number> = new Map(), n",
		"function f() {}", "async function g() {}", "class A {}", "let [", "const {", "let a = `${", "const {a: {b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, code string) {
		for _, n := range codeform.Declared(code) {
			if !identifier.MatchString(n) {
				t.Fatalf("%q: %q is not an identifier", code, n)
			}
		}
	})
}

// BenchmarkDeclaredHostile is Declared over about 100 KB of declarations
// that made it quadratic (adversarial review of 2026-12-06, M2): many
// bindings per statement, and patterns whose bracket a comment hides from
// the light reading. Each takes milliseconds, not seconds.
func BenchmarkDeclaredHostile(b *testing.B) {
	for _, tt := range []struct{ name, code string }{
		{"bindings", strings.Repeat("let "+strings.Repeat("a,", 999)+"a\n", 50)},
		{"unclosed pattern", strings.Repeat("let [a /* [ */] = x\n", 5000)},
		{"nested pattern", strings.Repeat("let [[a /* [[ */]] = x\n", 4000)},
	} {
		b.Run(tt.name, func(b *testing.B) {
			for b.Loop() {
				codeform.Declared(tt.code)
			}
		})
	}
}
