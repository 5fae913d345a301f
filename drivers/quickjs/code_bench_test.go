package quickjs_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/drivers/quickjs"
)

// codeForms are model-written code in the forms the code tool takes
// (Client.RunCode): statements whose last expression is the value, the
// form agents send most; an async arrow function; and a module.
var codeForms = []struct{ name, code string }{
	{"statements", "const r = await codemode.echo({ value: \"hello\" });\nr.value"},
	{"function", "async ({ codemode }) => {\n  const r = await codemode.echo({ value: \"hello\" });\n  return r.value;\n}"},
	{"module", oneCall},
}

// BenchmarkWarmCodeFresh is BenchmarkWarmExecutionFresh through the code
// tool's path (Client.RunCode: normalization, then erasure) for each form
// of model-written code, with a fresh source every execution, as an agent
// sends it.
func BenchmarkWarmCodeFresh(b *testing.B) {
	for _, form := range codeForms {
		b.Run(form.name, func(b *testing.B) {
			benchModes(b, func(b *testing.B, opts quickjs.Options) { benchWarmCodeFresh(b, opts, form.code) })
		})
	}
}

func benchWarmCodeFresh(b *testing.B, opts quickjs.Options, code string) {
	c := benchClient(b, opts, nil)
	ctx := context.Background()
	seq := 0
	fresh := func() string { seq++; return code + "\n// " + strconv.Itoa(seq) + "\n" }
	for i := 0; i < 20; i++ {
		if _, err := c.RunCode(ctx, fresh(), client.RunOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	u0 := usageNow()
	for i := 0; i < b.N; i++ {
		out, err := c.RunCode(ctx, fresh(), client.RunOptions{})
		if err != nil || out.Kind != client.Success {
			b.Fatalf("%+v %v", out, err)
		}
	}
	u0.report(b, b.N)
}
