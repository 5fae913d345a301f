package blank

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/blank.golden")

// blankCases are constructs the pass blanks and constructs it leaves to
// esbuild; testdata/blank.golden holds what it makes of each.
var blankCases = []struct{ name, source string }{
	// Blanked.
	{"parameter and return types", "function f(a: number, b?: string): string { return b ?? String(a); }"},
	{"variable types", "const a: number = 1, b: Array<{ x: string }> = [];\nlet c!: string;\nlet d: number\nd = 2;"},
	{"destructured parameter", "export default async function ({ codemode, console }: AgentProgramScope): Promise<void> {}"},
	{"arrow with types", "const f = async ({ a = 1, b: [c] }: { a?: number; b: number[] }, ...rest: unknown[]): Promise<number> => a + c;"},
	{"as, satisfies, non-null", "const a = (x as any).y!.z;\nconst b = { k: 1 } satisfies Record<string, number>;\nconst c = [1] as const;\nfoo!(1);"},
	{"as before a closing bracket", "f(a as T, [b as U], { c: d as V }, `${e as W}`);"},
	{"interface and type alias", "interface A<T> extends B<T>, C {\n  x: T;\n  m(): void\n}\ntype U = A<string> | { y: number }\n  | null;\nexport type E = keyof A<1>;\nexport interface F {}\nconst z = 1"},
	{"type alias after a statement without a semicolon", "let q = 1\ntype T = number\n;[1, 2].forEach((n) => { q += n })\n(q)"},
	{"type alias before a string statement", "type A = ''\n'use strict'\nfunction f() { interface I {}\n  'x'; return 1 }"},
	{"type-only imports and exports", "import type { A, B } from \"./a\";\nimport type C from \"./c\";\nexport type { A };\nexport type * from \"./d\";\nexport default 1;"},
	{"generic calls and declarations", "function id<T extends object = {}>(x: T): T { return x; }\nconst m = new Map<string, Array<number>>();\nconst s = id<{ a: 1 }>({ a: 1 });\nconst o = { m<T>(x: T): T { return x; } };"},
	{"less-than stays", "for (let i = 0; i < n; i++) {}\nconst b = a < c && d > e;\nconst g = x >>> 1 >= y >> 2;"},
	{"type predicate and function types", "function isS(x: unknown): x is string { return typeof x === \"string\"; }\nlet cb: (a: number) => void = () => {};\nlet k: new () => object;"},
	{"conditional and mapped types", "type M<T> = { [K in keyof T]?: T[K] extends string ? K : never }[keyof T];\ntype L = `a${string}b`;"},
	{"catch binding type", "try { f() } catch (e: unknown) { g(e as Error) } finally {}"},
	{"templates and regular expressions", "const r = /[/]x\\/y/g.test(`a${b as string}c${`d${e!}f`}`) ? 1 : /=/.source;"},
	{"object literal methods", "const o = { get a(): number { return 1 }, set a(v: number) {}, async *g(): AsyncGenerator<number> {}, [k as string]: 1, b, c: 2, ...d };"},
	{"labels, switch, loops", "out: for (const x of xs as number[]) { switch (x as number) { case 1: break out; default: continue } }\ndo x++; while (x < 3)\nwhile (false) {}"},
	{"optional call with non-null", "a?.b!.c?.(d!)?.[e!];"},
	{"arrow in a conditional without a return type", "const f = c ? (x: number) => x : (y) => y;"},
	{"regular expressions after a statement", "if (a) /x/.test(b)\n{}\n/y/g.exec(c)"},
	{"division after operands", "const d = (a) / 2 / b, e = a++ / 2, g = x[0] /y/ 1;"},
	{"no postfix increment after a line break", "let a = b\n++c"},
	{"return ends at a line break", "function f(): number | undefined { return\n1 }"},
	{"yield and await", "async function* g(x?: number) { yield; yield* h(); await x!; }"},
	{"arrow returning an object literal", "const f = (): { a: number } => ({ a: 1 });"},
	{"non-null, then a call on the next line", "const x = f!\n(1)"},
	{"union with a leading bar over lines", "type T =\n  | 'a'\n  | 'b'\nconst t: T = 'a'"},
	{"function types in type arguments", "const m = new Map<string, (x: number) => void>();\nlet x: A<B<C<D>>> = f<A<B<C>>>(1) >>> 2;"},
	{"accessors and index signatures in a type", "type G = { get a(): number; set a(v: number); readonly [k: string]: unknown; m?(): void; new (x: 1): G; <T>(y: T): T }"},
	{"tuple, typeof and indexed types", "let t: [a: number, b?: string, ...c: boolean[]] = [1];\ntype K = keyof typeof o;\nlet v: (typeof o)['a'][] = [];"},
	{"assertion predicates", "function assert(x: unknown): asserts x is string {}\nfunction ok(this_: unknown): asserts this_ {}"},
	{"comments inside types", "let a: /* c */ number // d\n= 1;"},
	{"in inside a for head's parentheses", "for (const k in o) {}\nfor (let i = ('a' in o) ? 1 : 0; i < 1; i++) {}"},
	{"optional chaining before a number", "const a = b?.5:c;"},
	{"assignment and update targets", "a.b = 1; c[d] += 2; e = f = g; h ? i = 1 : j = 2; k++; --l.m; n!.o = 3; this.p ??= q;"},
	{"range checks stay comparisons", "const inside = x < lo || x > hi, edge = a < b && c >= d, k = i < n ? 1 : i > -m;"},
	// Refused: left to esbuild.
	{"enum", "enum E { A }"},
	{"const enum", "const enum E { A }"},
	{"namespace", "namespace N { export const a = 1 }"},
	{"declare", "declare const a: number;"},
	{"class", "class A { x: number = 1 }"},
	{"decorator", "@d\nexport default class {}"},
	{"import of values", "import { a } from \"./a\";"},
	{"import of a binding named type", "import type, { a } from \"./a\";"},
	{"export list", "const a = 1;\nexport { a };"},
	{"angle-bracket cast", "const a = <any>b;"},
	{"generic arrow", "const f = <T,>(x: T) => x;"},
	{"instantiation expression", "const f = g<number>;"},
	{"a comparison that reads as type arguments", "const a = b < c > d;"},
	{"a keyword type takes no type arguments", "const a = b<string<0>>(c);"},
	{"unread type arguments, then a line break", "const g = f<this.a>\ng()"},
	{"unread type arguments, then a call", "const g = f<A.B<C>.D>(1);"},
	{"infer", "type E<T> = T extends Array<infer U> ? U : never;"},
	{"type alias after a string statement", "'use strict'\ntype T = 1\n'x'"},
	{"as after an arrow function", "const f = () => {} as unknown;"},
	{"as, then a line that would continue", "const a = b as T\n(c)"},
	{"as, then an operator that binds tighter", "const a = b < c as T + 1;"},
	{"arrow return type in a conditional", "const f = a ? (b): c => d : e;"},
	{"arrow return type in an arrow body in a conditional", "const f = a ? x => (y): c => d : e;"},
	{"arrow return type across lines", "const f = (a): {\n  b: 1 } => a;"},
	{"this parameter", "function f(this: Window) {}"},
	{"overload", "function f(a: string): void;\nfunction f(a: any) {}"},
	{"typed for-of binding", "for (const a: number of b) {}"},
	{"typed declaration then a line that would continue", "let a: number\n[1].forEach(f)"},
	{"non-ASCII in a type", "type T = \"ü\";"},
	{"non-ASCII identifier", "const ü = 1;"},
	{"byte order mark", "\uFEFFconst a: number = 1;"},
	{"JSX", "const a = <div>{b}</div>;"},
	{"assignment to an operator's result", "a + b = c;"},
	{"assignment after a prefix operator", "--token=sk_secret_1"},
	{"assignment to a call", "f() = 1;"},
	{"assignment to an optional chain", "a?.b = 1;"},
	{"update of a call", "++f();\ng()++;"},
	{"update of an update", "++-x;"},
	{"assignment to arguments", "arguments = 1;"},
	{"destructuring assignment", "[a, b] = [b, a];"},
	{"parenthesized assignment target", "(a) = 1;"},
	{"new followed by a name but target", "new.txt"},
	{"super outside a method", "super.x();"},
	{"import.meta", "import.meta.url;"},
	{"unknown regular expression flag", "const a = /no/such.ts;"},
	{"regular expression flag twice", "const a = /x/gig;"},
	{"syntax error", "const a = ;"},
}

