package remote_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers"
	"github.com/codemode-go/codemode/drivers/remote"
	"github.com/codemode-go/codemode/internal/runnerhost"
)

// BenchmarkToolCallRoundTrip: one sequential tool call inside a running
// program, from the call to the resumed program, on the same QuickJS driver
// in-process and through a runner host over loopback TCP and a unix socket
// (goal: at most 100 µs added per call by the remote hop). Compare the
// medians of -count 5 runs as ratios.
func BenchmarkToolCallRoundTrip(b *testing.B) {
	local := quickjsDriver(b)
	tcp := startHost(b, local, runnerhost.ServerOptions{})
	unixAddr := "unix:" + filepath.Join(b.TempDir(), "runner.sock")
	l, err := runnerhost.Listen(unixAddr)
	if err != nil {
		b.Fatal(err)
	}
	srv, err := runnerhost.NewServer(runnerhost.ServerOptions{Driver: local, Token: token})
	if err != nil {
		b.Fatal(err)
	}
	go func() { _ = srv.Serve(l) }()
	b.Cleanup(func() { _ = srv.Close() })
	unixDriver, err := remote.New(remote.Options{Address: unixAddr, Token: token})
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name   string
		driver drivers.Driver
	}{
		{"in-process", local},
		{"remote-tcp", tcp.driver(b)},
		{"remote-unix", unixDriver},
	} {
		b.Run(bc.name, func(b *testing.B) {
			rt, err := client.NewRuntime(context.Background(), bc.driver)
			if err != nil {
				b.Fatal(err)
			}
			defer rt.Close()
			schema := json.RawMessage(`{"type":"object","properties":{"value":{"type":"string"}},"required":["value"],"additionalProperties":false}`)
			echo, err := contract.NewRawTool("echo", "Return the value it was given.", schema, schema,
				func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) { return in, nil })
			if err != nil {
				b.Fatal(err)
			}
			input, err := contract.NewSchema(json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"],"additionalProperties":false}`))
			if err != nil {
				b.Fatal(err)
			}
			k, err := contract.New(echo)
			if err == nil {
				k, err = k.WithInput(input)
			}
			if err != nil {
				b.Fatal(err)
			}
			c := client.New(rt, k)
			const src = `export default async function ({ input, codemode }: AgentProgramScope) {
  for (let i = 0; i < input.n; i++) await codemode.echo({ value: "x" });
}`
			ctx := context.Background()
			if _, err := c.Run(ctx, src, client.RunOptions{Input: map[string]int{"n": 100}}); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			out, err := c.Run(ctx, src, client.RunOptions{Input: map[string]int{"n": b.N}})
			if err != nil || out.Kind != client.Success {
				b.Fatalf("%+v %v", out, err)
			}
		})
	}
}
