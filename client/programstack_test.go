package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
)

var updateStacks = flag.Bool("update", false, "rewrite testdata/programstacks.golden")

// programStackCases are programs that read a stack and make it their
// value. run is "code" for RunCode (the wrapper's forms) and "module" for
// Run. getWeather takes a string location (a number fails its validation
// on the host), and fail fails in its handler.
var programStackCases = []struct{ name, run, src string }{
	{"statement form: tool validation failure on the last line", "code",
		`await codemode.getWeather({ location: 42 as any }).catch((e: Error) => e.stack)`},
	{"statement form: tool error in nested helpers", "code", `async function helper(city: string) {
  return await codemode.fail({ city });
}
async function outer() {
  return helper("Paris");
}
let stack = "";
try {
  await outer();
} catch (e) {
  stack = (e as Error).stack!;
}
stack`},
	{"statement form: the program's own Error", "code", `function make() {
  return new Error("mine");
}
const e = make();
return e.stack;`},
	{"statement form: engine TypeError at a property read", "code", `function f(o: any) {
  return o.x.y;
}
try {
  f(null);
} catch (e) {
  return (e as Error).stack;
}`},
	{"statement form: engine TypeError at a call", "code", `const o: any = {};
try {
  o.nothing(1);
} catch (e) {
  return (e as Error).stack;
}`},
	{"statement form: an Error thrown inside a native callback", "code", `try {
  [1, 2].map((n) => { if (n === 2) throw new RangeError("two"); return n; });
} catch (e) {
  return (e as Error).stack;
}`},
	{"module form: tool failure in a helper", "code", `async function helper(codemode: any) {
  return await codemode.getWeather({ location: 42 as any });
}
export default async function ({ codemode }: any) {
  try { await helper(codemode); } catch (e) { return (e as Error).stack; }
}`},
	{"module form: the default export on the line of export default", "code", `export default async ({ codemode }: any) => { try { await codemode.fail({ city: "x" }); } catch (e) { return (e as Error).stack; } }`},
	{"function expression: tool error", "code", `async ({ codemode }) => {
  try {
    await codemode.fail({ city: "Lyon" });
  } catch (e) {
    return e.stack;
  }
}`},
	{"esbuild's erasure (a class): the program's own Error", "code", `class Finder {
  find(name: string): never {
    throw new Error("no " + name);
  }
}
try {
  new Finder().find("x");
} catch (e) {
  return (e as Error).stack;
}`},
	{"Run, a module: tool error and the program's own Error", "module", `async function call(codemode: any) {
  await codemode.fail({ city: "Oslo" });
}
export default async function ({ codemode }: any) {
  const own = new Error("own").stack;
  try { await call(codemode); } catch (e) { return own + "--\n" + (e as Error).stack; }
}`},
}

