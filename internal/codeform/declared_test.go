package codeform_test

import (
	"fmt"
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
		{"let a = 1, // the first\n  b = 2;", []string{"a", "b"}},
		{"const\n  x = 1", []string{"x"}},
		{"let\n  [p, q] = r", []string{"p", "q"}},
		{"let a,\nlet b", []string{"a", "b"}},
		{"var a = 1,\n  b = 2\nvar c = 3, d", []string{"a", "b", "c", "d"}},
		{"let a =\n  1, b\nconst c = 1,\n  d = 2", []string{"a", "b", "c", "d"}},
		{"function double(x: number) { return 2*x } const m = new Map(); m", []string{"double", "m"}},
		{"if (x) { y() } let a = 1; for (;;) { break }\tvar b = 2", []string{"a", "b"}},
		{"class A {} class B {} async function g() {} function h() {}", []string{"A", "B", "g", "h"}},
		{"const o = { a: 1 }, p = () => { return 1 }; o", []string{"o", "p"}},
		{"if (x) { let hidden = 1 } call(); { const inner = 2 }", nil},
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

// hostileDeclarations are code shaped to make Declared slow, each at a
// given size in bytes (about): declarations on lines that all end in ","
// (each statement's end walked every later line, and each declaration read
// the bindings of all the others), brackets that never close, a long
// space after many async functions, and brackets nested as deep as the
// code is long.
var hostileDeclarations = []struct {
	name string
	code func(size int) string
	want []string
}{
	{"many bindings", func(n int) string { return strings.Repeat("let "+strings.Repeat("a,", 999)+"a\n", n/2000) }, []string{"a"}},
	{"let on continued lines", func(n int) string { return strings.Repeat("let a,\n", n/7) + "1" }, []string{"a"}},
	{"var on continued lines", func(n int) string { return strings.Repeat("var a, b, c, d, e, f, g, h,\n", n/28) },
		[]string{"a", "b", "c", "d", "e", "f", "g", "h"}},
	{"unclosed pattern", func(n int) string { return strings.Repeat("let [a /* [ */] = x\n", n/20) }, []string{"a"}},
	{"unclosed pattern on continued lines", func(n int) string { return strings.Repeat("let [a /* [ */] = x,\n", n/21) }, []string{"a"}},
	{"nested pattern", func(n int) string { return strings.Repeat("let [[a /* [[ */]] = x\n", n/24) }, []string{"a"}},
	{"deep pattern", func(n int) string { return "let " + strings.Repeat("[", n) }, nil},
	{"space after async functions", func(n int) string {
		return strings.Repeat("async function f() {}\n", n/2/22) + strings.Repeat(" ", n/2)
	}, []string{"f"}},
}

// TestDeclaredOnHostileCode reads code of the shapes that made Declared
// take seconds (the adversarial reviews of 2026-12-06), at sizes where the
// code before took 5 to 25 s on the machine of its commit (declarations
// on continued lines, patterns on continued lines, deep patterns, space
// after async functions), or 100 KB for the shapes an earlier change made
// linear. It checks only what Declared returns: BenchmarkDeclaredHostile
// shows the time is linear.
func TestDeclaredOnHostileCode(t *testing.T) {
	sizes := map[string]int{"many bindings": 100_000, "let on continued lines": 14_000, "var on continued lines": 28_000,
		"unclosed pattern": 100_000, "unclosed pattern on continued lines": 130_000, "nested pattern": 100_000,
		"deep pattern": 60_000, "space after async functions": 1_000_000}
	for _, tc := range hostileDeclarations {
		t.Run(tc.name, func(t *testing.T) {
			code := tc.code(sizes[tc.name])
			if got := codeform.Declared(code); !slices.Equal(got, tc.want) {
				t.Errorf("Declared(%d bytes of %s) = %q; want %q", len(code), tc.name, got, tc.want)
			}
		})
	}
}

// BenchmarkDeclaredHostile is Declared over hostileDeclarations at 25 KB
// and 100 KB: the time grows as the size does (about 4 times from one to
// the other), not as its square or cube.
func BenchmarkDeclaredHostile(b *testing.B) {
	for _, tc := range hostileDeclarations {
		for _, size := range []int{25_000, 100_000} {
			code := tc.code(size)
			b.Run(fmt.Sprintf("%s/%dKB", tc.name, size/1000), func(b *testing.B) {
				b.SetBytes(int64(len(code)))
				for b.Loop() {
					codeform.Declared(code)
				}
			})
		}
	}
}
