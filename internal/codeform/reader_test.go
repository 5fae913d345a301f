package codeform_test

import (
	"context"
	"sort"
	"strconv"
	"testing"

	"github.com/codemode-go/codemode/internal/esbuildchild"

	"github.com/codemode-go/codemode/internal/blank/blanktest"
	"github.com/codemode-go/codemode/internal/codeform"
	"github.com/evanw/esbuild/pkg/api"
)

// TestBlankReadsCodeAsEsbuild normalizes every text of the corpus (every
// string literal of the repository's tests, its TypeScript files) twice,
// reading its syntax with blank first and with esbuild alone, alone and
// (code that declares a name) in a session that carries bindings: the modules and their ways back to the
// code's coordinates must be the same, but for code esbuild refuses (an
// early error blank does not look for; client's
// TestCodeReadByBlankFailsAsReadByEsbuild runs those both ways).
func TestBlankReadsCodeAsEsbuild(t *testing.T) {
	if testing.Short() {
		t.Skip("normalizes every string literal of the repository's tests twice")
	}
	corpus := blanktest.Literals(t, "../..")
	for k, v := range blanktest.Programs(t, "../..") {
		corpus[k] = v
	}
	for i, code := range readerEdges {
		corpus["readerEdges/"+strconv.Itoa(i)] = code
	}
	es := esbuildchild.New(context.Background(), nil)
	defer es.Close()
	names := make([]string, 0, len(corpus))
	seen := map[string]bool{}
	for k, v := range corpus {
		if !seen[v] {
			seen[v] = true
			names = append(names, k)
		}
	}
	sort.Strings(names)
	scope := []string{"codemode", "console", "result"}
	differ := 0
	for _, name := range names {
		code := corpus[name]
		carries := []*codeform.Carry{nil}
		if declared := codeform.Declared(code); len(declared) > 0 {
			carries = append(carries, &codeform.Carry{Restore: []codeform.Binding{{Name: "a", JSON: "1"}}, Capture: declared})
		}
		for _, c := range carries {
			got := codeform.NormalizeCarry(code, scope, "", c, es)
			want := got.ReadByEsbuild(es)
			if codeform.SameNormalization(got, want) {
				continue
			}
			differ++
			if r := api.Transform(code, api.TransformOptions{Loader: api.LoaderTS}); len(r.Errors) == 0 {
				t.Errorf("%s: blank first:\n%s\n--- esbuild:\n%s", name, got.Module, want.Module)
			}
		}
	}
	t.Logf("%d texts, %d normalizations differ (esbuild refuses the code)", len(names), differ)
}

// readerEdges are code where reading with blank and with esbuild could
// part: early errors esbuild finds and blank does not look for, directive
// prologues, statements that continue over lines, statements after a
// block on its line, and space other than ASCII.
var readerEdges = []string{
	"let a = 1;\nlet a = 2;\na",
	"const a;\na",
	"break;\n1",
	"continue;\n1",
	"x: x: 1;\n2",
	"if (c) return 1;\nf()",
	"return;\n1",
	"await f();\n1",
	"for await (const x of y) {}\n1",
	"\"use strict\"\n\"b\"",
	"'a';\n'b'",
	"\"é\"",
	"/* c */ \"x\\\"y\"\nz",
	"a\n\u00a0b",
	"a;\u00a0b",
	"a\n\u2028b",
	"x\n++y",
	"x\n(y)",
	"x = 1\n+ 2",
	"do x++; while (x < 3) y",
	"a:\nfoo()",
	"if (a) b\nelse c\nd",
	"let x = 1,\ny = 2",
	"new.target",
	"super.x",
	"import.meta.url",
	"yield 1",
	"arguments = 1\n2",
	"eval = 1\n2",
	"f() = 1\n2",
	"a?.b = 1\n2",
	"(a) = 1\n(a)",
	"[a, b] = [1, 2]\na",
	"({ a } = { a: 1 })\na",
	"/x/gg\n1",
	"/x/u\n/y/v",
	"a = /x/uv\n1",
	"let let = 1\n2",
	"const { a, a } = o\na",
	"function f(a, a) {}\nf",
	"with (o) {}\n1",
	"delete x\n1",
	"08\n1",
	"'\\08'\n1",
	"async () => { let a; let a; }",
	"(async () => { await 1; let b; let b; })",
	"async () => { return 1 }; 2",
	"({ __proto__: 1, __proto__: 2 })",
	"label: { break label; }\n1",
	"label: for (;;) { continue label; }",
	"x\n`t`",
	"x\n/re/.test(y)",
	"x /\n2/ 1",
	"a\n;[1].map(f)",
	"a;\n// trailing\n",
	"a; /* open",
	"for (const x of xs) {} xs",
	"if (a) { b } else { c } d",
	"try {} catch {} finally {} 1",
	"x = { a: 1 }; y",
	"x = { a: 1 };",
	"const v = { k: 8 }.k",
	"function f() {} f",
	"class C {} C",
	"{ a } /re/.test(b)",
	"({ a }) {}",
	"a = {}\n;",
	"a;;",
}
