package codeform_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/codemode-go/codemode/internal/esbuildchild"

	"github.com/codemode-go/codemode/internal/codeform"
	"github.com/evanw/esbuild/pkg/api"
)

func TestExportDefault(t *testing.T) {
	for _, tc := range []struct {
		code   string
		offset int
		length int
	}{
		{"export default async () => 1", 0, 14},
		{"const a = 1; export default async () => a;", 13, 14},
		{"const a = 1;\nexport   default () => a", 13, 16},
		{"export\ndefault 1", 0, 14},
		{`const s = "export default 1"; s`, -1, 0},
		{"// export default 1\n1", -1, 0},
		{"function f() { return `export default ${1}`; }\nf()", -1, 0},
		{"async () => { export default 1 }", -1, 0},
		{"1", -1, 0},
	} {
		if at, n := codeform.ExportDefault(tc.code); at != tc.offset || n != tc.length {
			t.Errorf("ExportDefault(%q) = %d, %d; want %d, %d", tc.code, at, n, tc.offset, tc.length)
		}
	}
}

// FuzzNormalize: any text a model sends normalizes without a panic,
// ExportDefault points at the words it names, and reading its syntax with
// blank first makes the module esbuild's reading makes, for any code
// esbuild accepts (TestBlankReadsCodeAsEsbuild).
func FuzzNormalize(f *testing.F) {
	for _, s := range []string{
		"await codemode.x({})", "export default async () => 1", "async () => { return `${a}/` / 2 }",
		"const r = /a\\/b/g; r", "```ts\n1\n```", "/* open", "'unterminated\n1", "x = `a${`b${c}`}`; export default x",
		"}/x/; export\ndefault 1", "let a = 1\nif (a) f()\na", "'use strict'\n'b'", "x\n++y", "do x++; while (x) y",
		"a = b + c = d\n1", "label: {\n}\nf()", "a\n\u00a0b",
	} {
		f.Add(s)
	}
	es := esbuildchild.New(context.Background(), nil)
	f.Cleanup(func() { es.Close() })
	f.Fuzz(func(t *testing.T, code string) {
		n := codeform.Normalize(code, []string{"codemode", "console", "result"}, "", es)
		if n == nil || n.Module == "" {
			t.Fatalf("%q: no module", code)
		}
		if old := n.ReadByEsbuild(es); !codeform.SameNormalization(n, old) {
			if r := api.Transform(code, api.TransformOptions{Loader: api.LoaderTS}); len(r.Errors) == 0 {
				t.Fatalf("%q: blank first:\n%s\n--- esbuild:\n%s", code, n.Module, old.Module)
			}
		}
		carry := &codeform.Carry{Restore: []codeform.Binding{{Name: "a", JSON: "1"}, {Name: "f", Source: code}}, Capture: codeform.Declared(code)}
		// A session's module holds the code on the same lines.
		c := codeform.NormalizeCarry(code, []string{"codemode", "console", "result"}, "", carry, es)
		plain, carried := strings.Split(n.Module, "\n"), strings.Split(c.Module, "\n")
		if k := len(n.Lines) + 1; len(carried) < k || len(plain) < k || strings.Join(plain[1:k], "\n") != strings.Join(carried[1:k], "\n") {
			t.Fatalf("%q: the session's module moves the code", code)
		}
		if off, l := codeform.ExportDefault(code); off >= 0 {
			w := code[off : off+l]
			if !strings.HasPrefix(w, "export") || !strings.HasSuffix(w, "default") {
				t.Fatalf("%q: ExportDefault %d,%d is %q", code, off, l, w)
			}
		}
	})
}

// longLines is code of two lines of about size bytes each, with
// characters of one and two UTF-16 code units; the last is an expression
// statement, so the module returns it (an edit on that line).
func longLines(size int) string {
	long := strings.Repeat("a é 𝄞 ", size/10)
	return "const s = \"" + long + "\";\ns.length // " + long
}

