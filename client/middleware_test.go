package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/quickjs"
)

type valueIO struct {
	Value string `json:"value"`
}

// pauseError is what the journal-like middleware halts with.
type pauseError struct{ seq uint64 }

func (p *pauseError) Error() string     { return fmt.Sprintf("paused at call %d", p.seq) }
func (p *pauseError) ErrorName() string { return "PauseError" }

// journal records every call the middleware sees and how it ended.
type journal struct {
	mu      sync.Mutex
	entries map[uint64]string // seq -> "namespace.tool(value): state"
	ids     map[string]bool
	ended   chan uint64 // seqs whose context ended before they finished
}

func (j *journal) set(seq uint64, s string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.entries[seq] = s
}

// middleware halts at the "write" tool (a pause for approval), records the
// rest, and reports calls that were still in flight when the run ended.
func (j *journal) middleware(next client.ToolCaller) client.ToolCaller {
	return func(ctx context.Context, call client.ToolCall) (json.RawMessage, error) {
		fromCtx, ok := client.CallFromContext(ctx)
		if !ok || fromCtx.Seq != call.Seq || fromCtx.ExecutionID != call.ExecutionID {
			return nil, fmt.Errorf("CallFromContext = %+v, %v; want %+v", fromCtx, ok, call)
		}
		j.mu.Lock()
		j.ids[call.ExecutionID] = true
		j.mu.Unlock()
		var in valueIO
		_ = json.Unmarshal(call.Input, &in)
		label := fmt.Sprintf("%s.%s(%s)", call.Namespace, call.Tool, in.Value)
		if call.Tool == "write" {
			j.set(call.Seq, label+": pending")
			return nil, client.Halt(&pauseError{seq: call.Seq})
		}
		j.set(call.Seq, label+": executing")
		out, err := next(ctx, call)
		if ctx.Err() != nil {
			j.set(call.Seq, label+": ended")
			j.ended <- call.Seq
			return nil, ctx.Err()
		}
		if err != nil {
			j.set(call.Seq, label+": error")
			return nil, err
		}
		j.set(call.Seq, label+": applied")
		return out, nil
	}
}

