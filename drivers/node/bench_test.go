package node_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
)

// echoContract has one tool, echo, that returns its input.
func echoContract(b *testing.B) *contract.Contract {
	b.Helper()
	schema := json.RawMessage(`{"type":"object","properties":{"value":{"type":"string"}},"required":["value"],"additionalProperties":false}`)
	echo, err := contract.NewRawTool("echo", "Return the value it was given.", schema, schema,
		func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) { return in, nil })
	if err != nil {
		b.Fatal(err)
	}
	k, err := contract.New(echo)
	if err != nil {
		b.Fatal(err)
	}
	return k
}

// BenchmarkBoot: NewRuntime until the runner is ready (version check,
// process start, bootstrap, handshake). Goal: median <= 200 ms; the
// reference (torkbot/code-mode's Host Node runtime) takes 560 ms.
func BenchmarkBoot(b *testing.B) {
	d := driver(b)
	ctx := context.Background()
	for i := 0; i < b.N; i++ {
		rt, err := client.NewRuntime(ctx, d)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		_ = rt.Close()
		b.StartTimer()
	}
}

const oneCall = `export default async function ({ codemode, result }: AgentProgramScope) {
  const r = await codemode.echo({ value: "hello" });
  result.appendText(r.value);
}`

// BenchmarkWarmExecution: a fresh root module with one tool call on a warm
// runtime. Goal: median <= 1 ms; the reference takes 1.48 ms.
func BenchmarkWarmExecution(b *testing.B) {
	rt, err := client.NewRuntime(context.Background(), driver(b))
	if err != nil {
		b.Fatal(err)
	}
	defer rt.Close()
	c := client.New(rt, echoContract(b))
	ctx := context.Background()
	for i := 0; i < 50; i++ {
		if _, err := c.Run(ctx, oneCall, client.RunOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out, err := c.Run(ctx, oneCall, client.RunOptions{})
		if err != nil || out.Kind != client.Success {
			b.Fatalf("%+v %v", out, err)
		}
	}
}

// BenchmarkValidateWarm: Client.Validate of a program using node:fs and
// process against the contract and @types/node, on a warm checker, a
// different program each time so that nothing is answered from a cache.
func BenchmarkValidateWarm(b *testing.B) {
	rt, err := client.NewRuntime(context.Background(), driver(b))
	if err != nil {
		b.Fatal(err)
	}
	defer rt.Close()
	c := client.New(rt, echoContract(b))
	chk := checker(b)
	ctx := context.Background()
	src := nodeProgram("/etc/hostname")
	if res, err := c.Validate(ctx, chk, src); err != nil || !res.Valid {
		b.Fatalf("%+v %v", res, err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := c.Validate(ctx, chk, src+fmt.Sprintf("// %d\n", i))
		if err != nil || !res.Valid {
			b.Fatalf("%+v %v", res, err)
		}
	}
}
