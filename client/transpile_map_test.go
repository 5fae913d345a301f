package client

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/codemode-go/codemode/internal/esbuildchild"
	"github.com/evanw/esbuild/pkg/api"
	"github.com/go-sourcemap/sourcemap"
)

// erasePrograms cover the TypeScript esbuild rewrites rather than only
// blanks (enums, namespaces, parameter properties, decorators, accessors),
// comments it keeps or drops, non-ASCII text and long lines.
var erasePrograms = []string{
	eraseProgram,
	"// a comment\ntype T = { a: number };\ninterface I { b: string }\nexport default async function (scope: unknown): Promise<void> {\n  const x: number = 1;\n  throw new Error(\"here\" + x);\n}\n",
	"enum Color { Red, Green = \"g\", Blue = 4 }\nnamespace N { export const k: number = 2; }\nexport default function ({ console }: any) {\n  console.log(Color.Green, N.k);\n  return Color[4] as string;\n}\n",
	"class P {\n  constructor(private readonly a: number, public b?: string) {}\n  #x = 1;\n  static s: number;\n  accessor y = 2;\n  get v(): number { return this.a + this.#x; }\n}\nexport default () => new P(1).v;\n",
	"function dec(t: any, c: any) { return t; }\n@dec class A { @dec m() {} }\nexport default async function* g<T extends object>(x: T): AsyncGenerator<T> {\n  yield x!;\n  for await (const y of [x] satisfies T[]) yield <T>y;\n}\n",
	"/** doc */\nexport default async function ({ codemode }: AgentProgramScope) {\n  const s = `ünï ${\"çødé\"} 😀 ${1 + 2}`; /* inline */ const r = /a+b/giu.test(s) ? s.length : -1;\n  const { a, ...rest }: { a?: number; [k: string]: unknown } = { a: 1, b: 2 };\n  label: for (let i = 0; i < 3; i++) { if (i) continue label; }\n  return [r, a, rest, await Promise.all([1, 2].map(async (n): Promise<number> => n * 2))];\n}\n",
	"import type { X } from \"./x\";\nimport { type Y, z } from \"node:util\";\nexport type { X };\ndeclare const g: number;\nabstract class B<T = string> implements Iterable<T> { abstract [Symbol.iterator](): Iterator<T>; }\nexport default function (o?: { f(a: number): void }) { o?.f?.(1); return z; }\n",
	"export default function () {\n  const x = 1;" + strings.Repeat(" const y_"+"n = x as any;", 1) + strings.Repeat("\n  ;[1,2,3].forEach((v: number, i: number) => { if (v > 2) throw new RangeError(`at ${i}`); });", 40) + "\n}\n",
}

// eagerErase erases source as erase did before the map was made on demand:
// one esbuild call with an external map, parsed at once.
func eagerErase(t testing.TB, source string) *erased {
	t.Helper()
	res := api.Transform(source, transformOptions(api.SourceMapExternal))
	if len(res.Errors) > 0 {
		t.Fatalf("esbuild: %v", res.Errors)
	}
	sm, err := sourcemap.Parse(programFilename, res.Map)
	if err != nil {
		sm = nil // as erase had it: no map (an empty program maps nothing)
	}
	e := &erased{js: string(res.Code), source: source}
	e.mapOnce.Do(func() { e.smap, e.lines = sm, strings.Split(source, "\n") })
	return e
}

func TestEraseIsDeterministicWithAndWithoutTheMap(t *testing.T) {
	for i, src := range erasePrograms {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			none := api.Transform(src, transformOptions(api.SourceMapNone))
			withMap := api.Transform(src, transformOptions(api.SourceMapExternal))
			if len(none.Errors)+len(withMap.Errors) > 0 {
				t.Fatalf("esbuild: %v %v", none.Errors, withMap.Errors)
			}
			if string(none.Code) != string(withMap.Code) {
				t.Fatalf("the JavaScript differs with a map:\n%s\n---\n%s", none.Code, withMap.Code)
			}
			again := api.Transform(src, transformOptions(api.SourceMapNone))
			if string(again.Code) != string(none.Code) {
				t.Fatal("a second erasure printed other JavaScript")
			}
		})
	}
}

