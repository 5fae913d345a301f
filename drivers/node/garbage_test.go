package node_test

import (
	"context"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/codemode-go/codemode/drivers"
	"github.com/codemode-go/codemode/internal/wire"
	"github.com/codemode-go/codemode/runner"
)

// TestRunnerRejectsGarbage feeds malformed frames to the JavaScript runner
// (its CBOR decoder and message checks): each must end that connection
// with an error naming the fault, never hang or crash without a word.
func TestRunnerRejectsGarbage(t *testing.T) {
	d := driver(t)
	valid, err := wire.Marshal(&wire.Message{Kind: wire.KindExecute, Execution: 1, Filename: "agent.ts", Source: "export default async function () {}"})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(1))
	inputs := [][]byte{
		frame([]byte{0xff}),                         // a break code outside an indefinite item
		frame([]byte{0x9f, 0x01, 0xff}),             // an indefinite-length array
		frame([]byte{0xc1, 0x01}),                   // a tag
		frame([]byte{0xa2, 0x00, 0x02, 0x00, 0x02}), // a duplicate key
		frame([]byte{0x01}),                         // not a map
		{0x7f, 0xff, 0xff, 0xff},                    // a 2 GiB length prefix
		frame([]byte{0xa1, 0x00, 0x63}),             // a kind of 99 with no execution
	}
	for i := 0; i < 8; i++ {
		m := append([]byte(nil), valid...)
		for k := 0; k < 3; k++ {
			m[rng.Intn(len(m))] = byte(rng.Intn(256))
		}
		inputs = append(inputs, frame(m))
	}
	for i, in := range inputs {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		c, err := d.Connect(ctx, drivers.ConnectRequest{RunnerSource: runner.Source})
		if err != nil {
			cancel()
			t.Fatal(err)
		}
		r := wire.NewReader(c.Channel())
		if m, err := r.Read(); err != nil || m.Kind != wire.KindReady {
			t.Fatalf("input %d: no ready message: %v", i, err)
		}
		if _, err := c.Channel().Write(in); err != nil {
			t.Fatalf("input %d: %v", i, err)
		}
		// The runner either ends the connection with a message on stderr, or
		// (a mutation that stayed valid) answers with an execution result.
		ended := make(chan struct{})
		go func() {
			defer close(ended)
			for {
				m, err := r.Read()
				if err != nil || m.Kind == wire.KindResult {
					return
				}
			}
		}()
		select {
		case <-ended:
		case <-ctx.Done():
			t.Fatalf("input %d (% x): the runner neither failed nor answered", i, in)
		}
		select {
		case <-c.Done():
			if e := c.Err(); e == nil || !strings.Contains(e.Error(), "codemode runner:") {
				t.Errorf("input %d: the runner ended without naming the fault: %v", i, e)
			}
		case <-time.After(200 * time.Millisecond):
			// It answered and still runs: the mutation was a valid message.
		}
		c.Close()
		cancel()
	}
}

func frame(payload []byte) []byte {
	n := len(payload)
	return append([]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}, payload...)
}
