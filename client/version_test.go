package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers"
	"github.com/codemode-go/codemode/internal/wire"
)

// readyDriver plays a runner of another protocol version: it sends ready,
// then answers each execute with a success (when its version is one the
// host can speak) and records what it received.
type readyDriver struct {
	ready *wire.Message
	mu    sync.Mutex
	got   []*wire.Message
	wg    sync.WaitGroup
}

func (d *readyDriver) Description() string { return "a runner of another version" }
func (d *readyDriver) TypeDefinitionFiles(context.Context) ([]drivers.TypeDefinitionFile, error) {
	return nil, nil
}

func (d *readyDriver) Connect(ctx context.Context, req drivers.ConnectRequest) (drivers.Connection, error) {
	host, runner := net.Pipe()
	c := &pipeConn{host: host, done: make(chan struct{})}
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		defer close(c.done)
		defer runner.Close()
		w := wire.NewWriter(runner)
		if err := w.Write(d.ready); err != nil {
			return
		}
		r := wire.NewReader(runner)
		for {
			m, err := r.Read()
			if err != nil {
				return
			}
			d.mu.Lock()
			d.got = append(d.got, m)
			d.mu.Unlock()
			if m.Kind == wire.KindExecute {
				_ = w.Write(&wire.Message{Kind: wire.KindResult, Execution: m.Execution, Outcome: wire.OutcomeSuccess})
			}
		}
	}()
	return c, nil
}