// TestPositionsOnLongLines maps, for code with two lines of 600 KB, many
// positions past the code's end (each maps to the end of its last line)
// and asks InCode about many positions on its first line: as a thrown
// stack of made-up frames makes RunCode do after the run (the adversarial
// review of 2026-12-06). Each was a walk over the line, and 1,250 of them
// took seconds. It checks what they return; BenchmarkPositionsOnLongLines
// shows each takes the same time whatever the line's length.
func TestPositionsOnLongLines(t *testing.T) {
	es := esbuildchild.New(context.Background(), nil)
	defer es.Close()
	code := longLines(600_000)
	n := codeform.Normalize(code, []string{"codemode", "console", "result"}, "", es)
	lines := strings.Split(code, "\n")
	first, last := len(utf16.Encode([]rune(lines[0]))), len(utf16.Encode([]rune(lines[1])))
	for i := range 1250 {
		if l, c := n.Position(len(lines)+2+i%3, 1); l != 2 || c != last+1 {
			t.Fatalf("Position past the end = %d:%d; want 2:%d", l, c, last+1)
		}
		if !n.InCode(2, first+1) || n.InCode(2, first+2) {
			t.Fatalf("InCode(2, %d), InCode(2, %d) = %v, %v; want the first only (the end of the code's first line)",
				first+1, first+2, n.InCode(2, first+1), n.InCode(2, first+2))
		}
	}
}

// BenchmarkPositionsOnLongLines is Position past the end of code and
// InCode on its first line, for lines of 250 KB and 1 MB: the time per
// call does not grow with the line.
func BenchmarkPositionsOnLongLines(b *testing.B) {
	es := esbuildchild.New(context.Background(), nil)
	defer es.Close()
	for _, size := range []int{250_000, 1_000_000} {
		n := codeform.Normalize(longLines(size), []string{"codemode", "console", "result"}, "", es)
		b.Run(fmt.Sprintf("%dKB", size/1000), func(b *testing.B) {
			for b.Loop() {
				n.Position(len(n.Lines)+2, 1)
				n.InCode(2, 1)
			}
		})
	}
}

// segmentPlace maps a module place through segs as their documentation
// says (the runners' lookup, docs/runner-protocol.md "Program
// positions"): ok is false for a place that is not the code's.
func segmentPlace(segs []codeform.Segment, line, col int) (l, c int, ok bool) {
	at := -1
	for i, s := range segs {
		if s.ModLine < line || s.ModLine == line && s.ModCol <= col {
			at = i
		}
	}
	if at < 0 {
		return 0, 0, false
	}
	s := segs[at]
	switch s.Kind {
	case codeform.SegmentSame:
		return s.Line, s.Col, true
	case codeform.SegmentShift:
		if line == s.ModLine {
			return s.Line, s.Col + col - s.ModCol, true
		}
		return s.Line + line - s.ModLine, col, true
	}
	return 0, 0, false
}

// TestSegmentsMapAsPosition: every place of a module on a line of the
// code maps through Segments where Position maps it, and every place of
// the wrapper's own lines is outside the code, in each form of code; each
// segment starts after the one before it (as the wire's points must).
func TestSegmentsMapAsPosition(t *testing.T) {
	es := esbuildchild.New(context.Background(), nil)
	defer es.Close()
	for _, code := range []string{
		"await codemode.x({ a: 1 })",
		"const a = 1;\nconst b = a + 1;\n  b * 2",
		"const a = 1; a + 1",
		"export default async function ({ codemode }) {\n  return 1;\n}",
		"const k = 2;\nexport   default async ({ codemode }) => { await codemode.x({}); }",
		"async () => {\n  return 1;\n}",
		"(async () => 1)",
		"const é = 'ü'; `${é}` + \"\\u{1F600}😀\"",
		"```ts\nconst x = 1;\nx\n```",
		"export const a = 1;",
	} {
		n := codeform.Normalize(code, []string{"codemode", "console", "result"}, "", es)
		segs := n.Segments()
		for i := 1; i < len(segs); i++ {
			if a, b := segs[i-1], segs[i]; b.ModLine < a.ModLine || b.ModLine == a.ModLine && b.ModCol <= a.ModCol {
				t.Errorf("%q: segment %d (%+v) does not follow %+v", code, i, b, a)
			}
		}
		for i, line := range strings.Split(n.Module, "\n") {
			l := i + 1
			for c := 1; c <= len(utf16.Encode([]rune(line)))+1; c++ {
				gl, gc, ok := segmentPlace(segs, l, c)
				if in := n.InCode(l, c); in != ok {
					t.Errorf("%q: module %d:%d in the code %v, segments say %v", code, l, c, in, ok)
					continue
				} else if !in {
					continue
				}
				if wl, wc := n.Position(l, c); gl != wl || gc != wc {
					t.Errorf("%q: module %d:%d maps to %d:%d through the segments, %d:%d by Position", code, l, c, gl, gc, wl, wc)
				}
			}
		}
	}
}