// TestMiddlewareSeesSeqHaltsAndReportsInFlightCalls is a journal-like
// middleware: calls issued together (Promise.all) are numbered in issuance
// order, a halt at a write ends the execution although the program catches
// errors around it, the outcome carries the halting error, and a call still
// in flight when the run ends sees its context end.
func TestMiddlewareSeesSeqHaltsAndReportsInFlightCalls(t *testing.T) {
	ctx := context.Background()
	d := quickjs.New(quickjs.Options{})
	defer d.Close()
	rt, err := client.NewRuntime(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	release := make(chan struct{})
	read, _ := contract.NewTool("read", "Reads.", func(ctx context.Context, in valueIO) (valueIO, error) { return in, nil })
	slow, _ := contract.NewTool("slow", "Waits until released or the run ends.", func(ctx context.Context, in valueIO) (valueIO, error) {
		select {
		case <-release:
		case <-ctx.Done():
		}
		return in, nil
	})
	write, _ := contract.NewTool("write", "Writes; needs approval.", func(ctx context.Context, in valueIO) (valueIO, error) {
		return valueIO{}, errors.New("the write must never run: the middleware pauses it")
	})
	c, err := contract.New(read, slow, write)
	if err != nil {
		t.Fatal(err)
	}
	j := &journal{entries: map[uint64]string{}, ids: map[string]bool{}, ended: make(chan uint64, 4)}
	out, err := client.New(rt, c).Run(ctx, `export default async function ({ codemode, result }) {
  const [a, b] = await Promise.all([codemode.read({ value: "a" }), codemode.read({ value: "b" })]);
  codemode.slow({ value: "left in flight" }).catch(() => {});
  try {
    await codemode.write({ value: a.value + b.value });
  } catch (e) {
    result.appendText("caught " + e.name);
    await codemode.read({ value: "after the halt" });
  }
  result.appendText("went on");
}`, client.RunOptions{ExecutionID: "exec_test_1", Middleware: j.middleware})
	if err != nil {
		t.Fatal(err)
	}
	var pause *pauseError
	if out.Kind != client.ProgramFailed || !errors.As(out.Halt, &pause) || pause.seq != 4 {
		t.Fatalf("outcome %+v halt %v, want a halt at seq 4", out, out.Halt)
	}
	if out.Error.Name != "PauseError" || len(out.Content) != 0 {
		t.Fatalf("error %+v content %v", out.Error, out.Content)
	}
	if seq := <-j.ended; seq != 3 {
		t.Fatalf("call %d reported ended, want 3 (the slow call in flight)", seq)
	}
	close(release)
	j.mu.Lock()
	defer j.mu.Unlock()
	want := map[uint64]string{1: "codemode.read(a): applied", 2: "codemode.read(b): applied", 3: "codemode.slow(left in flight): ended", 4: "codemode.write(ab): pending"}
	for seq, w := range want {
		if j.entries[seq] != w {
			t.Errorf("seq %d: %q, want %q", seq, j.entries[seq], w)
		}
	}
	if len(j.entries) != len(want) {
		t.Errorf("journal %v: a call after the halt reached the middleware", j.entries)
	}
	if len(j.ids) != 1 || !j.ids["exec_test_1"] {
		t.Errorf("execution ids seen: %v", j.ids)
	}
}

// TestMiddlewareOutputIsValidated: what a middleware returns instead of
// calling the handler is still checked against the tool's output schema.
func TestMiddlewareOutputIsValidated(t *testing.T) {
	ctx := context.Background()
	d := quickjs.New(quickjs.Options{})
	defer d.Close()
	rt, err := client.NewRuntime(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	read, _ := contract.NewTool("read", "Reads.", func(ctx context.Context, in valueIO) (valueIO, error) { return in, nil })
	c, _ := contract.New(read)
	forge := func(client.ToolCaller) client.ToolCaller {
		return func(context.Context, client.ToolCall) (json.RawMessage, error) {
			return json.RawMessage(`{"value": 42}`), nil
		}
	}
	out, err := client.New(rt, c).Run(ctx, `export default async function ({ codemode }) { await codemode.read({ value: "x" }); }`, client.RunOptions{Middleware: forge})
	if err != nil {
		t.Fatal(err)
	}
	if out.Kind != client.ProgramFailed || out.Error.Name != "ToolValidationError" || !strings.Contains(out.Error.Message, "output") {
		t.Fatalf("outcome %+v %+v", out, out.Error)
	}
}

// TestMiddlewareSeesAHandlerPanic: a handler's panic reaches the
// middleware as the call's error, naming the tool, as any failure does;
// a middleware's own panic fails the call the same way.
func TestMiddlewareSeesAHandlerPanic(t *testing.T) {
	rt := quickjsRuntime(t, quickjs.Options{})
	read, _ := contract.NewTool("read", "Reads.", func(ctx context.Context, in valueIO) (valueIO, error) {
		if in.Value == "boom" {
			panic("handler bug")
		}
		return in, nil
	})
	c, _ := contract.New(read)
	var seen []string
	record := func(next client.ToolCaller) client.ToolCaller {
		return func(ctx context.Context, call client.ToolCall) (json.RawMessage, error) {
			if strings.Contains(string(call.Input), "middleware") {
				panic("middleware bug")
			}
			out, err := next(ctx, call)
			seen = append(seen, fmt.Sprint(err))
			return out, err
		}
	}
	code := `const m = []; for (const value of ["boom", "middleware"]) { try { await codemode.read({ value }); } catch (e) { m.push(e.message); } } m`
	out, err := client.New(rt, c).RunCode(context.Background(), code, client.RunOptions{Middleware: record})
	if err != nil {
		t.Fatal(err)
	}
	if want := `["tool codemode.read panicked: handler bug","tool codemode.read panicked: middleware bug"]`; string(out.Value) != want {
		t.Errorf("the program read %s (%+v), want %s", out.Value, out.Error, want)
	}
	if want := []string{"tool codemode.read panicked: handler bug"}; !slices.Equal(seen, want) {
		t.Errorf("the middleware saw %q, want %q", seen, want)
	}
}

// TestToolCallLimits: the host ends an execution that makes more calls, or
// holds more in flight, than its limits allow, naming the limit.
func TestToolCallLimits(t *testing.T) {
	ctx := context.Background()
	d := quickjs.New(quickjs.Options{})
	defer d.Close()
	rt, err := client.NewRuntime(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	read, _ := contract.NewTool("read", "Reads.", func(ctx context.Context, in valueIO) (valueIO, error) { return in, nil })
	hold, _ := contract.NewTool("hold", "Waits for the run to end.", func(ctx context.Context, in valueIO) (valueIO, error) {
		<-ctx.Done()
		return in, nil
	})
	c, _ := contract.New(read, hold)
	cl := client.New(rt, c)
	cases := []struct {
		name, src string
		limits    client.Limits
		want      string
	}{
		{"total", `export default async function ({ codemode }) { for (let i = 0; i < 20; i++) await codemode.read({ value: "x" }); }`,
			client.Limits{MaxToolCalls: 10}, "Limits.MaxToolCalls"},
		{"in flight", `export default async function ({ codemode }) { await Promise.all(Array.from({ length: 50 }, () => codemode.hold({ value: "x" }))); }`,
			client.Limits{MaxInFlightCalls: 8}, "Limits.MaxInFlightCalls"},
		{"bytes", `export default async function ({ codemode }) { const big = "x".repeat(1 << 20); await Promise.all(Array.from({ length: 10 }, () => codemode.hold({ value: big }))); }`,
			client.Limits{MaxInFlightBytes: 4 << 20}, "Limits.MaxInFlightBytes"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, err := cl.Run(ctx, tc.src, client.RunOptions{Limits: tc.limits})
			if err != nil {
				t.Fatal(err)
			}
			if out.Kind != client.ProgramFailed || out.Error.Name != "RangeError" || !strings.Contains(out.Error.Message, tc.want) {
				t.Fatalf("outcome %+v %+v", out, out.Error)
			}
		})
	}
	out, err := cl.Run(ctx, `export default async function ({ codemode, result }) { result.appendText((await codemode.read({ value: "fine" })).value); }`, client.RunOptions{})
	if err != nil || out.Kind != client.Success {
		t.Fatalf("after the limits: %+v %v", out, err)
	}
}

// explodeHandler panics, so that its name is in the panic's stack.
func explodeHandler(ctx context.Context, in valueIO) (valueIO, error) {
	if in.Value == "boom" {
		panic("handler bug")
	}
	return in, nil
}

// explodeMiddleware panics on an input holding "middleware".
func explodeMiddleware(next client.ToolCaller) client.ToolCaller {
	return func(ctx context.Context, call client.ToolCall) (json.RawMessage, error) {
		if strings.Contains(string(call.Input), "middleware") {
			panic(fmt.Errorf("middleware bug"))
		}
		return next(ctx, call)
	}
}

// TestToolPanicKeepsItsStackForTheEmbedder: a handler's or middleware's
// panic fails its call with a *client.PanicError whose Stack is the
// panicking goroutine's, naming the function that panicked, for the
// embedder's telemetry (the tool-call-failed event's Err); the program
// reads only "tool X panicked: <value>", never the stack.
func TestToolPanicKeepsItsStackForTheEmbedder(t *testing.T) {
	rt := quickjsRuntime(t, quickjs.Options{})
	read, _ := contract.NewTool("read", "Reads.", explodeHandler)
	c, _ := contract.New(read)
	for _, tc := range []struct {
		value, message, panicked string
		want                     any // the panic's value
	}{
		{"boom", "tool codemode.read panicked: handler bug", "client_test.explodeHandler", "handler bug"},
		{"middleware", "tool codemode.read panicked: middleware bug", "client_test.explodeMiddleware", "middleware bug"},
	} {
		t.Run(tc.value, func(t *testing.T) {
			var mu sync.Mutex
			var failed []error
			code := `let r = "no error"; try { await codemode.read({ value: "` + tc.value + `" }); } catch (e) { r = [e.name, e.message, String(e.stack).includes("goroutine")]; } r`
			out, err := client.New(rt, c).RunCode(context.Background(), code, client.RunOptions{Middleware: explodeMiddleware,
				OnTelemetry: func(e client.Event) {
					if e.Kind == client.EventToolCallFailed {
						mu.Lock()
						failed = append(failed, e.Err)
						mu.Unlock()
					}
				}})
			if err != nil {
				t.Fatal(err)
			}
			if want, _ := json.Marshal([]any{"Error", tc.message, false}); string(out.Value) != string(want) {
				t.Errorf("the program read %s (%+v), want %s", out.Value, out.Error, want)
			}
			mu.Lock()
			defer mu.Unlock()
			var pe *client.PanicError
			if len(failed) != 1 || !errors.As(failed[0], &pe) {
				t.Fatalf("telemetry got %v, want one *client.PanicError", failed)
			}
			if pe.Error() != tc.message || pe.Namespace != "codemode" || pe.Tool != "read" || fmt.Sprint(pe.Value) != tc.want {
				t.Errorf("PanicError %q {%s %s %v}, want %q, the tool and the value %q", pe, pe.Namespace, pe.Tool, pe.Value, tc.message, tc.want)
			}
			if stack := string(pe.Stack); !strings.Contains(stack, tc.panicked) || !strings.HasPrefix(stack, "goroutine ") {
				t.Errorf("Stack does not name %s:\n%s", tc.panicked, stack)
			}
		})
	}
}