func TestVersionNegotiation(t *testing.T) {
	ctx := context.Background()
	t.Run("a new major is refused, naming both ranges", func(t *testing.T) {
		d := &readyDriver{ready: &wire.Message{Kind: wire.KindReady, Version: 2, Runner: "future",
			Versions: &wire.VersionRange{Min: wire.Version{Major: 2}, Max: wire.Version{Major: 2, Minor: 3}}}}
		_, err := client.NewRuntime(ctx, d)
		if !errors.Is(err, wire.ErrVersion) || !strings.Contains(err.Error(), "the runner (future) speaks 2.0-2.3, this client 1.0-1.8") {
			t.Fatalf("got %v", err)
		}
		d.wg.Wait()
	})
	t.Run("a newer minor is served at 1.6", func(t *testing.T) {
		d := &readyDriver{ready: &wire.Message{Kind: wire.KindReady, Version: 1, Runner: "newer",
			Versions: &wire.VersionRange{Min: wire.Version{Major: 1}, Max: wire.Version{Major: 1, Minor: 9}}}}
		rt, err := client.NewRuntime(ctx, d)
		if err != nil {
			t.Fatal(err)
		}
		defer rt.Close()
		out, err := rt.Execute(ctx, client.ExecuteRequest{Source: "export default () => {}", Filename: "a.js",
			Seed: make([]byte, wire.SeedSize), Clock: []float64{1}, Limits: client.Limits{MaxTimers: 3}})
		if err != nil || out.Kind != client.Success {
			t.Fatalf("%+v %v", out, err)
		}
		d.mu.Lock()
		m := d.got[0]
		d.mu.Unlock()
		// The deadline travels whether asked or not: the runner stops the
		// program at the host's deadline, not at a longer one of its own.
		if m.Limits == nil || m.Limits.MaxTimers != 3 || m.Limits.TimeoutMs != uint64(30_000) || len(m.Seed) != wire.SeedSize || len(m.Clock) != 1 {
			t.Fatalf("execute message %+v", m)
		}
	})
	t.Run("a 1.3 runner is sent JavaScript even when its ready says typeScript", func(t *testing.T) {
		d := &readyDriver{ready: &wire.Message{Kind: wire.KindReady, Version: 1, Runner: "1.3", TypeScript: true,
			Versions: &wire.VersionRange{Min: wire.Version{Major: 1}, Max: wire.Version{Major: 1, Minor: 3}}}}
		rt, err := client.NewRuntime(ctx, d)
		if err != nil {
			t.Fatal(err)
		}
		defer rt.Close()
		k, err := contract.New()
		if err != nil {
			t.Fatal(err)
		}
		out, err := client.New(rt, k).Run(ctx, "export default async function (): Promise<void> {}", client.RunOptions{})
		if err != nil || out.Kind != client.Success {
			t.Fatalf("%+v %v", out, err)
		}
		d.mu.Lock()
		m := d.got[0]
		d.mu.Unlock()
		if m.TypeScript || strings.Contains(m.Source, "Promise<void>") {
			t.Fatalf("execute message sent TypeScript to a 1.3 runner: %+v", m)
		}
	})
	t.Run("an old runner gets 1.0 messages or a clear error", func(t *testing.T) {
		d := &readyDriver{ready: &wire.Message{Kind: wire.KindReady, Version: 1, Runner: "old"}}
		rt, err := client.NewRuntime(ctx, d)
		if err != nil {
			t.Fatal(err)
		}
		defer rt.Close()
		out, err := rt.Execute(ctx, client.ExecuteRequest{Source: "export default () => {}", Filename: "a.js"})
		if err != nil || out.Kind != client.Success {
			t.Fatalf("a 1.0 execution: %+v %v", out, err)
		}
		_, err = rt.Execute(ctx, client.ExecuteRequest{Source: "export default () => {}", Filename: "a.js", Seed: make([]byte, wire.SeedSize)})
		if !errors.Is(err, wire.ErrVersion) || !strings.Contains(err.Error(), "seed") || !strings.Contains(err.Error(), "1.0") {
			t.Fatalf("a seed for a 1.0 runner: %v", err)
		}
		d.mu.Lock()
		n := len(d.got)
		d.mu.Unlock()
		if n != 1 {
			t.Fatalf("the runner received %d messages, want the one 1.0 execution", n)
		}
	})
	t.Run("a scope setup travels apart to 1.3 and inside the module before", func(t *testing.T) {
		add, err := contract.NewRawTool("add", "Adds.", json.RawMessage(`{"type":"object","additionalProperties":false}`), json.RawMessage(`{"type":"number"}`),
			func(context.Context, json.RawMessage) (json.RawMessage, error) { return json.RawMessage(`1`), nil })
		if err != nil {
			t.Fatal(err)
		}
		c, err := contract.New(add)
		if err != nil {
			t.Fatal(err)
		}
		const setup = `(s: any): any => ({ ...s, marker: "setupMarker" })`
		for _, minor := range []uint32{2, 3} {
			d := &readyDriver{ready: &wire.Message{Kind: wire.KindReady, Version: 1, Runner: "r",
				Versions: &wire.VersionRange{Min: wire.Version{Major: 1}, Max: wire.Version{Major: 1, Minor: minor}}}}
			rt, err := client.NewRuntime(ctx, d)
			if err != nil {
				t.Fatal(err)
			}
			cl := client.New(rt, c).Extend(client.Extension{Setup: setup})
			for range 2 {
				if out, err := cl.RunCode(ctx, `1`, client.RunOptions{}); err != nil || out.Kind != client.Success {
					t.Fatalf("1.%d: %+v %v", minor, out, err)
				}
			}
			_ = rt.Close()
			d.mu.Lock()
			got := d.got
			d.mu.Unlock()
			var executes []*wire.Message
			for _, m := range got {
				if m.Kind == wire.KindExecute {
					executes = append(executes, m)
				}
			}
			if len(executes) != 2 {
				t.Fatalf("1.%d: the runner received %d executions, want 2", minor, len(executes))
			}
			for i, m := range executes {
				inSource := strings.Contains(m.Source, "setupMarker")
				inSetup := strings.Contains(m.Setup, "setupMarker") && !strings.Contains(m.Setup, ": any")
				if minor < 3 && (!inSource || m.Setup != "") || minor >= 3 && (inSource || !inSetup) {
					t.Fatalf("1.%d, execution %d: setup %q, the setup in the module: %v", minor, i, m.Setup, inSource)
				}
			}
		}
	})
	t.Run("a bad seed is refused before it is sent", func(t *testing.T) {
		d := &readyDriver{ready: &wire.Message{Kind: wire.KindReady, Version: 1, Versions: &wire.Supported}}
		rt, err := client.NewRuntime(ctx, d)
		if err != nil {
			t.Fatal(err)
		}
		defer rt.Close()
		if _, err := rt.Execute(ctx, client.ExecuteRequest{Source: "x", Filename: "a.js", Seed: []byte{1}}); !errors.Is(err, wire.ErrMalformed) || !strings.Contains(err.Error(), "seed") {
			t.Fatalf("got %v", err)
		}
	})
}
