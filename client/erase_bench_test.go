package client

import (
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/codemode-go/codemode/internal/codeform"
	"github.com/evanw/esbuild/pkg/api"
	"github.com/go-sourcemap/sourcemap"
)

const eraseProgram = `export default async function ({ codemode, console }: AgentProgramScope) {
  const r: { value: string } = await codemode.echo({ value: "hello" });
  console.log(r.value);
}
`

// cpuTime is this process's CPU time (user and system, every thread). On a
// loaded machine it moves less than the wall time the benchmark reports.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// loopCPU runs f b.N times and reports the process's CPU time per
// iteration as cpu-ns/op beside the wall time.
func loopCPU(b *testing.B, f func()) {
	b.Helper()
	b.ResetTimer()
	c0 := cpuTime()
	for i := 0; i < b.N; i++ {
		f()
	}
	b.ReportMetric(float64(cpuTime()-c0)/float64(b.N), "cpu-ns/op")
}

// BenchmarkErase: TypeScript erasure of a fresh one-call program as erase
// does it (the types blanked: blank), side by side with esbuild's erasure
// (no source map; what erase does for a program blank refuses), what that
// replaced (esbuild with an external map, parsed at once), the cost of the
// map made on demand when an error needs it, and esbuild's fixed cost (a
// one-line module without TypeScript).
func BenchmarkErase(b *testing.B) {
	es := testSession(b)
	i := 0
	fresh := func() string { i++; return eraseProgram + "// " + strconv.Itoa(i) + "\n" }
	b.Run("erase", func(b *testing.B) {
		loopCPU(b, func() {
			if e, err := erase(fresh(), nil, es); err != nil || !e.blanked {
				b.Fatal("not blanked", err)
			}
		})
	})
	b.Run("esbuild", func(b *testing.B) {
		loopCPU(b, func() {
			if _, err := eraseWithEsbuild(fresh(), nil, es); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("eager-map", func(b *testing.B) {
		loopCPU(b, func() {
			res := api.Transform(fresh(), transformOptions(api.SourceMapExternal))
			if _, err := sourcemap.Parse(programFilename, res.Map); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("erase-then-map", func(b *testing.B) {
		loopCPU(b, func() {
			prog, err := eraseWithEsbuild(fresh(), nil, es)
			if err != nil || prog.sourceMap() == nil {
				b.Fatal("no map", err)
			}
		})
	})
	b.Run("esbuild-empty-module", func(b *testing.B) {
		loopCPU(b, func() {
			api.Transform("export default "+strconv.Itoa(i)+";\n", transformOptions(api.SourceMapNone))
			i++
		})
	})
}

// BenchmarkEraseSideBySide runs erasure variants in turn, b.N rounds of one
// call each, and reports the median and first quartile of each variant's
// calls (us): on a loaded machine the per-call quartiles of interleaved
// calls move less than whole benchmarks run one after the other. The
// variants: erase as it is (blanked); esbuild's erasure; as it was (an
// external map, parsed at once); the map made but not parsed; esbuild
// options that might cut work; and a one-line module without TypeScript,
// esbuild's fixed cost per call.
func BenchmarkEraseSideBySide(b *testing.B) {
	es := testSession(b)
	i := 0
	fresh := func() string { i++; return eraseProgram + "// " + strconv.Itoa(i) + "\n" }
	transform := func(change func(o *api.TransformOptions)) func() {
		o := transformOptions(api.SourceMapNone)
		change(&o)
		return func() {
			if r := api.Transform(fresh(), o); len(r.Errors) > 0 {
				b.Fatal(r.Errors)
			}
		}
	}
	variants := []struct {
		name string
		run  func()
	}{
		{"erase", func() {
			if _, err := erase(fresh(), nil, es); err != nil {
				b.Fatal(err)
			}
		}},
		{"esbuild", func() {
			if _, err := eraseWithEsbuild(fresh(), nil, es); err != nil {
				b.Fatal(err)
			}
		}},
		{"eager-map", func() {
			r := api.Transform(fresh(), transformOptions(api.SourceMapExternal))
			if _, err := sourcemap.Parse(programFilename, r.Map); err != nil {
				b.Fatal(err)
			}
		}},
		{"map-unparsed", transform(func(o *api.TransformOptions) { o.Sourcemap = api.SourceMapExternal })},
		{"esm-no-treeshake-no-legal", transform(func(o *api.TransformOptions) {
			o.Format, o.TreeShaking, o.LegalComments = api.FormatESModule, api.TreeShakingFalse, api.LegalCommentsNone
		})},
		{"minify-whitespace", transform(func(o *api.TransformOptions) { o.MinifyWhitespace = true })},
		{"empty-module", func() {
			i++
			api.Transform("export default "+strconv.Itoa(i)+";\n", transformOptions(api.SourceMapNone))
		}},
	}
	times := make([][]time.Duration, len(variants))
	for b.Loop() {
		for k, v := range variants {
			t0 := time.Now()
			v.run()
			times[k] = append(times[k], time.Since(t0))
		}
	}
	for k, v := range variants {
		s := times[k]
		slices.Sort(s)
		b.ReportMetric(float64(s[len(s)/2])/1e3, v.name+"-median-us")
		b.ReportMetric(float64(s[len(s)/4])/1e3, v.name+"-p25-us")
	}
}

// BenchmarkRunCodeErase: what RunCode does on an erase-cache miss for each
// form of model-written code (normalize, then erase the wrapped module).
// normalize reads the code's syntax with blank; read by esbuild alone
// (codeform.Normalized.ReadByEsbuild, the "-esbuild" variants, as before:
// the module is blanked either way)
// it took once for a function expression and three to ten times for
// statements that end with an expression, then one more for the module.
func BenchmarkRunCodeErase(b *testing.B) {
	es := testSession(b)
	i := 0
	for _, tc := range []struct{ name, code string }{
		{"module", eraseProgram},
		{"function", "async ({ codemode }) => {\n  const r = await codemode.echo({ value: \"x\" });\n  return r.value;\n}"},
		{"statements", "const r = await codemode.echo({ value: \"x\" });\nr.value"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			loopCPU(b, func() {
				i++
				n := codeform.Normalize(tc.code+"\n// "+strconv.Itoa(i), []string{"codemode", "console", "result"}, "", es)
				if e, err := erase(n.Module, n, es); err != nil || !e.blanked {
					b.Fatal("not blanked", err)
				}
			})
		})
		b.Run(tc.name+"-esbuild", func(b *testing.B) {
			loopCPU(b, func() {
				i++
				n := codeform.Normalize(tc.code+"\n// "+strconv.Itoa(i), []string{"codemode", "console", "result"}, "", es).ReadByEsbuild(es)
				if _, err := erase(n.Module, n, es); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}
