package quickjs

import (
	"bytes"
	"context"
	"testing"
	"time"

	quickjswasi "github.com/aperturerobotics/go-quickjs-wasi-reactor"
	"github.com/codemode-go/codemode/runner"
	"github.com/tetratelabs/wazero"
)

func TestInstrumentKeepsAValidModule(t *testing.T) {
	out, err := instrument(quickjswasi.QuickJSWASM)
	if err != nil {
		t.Fatal(err)
	}
	rt := wazero.NewRuntime(context.Background())
	defer rt.Close(context.Background())
	if _, err := rt.CompileModule(context.Background(), out); err != nil {
		t.Fatalf("the instrumented module does not compile: %v", err)
	}
	// Every `global.set 0` of the original is followed by the check: the
	// sequence appears as often as the original sets the stack pointer,
	// counted by wazero-independent means (the bytes 0x24 0x00 followed by
	// the check cannot occur by chance that often).
	checks := bytes.Count(out, append([]byte{0x24, 0x00}, stackCheck...))
	if checks < 500 {
		t.Fatalf("%d stack checks inserted; the module sets __stack_pointer about a thousand times", checks)
	}
	off, err := stackLimitOffset(quickjswasi.QuickJSWASM)
	if err != nil || off == 0 {
		t.Fatalf("stack_limit offset %d: %v", off, err)
	}
	for _, bad := range [][]byte{nil, []byte("not wasm"), quickjswasi.QuickJSWASM[:4000]} {
		if _, err := instrument(bad); err == nil {
			t.Errorf("instrument accepted %d bytes of garbage", len(bad))
		}
		if _, err := stackLimitOffset(bad); err == nil {
			t.Errorf("stackLimitOffset accepted %d bytes of garbage", len(bad))
		}
	}
}

func FuzzInstrument(f *testing.F) {
	f.Add(quickjswasi.QuickJSWASM[:300])
	f.Add([]byte("\x00asm\x01\x00\x00\x00"))
	// A tiny module: one global, one export, one function with a loop and
	// a global.set 0.
	f.Add([]byte("\x00asm\x01\x00\x00\x00\x01\x04\x01\x60\x00\x00\x03\x02\x01\x00\x06\x06\x01\x7f\x01\x41\x10\x0b" +
		"\x07\x05\x01\x01f\x00\x00\x0a\x0c\x01\x0a\x00\x03\x40\x41\x00\x24\x00\x0b\x0b"))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = instrument(b)
		_, _ = stackLimitOffset(b)
		_, _, _ = guardBody(nil, b, setOutOfMemory, loopPoll(1))
	})
}

func testTemplate(t testing.TB) *machine {
	t.Helper()
	ctx := context.Background()
	tpl, err := newTemplate(ctx, nil, Options{}.withDefaults(), runner.Source)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tpl.close() })
	return &machine{template: tpl, poolSize: 1}
}

