package typecheck_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/typecheck"
)

// fiftyLines is a 50-line agent program.
func fiftyLines() string {
	var b strings.Builder
	b.WriteString("export default async function ({ codemode, console, result }: AgentProgramScope) {\n")
	for i := 0; i < 24; i++ {
		fmt.Fprintf(&b, "  const r%d = await codemode.add({ a: %d, b: 1 });\n  console.log(r%d.sum.toFixed(2));\n", i, i, i)
	}
	b.WriteString("}\n")
	return b.String()
}

// BenchmarkCheckWarm: a 50-line program on a running checker (goal: median
// <= 100 ms; the reference starts a compiler per call, 1.2-1.9 s).
func BenchmarkCheckWarm(b *testing.B) {
	c, err := typecheck.New(typecheck.Options{})
	if err != nil {
		b.Skip(err)
	}
	defer c.Close()
	t := &testing.T{}
	files := declarationsFor(t)
	src := fiftyLines()
	ctx := context.Background()
	if res, err := c.Check(ctx, files, src); err != nil || !res.Valid {
		b.Fatalf("%+v %v", res, err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		// A different program each time, so nothing is answered from a cache.
		res, err := c.Check(ctx, files, src+fmt.Sprintf("// %d\n", i))
		if err != nil || !res.Valid {
			b.Fatalf("%+v %v", res, err)
		}
	}
}

// BenchmarkCheckFirst: starting a checker and its first check.
func BenchmarkCheckFirst(b *testing.B) {
	t := &testing.T{}
	files := declarationsFor(t)
	src := fiftyLines()
	for i := 0; i < b.N; i++ {
		c, err := typecheck.New(typecheck.Options{})
		if err != nil {
			b.Skip(err)
		}
		if res, err := c.Check(context.Background(), files, src); err != nil || !res.Valid {
			b.Fatalf("%+v %v", res, err)
		}
		b.StopTimer()
		c.Close()
		b.StartTimer()
	}
}
