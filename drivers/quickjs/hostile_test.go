package quickjs_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/quickjs"
)

// Regressions from an adversarial review: each program fails (or succeeds)
// on its own, and the runtime serves the next run.

func echoClient(t *testing.T, opts quickjs.Options, extra ...*contract.Tool) *client.Client {
	t.Helper()
	rt, err := client.NewRuntime(context.Background(), newDriver(opts))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Close() })
	schema := json.RawMessage(`{"type":"object","properties":{"value":{"type":"string"}},"required":["value"],"additionalProperties":false}`)
	echo, err := contract.NewRawTool("echo", "Echo.", schema, schema, func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) { return in, nil })
	if err != nil {
		t.Fatal(err)
	}
	c, err := contract.New(append([]*contract.Tool{echo}, extra...)...)
	if err != nil {
		t.Fatal(err)
	}
	return client.New(rt, c)
}

func mustRun(t *testing.T, c *client.Client, src string) *client.Outcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := c.Run(ctx, src, client.RunOptions{})
	if err != nil {
		t.Fatalf("Run returned a Go error (the runtime failed?): %v", err)
	}
	after, err := c.Run(ctx, `export default async function ({ result }) { result.appendText("ok"); }`, client.RunOptions{})
	if err != nil || after.Kind != client.Success {
		t.Fatalf("the runtime does not serve the next run: %+v %v", after, err)
	}
	return out
}

func TestHostileProgramsFailAlone(t *testing.T) {
	// The busy loop needs a short deadline; the large values need room
	// (the race detector makes them slow).
	short := echoClient(t, quickjs.Options{Timeout: 2 * time.Second})
	roomy := echoClient(t, quickjs.Options{Timeout: 60 * time.Second, MemoryLimit: 256 << 20})
	tests := []struct {
		name, src, errName, message string
	}{
		{"replaced JSON.stringify", `export default async function ({ result }) {
  JSON.stringify = () => '{"outcome":"pwned"}'; Array.prototype.join = () => "d\t{}";
  result.appendText("real");
}`, "", ""},
		{"busy loop after the memory grew", `export default async function () {
  const a = []; for (let i = 0; i < 20000; i++) a.push({ i }); const s = "x".repeat(1e5) + "y";
  for (;;) {}
}`, "TimeoutError", "deadline"},
		{"result over the frame limit", `export default async function ({ result }) { result.appendText("€".repeat(5.7e6)); }`, "RangeError", "16 MiB"},
		{"tool input over the frame limit", `export default async function ({ codemode }) { await codemode.echo({ value: "x".repeat(17e6) }); }`, "RangeError", "at most"},
		// The oversize call ends the execution: caught, it would leave the
		// host a gap in the seqs (and a prefilled answer unchecked).
		{"tool input over the frame limit, caught", `export default async function ({ codemode }) { try { await codemode.echo({ value: "x".repeat(17e6) }); } catch {} return (await codemode.echo({ value: "after" })).value; }`, "RangeError", "at most"},
		// The clock values a program read since its previous call travel
		// with the call (for replay): an input that fits, with them, may
		// not. The call used to be dropped, and the execution ended at its
		// deadline.
		{"tool call over the frame limit with its clock values", `export default async function ({ codemode }) {
  const value = "x".repeat(16 * 1024 * 1024 - 64 * 1024 - 12); for (let i = 0; i < 10000; i++) Date.now();
  await codemode.echo({ value });
}`, "RangeError", "the 10000 clock values"},
		{"result over the frame limit with its clock values", `export default async function ({ result }) {
  result.appendText("€".repeat(5.58e6)); for (let i = 0; i < 10000; i++) performance.now();
}`, "RangeError", "including the 10000 clock values"},
		{"timer delay of 1e300", `export default async function ({ result }) { setTimeout(() => {}, 1e300); result.appendText("armed"); }`, "", ""},
		{"thrown function", `export default async function () { throw function evil() { return "source"; }; }`, "Error", `^a function \(evil\) was thrown$`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := roomy
			if tt.errName == "TimeoutError" {
				c = short
			}
			out := mustRun(t, c, tt.src)
			if tt.errName == "" && tt.message == "" {
				if out.Kind == client.ProgramFailed && strings.Contains(out.Error.Message, "wire") {
					t.Fatalf("%+v", out.Error)
				}
				return
			}
			if out.Kind != client.ProgramFailed {
				t.Fatalf("outcome %s", out.Kind)
			}
			if tt.errName != "" && out.Error.Name != tt.errName {
				t.Errorf("error %s: %s, want name %s", out.Error.Name, out.Error.Message, tt.errName)
			}
			if !strings.Contains(out.Error.Message, strings.Trim(tt.message, "^$")) && !matches(tt.message, out.Error.Message) {
				t.Errorf("message %q, want %q", out.Error.Message, tt.message)
			}
		})
	}
}

