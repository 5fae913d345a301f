package client_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/quickjs"
)

// TestDeadlineNamesTheCallsInFlight: an execution that reaches its
// deadline while tool calls are in flight fails with a TimeoutError that
// names them, so that the model knows which call was slow; one that
// waits on no call says nothing more.
func TestDeadlineNamesTheCallsInFlight(t *testing.T) {
	quick, err := contract.NewRawTool("quick", "Answers at once.", json.RawMessage(`{"type":"object","additionalProperties":false}`), json.RawMessage(`{}`),
		func(context.Context, json.RawMessage) (json.RawMessage, error) { return json.RawMessage(`1`), nil })
	if err != nil {
		t.Fatal(err)
	}
	c := contractOf(t, quick, hangTool(t))
	rt := quickjsRuntime(t, quickjs.Options{})
	cl := client.New(rt, c)
	const stopped = "the program was stopped: the execution deadline of 200ms was exceeded"
	tests := []struct{ name, code, want string }{
		{"one call", `await codemode.quick({}); await codemode.hang({});`, stopped + " while waiting for codemode.hang (tool call 2)"},
		{"five calls", `await codemode.quick({}); await Promise.all([1, 2, 3, 4, 5].map(() => codemode.hang({})));`,
			stopped + " while waiting for codemode.hang (tool call 2), codemode.hang (tool call 3), codemode.hang (tool call 4) and 2 more tool call(s)"},
		{"no call", `await codemode.quick({}); await new Promise(() => setTimeout(() => {}, 60_000));`, stopped},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := cl.RunCode(context.Background(), tc.code, client.RunOptions{Limits: client.Limits{Timeout: 200 * time.Millisecond}})
			if err != nil {
				t.Fatal(err)
			}
			if out.Error == nil || out.Error.Name != "TimeoutError" || out.Error.Message != tc.want {
				t.Fatalf("outcome %s, error %+v\nwant TimeoutError: %s", out.Kind, out.Error, tc.want)
			}
		})
	}
}

// TestDeadlineNamesTheLineThatWaited: a deadline that passes while the
// program waits for a tool call is placed at the call, with its excerpt,
// on each driver; one that passes while it waits for a timer has no place.
func TestDeadlineNamesTheLineThatWaited(t *testing.T) {
	c := contractOf(t, hangTool(t))
	for _, name := range []string{"sandbox", "node"} {
		t.Run(name, func(t *testing.T) {
			rt := driverRuntime(t, name)
			cl := client.New(rt, c)
			out, err := cl.RunCode(context.Background(), "const before = 1;\nconst later = await codemode.hang({});\nlater", client.RunOptions{Limits: client.Limits{Timeout: 300 * time.Millisecond}})
			if err != nil {
				t.Fatal(err)
			}
			if out.Error == nil || out.Error.Name != "TimeoutError" || !strings.Contains(out.Error.Text(), "agent.ts:2:") || !strings.Contains(out.Error.Text(), "> 2 | const later = await codemode.hang({});") {
				t.Fatalf("outcome %s, error %+v\n%s\nwant a TimeoutError at line 2", out.Kind, out.Error, out.Error.Text())
			}
			out, err = cl.RunCode(context.Background(), "await new Promise((r) => setTimeout(r, 60_000));", client.RunOptions{Limits: client.Limits{Timeout: 300 * time.Millisecond}})
			if err != nil {
				t.Fatal(err)
			}
			if out.Error == nil || out.Error.Name != "TimeoutError" || strings.Contains(out.Error.Text(), "agent.ts:") {
				t.Fatalf("waiting for a timer: %+v\n%s", out.Error, out.Error.Text())
			}
		})
	}
}

// TestDeadlineNamesTheLineThatRan: a program stopped at its deadline or
// CPU time limit while it runs (a busy loop) is placed at the line it ran,
// read from inside the QuickJS poll that stopped it; one stopped deep in a
// recursion or in the middle of allocating still fails alone, as a
// TimeoutError, and the runtime runs the next program.
func TestDeadlineNamesTheLineThatRan(t *testing.T) {
	c, err := contract.New()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"sandbox", "inprocess"} {
		t.Run(name, func(t *testing.T) {
			rt := driverRuntime(t, name)
			cl := client.New(rt, c)
			for _, tc := range []struct {
				name, code, where string
				lim               client.Limits
			}{
				{"deadline", "let n = 0;\nfunction spin() {\n  while (true) { n++; }\n}\nspin();", "> 3 |   while (true) { n++; }", client.Limits{Timeout: 300 * time.Millisecond}},
				{"cpu time", "let n = 0;\nwhile (true) {\n  n++;\n}", "> 3 |   n++;", client.Limits{Timeout: 10 * time.Second, CPUTime: 200 * time.Millisecond}},
				{"deep recursion", "const f = (d) => { if (d < 3500) return f(d + 1) + 1; while (true) {} };\nf(0);", "", client.Limits{Timeout: 300 * time.Millisecond}},
				{"allocating", "const keep = [];\nwhile (true) { keep.push({ a: [1, 2, 3], s: 'x'.repeat(100) }); if (keep.length > 100000) keep.length = 0; }", "", client.Limits{Timeout: 300 * time.Millisecond}},
			} {
				out, err := cl.RunCode(context.Background(), tc.code, client.RunOptions{Limits: tc.lim})
				if err != nil {
					t.Fatalf("%s: %v", tc.name, err)
				}
				if out.Error == nil || out.Error.Name != "TimeoutError" || !strings.Contains(out.Error.Text(), tc.where) {
					t.Fatalf("%s: outcome %s, error %+v\n%s\nwant a TimeoutError showing %q", tc.name, out.Kind, out.Error, out.Error.Text(), tc.where)
				}
			}
			if out, err := cl.RunCode(context.Background(), "1 + 1", client.RunOptions{}); err != nil || out.Kind != client.Success {
				t.Fatalf("the next program: %+v, %v", out, err)
			}
		})
	}
}
