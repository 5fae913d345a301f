package quickjs_test

import (
	"context"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/quickjs"
)

func newClient(t *testing.T, opts quickjs.Options) *client.Client {
	t.Helper()
	return newClientOn(t, newDriver(opts))
}

// newClientOn is a client of an empty contract on a new runtime of d.
func newClientOn(t *testing.T, d *quickjs.Driver) *client.Client {
	t.Helper()
	rt, err := client.NewRuntime(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Close() })
	c, err := contract.New()
	if err != nil {
		t.Fatal(err)
	}
	return client.New(rt, c)
}

func run(t *testing.T, c *client.Client, src string) *client.Outcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := c.Run(ctx, src, client.RunOptions{})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return out
}

// TestLimitsFailOnlyTheirExecution runs programs that hit each limit; each
// fails with an error naming the limit, and the runtime serves the next run.
func TestLimitsFailOnlyTheirExecution(t *testing.T) {
	c := newClient(t, quickjs.Options{Timeout: 300 * time.Millisecond, MemoryLimit: 16 << 20, MaxOutput: 1000, MaxContent: 1000})
	tests := []struct {
		name, src, errName, message string
	}{
		{"deadline stops a busy loop", `export default async function () { while (true) {} }`, "TimeoutError", `deadline of 300ms`},
		{"deadline stops a loop in a promise job", `export default async function () { await null; for (;;) {} }`, "TimeoutError", `deadline`},
		{"deadline while waiting on a timer", `export default async function () { await new Promise(r => setTimeout(r, 5000)); }`, "TimeoutError", `deadline`},
		{"deep recursion", `function f(n) { return n === 0 ? 0 : 1 + f(n - 1); }
export default async function () { f(1e6); }`, "", `(?i)stack|recursion|deadline`},
		{"content limit", `export default async function ({ result }) { result.appendText("y".repeat(2000)); }`, "RangeError", `limit of 1000`},
		{"a promise nothing settles", `export default async function () { await new Promise(() => {}); }`, "Error", `nothing can settle`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := run(t, c, tt.src)
			if out.Kind != client.ProgramFailed {
				t.Fatalf("outcome %s, want program-failed", out.Kind)
			}
			if tt.errName != "" && out.Error.Name != tt.errName {
				t.Errorf("error name %q, want %q (%s)", out.Error.Name, tt.errName, out.Error.Message)
			}
			if !regexp.MustCompile(tt.message).MatchString(out.Error.Message) {
				t.Errorf("message %q does not match %q", out.Error.Message, tt.message)
			}
			after := run(t, c, `export default async function ({ result }) { result.appendText("alive"); }`)
			if after.Kind != client.Success || after.Content[0].Text != "alive" {
				t.Fatalf("the runtime did not carry on: %+v", after)
			}
		})
	}
}

func TestMemoryLimit(t *testing.T) {
	c := newClient(t, quickjs.Options{MemoryLimit: 16 << 20})
	out := run(t, c, `export default async function () { const a = []; for (;;) a.push("x".repeat(1 << 16) + a.length); }`)
	if out.Kind != client.ProgramFailed || !strings.Contains(out.Error.Message, "memory limit of 16 MiB") {
		t.Fatalf("%+v %v", out, out.Error)
	}
	after := run(t, c, `export default async function ({ result }) { result.appendText("x".repeat(1 << 20).length + ""); }`)
	if after.Kind != client.Success || after.Content[0].Text != "1048576" {
		t.Fatalf("after the memory failure: %+v %v", after, after.Error)
	}
}

// TestValueOutgrowingTheMemoryNamesTheLimit: a value that fits in the
// memory limit but whose JSON text does not fails with the RangeError
// that names the memory limit, not as a value that is not JSON.
func TestValueOutgrowingTheMemoryNamesTheLimit(t *testing.T) {
	c := newClient(t, quickjs.Options{MemoryLimit: 16 << 20})
	for _, src := range []string{
		`export default async function () { return "v".repeat(10_000_000); }`,
		`export default async function () { return { list: ["v".repeat(10_000_000)] }; }`,
	} {
		out := run(t, c, src)
		if out.Kind != client.ProgramFailed || out.Error.Name != "RangeError" || out.Error.Message != "out of memory: the program exceeded the memory limit of 16 MiB" {
			t.Errorf("%s: %s %+v", src, out.Kind, out.Error)
		}
	}
}

func TestOutputLimitTruncates(t *testing.T) {
	c := newClient(t, quickjs.Options{MaxOutput: 100})
	var out strings.Builder
	ctx := context.Background()
	res, err := c.Run(ctx, `export default async function ({ console }) { for (let i = 0; i < 100; i++) console.log("line", i); }`,
		client.RunOptions{OnTelemetry: func(e client.Event) {
			if e.Kind == client.EventProgramOutput {
				out.WriteString(e.Text)
			}
		}})
	if err != nil || res.Kind != client.Success {
		t.Fatalf("%+v %v", res, err)
	}
	if !strings.Contains(out.String(), "truncated at the limit of 100") || len(out.String()) > 300 {
		t.Fatalf("output %q", out.String())
	}
}

