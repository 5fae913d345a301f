package node_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/internal/wire"
)

// TestClockValuesPastTheFrameLimit: the clock values a program read since
// its previous tool call travel with the call (kept for a durable replay),
// so a call whose input fits may not fit with them. The execution fails
// with a RangeError that names them, rather than the bare frame limit, and
// the runtime serves the next program.
func TestClockValuesPastTheFrameLimit(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c := echoClient(t, driver(t))
	out, err := c.Run(ctx, `export default async function ({ codemode }) {
  const value = "x".repeat(16 * 1024 * 1024 - 64 * 1024 - 12); for (let i = 0; i < 10000; i++) Date.now();
  try { await codemode.echo({ value }); } catch {}
  return "caught";
}`, client.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if out.Kind != client.ProgramFailed || out.Error.Name != "RangeError" || !strings.Contains(out.Error.Message, "the call of codemode.echo does not fit in a message with the 10000 clock values") {
		t.Fatalf("%s %+v, want a RangeError naming the call and its 10000 clock values", out.Kind, out.Error)
	}
	// The same for a result (TestHostileProgramsFailAlone has both on
	// QuickJS, whose default heap of 64 MiB is too small for them).
	out, err = c.Run(ctx, `export default async function ({ result }) {
  result.appendText("€".repeat(5.58e6)); for (let i = 0; i < 10000; i++) performance.now();
}`, client.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if out.Kind != client.ProgramFailed || out.Error.Name != "RangeError" || !strings.Contains(out.Error.Message, "the result does not fit in a message with the 10000 clock values") {
		t.Fatalf("%s %+v, want a RangeError naming the result and its 10000 clock values", out.Kind, out.Error)
	}
	out, err = c.Run(ctx, `export default async function ({ codemode }) { return (await codemode.echo({ value: "next" })).value; }`, client.RunOptions{})
	if err != nil || out.Kind != client.Success || string(out.Value) != `"next"` {
		t.Fatalf("the next program: %+v %v", out, err)
	}
}

// TestMessageArraysStayWithinTheDecoderLimit: a message's arrays hold at
// most wire.MaxArrayElements items, and the runner keeps its messages
// within that: the clock read past it, and the content item past it, throw
// a RangeError naming the limit. A message with more was refused by the
// host's decoder: the execution's outcome was lost until the deadline (on
// QuickJS's sandbox, the process was killed with every execution on it).
func TestMessageArraysStayWithinTheDecoderLimit(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := echoClient(t, driver(t))
	for _, tc := range []struct{ name, source, want string }{
		{"clock", `export default async function () { for (let i = 0; i <= 1048576; i++) Date.now(); }`,
			"read the clock (Date.now, performance.now, new Date) 1048576 times, the most an execution may"},
		{"clock, caught", `export default async function () {
  let caught = "";
  for (let i = 0; i <= 1048576; i++) try { performance.now(); } catch (e) { caught = e.name; }
  return caught;
}`, ""},
		{"content", `export default async function ({ result }) { for (let i = 0; i <= 65536; i++) result.appendText(""); }`,
			"result content holds at most 65536 items"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := c.Run(ctx, tc.source, client.RunOptions{Limits: client.Limits{Timeout: time.Minute}})
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == "" {
				if out.Kind != client.Success || string(out.Value) != `"RangeError"` || len(out.Clock) != wire.MaxArrayElements {
					t.Fatalf("%s %+v %s with %d clock values, want the RangeError caught and %d values", out.Kind, out.Error, out.Value, len(out.Clock), wire.MaxArrayElements)
				}
				return
			}
			if out.Kind != client.ProgramFailed || out.Error.Name != "RangeError" || !strings.Contains(out.Error.Message, tc.want) {
				t.Fatalf("%s %+v, want a RangeError saying %q", out.Kind, out.Error, tc.want)
			}
		})
	}
}
