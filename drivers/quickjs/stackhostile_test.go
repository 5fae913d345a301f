package quickjs_test

import (
	"strings"
	"testing"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/drivers/quickjs"
)

// TestHostileStacks: programs that turn the runner's stack writing
// (runner/src/stack.ts: the hook QuickJS calls for every Error and every
// value thrown after a catch, the stack accessor each Error gets, the
// wrapped Error.captureStackTrace) against it each end as they would on
// their own, with the value they return, and the runtime serves the next
// run. A stack a program reads names no runner frame, and the report of a
// failure whose stack the program read is placed as before.
func TestHostileStacks(t *testing.T) {
	c := echoClient(t, quickjs.Options{Timeout: 10 * time.Second})
	for _, tc := range []struct{ name, src, value string }{
		{"the stack accessor on other values", `export default async function () {
  const d = Object.getOwnPropertyDescriptor(new Error("x"), "stack");
  const got = [d.get.call(null), d.get.call(1), d.get.call({}), typeof d.get.call(new Error("y"))];
  d.set.call(null, 1); d.set.call(Object.freeze({}), 1); d.set.call(undefined, 2);
  return got.map(String).join(",");
}`, `"undefined,undefined,undefined,string"`},
		{"a frozen Error's stack set", `export default async function () {
  const e = Object.freeze(new Error("x"));
  const before = e.stack; e.stack = "mine";
  return e.stack === before && before.includes("agent.ts");
}`, `true`},
		{"a stack set, then read", `export default async function () {
  const e = new Error("x"); e.stack = { toString() { throw new Error("no"); } };
  return typeof e.stack;
}`, `"object"`},
		{"captureStackTrace on odd targets", `export default async function () {
  const out = [];
  for (const target of [1, null, Object.freeze({}), new Proxy({}, { defineProperty() { throw new Error("trap"); } }), function f() {}]) {
    try { Error.captureStackTrace(target); out.push(typeof target === "object" && target !== null ? typeof target.stack : "done"); } catch (e) { out.push(e.name); }
  }
  class Mine extends Error { constructor(m) { super(m); Error.captureStackTrace(this, Mine); } }
  out.push(new Mine("m").stack.includes("codemode-runner") ? "runner" : "clean");
  return out.join(",");
}`, `"TypeError,TypeError,undefined,undefined,done,clean"`},
		{"values thrown after catches", `export default async function () {
  let n = 0;
  for (let i = 0; i < 2000; i++) {
    for (const v of [1, "s", null, undefined, { stack: 1 }, Symbol("s"), new Proxy({}, {}), Object.create(Error.prototype)]) {
      try { throw v; } catch { n++; }
    }
  }
  return n;
}`, `16000`},
		{"a stack deleted, then thrown", `export default async function () {
  const e = new Error("x"); delete e.stack;
  try { throw e; } catch (c) { return typeof c.stack === "string" && !c.stack.includes("codemode-runner"); }
}`, `true`},
		{"stackTraceLimit whose valueOf makes Errors and calls a tool", `export default async function ({ codemode }) {
  Error.stackTraceLimit = { valueOf() { codemode.echo({ value: "v" }); return new Error("inner").stack === undefined ? 3 : 4; } };
  const s = new Error("outer").stack;
  Error.stackTraceLimit = 10;
  return typeof s;
}`, `"string"`},
		{"a huge stackTraceLimit in a deep recursion", `export default async function () {
  Error.stackTraceLimit = 1e9;
  const f = (d) => (d === 0 ? new Error("deep").stack : f(d - 1));
  return f(3000).split("\n").filter(Boolean).length;
}`, `64`},
		{"getters on the prototypes of errors", `export default async function ({ codemode }) {
  for (const p of [Error.prototype, TypeError.prototype, Object.prototype]) {
    for (const k of ["stack", "message", "name", "cause"]) Object.defineProperty(p, k, { get() { throw new Error("getter " + k); }, set() { throw new Error("setter"); }, configurable: true });
  }
  try { await codemode.echo({ value: 1 }); } catch (e) { return Object.getOwnPropertyDescriptor(e, "stack").get.call(e).includes("agent.ts:"); }
}`, `true`},
		{"prototypes of errors replaced", `export default async function () {
  Object.setPrototypeOf(TypeError.prototype, null);
  try { null.x; } catch (e) { return typeof e.stack; }
}`, `"string"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := mustRun(t, c, tc.src)
			if out.Kind != client.Success {
				t.Fatalf("%s", out.Error.Text())
			}
			if string(out.Value) != tc.value {
				t.Errorf("value %s, want %s", out.Value, tc.value)
			}
		})
	}
	// A failure whose stack the program read and changed nothing of
	// reports the engine's place, mapped once; one whose stack the
	// program set reports what it set.
	out := mustRun(t, c, `export default async function ({ codemode }) {
  try {
    await codemode.echo({ value: 1 });
  } catch (e) {
    if (!e.stack.includes("agent.ts:3:20")) throw new Error("read " + e.stack);
    throw e;
  }
}`)
	if out.Kind != client.ProgramFailed || !strings.HasPrefix(out.Error.Stack, "    at default (agent.ts:3:20)") {
		t.Errorf("the failure of a read stack: %+v", out.Error)
	}
	out = mustRun(t, c, `export default async function () { const e = new Error("x"); e.stack = "    at mine (agent.ts:9:9)"; throw e; }`)
	if out.Kind != client.ProgramFailed || out.Error.Stack != "    at mine (agent.ts:9:9)" {
		t.Errorf("the failure of a set stack: %+v", out.Error)
	}
}
