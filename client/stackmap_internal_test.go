package client

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/codemode-go/codemode/internal/codeform"
	"github.com/codemode-go/codemode/internal/esbuildchild"
	"github.com/codemode-go/codemode/internal/wire"
)

// pointPlace maps a module place through p's points as
// docs/runner-protocol.md ("Program positions") says the runner does: ok is
// false for a place that is not the program's, unknown true for one of
// the program's without a place.
func pointPlace(p *wire.Positions, line, col int) (l, c int, ok, unknown bool) {
	at := -1
	for i := 0; i < len(p.Points); i += 5 {
		if pl, pc := int(p.Points[i]), int(p.Points[i+1]); pl < line || pl == line && pc <= col {
			at = i
		}
	}
	if at < 0 {
		return 0, 0, false, false
	}
	pt := p.Points[at : at+5]
	switch wire.PointKind(pt[4]) {
	case wire.PointSame:
		return int(pt[2]), int(pt[3]), true, false
	case wire.PointShift:
		if line == int(pt[0]) {
			return int(pt[2]), int(pt[3]) + col - int(pt[1]), true, false
		}
		return int(pt[2]) + line - int(pt[0]), col, true, false
	case wire.PointUnknown:
		return 0, 0, true, true
	}
	return 0, 0, false, false
}

// TestPositionsMapAsReports: the positions the runner is sent place every
// place of the erased module where the client's report maps a frame there
// (the source map, then model-written code's own coordinates; a place of
// the wrapper is not the program's), for programs esbuild reprints and
// programs whose types were blanked, wrapped or not.
func TestPositionsMapAsReports(t *testing.T) {
	es := esbuildchild.New(context.Background(), nil)
	defer es.Close()
	names := []string{"codemode", "console", "result"}
	for _, tc := range []struct {
		name, code string
		wrapped    bool
	}{
		{"statements, blanked", "const a: number = 1;\nawait codemode.x({ a })", true},
		{"statements, reprinted", "enum E { A }\nclass K { m(): number { return E.A; } }\nconst k = new K();   k.m()", true},
		{"a module, reprinted", "class K {\n  m(s: string) {\n    throw new Error(s);\n  }\n}\nexport default async function ({ codemode }: any) { new K().m(\"é\"); }", true},
		{"a module of Run, reprinted", "enum E { A, B }\nexport default async () => {\n  return E.B + [1, 2].map((n) => n * 2).length;\n};", false},
		{"names, numbers and templates, reprinted", "enum Élan { Ä = 0x1F, B = 1e3 }\nconst tëst = `city ${Élan.Ä} and ${1_000n}` + \"q\\u00e9\";\nlabel: for (const $x of [tëst]) { if ($x) break label; }\ntëst.length", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var back *codeform.Normalized
			source := tc.code
			if tc.wrapped {
				back = codeform.Normalize(tc.code, names, "", es)
				source = back.Module
			}
			e, err := erase(source, back, es)
			if err != nil {
				t.Fatal(err)
			}
			p := e.stackPositions()
			if p == nil {
				t.Fatal("no positions")
			}
			if err := (&wire.Message{Kind: wire.KindExecute, Execution: 1, Filename: programFilename, Positions: p}).Check(); err != nil {
				t.Fatal(err)
			}
			checked := 0
			for i, text := range strings.Split(e.js, "\n") {
				next := 1
				for _, r := range text {
					line, col := i+1, next
					next += utf16.RuneLen(r)
					if r == ' ' || r == '\t' {
						continue // no frame is placed on a blank
					}
					checked++
					pl, pc, ok, unknown := pointPlace(p, line, col)
					ml, mc, mapped := e.smapSource(line, col)
					switch {
					case !mapped:
						if !unknown {
							t.Errorf("%d:%d: not in the source map, placed at %d:%d (%v)", line, col, pl, pc, ok)
						}
					case back != nil && !back.InCode(ml, mc):
						if ok {
							t.Errorf("%d:%d: in the wrapper, placed at %d:%d", line, col, pl, pc)
						}
					default:
						wl, wc, _ := e.mapPosition(line, col)
						if !ok || unknown || pl != wl || pc != wc {
							t.Errorf("%d:%d: placed at %d:%d (%v %v), reported at %d:%d", line, col, pl, pc, ok, unknown, wl, wc)
						}
					}
				}
			}
			if checked == 0 {
				t.Fatal("no place checked")
			}
			if back != nil && p.DefaultName != codeform.DefaultName {
				t.Errorf("default name %q", p.DefaultName)
			}
		})
	}
}

// BenchmarkStackPositions: making the positions of a program's module
// (once per erased program): model-written statements whose types were
// blanked (codeform's segments), and the same code with a class, which
// esbuild reprints (every place of its JavaScript mapped).
func BenchmarkStackPositions(b *testing.B) {
	es := esbuildchild.New(context.Background(), nil)
	defer es.Close()
	var body strings.Builder
	for i := range 100 {
		fmt.Fprintf(&body, "const r%d = await codemode.getWeather({ location: `city %d` });\nif (r%d.temperature > 30) console.log(\"hot\", r%d);\n", i, i, i, i)
	}
	for _, tc := range []struct{ name, code string }{
		{"blanked", body.String() + "r1"},
		{"reprinted", "class K { m(): number { return 1; } }\n" + body.String() + "r1"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			back := codeform.Normalize(tc.code, []string{"codemode", "console", "result"}, "", es)
			e, err := erase(back.Module, back, es)
			if err != nil {
				b.Fatal(err)
			}
			if tc.name == "reprinted" && e.blanked {
				b.Fatal("blanked")
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if e.makePositions() == nil {
					b.Fatal("no positions")
				}
			}
			b.ReportMetric(float64(len(e.js)), "js-bytes")
		})
		b.Run(tc.name+"/erasure", func(b *testing.B) {
			back := codeform.Normalize(tc.code, []string{"codemode", "console", "result"}, "", es)
			for range b.N {
				if _, err := erase(back.Module, back, es); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
