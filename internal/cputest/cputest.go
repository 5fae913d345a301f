// Package cputest runs programs against an execution's CPU time limit
// (client.Limits.CPUTime) beside its deadline: each driver's tests call
// Run, and Busy where the driver stops a loop that never yields, so that
// QuickJS, Node.js and a remote runner host give the same verdicts.
//
// The margins hold on a loaded machine: a waiting program uses a few
// milliseconds of CPU against a limit of 300 ms, a busy one has a deadline
// of a minute to use up 300 ms of CPU, and a deadline test's CPU limit is
// far above what its wall time allows.
package cputest

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
)

// cpuLimit is the CPU time limit of the programs that must not reach the
// deadline, and long the deadline they run under.
const (
	cpuLimit = 300 * time.Millisecond
	long     = time.Minute
)

// slowTool is a contract whose tool codemode.wait({ms}) answers after ms
// milliseconds, or when its call is cancelled.
func slowTool(t *testing.T) *contract.Contract {
	tool, err := contract.NewRawTool("wait", "Answers after ms milliseconds.",
		json.RawMessage(`{"type":"object","properties":{"ms":{"type":"integer","minimum":0}},"required":["ms"],"additionalProperties":false}`),
		json.RawMessage(`{"type":"object","properties":{"waited":{"type":"integer"}},"required":["waited"],"additionalProperties":false}`),
		func(ctx context.Context, input json.RawMessage) (json.RawMessage, error) {
			var in struct{ MS int }
			if err := json.Unmarshal(input, &in); err != nil {
				return nil, err
			}
			select {
			case <-time.After(time.Duration(in.MS) * time.Millisecond):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return json.Marshal(map[string]int{"waited": in.MS})
		})
	if err != nil {
		t.Fatal(err)
	}
	c, err := contract.New(tool)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// limitCase is a program, its limits, and the verdict they give.
type limitCase struct {
	name   string
	src    string
	limits client.Limits
	// want is "" for success, "cpu" for the CPU time limit's TimeoutError,
	// "deadline" for the deadline's, "forged" for a TimeoutError the
	// program threw itself in the CPU time limit's words.
	want string
}

// Run runs the cases every driver passes on rt: waiting for tools does not
// count against the CPU time limit, a busy program that yields to the event
// loop is stopped by it, the deadline still fires by its own name, and a
// program cannot pass its own error off as the limit.
func Run(t *testing.T, rt client.Executor) {
	run(t, rt, []limitCase{
		{"waiting does not count", `export default async function ({ codemode }) {
  let total = 0;
  for (let i = 0; i < 3; i++) total += (await codemode.wait({ ms: 500 })).waited;
  await new Promise((r) => setTimeout(r, 200));
  return total;
}`, client.Limits{CPUTime: cpuLimit, Timeout: long}, ""},
		{"a busy program that yields is stopped by the CPU time limit", `export default async function () {
  for (;;) {
    let x = 0;
    for (let i = 0; i < 2000000; i++) x += i % 7;
    await new Promise((r) => setTimeout(r, 0));
  }
}`, client.Limits{CPUTime: cpuLimit, Timeout: long}, "cpu"},
		{"the deadline names itself while the program waits", `export default async function ({ codemode }) {
  await codemode.wait({ ms: 30000 });
}`, client.Limits{CPUTime: cpuLimit, Timeout: time.Second}, "deadline"},
		{"a program's own TimeoutError in the limit's words is not the limit", `export default async function () {
  const e = new Error("the program was stopped: the execution's CPU time limit of 300ms was exceeded (its own work, not counting waits for tool calls and timers)");
  e.name = "TimeoutError";
  throw e;
}`, client.Limits{CPUTime: cpuLimit, Timeout: long}, "forged"},
	})
}

// Busy runs the cases of a driver that stops a loop that never yields (the
// QuickJS driver, on its own or behind a runner host): the CPU time limit
// stops it, and the deadline does when it comes first.
func Busy(t *testing.T, rt client.Executor) {
	run(t, rt, []limitCase{
		{"a loop that never yields is stopped by the CPU time limit",
			`export default async function () { for (;;) {} }`, client.Limits{CPUTime: cpuLimit, Timeout: long}, "cpu"},
		{"a loop in a promise job is stopped by the CPU time limit",
			`export default async function ({ codemode }) { await codemode.wait({ ms: 100 }); for (;;) {} }`, client.Limits{CPUTime: cpuLimit, Timeout: long}, "cpu"},
		// A thread uses no more CPU time than wall time passes.
		{"the deadline names itself when it comes first",
			`export default async function () { for (;;) {} }`, client.Limits{CPUTime: long, Timeout: time.Second}, "deadline"},
	})
}

func run(t *testing.T, rt client.Executor, cases []limitCase) {
	cl := client.New(rt, slowTool(t))
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, err := cl.Run(context.Background(), tc.src, client.RunOptions{Limits: tc.limits})
			if err != nil {
				t.Fatal(err)
			}
			check(t, out, tc.want, tc.limits)
		})
	}
}

// check compares an outcome with a verdict.
func check(t *testing.T, out *client.Outcome, want string, lim client.Limits) {
	t.Helper()
	if want == "" {
		if out.Kind != client.Success {
			t.Fatalf("outcome %s (%v), want success", out.Kind, out.Error)
		}
		return
	}
	if out.Kind != client.ProgramFailed || out.Error.Name != "TimeoutError" {
		t.Fatalf("outcome %s (%v), want a TimeoutError", out.Kind, out.Error)
	}
	t.Logf("%s: %s", out.Error.Name, out.Error.Message)
	cpu := errors.Is(out.Error, client.ErrCPUTimeLimit)
	switch want {
	case "cpu":
		if !cpu || !strings.Contains(out.Error.Message, "CPU time limit of "+lim.CPUTime.String()) {
			t.Errorf("%q: want the CPU time limit of %s, wrapping ErrCPUTimeLimit (%v)", out.Error.Message, lim.CPUTime, cpu)
		}
	case "forged":
		if cpu || !strings.Contains(out.Error.Message, "CPU time limit") {
			t.Errorf("%q: a program's own error wraps ErrCPUTimeLimit (%v)", out.Error.Message, cpu)
		}
	case "deadline":
		if cpu || !strings.Contains(out.Error.Message, "deadline of "+lim.Timeout.String()) {
			t.Errorf("%q: want the deadline of %s, wrapping nothing (%v)", out.Error.Message, lim.Timeout, cpu)
		}
	}
}