// TestStackGuardTrapsBeforeWritingBelowTheFloor raises an engine's floor
// far above QuickJS's own limit, so that JavaScript recursion reaches the
// guard, and checks that the engine traps with the stack pointer below the
// floor and that not one byte below the floor changed.
func TestStackGuardTrapsBeforeWritingBelowTheFloor(t *testing.T) {
	m := testTemplate(t)
	ctx := context.Background()
	in, err := m.get(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer m.discard(in)
	floor := in.l.stackTop - 64<<10
	in.floor.Set(uint64(floor))
	below, ok := in.mem.Read(in.l.stackFloor-stackRedZone, floor-(in.l.stackFloor-stackRedZone))
	if !ok {
		t.Fatal("reading the stack region")
	}
	before := append([]byte(nil), below...)
	_, err = in.evalText(ctx, `function f(n) { return n === 0 ? 0 : 1 + f(n - 1); } f(100000)`, "t.js", evalTypeGlobal)
	if err == nil || !isTrap(err) {
		t.Fatalf("deep recursion past the floor did not trap: %v", err)
	}
	if !in.belowStackFloor() {
		t.Fatalf("the trap (%v) was not the stack guard's: stack pointer %#x, floor %#x", err, in.sp.Get(), floor)
	}
	after, _ := in.mem.Read(in.l.stackFloor-stackRedZone, uint32(len(before)))
	if !bytes.Equal(before, after) {
		t.Fatal("the engine wrote below the stack guard's floor")
	}
}

// TestQuickJSStackLimitIsOn checks that JS_SetMaxStackSize's limit, which
// this build leaves at 0, is the one the driver wrote, and that QuickJS
// throws its own RangeError at it, leaving the engine usable.
func TestQuickJSStackLimitIsOn(t *testing.T) {
	m := testTemplate(t)
	ctx := context.Background()
	in, err := m.get(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer m.discard(in)
	off, err := stackLimitOffset(quickjswasi.QuickJSWASM)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := in.mem.ReadUint32Le(in.l.rt + off); got != in.l.stackFloor+stackMargin {
		t.Fatalf("rt->stack_limit is %#x, want %#x", got, in.l.stackFloor+stackMargin)
	}
	v, err := in.evalText(ctx, `function f(n) { return n === 0 ? 0 : 1 + f(n - 1); }
let r; try { f(1e6); } catch (e) { r = e instanceof RangeError ? "caught: " + e.message : "other: " + e; }
r + " / " + f(1000)`, "t.js", evalTypeGlobal)
	if err != nil {
		t.Fatal(err)
	}
	text, err := in.goString(ctx, v)
	if err != nil {
		t.Fatal(err)
	}
	if want := "caught: Maximum call stack size exceeded / 1000"; text != want {
		t.Fatalf("got %q, want %q", text, want)
	}
	if sp := uint32(in.sp.Get()); sp != in.l.stackTop {
		t.Fatalf("the stack pointer is %#x after the call, want the top %#x", sp, in.l.stackTop)
	}
}

// BenchmarkInstrumentation compares QuickJS's speed on a mixed workload
// (calls, a loop, JSON, a sort, a regular expression) in the module as
// shipped and in the instrumented one (stack guard, out-of-memory flag,
// loop polls). The two run alternately in each iteration, so that the load
// of a shared machine falls on both alike; it reports each one's ns per
// workload and their ratio (instrumented/shipped).
func BenchmarkInstrumentation(b *testing.B) {
	const work = `(() => {
  function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
  let s = 0; for (let i = 0; i < 20000; i++) s += i % 7;
  const o = JSON.parse(JSON.stringify({ a: Array.from({ length: 200 }, (_, i) => ({ i, s: "x" + i })) }));
  const a = o.a.map(x => x.i * 7919 % 1000).sort((x, y) => x - y);
  return (fib(16) + s + a[10] + "abcabc".repeat(200).replace(/b(c)/g, "$1").length) | 0;
})()`
	ctx := context.Background()
	shipped := benchEngine(b, quickjswasi.QuickJSWASM)
	patched, err := instrument(quickjswasi.QuickJSWASM)
	if err != nil {
		b.Fatal(err)
	}
	instrumented := benchEngine(b, patched)
	run := func(in *instance) time.Duration {
		start := time.Now()
		v, err := in.evalText(ctx, work, "w.js", evalTypeGlobal)
		if err != nil {
			b.Fatal(err)
		}
		if v.tag() != tagInt {
			b.Fatalf("the workload returned tag %d", v.tag())
		}
		return time.Since(start)
	}
	run(shipped)
	run(instrumented)
	var ts, ti time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ts += run(shipped)
		ti += run(instrumented)
	}
	b.ReportMetric(float64(ts.Nanoseconds())/float64(b.N), "shipped-ns/op")
	b.ReportMetric(float64(ti.Nanoseconds())/float64(b.N), "instrumented-ns/op")
	b.ReportMetric(float64(ti)/float64(ts), "ratio")
}

// benchEngine instantiates a module in a runtime of its own and creates a
// QuickJS runtime and context in it.
func benchEngine(b *testing.B, wasm []byte) *instance {
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	b.Cleanup(func() { _ = rt.Close(ctx) })
	if err := instantiateHostWASI(ctx, rt); err != nil {
		b.Fatal(err)
	}
	mod, err := rt.InstantiateWithConfig(ctx, wasm, wazero.NewModuleConfig().WithName("").WithStartFunctions())
	if err != nil {
		b.Fatal(err)
	}
	x, err := lookupExports(mod)
	if err != nil {
		b.Fatal(err)
	}
	in := &instance{mod: mod, mem: mod.Memory(), x: x}
	if _, err := in.invoke(ctx, x.initialize); err != nil {
		b.Fatal(err)
	}
	r, err := in.invoke(ctx, x.newRuntime)
	if err != nil {
		b.Fatal(err)
	}
	in.l.rt = uint32(r)
	c, err := in.invoke(ctx, x.newContext, r)
	if err != nil {
		b.Fatal(err)
	}
	in.l.ctx = uint32(c)
	s, err := in.invoke(ctx, x.malloc, 64)
	if err != nil {
		b.Fatal(err)
	}
	in.l.scratch = uint32(s)
	return in
}