// TestProgramStacksAreThePrograms: the stack a program reads names its own
// frames only (and native ones), at the lines and columns of the code as
// written, with its default export named default: a failed tool call's
// Error, an Error the program makes and one the engine throws, in each form
// of code, on QuickJS (in a sandbox process and in process) and Node.js.
// testdata/programstacks.golden holds what each reads (go test -run
// TestProgramStacksAreThePrograms -update rewrites it). They named the
// runner's frames (value, run) and the wrapper's (default, one line below
// the code's) before, a line below the code's own.
func TestProgramStacksAreThePrograms(t *testing.T) {
	var got strings.Builder
	for _, engine := range []string{"sandbox", "inprocess", "node"} {
		c := stackClient(t, engine)
		for _, tc := range programStackCases {
			stack := programStack(t, c, tc.run, tc.src)
			for _, bad := range []string{"codemode-runner.js", "[stdin]", "node:internal", "__codemode", "codemode-setup.js"} {
				if strings.Contains(stack, bad) {
					t.Errorf("%s, %s: the stack names %s:\n%s", engine, tc.name, bad, stack)
				}
			}
			if engine == "inprocess" {
				continue // the sandbox's engine: the same text, checked below
			}
			fmt.Fprintf(&got, "== %s (%s)\n%s\n", tc.name, map[string]string{"sandbox": "quickjs", "node": "node"}[engine], strings.TrimRight(stack, "\n"))
		}
		if engine == "inprocess" {
			checkSameAsSandbox(t, c)
		}
	}
	golden := filepath.Join("testdata", "programstacks.golden")
	if *updateStacks {
		if err := os.WriteFile(golden, []byte(got.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got.String() != string(want) {
		t.Errorf("the stacks programs read differ from %s (go test -run TestProgramStacksAreThePrograms -update rewrites it):\n%s", golden, got.String())
	}
}

// checkSameAsSandbox runs the cases on c, an in-process QuickJS client, and
// compares each stack with the sandbox's (the same engine).
func checkSameAsSandbox(t *testing.T, c *client.Client) {
	t.Helper()
	sandbox := stackClient(t, "sandbox")
	for _, tc := range programStackCases {
		if a, b := programStack(t, c, tc.run, tc.src), programStack(t, sandbox, tc.run, tc.src); a != b {
			t.Errorf("%s: in process\n%s\nin a sandbox\n%s", tc.name, a, b)
		}
	}
}

// programStack runs src and returns its value, a string.
func programStack(t *testing.T, c *client.Client, run, src string) string {
	t.Helper()
	var out *client.Outcome
	var err error
	if run == "module" {
		out, err = c.Run(context.Background(), src, client.RunOptions{})
	} else {
		out, err = c.RunCode(context.Background(), src, client.RunOptions{})
	}
	if err != nil {
		t.Fatal(err)
	}
	if out.Kind != client.Success {
		t.Fatalf("%s: %s", src, out.Error.Text())
	}
	var stack string
	if err := json.Unmarshal(out.Value, &stack); err != nil {
		t.Fatalf("%s: the value %s is not a string", src, out.Value)
	}
	return stack
}

// stackClient is a client on a runtime of its own of engine ("sandbox",
// "inprocess" or "node"), with getWeather (a location string) and fail.
func stackClient(t *testing.T, engine string) *client.Client {
	t.Helper()
	weather, err := contract.NewRawTool("getWeather", "Weather at a place.",
		json.RawMessage(`{"type":"object","properties":{"location":{"type":"string"}},"required":["location"],"additionalProperties":false}`), json.RawMessage(`{}`),
		func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) {
			return json.RawMessage(`{}`), nil
		})
	if err != nil {
		t.Fatal(err)
	}
	fail, err := contract.NewRawTool("fail", "Fails.",
		json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"additionalProperties":false}`), json.RawMessage(`{}`),
		func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) {
			return nil, errors.New("no weather today")
		})
	if err != nil {
		t.Fatal(err)
	}
	k, err := contract.New(weather, fail)
	if err != nil {
		t.Fatal(err)
	}
	return client.New(driverRuntime(t, engine), k)
}

// TestAReadStackIsReportedOnce: a program that reads a failed call's stack
// (the program's places) and throws the Error on is reported at the
// engine's place mapped back once, not mapped again from the places it
// read (a line above the code's), on each engine.
func TestAReadStackIsReportedOnce(t *testing.T) {
	const src = `async function h() {
  await codemode.fail({ city: "Rome" });
}
try {
  await h();
} catch (e) {
  if (!(e as Error).stack!.includes("agent.ts:2:18")) throw new Error("read " + (e as Error).stack);
  throw e;
}`
	for _, engine := range []string{"sandbox", "inprocess", "node"} {
		c := stackClient(t, engine)
		out, err := c.RunCode(context.Background(), src, client.RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if out.Kind != client.ProgramFailed || out.Error.Message != "no weather today" || !strings.Contains(out.Error.Stack, "at h (agent.ts:2:18)") {
			t.Errorf("%s: %s (stack %q)", engine, out.Error.Text(), out.Error.Stack)
		}
	}
}