func TestBlankCases(t *testing.T) {
	var b strings.Builder
	for _, tc := range blankCases {
		js, ok := Types(tc.source)
		b.WriteString("== " + tc.name + "\n" + tc.source + "\n")
		if !ok {
			b.WriteString("-- refused\n\n")
			continue
		}
		b.WriteString("-- blanked\n" + js + "\n\n")
		t.Run(tc.name, func(t *testing.T) { blankAgrees(t, tc.source, js) })
	}
	path := filepath.Join("testdata", "blank.golden")
	if *update {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if b.String() != string(want) {
		t.Errorf("blank's output differs from %s (go test -run TestBlankCases -update rewrites it):\n%s", path, b.String())
	}
}

func TestStatements(t *testing.T) {
	for _, tc := range []struct {
		source string
		want   []Statement // nil: refused
	}{
		{"let a = 1\nif (a) f() // c\na", []Statement{{0, 0}, {9, 10}, {20, 26}}},
		{"a;b; ;\n/* c */ c", []Statement{{0, 0}, {2, 2}, {4, 5}, {6, 15}}},
		{"if (a)\n  f()\ng()", []Statement{{0, 0}, {12, 13}}},
		{"x = 1\n+ 2\ny", []Statement{{0, 0}, {9, 10}}},
		{"function f() { a; b }\nf()", []Statement{{0, 0}, {21, 22}}},
		{"type T = number\nconst a: T = 1\na", []Statement{{0, 0}, {15, 16}, {30, 31}}},
		{"", nil},
		{"enum E { A }\nE.A", nil},
	} {
		got, ok := Statements(tc.source)
		if tc.want == nil {
			if ok && len(got) > 0 {
				t.Errorf("Statements(%q) = %v, want none", tc.source, got)
			}
			continue
		}
		if !ok || !slices.Equal(got, tc.want) {
			t.Errorf("Statements(%q) = %v, %v; want %v", tc.source, got, ok, tc.want)
		}
	}
}
