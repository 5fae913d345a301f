package quickjs_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/drivers/quickjs"
)

// BenchmarkManyMessagesInOneTurn is a program that, in one turn, appends n
// content items or prints n lines: the runner's outbox and outcome must
// grow linearly (this QuickJS concatenates strings by copying, so building
// them with += cost the square of their length: 80,000 empty items took
// past a 30 s deadline). Compare ns/op across n: 4x the items should cost
// about 4x.
func BenchmarkManyMessagesInOneTurn(b *testing.B) {
	for _, kind := range []struct{ name, stmt string }{
		{"content", `result.appendText("")`},
		{"output", `console.log("line " + i)`},
	} {
		for _, n := range []int{5000, 20000} {
			b.Run(fmt.Sprintf("%s-%d", kind.name, n), func(b *testing.B) {
				c := benchClient(b, quickjs.Options{InProcess: true}, nil)
				src := fmt.Sprintf(`export default async function ({ result, console }: AgentProgramScope) {
  for (let i = 0; i < %d; i++) %s;
}`, n, kind.stmt)
				ctx := context.Background()
				for b.Loop() {
					out, err := c.Run(ctx, src, client.RunOptions{})
					if err != nil || out.Kind != client.Success {
						b.Fatalf("%+v %v", out, err)
					}
				}
			})
		}
	}
}