// TestSandbox checks that programs reach nothing but their tools.
func TestSandbox(t *testing.T) {
	c := newClient(t, quickjs.Options{})
	for _, src := range []string{
		`import * as std from "qjs:std"; export default async function () { std.open("/etc/passwd", "r"); }`,
		`import * as os from "qjs:os"; export default async function () { os.exec(["ls"]); }`,
		`export default async function () { await import("qjs:std"); }`,
		`import x from "./other.js"; export default async function () { return x; }`,
		`export default async function () { std.getenv("HOME"); }`,
		`export default async function () { os.readdir("/"); }`,
		`export default async function () { scriptArgs.length; }`,
		`export default async function () { globalThis.CodeModeRunner.quickjs.drain(); }`,
	} {
		out := run(t, c, src)
		if out.Kind != client.ProgramFailed {
			t.Errorf("%s: outcome %s, want program-failed", src, out.Kind)
		}
	}
	out := run(t, c, `export default async function ({ result }) {
  result.appendText([typeof fetch, typeof require, typeof process, typeof print, typeof Date.now(), typeof Math.random()].join(","));
}`)
	if out.Kind != client.Success || out.Content[0].Text != "function,undefined,undefined,undefined,number,number" {
		t.Fatalf("%+v", out)
	}
}

// TestExecutionsShareNoGlobals: every execution has an engine of its own.
func TestExecutionsShareNoGlobals(t *testing.T) {
	c := newClient(t, quickjs.Options{})
	src := `globalThis.leak = (globalThis.leak ?? 0) + 1; Array.prototype.polluted = true;
export default async function ({ result }) { result.appendText(globalThis.leak + ":" + ([].polluted === true)); }`
	for i := 0; i < 3; i++ {
		out := run(t, c, src)
		if out.Kind != client.Success || out.Content[0].Text != "1:true" {
			t.Fatalf("run %d: %+v %v", i, out, out.Error)
		}
	}
	out := run(t, c, `export default async function ({ result }) { result.appendText(String([].polluted)); }`)
	if out.Kind != client.Success || out.Content[0].Text != "undefined" {
		t.Fatalf("prototype pollution leaked into the next execution: %+v", out)
	}
}

func TestTimersRun(t *testing.T) {
	c := newClient(t, quickjs.Options{})
	out := run(t, c, `export default async function ({ result }) {
  const order = [];
  const cancelled = setTimeout(() => order.push("never"), 5);
  clearTimeout(cancelled);
  await new Promise((resolve) => setTimeout(() => { order.push("b"); resolve(); }, 20));
  setTimeout(() => order.push("c"), 0);
  order.push("a");
  await new Promise((resolve) => setTimeout(resolve, 10));
  result.appendText(order.join(""));
}`)
	if out.Kind != client.Success || out.Content[0].Text != "bac" {
		t.Fatalf("%+v %v", out, out.Error)
	}
}

// TestBusyLoopDoesNotBlockTheGarbageCollector: compiled wasm cannot be
// preempted, so a busy program must still reach Go often (the interrupt
// poll) or a stop-the-world collection would stall the whole process.
func TestBusyLoopDoesNotBlockTheGarbageCollector(t *testing.T) {
	c := newClient(t, quickjs.Options{Timeout: time.Second})
	stop := make(chan struct{})
	gcs := make(chan int, 1)
	go func() {
		n := 0
		for {
			select {
			case <-stop:
				gcs <- n
				return
			case <-time.After(50 * time.Millisecond):
				runtime.GC()
				n++
			}
		}
	}()
	start := time.Now()
	out := run(t, c, `export default async function () { while (true) {} }`)
	close(stop)
	n := <-gcs
	if out.Kind != client.ProgramFailed || out.Error.Name != "TimeoutError" {
		t.Fatalf("%+v %v", out, out.Error)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("the run took %s", d)
	}
	if n < 5 {
		t.Fatalf("only %d collections ran during a one-second busy loop", n)
	}
}

func TestGlobalConsoleWritesProgramOutput(t *testing.T) {
	c := newClient(t, quickjs.Options{})
	var out strings.Builder
	res, err := c.Run(context.Background(), `console.log("at evaluation");
export default async function () { console.error("from the global console", 1); }`,
		client.RunOptions{OnTelemetry: func(e client.Event) {
			if e.Kind == client.EventProgramOutput {
				out.WriteString(e.Stream + ":" + e.Text)
			}
		}})
	if err != nil || res.Kind != client.Success {
		t.Fatalf("%+v %v", res, err)
	}
	if out.String() != "stdout:at evaluation\nstderr:from the global console 1\n" {
		t.Fatalf("output %q", out.String())
	}
}

// TestOutOfMemoryWhileCompilingNamesTheLimit: a valid program too large to
// compile within the memory limit fails with the limit named, not with the
// parser's message for the allocation it could not make ("invalid
// increment/decrement operand" for 800,000 "a++;", second review of
// 2026-12-06).
func TestOutOfMemoryWhileCompilingNamesTheLimit(t *testing.T) {
	c := newClient(t, quickjs.Options{MemoryLimit: 4 << 20})
	out := run(t, c, "let a = 0;\n"+strings.Repeat("a++;", 200_000)+"\nexport default async function () {}")
	if out.Kind != client.ProgramFailed || out.Error.Name != "RangeError" || !strings.Contains(out.Error.Message, "memory limit of 4 MiB") {
		t.Fatalf("%s %+v", out.Kind, out.Error)
	}
}
