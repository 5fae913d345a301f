package client

import (
	"strconv"
	"testing"

	"github.com/evanw/esbuild/pkg/api"
	"github.com/go-sourcemap/sourcemap"
)

const eraseProgram = `export default async function ({ codemode, console }: AgentProgramScope) {
  const r: { value: string } = await codemode.echo({ value: "hello" });
  console.log(r.value);
}
`

// BenchmarkErase: TypeScript erasure of a fresh one-call program, as erase
// does it (esbuild with a source map, parsed), and its parts: esbuild
// without a source map, esbuild with one, parsing the map.
func BenchmarkErase(b *testing.B) {
	i := 0
	fresh := func() string { i++; return eraseProgram + "// " + strconv.Itoa(i) + "\n" }
	opts := api.TransformOptions{Loader: api.LoaderTS, Format: api.FormatDefault, Target: api.ESNext, Sourcefile: programFilename, Charset: api.CharsetUTF8}
	b.Run("erase", func(b *testing.B) {
		for b.Loop() {
			if _, err := erase(fresh(), nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("esbuild-no-map", func(b *testing.B) {
		for b.Loop() {
			api.Transform(fresh(), opts)
		}
	})
	withMap := opts
	withMap.Sourcemap = api.SourceMapExternal
	b.Run("esbuild-map", func(b *testing.B) {
		for b.Loop() {
			api.Transform(fresh(), withMap)
		}
	})
	res := api.Transform(fresh(), withMap)
	b.Run("parse-map", func(b *testing.B) {
		for b.Loop() {
			if _, err := sourcemap.Parse(programFilename, res.Map); err != nil {
				b.Fatal(err)
			}
		}
	})
}