func matches(pattern, s string) bool {
	return len(pattern) > 0 && pattern[0] == '^' && strings.HasPrefix(s, "a function")
}

// TestBusyProgramDoesNotDelayOthers: an execution flooding the host with
// tool calls and then spinning must not stall another execution's results.
func TestBusyProgramDoesNotDelayOthers(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"ms":{"type":"integer"}},"required":["ms"],"additionalProperties":false}`)
	slow, err := contract.NewRawTool("slow", "Sleeps.", schema, schema, func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) {
		var v struct{ MS int }
		_ = json.Unmarshal(in, &v)
		select {
		case <-time.After(time.Duration(v.MS) * time.Millisecond):
		case <-ctx.Done():
		}
		return in, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	c := echoClient(t, quickjs.Options{Timeout: 3 * time.Second}, slow)
	ctx := context.Background()
	attacker := make(chan struct{})
	go func() {
		defer close(attacker)
		_, _ = c.Run(ctx, `export default async function ({ codemode }) {
  for (let i = 0; i < 100; i++) codemode.slow({ ms: 50 });
  await codemode.slow({ ms: 10 });
  for (;;) {}
}`, client.RunOptions{})
	}()
	time.Sleep(100 * time.Millisecond)
	start := time.Now()
	out, err := c.Run(ctx, `export default async function ({ codemode, result }) {
  await codemode.slow({ ms: 200 }); result.appendText("victim done");
}`, client.RunOptions{})
	if err != nil || out.Kind != client.Success {
		t.Fatalf("%+v %v", out, err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("the victim took %s behind a busy program", d)
	}
	<-attacker
}

// TestTimerLoopDoesNotStarveOthers: a program that waits on its own
// timers without end (a setTimeout(0) loop) is stopped at its deadline, not
// killed with its process, and a program beside it runs. On a sandbox
// process at one processor, after an idle pause that put the runtime's
// monitor thread to sleep, the loop kept the deadline's watch and the
// reader from running until the process was killed (procs.busy). Rounds
// repeat it on a warm process, as the first executions on a new one raise
// the processors for their own reasons.
func TestTimerLoopDoesNotStarveOthers(t *testing.T) {
	c := echoClient(t, quickjs.Options{Timeout: time.Second})
	ctx := context.Background()
	benign := `export default async function ({ result }) { result.appendText("ok"); }`
	for round := 0; round < 4; round++ {
		for i := 0; i < 3; i++ {
			if out, err := c.Run(ctx, benign, client.RunOptions{}); err != nil || out.Kind != client.Success {
				t.Fatalf("round %d: a warm-up run: %+v %v", round, out, err)
			}
		}
		time.Sleep(300 * time.Millisecond)
		type res struct {
			out *client.Outcome
			err error
		}
		loop := make(chan res, 1)
		go func() {
			out, err := c.Run(ctx, `export default async function () { for (;;) await new Promise(r => setTimeout(r, 0)); }`, client.RunOptions{})
			loop <- res{out, err}
		}()
		time.Sleep(700 * time.Millisecond)
		out, err := c.Run(ctx, benign, client.RunOptions{})
		if err != nil || out.Kind != client.Success {
			t.Fatalf("round %d: the program beside the timer loop: %+v %+v %v", round, out, out.Error, err)
		}
		r := <-loop
		if r.err != nil || r.out.Kind != client.ProgramFailed || r.out.Error.Name != "TimeoutError" || strings.Contains(r.out.Error.Message, "killed") {
			t.Fatalf("round %d: the timer loop: %+v %+v %v", round, r.out, r.out.Error, r.err)
		}
	}
}

// TestStoppedWithCallsInFlight: an execution stopped while many of its tool
// calls are in flight, by a middleware's halt or by the caller's cancel,
// fails alone and leaves the runtime serving. The engine is stopped from
// inside a call into it (the interrupt handler closes its module); its
// memory used to be unmapped there, and the engine's goroutine then touched
// it: in process that was a SIGSEGV that killed the host, in the sandbox a
// dead process (an adversarial review).
func TestStoppedWithCallsInFlight(t *testing.T) {
	for _, mode := range []struct {
		name string
		opts quickjs.Options
	}{
		{"in-process", quickjs.Options{InProcess: true}},
		{"sandbox", quickjs.Options{}},
	} {
		t.Run(mode.name, func(t *testing.T) {
			if !mode.opts.InProcess {
				needSandbox(t)
			}
			c := echoClient(t, mode.opts)
			halt := func(next client.ToolCaller) client.ToolCaller {
				return func(ctx context.Context, call client.ToolCall) (json.RawMessage, error) {
					if call.Seq == 50 {
						return nil, client.Halt(errors.New("stop"))
					}
					return next(ctx, call)
				}
			}
			fanOut := `export default async function ({ codemode }) {
  const ps = [];
  for (let i = 0; i < 100; i++) ps.push(codemode.echo({ value: "v" + i }).catch(() => 0));
  await Promise.all(ps);
}`
			forever := `export default async function ({ codemode }) {
  for (;;) {
    const ps = [];
    for (let i = 0; i < 20; i++) ps.push(codemode.echo({ value: "v" + i }));
    await Promise.all(ps);
  }
}`
			for i := range 30 {
				out, err := c.Run(context.Background(), fanOut, client.RunOptions{Middleware: halt})
				if err != nil || out.Kind != client.ProgramFailed || out.Halt == nil {
					t.Fatalf("run %d with a halt: %+v %v", i, out, err)
				}
				ctx, cancel := context.WithTimeout(context.Background(), time.Duration(5+i%10)*time.Millisecond)
				_, err = c.Run(ctx, forever, client.RunOptions{})
				cancel()
				if !errors.Is(err, context.DeadlineExceeded) {
					t.Fatalf("run %d cancelled: %v, want the context's error", i, err)
				}
			}
			mustRun(t, c, `export default async function ({ codemode, result }) { result.appendText((await codemode.echo({ value: "after" })).value); }`)
		})
	}
}

// TestRunawayRecursionThatCallsTools: a recursion that calls a tool at every
// level runs out of stack inside the runner's own code, where the failed
// call ends the execution and no further call fits to hand the outcome
// over. The outcome goes out from the bottom of the stack, after the turn:
// a RangeError, not "awaits a promise that nothing can settle" (what the
// execution ended as before, in both modes).
func TestRunawayRecursionThatCallsTools(t *testing.T) {
	for _, mode := range []struct {
		name      string
		inProcess bool
	}{{"sandbox", false}, {"in-process", true}} {
		t.Run(mode.name, func(t *testing.T) {
			c := echoClient(t, quickjs.Options{InProcess: mode.inProcess, Timeout: 30 * time.Second})
			for i := range 3 {
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				out, err := c.Run(ctx, `export default async function ({ codemode }) {
  function f(n) { codemode.echo({ value: "q" }); return f(n + 1); }
  return f(0);
}`, client.RunOptions{Limits: client.Limits{MaxInFlightCalls: 1 << 20}})
				cancel()
				if err != nil {
					t.Fatalf("run %d: %v", i, err)
				}
				if out.Kind != client.ProgramFailed || out.Error.Name != "RangeError" || !strings.Contains(out.Error.Message, "stack") {
					t.Fatalf("run %d: %s %+v, want a RangeError for the stack", i, out.Kind, out.Error)
				}
			}
			mustRun(t, c, `export default async function () {}`)
		})
	}
}

// TestClockReadsPastTheArrayLimitFailAlone: in the sandbox, with room for
// more than 2^20 clock values in the heap, a program that reads the clock
// past wire.MaxArrayElements times between tool calls gets a RangeError,
// and an execution beside it on the same process succeeds. The result
// carried every value before, the host's decoder refused it as a broken
// protocol, and the process was killed with every execution on it.
func TestClockReadsPastTheArrayLimitFailAlone(t *testing.T) {
	if testing.Short() {
		t.Skip("a long sweep; go test without -short runs it")
	}
	c := echoClient(t, quickjs.Options{Timeout: 2 * time.Minute, MemoryLimit: 96 << 20})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// The benign execution waits on a timer while the other reads the
	// clock (about 5 µs a read here), then calls a tool.
	benign := make(chan error, 1)
	go func() {
		out, err := c.Run(ctx, `export default async function ({ codemode }) {
  await new Promise((resolve) => setTimeout(resolve, 2000));
  return (await codemode.echo({ value: "beside" })).value;
}`, client.RunOptions{})
		if err == nil && (out.Kind != client.Success || string(out.Value) != `"beside"`) {
			err = fmt.Errorf("%s %+v %s", out.Kind, out.Error, out.Value)
		}
		benign <- err
	}()
	out, err := c.Run(ctx, `export default async function () { for (let i = 0; i <= 1048576; i++) Date.now(); }`, client.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if out.Kind != client.ProgramFailed || out.Error.Name != "RangeError" || !strings.Contains(out.Error.Message, "1048576 times, the most an execution may") {
		t.Fatalf("%s %+v, want a RangeError for the clock reads", out.Kind, out.Error)
	}
	if err := <-benign; err != nil {
		t.Fatalf("the execution beside it: %v", err)
	}
}

// TestRejectionsFailAlone: a program that keeps rejecting promises with no
// handler, where the engine calls its rejection tracker (rejection.go), in
// a busy loop past its deadline or at every level of a runaway recursion,
// fails alone with the limit it reached, and one that catches the
// recursion ends with its warnings; the runtime serves the next run, in
// both modes.
func TestRejectionsFailAlone(t *testing.T) {
	tests := []struct {
		name, src, errName, message string
	}{
		{"until the deadline", `export default async function () { for (let i = 0; ; i++) Promise.reject(new Error(String(i))); }`, "TimeoutError", "deadline"},
		{"at every level of a runaway recursion", `export default async function () {
  function f(n) { Promise.reject(new Error(String(n))); return f(n + 1) + 1; }
  return f(0);
}`, "RangeError", "stack"},
		{"at every level of a caught runaway recursion", `export default async function () {
  function f(n) { Promise.reject(new Error(String(n))); return f(n + 1) + 1; }
  try { f(0); } catch {}
  return "caught";
}`, "", ""},
	}
	for _, mode := range []struct {
		name      string
		inProcess bool
	}{{"sandbox", false}, {"in-process", true}} {
		t.Run(mode.name, func(t *testing.T) {
			c := echoClient(t, quickjs.Options{InProcess: mode.inProcess, Timeout: 2 * time.Second})
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					out := mustRun(t, c, tt.src)
					if tt.errName == "" {
						if out.Kind != client.Success {
							t.Fatalf("%s %+v", out.Kind, out.Error)
						}
						return
					}
					if out.Kind != client.ProgramFailed || out.Error.Name != tt.errName || !strings.Contains(out.Error.Message, tt.message) {
						t.Fatalf("%s %+v, want a %s naming the %s", out.Kind, out.Error, tt.errName, tt.message)
					}
				})
			}
		})
	}
}
