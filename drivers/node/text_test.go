package node_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers"
	"github.com/codemode-go/codemode/internal/wire"
	"github.com/codemode-go/codemode/runner"
)

// TestRunnerDecodesText: the runner decodes the wire's text with the
// platform's TextDecoder. A leading U+FEFF is text and is kept (a decoder
// left to strip the BOM would lose it), astral characters survive, and a
// tool result of several MiB, which arrives in many pipe chunks, decodes
// whole.
func TestRunnerDecodesText(t *testing.T) {
	rt, err := client.NewRuntime(context.Background(), driver(t))
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	big := strings.Repeat("é😀x", 1<<19) // 3.5 MiB of UTF-8
	blob, err := contract.NewRawTool("blob", "A large text.", json.RawMessage(`{"type":"object","additionalProperties":false}`), json.RawMessage(`{"type":"string"}`),
		func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) { return json.Marshal(big) })
	if err != nil {
		t.Fatal(err)
	}
	fail, err := contract.NewRawTool("fail", "Fails.", json.RawMessage(`{"type":"object","additionalProperties":false}`), json.RawMessage(`{"type":"string"}`),
		func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) {
			return nil, errors.New("\ufeffboom é😀")
		})
	if err != nil {
		t.Fatal(err)
	}
	k, err := contract.New(blob, fail)
	if err != nil {
		t.Fatal(err)
	}
	c := client.New(rt, k)
	src := "\ufeff" + `export default async function ({ codemode }: AgentProgramScope) {
  const s = await codemode.blob({});
  let message = "";
  try { await codemode.fail({}); } catch (e) { message = (e as Error).message; }
  return { length: s.length, head: s.slice(0, 4), tail: s.slice(-3), message, bom: message.charCodeAt(0) };
}`
	out, err := c.Run(context.Background(), src, client.RunOptions{})
	if err != nil || out.Kind != client.Success {
		t.Fatalf("%+v %v", out, err)
	}
	var got struct {
		Length     int
		Head, Tail string
		Message    string
		Bom        int
	}
	if err := json.Unmarshal(out.Value, &got); err != nil {
		t.Fatal(err)
	}
	if got.Length != 4*(1<<19) || got.Head != "é😀x" || got.Tail != "😀x" || got.Bom != 0xfeff || !strings.HasSuffix(got.Message, "boom é😀") {
		t.Errorf("got %+v", got)
	}
}

// TestRunnerRefusesInvalidUTF8: a text string that is not UTF-8 ends the
// connection with the runner naming the fault, as the loop decoder did.
func TestRunnerRefusesInvalidUTF8(t *testing.T) {
	d := driver(t)
	payload, err := wire.Marshal(&wire.Message{Kind: wire.KindExecute, Execution: 1, Filename: "agent.ts", Source: "export default async function () { return 'ZZ'; }"})
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(payload, []byte("ZZ"))
	payload[i] = 0xc3 // a lead byte followed by 'Z': not UTF-8
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	conn, err := d.Connect(ctx, drivers.ConnectRequest{RunnerSource: runner.Source})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	r := wire.NewReader(conn.Channel())
	if m, err := r.Read(); err != nil || m.Kind != wire.KindReady {
		t.Fatalf("no ready message: %v", err)
	}
	if _, err := conn.Channel().Write(frame(payload)); err != nil {
		t.Fatal(err)
	}
	select {
	case <-conn.Done():
		if e := conn.Err(); e == nil || !strings.Contains(e.Error(), "invalid UTF-8") {
			t.Errorf("the runner ended without naming invalid UTF-8: %v", e)
		}
	case <-ctx.Done():
		t.Fatal("the runner accepted invalid UTF-8")
	}
}
