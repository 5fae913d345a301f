package node_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
)

// TestStacksShowTheProgramsFrames: an error's stack holds the program's
// frames, as on QuickJS: not V8's first line (the name and message, which
// the error carries apart) and not the runner's own frames, which showed
// as [stdin] (its tool call, its run) before (a new user's trial).
func TestStacksShowTheProgramsFrames(t *testing.T) {
	rt, err := client.NewRuntime(context.Background(), driver(t))
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	fail, err := contract.NewRawTool("fail", "Fails.", json.RawMessage(`{"type":"object","additionalProperties":false}`), json.RawMessage(`{"type":"object","additionalProperties":false}`),
		func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) {
			return nil, errors.New("no location given")
		})
	if err != nil {
		t.Fatal(err)
	}
	k, err := contract.New(fail)
	if err != nil {
		t.Fatal(err)
	}
	c := client.New(rt, k)
	for _, tc := range []struct{ name, src, frame string }{
		{"tool error", "export default async function ({ codemode }) {\n  await codemode.fail({});\n}\n", "at default (agent.ts:2:18)"},
		{"thrown error", "export default async function () {\n  function inner() { throw new TypeError(\"two\\nlines\"); }\n  inner();\n}\n", "at inner (agent.ts:2:28)"},
	} {
		out, err := c.Run(context.Background(), tc.src, client.RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if out.Kind != client.ProgramFailed {
			t.Fatalf("%s: %s", tc.name, out.Kind)
		}
		stack := out.Error.Stack
		if !strings.HasPrefix(stack, "    at ") || !strings.Contains(stack, tc.frame) || strings.Contains(stack, "[stdin]") || strings.Contains(stack, out.Error.Message) {
			t.Errorf("%s: stack %q, want the program's frames (%s) only", tc.name, stack, tc.frame)
		}
	}
}

// TestTamperedStackHooks: the runner writes the stacks programs read from
// Error.prepareStackTrace (runner/src/stack.ts). A program that replaces
// the built-ins the runner uses still reads its own frames (the runner took
// them before any program ran); one that installs a hook that throws fails
// with its tool's error, its stack unread; and the runtime serves the next
// program with the runner's stacks.
func TestTamperedStackHooks(t *testing.T) {
	c := echoClient(t, driver(t))
	ctx := context.Background()
	for _, tc := range []struct{ name, src, value, errName string }{
		{"built-ins replaced", `export default async function ({ codemode }) {
  const saved = [String.prototype.slice, String.prototype.indexOf, Array.prototype.join, WeakMap.prototype.get, WeakMap.prototype.set, Reflect.apply];
  String.prototype.slice = String.prototype.indexOf = Array.prototype.join = () => { throw new Error("replaced"); };
  WeakMap.prototype.get = WeakMap.prototype.set = Reflect.apply = () => { throw new Error("replaced"); };
  try {
    await codemode.echo({ value: 1 });
  } catch (e) {
    return e.stack;
  } finally {
    [String.prototype.slice, String.prototype.indexOf, Array.prototype.join, WeakMap.prototype.get, WeakMap.prototype.set, Reflect.apply] = saved;
  }
}`, `"ToolValidationError: codemode.echo input validation failed:\n  /value: got number, want string\n    at default (agent.ts:6:20)"`, ""},
		{"a hook that throws", `export default async function ({ codemode }) {
  const saved = Error.prepareStackTrace;
  Error.prepareStackTrace = () => { throw new Error("no stacks"); };
  try {
    await codemode.echo({ value: 1 });
  } finally {
    Error.prepareStackTrace = saved;
  }
}`, "", "ToolValidationError"},
		{"the next program", `export default async function () { return new Error("x").stack; }`, `"Error: x\n    at default (agent.ts:1:43)"`, ""},
	} {
		out, err := c.Run(ctx, tc.src, client.RunOptions{})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if tc.errName != "" {
			if out.Kind != client.ProgramFailed || out.Error.Name != tc.errName {
				t.Errorf("%s: %s %+v", tc.name, out.Kind, out.Error)
			}
			continue
		}
		if out.Kind != client.Success || string(out.Value) != tc.value {
			t.Errorf("%s: %s %+v %s, want %s", tc.name, out.Kind, out.Error, out.Value, tc.value)
		}
	}
}

// TestALoggedErrorNamesItselfOnce: console.log of an Error printed its
// line twice on Node.js (the runner put the name and message before the
// stack, whose first line V8 makes them).
func TestALoggedErrorNamesItselfOnce(t *testing.T) {
	c := echoClient(t, driver(t))
	var logged strings.Builder
	out, err := c.Run(context.Background(), `export default async function ({ console }) {
  console.log(new TypeError("once"));
}`, client.RunOptions{OnTelemetry: func(e client.Event) {
		if e.Kind == client.EventProgramOutput {
			logged.WriteString(e.Text)
		}
	}})
	if err != nil || out.Kind != client.Success {
		t.Fatalf("%+v %v", out, err)
	}
	if want := "TypeError: once\n    at default (agent.ts:2:15)\n"; logged.String() != want {
		t.Errorf("logged %q, want %q", logged.String(), want)
	}
}
