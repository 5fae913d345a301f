package client_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/quickjs"
	"github.com/codemode-go/codemode/internal/wire"
	"github.com/fxamacker/cbor/v2"
)

// TestSlowObserverSlowsOnlyItsOwnRun: a program printing 300 lines to an
// observer that sleeps 10 ms a line takes seconds; an empty program sent to
// the same runtime meanwhile finishes while the slow one is still running.
func TestSlowObserverSlowsOnlyItsOwnRun(t *testing.T) {
	ctx := context.Background()
	d := quickjs.New(quickjs.Options{})
	defer d.Close()
	rt, err := client.NewRuntime(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	c, err := contract.New()
	if err != nil {
		t.Fatal(err)
	}
	cl := client.New(rt, c)
	started := make(chan struct{})
	var slowDone atomic.Bool
	slowErr := make(chan error, 1)
	go func() {
		var once atomic.Bool
		_, err := cl.Run(ctx, `export default async function ({ console }) { for (let i = 0; i < 300; i++) console.log("line", i); }`, client.RunOptions{
			OnTelemetry: func(e client.Event) {
				if e.Kind == client.EventProgramOutput {
					if once.CompareAndSwap(false, true) {
						close(started)
					}
					time.Sleep(10 * time.Millisecond)
				}
			},
		})
		slowDone.Store(true)
		slowErr <- err
	}()
	<-started
	for i := 0; i < 5; i++ {
		out, err := cl.Run(ctx, `export default async function ({ result }) { result.appendText("quick"); }`, client.RunOptions{})
		if err != nil || out.Kind != client.Success {
			t.Fatalf("quick run: %+v %v", out, err)
		}
	}
	if slowDone.Load() {
		t.Fatal("the quick runs finished only after the slow observer's run: the observer stalled the runtime")
	}
	if err := <-slowErr; err != nil {
		t.Fatal(err)
	}
}

// TestRunReturnsWhenThePeerStopsReading: a runner that sends ready and then
// never reads blocks every write; a run with a 200 ms deadline still returns
// with its context's error, and so does a second one.
func TestRunReturnsWhenThePeerStopsReading(t *testing.T) {
	block := make(chan struct{})
	d := &pipeDriver{serve: func(r *wire.Reader, w *wire.Writer, conn net.Conn) { <-block }}
	defer d.wg.Wait()
	rt, err := client.NewRuntime(context.Background(), d)
	if err != nil {
		close(block)
		t.Fatal(err)
	}
	defer rt.Close()
	defer close(block) // first: the runner returns, then the runtime closes
	c, err := contract.New()
	if err != nil {
		t.Fatal(err)
	}
	cl := client.New(rt, c)
	for i := 0; i < 2; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		done := make(chan error, 1)
		go func() {
			_, err := cl.Run(ctx, `export default () => {}`, client.RunOptions{})
			done <- err
		}()
		select {
		case err := <-done:
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("run %d: %v, want the context's deadline", i, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("run %d is still blocked on a peer that stopped reading", i)
		}
		cancel()
	}
}

// echoRunner answers each execute: execution 1 with a message the host
// cannot decode (an unknown key), later ones with a success.
func echoRunner(bad func(id uint64) []byte) func(r *wire.Reader, w *wire.Writer, conn net.Conn) {
	return answerExecutes(func(m *wire.Message, w *wire.Writer, conn net.Conn) error {
		if payload := bad(m.Execution); payload != nil {
			return wire.WriteFrame(conn, payload)
		}
		return w.Write(&wire.Message{Kind: wire.KindResult, Execution: m.Execution, Outcome: wire.OutcomeSuccess})
	})
}

// TestMalformedMessageFailsOnlyItsExecution: a runner message the host
// cannot accept fails the execution it names with an InternalError, and the
// runtime serves the next execution.
func TestMalformedMessageFailsOnlyItsExecution(t *testing.T) {
	unknownKey, err := cbor.Marshal(map[int]any{0: uint64(wire.KindOutput), 1: uint64(1), 15: "stdout", 16: "forged", 30: "x"}) // 30: unknown and below wire.ExtensionKeys
	if err != nil {
		t.Fatal(err)
	}
	badStream, err := cbor.Marshal(map[int]any{0: uint64(wire.KindOutput), 1: uint64(2), 15: "bogus", 16: "x"})
	if err != nil {
		t.Fatal(err)
	}
	runnerSends, err := cbor.Marshal(map[int]any{0: uint64(wire.KindExecute), 1: uint64(3), 5: "x.js"})
	if err != nil {
		t.Fatal(err)
	}
	// A result whose clock holds more values than a message's array may:
	// the decoder refuses it, and it still names its execution (reading
	// the id skips the long array). It was skipped before, and its
	// execution waited for a result until the deadline.
	longClock, err := cbor.Marshal(map[int]any{0: uint64(wire.KindResult), 1: uint64(4), 17: wire.OutcomeSuccess, 22: make([]float64, wire.MaxArrayElements+1)})
	if err != nil {
		t.Fatal(err)
	}
	d := &pipeDriver{serve: echoRunner(func(id uint64) []byte {
		switch id {
		case 1:
			return unknownKey
		case 2:
			return badStream
		case 3:
			return runnerSends
		case 4:
			return longClock
		}
		return nil
	})}
	cl := pipeClient(t, d)
	for i, want := range []string{"malformed", "malformed", "only the host sends", "exceeded max number of elements"} {
		out, err := cl.Run(context.Background(), `export default () => {}`, client.RunOptions{})
		if err != nil {
			t.Fatalf("execution %d: %v", i+1, err)
		}
		if out.Kind != client.ProgramFailed || out.Error.Name != "InternalError" || !strings.Contains(out.Error.Message, want) {
			t.Fatalf("execution %d: %+v %+v", i+1, out, out.Error)
		}
	}
	out, err := cl.Run(context.Background(), `export default () => {}`, client.RunOptions{})
	if err != nil || out.Kind != client.Success {
		t.Fatalf("the runtime no longer serves: %+v %v", out, err)
	}
}

// TestMalformedMessageNamingNoExecutionFailsTheRuntime: a runner message the
// host cannot decode and whose execution id cannot be read ends the
// connection (docs/runner-protocol.md), and the execution waiting on it fails at
// once, rather than at its deadline as when the message was skipped.
func TestMalformedMessageNamingNoExecutionFailsTheRuntime(t *testing.T) {
	noID, err := cbor.Marshal(map[int]any{0: uint64(wire.KindResult), 17: wire.OutcomeSuccess, 30: "x"})
	if err != nil {
		t.Fatal(err)
	}
	d := &pipeDriver{serve: echoRunner(func(uint64) []byte { return noID })}
	cl := pipeClient(t, d)
	start := time.Now()
	out, err := cl.Run(context.Background(), `export default () => {}`, client.RunOptions{Limits: client.Limits{Timeout: time.Minute}})
	if !errors.Is(err, client.ErrRuntimeFailed) || !strings.Contains(err.Error(), "naming no execution") {
		t.Fatalf("Run: %+v %v, want the runtime failed for a message naming no execution", out, err)
	}
	if waited := time.Since(start); waited > 30*time.Second {
		t.Fatalf("the run ended after %s, at its deadline", waited)
	}
}

// TestHostGivesUpAtTheDeadline: a runner that never answers an execution
// gets a TimeoutError outcome 2 s after the run's deadline, naming
// the limit, instead of a run that waits forever.
func TestHostGivesUpAtTheDeadline(t *testing.T) {
	d := &pipeDriver{serve: func(r *wire.Reader, w *wire.Writer, conn net.Conn) {
		for {
			if _, err := r.Read(); err != nil {
				return
			}
		}
	}}
	defer d.wg.Wait()
	rt, err := client.NewRuntime(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	c, err := contract.New()
	if err != nil {
		t.Fatal(err)
	}
	out, err := client.New(rt, c).Run(context.Background(), `export default () => {}`, client.RunOptions{Limits: client.Limits{Timeout: 50 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	if out.Kind != client.ProgramFailed || out.Error.Name != "TimeoutError" || !strings.Contains(out.Error.Message, "Limits.Timeout") {
		t.Fatalf("outcome %+v %+v", out, out.Error)
	}
}

// TestReplayClockTooLongIsRefusedUpFront: a clock to replay longer than a
// message carries is refused before anything is sent, naming it, and the
// runtime serves the next run. It was sent, refused as a frame too large,
// and reported as a failed runtime (an adversarial review).
func TestReplayClockTooLongIsRefusedUpFront(t *testing.T) {
	d := &pipeDriver{serve: echoRunner(func(uint64) []byte { return nil })}
	cl := pipeClient(t, d)
	out, err := cl.Run(context.Background(), `export default () => {}`, client.RunOptions{Clock: make([]float64, wire.MaxArrayElements+1)})
	if err == nil || errors.Is(err, client.ErrRuntimeFailed) || !strings.Contains(err.Error(), "clock values") {
		t.Fatalf("Run: %+v %v, want an error naming the clock, not a failed runtime", out, err)
	}
	if out, err := cl.Run(context.Background(), `export default () => {}`, client.RunOptions{}); err != nil || out.Kind != client.Success {
		t.Fatalf("the next run: %+v %v", out, err)
	}
}

// pipeClient returns a client of an empty contract on a runtime of d, and
// closes the runtime and waits for d's runner when the test ends.
func pipeClient(t *testing.T, d *pipeDriver) *client.Client {
	t.Helper()
	rt, err := client.NewRuntime(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = rt.Close()
		d.wg.Wait()
	})
	c, err := contract.New()
	if err != nil {
		t.Fatal(err)
	}
	return client.New(rt, c)
}