// everyPosition is a stack with a frame at every line and column of js
// (every column up to 200 on a line, then every tenth), and one past the
// end of each line.
func everyPosition(js string) string {
	var b strings.Builder
	for i, l := range strings.Split(js, "\n") {
		n := utf8.RuneCountInString(l)
		for c := 1; c <= n+1; c++ {
			if c > 200 && c%10 != 0 {
				continue
			}
			fmt.Fprintf(&b, "    at f (%s:%d:%d)\n", programFilename, i+1, c)
		}
	}
	fmt.Fprintf(&b, "    at g (%s:%d)\n", programFilename, 1)
	return b.String()
}

// mapEach maps stack (a position on each line) maxMappedPositions lines at
// a time, so that every position is mapped.
func mapEach(e *erased, stack string) string {
	lines := strings.SplitAfter(stack, "\n")
	var b strings.Builder
	for len(lines) > 0 {
		n := min(len(lines), maxMappedPositions)
		b.WriteString(e.mapText(strings.Join(lines[:n], "")))
		lines = lines[n:]
	}
	return b.String()
}

// checkLazyMatchesEager compares the positions esbuild's erasure's map
// (made on demand) gives with those of a map made with the JavaScript, at
// every position.
func checkLazyMatchesEager(t *testing.T, src string, es *esbuildchild.Session) {
	t.Helper()
	lazy, err := eraseWithEsbuild(src, nil, es)
	if err != nil {
		return // a syntax error maps nothing
	}
	if lazy.smap != nil || lazy.lines != nil {
		t.Fatal("erase made a source map before one was needed")
	}
	eager := eagerErase(t, src)
	if eager.js != lazy.js {
		t.Fatalf("erasure is not deterministic:\n%s\n---\n%s", eager.js, lazy.js)
	}
	stack := everyPosition(lazy.js)
	got, want := mapEach(lazy, stack), mapEach(eager, stack)
	if got != want {
		gl, wl := strings.Split(got, "\n"), strings.Split(want, "\n")
		for i := range gl {
			if gl[i] != wl[i] {
				t.Fatalf("position %q: lazy %q, eager %q", strings.Split(stack, "\n")[i], gl[i], wl[i])
			}
		}
	}
	if (lazy.sourceMap() == nil) != (eager.smap == nil) {
		t.Fatal("no source map was made on demand")
	}
	if x, y := lazy.excerptAt(got), eager.excerptAt(want); x != y {
		t.Fatalf("excerpt: lazy %q, eager %q", x, y)
	}
}

func TestLazySourceMapGivesTheEagerPositions(t *testing.T) {
	es := testSession(t)
	for i, src := range erasePrograms {
		t.Run(fmt.Sprint(i), func(t *testing.T) { checkLazyMatchesEager(t, src, es) })
	}
}

func FuzzLazySourceMapGivesTheEagerPositions(f *testing.F) {
	for _, src := range erasePrograms {
		f.Add(src)
	}
	es := testSession(f)
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 4<<10 {
			return
		}
		checkLazyMatchesEager(t, src, es)
	})
}

func TestEraseCacheIsBoundedInBytes(t *testing.T) {
	src := func(i int) string { return fmt.Sprintf("export default %d;%s\n", i, strings.Repeat(" ", 100)) }
	one, err := erase(src(0), nil, testSession(t))
	if err != nil {
		t.Fatal(err)
	}
	size := entrySize(src(0), one)
	c := newEraseCache(3 * size)
	for i := range 10 {
		if _, err := c.erase(src(i), src(i), nil, nil); err != nil {
			t.Fatal(err)
		}
		if c.used > c.max {
			t.Fatalf("%d bytes held, bound %d", c.used, c.max)
		}
	}
	if c.order.Len() != 3 {
		t.Fatalf("%d entries held, want the 3 that fit", c.order.Len())
	}
	for i := 7; i < 10; i++ {
		if _, ok := c.index[src(i)]; !ok {
			t.Fatalf("the recent program %d was evicted", i)
		}
	}
	big := "export default 1;" + strings.Repeat(" ", 3*size)
	if _, err := c.erase(big, big, nil, nil); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.index[big]; ok || c.order.Len() != 3 {
		t.Fatal("a program larger than the whole cache was kept")
	}
}
