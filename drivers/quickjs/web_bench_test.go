package quickjs_test

import (
	"context"
	"testing"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/drivers/quickjs"
)

// BenchmarkFirstURLUse is the cost of the web globals that load on first
// use, paid again by every execution (each one starts from the snapshot):
// a program that reads nothing web-related ("none"), one that builds a
// query string with URLSearchParams, one that parses an ASCII URL, and one
// whose host needs IDNA processing (a non-ASCII host name).
func BenchmarkFirstURLUse(b *testing.B) {
	programs := []struct{ name, src string }{
		{"none", `export default async function ({ result }: AgentProgramScope) { result.appendText("x"); }`},
		{"search-params", `export default async function ({ result }: AgentProgramScope) {
  result.appendText(new URLSearchParams({ q: "code mode", page: "2" }).toString());
}`},
		{"ascii-url", `export default async function ({ result }: AgentProgramScope) {
  result.appendText(new URL("https://API.example.com/v1/items?limit=5").host);
}`},
		{"idna-url", `export default async function ({ result }: AgentProgramScope) {
  result.appendText(new URL("https://bücher.example/").host);
}`},
	}
	for _, p := range programs {
		b.Run(p.name, func(b *testing.B) {
			c := benchClient(b, quickjs.Options{InProcess: true}, nil)
			ctx := context.Background()
			for b.Loop() {
				out, err := c.Run(ctx, p.src, client.RunOptions{})
				if err != nil || out.Kind != client.Success {
					b.Fatalf("%+v %v", out, err)
				}
			}
		})
	}
}
