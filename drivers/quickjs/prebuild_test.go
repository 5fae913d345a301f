package quickjs_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/quickjs"
)

// TestPrebuiltScopes runs scope setups whose work an execution must do
// itself, or whose result it must find fresh, many times on one runtime:
// from the second run on, a scope without input is prebuilt into the
// engines' snapshot when its setup allows (prebuild.go), and every run
// must see what the first saw.
func TestPrebuiltScopes(t *testing.T) {
	tests := []struct {
		name, setup, program string
		// want is the program's value in every run; clock, the number of
		// clock values it records; output, a line it writes.
		want   string
		clock  int
		output string
		// replay is the clock the runs replay; seeded runs alternate two
		// seeds, and want is then the value of the runs with the first
		// (the others must differ from it).
		replay []float64
		seeded bool
		// fresh: the value differs from the run before's (runs are 2 ms
		// apart), and want is not checked.
		fresh bool
	}{
		{
			name:    "a member the setup made is fresh in every run",
			setup:   `(s: any, define?: any): any => { define("codemode", "box", { n: 0 }); return s; }`,
			program: `export default async ({ codemode }: any) => { codemode.box.n++; await codemode.echo({ value: "x" }); return codemode.box.n; }`,
			want:    `1`,
		},
		{
			name:    "a scope the setup replaced is fresh in every run",
			setup:   `(s: any): any => ({ ...s, list: [] })`,
			program: `export default async (s: any) => { s.list.push(1); return s.list.length; }`,
			want:    `1`,
		},
		{
			name:    "the clock read by the setup is the run's",
			setup:   `(s: any): any => ({ ...s, at: Date.now() })`,
			program: `export default async (s: any) => s.at`,
			want:    `12345`,
			clock:   1,
			replay:  []float64{12345},
		},
		{
			name:    "Math.random drawn by the setup is the run's",
			setup:   `(s: any): any => ({ ...s, r: Math.random() })`,
			program: `export default async (s: any) => s.r`,
			seeded:  true,
		},
		{
			name:    "output the setup writes is the run's",
			setup:   `(s: any): any => { console.log("from the setup"); return s; }`,
			program: `export default async () => 1`,
			want:    `1`,
			output:  "from the setup",
		},
		{
			name:    "a job the setup queued runs in the run",
			setup:   `(s: any): any => { Promise.resolve().then(() => console.log("a job")); return s; }`,
			program: `export default async () => 1`,
			want:    `1`,
			output:  "a job",
		},
		{
			name:    "a timer the setup set fires in the run",
			setup:   `(s: any): any => { setTimeout(() => console.log("a timer"), 1); return s; }`,
			program: `export default async () => { await new Promise((r) => setTimeout(r, 20)); return 1; }`,
			want:    `1`,
			output:  "a timer",
		},
		{
			name:    "a tool the setup calls is called in the run",
			setup:   `(s: any): any => ({ ...s, p: s.codemode.echo({ value: "x" }) })`,
			program: `export default async (s: any) => (await s.p).value`,
			want:    `"x"`,
		},
		{
			// Evaluating the setup's text (outside the execution) reads
			// the real clock: a prebuilt scope would keep the build's.
			name:    "the clock read where the setup is evaluated is the run's",
			setup:   `(() => { const at = Date.now(); return (s: any): any => ({ ...s, at }); })()`,
			program: `export default async (s: any) => s.at`,
			fresh:   true,
		},
		{
			// A prebuilt setup's writes to the global object would be in
			// every engine: the run with input, which runs the setup
			// again, saw 2.
			name:    "a global the setup writes is the run's",
			setup:   `(s: any): any => { const g: any = globalThis; g.runs = (g.runs || 0) + 1; return s; }`,
			program: `export default async () => (globalThis as any).runs`,
			want:    `1`,
		},
		{
			name:    "an intrinsic the setup changes is the run's",
			setup:   `(s: any): any => { const a: any = Array.prototype; a.marks = (a.marks || "") + "x"; return s; }`,
			program: `export default async () => ([] as any).marks`,
			want:    `"x"`,
		},
		{
			name:    "a setup that throws fails every run",
			setup:   `(s: any): any => { throw new RangeError("no scope today"); }`,
			program: `export default async () => 1`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, withInput, d := prebuildClients(t, tt.setup)
			var first, last string
			for i := range 6 {
				if tt.fresh {
					time.Sleep(2 * time.Millisecond)
				}
				var out strings.Builder
				opts := client.RunOptions{OnTelemetry: func(e client.Event) {
					if e.Kind == client.EventProgramOutput {
						out.WriteString(e.Text)
					}
				}, Clock: tt.replay}
				if tt.seeded {
					opts.Seed = bytes.Repeat([]byte{byte(1 + i%2)}, 16)
				}
				run := c
				if i == 3 {
					// With input, the scope is made in the run.
					run, opts.Input = withInput, map[string]int{"n": i}
				}
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				o, err := run.Run(ctx, tt.program+"\n// "+strconv.Itoa(i), opts)
				cancel()
				if err != nil {
					t.Fatal(err)
				}
				awaitPrebuilds(t, d)
				if tt.want == "" && !tt.seeded && !tt.fresh {
					if o.Kind != client.ProgramFailed || o.Error.Name != "RangeError" || !strings.Contains(o.Error.Message, "no scope today") {
						t.Fatalf("run %d: %+v %+v, want the setup's RangeError", i, o, o.Error)
					}
					continue
				}
				if o.Kind != client.Success {
					t.Fatalf("run %d: %s %+v", i, o.Kind, o.Error)
				}
				if tt.fresh {
					if string(o.Value) == last {
						t.Errorf("run %d: value %s, the same as the run before's", i, o.Value)
					}
					last = string(o.Value)
				} else if tt.seeded {
					switch {
					case i == 0:
						first = string(o.Value)
					case i%2 == 0 && string(o.Value) != first, i%2 == 1 && string(o.Value) == first:
						t.Errorf("run %d: value %s; the first run, with the same seed as the even runs, gave %s", i, o.Value, first)
					}
				} else if string(o.Value) != tt.want {
					t.Errorf("run %d: value %s, want %s", i, o.Value, tt.want)
				}
				if len(o.Clock) != tt.clock {
					t.Errorf("run %d: %d clock values, want %d", i, len(o.Clock), tt.clock)
				}
				if !strings.Contains(out.String(), tt.output) {
					t.Errorf("run %d: output %q, want %q in it", i, out.String(), tt.output)
				}
			}
		})
	}
}

// prebuildClients are two clients of one runtime, extended with setup,
// whose contracts have codemode.echo: the second takes an input.
func prebuildClients(t *testing.T, setup string) (plain, withInput *client.Client, d *quickjs.Driver) {
	t.Helper()
	d = newDriver(quickjs.Options{})
	rt, err := client.NewRuntime(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Close() })
	schema := json.RawMessage(`{"type":"object","properties":{"value":{"type":"string"}},"required":["value"],"additionalProperties":false}`)
	echo, err := contract.NewRawTool("echo", "Echo.", schema, schema, func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) { return in, nil })
	if err != nil {
		t.Fatal(err)
	}
	k, err := contract.New(echo)
	if err != nil {
		t.Fatal(err)
	}
	input, err := contract.NewSchema(json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"additionalProperties":false}`))
	if err != nil {
		t.Fatal(err)
	}
	kIn, err := k.WithInput(input)
	if err != nil {
		t.Fatal(err)
	}
	e := client.Extension{Setup: setup}
	return client.New(rt, k).Extend(e), client.New(rt, kIn).Extend(e), d
}

// awaitPrebuilds waits for the scope builds d's in-process runtimes have
// started (a run starts them beside itself), so that the next run meets the
// scope built; for a sandboxed runtime, whose builds are in its process, it
// gives them 200 ms.
func awaitPrebuilds(t *testing.T, d *quickjs.Driver) {
	t.Helper()
	if os.Getenv(inProcessEnv) != "1" {
		time.Sleep(200 * time.Millisecond)
		return
	}
	for end := time.Now().Add(30 * time.Second); !quickjs.PrebuildsSettled(d); time.Sleep(time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("a scope's build did not end in 30 s")
		}
	}
}

// TestPrebuildStoppedByItsDeadline: a setup that never returns stops every
// execution at its deadline with a TimeoutError, the one that tries to
// prebuild it (the second) too.
func TestPrebuildStoppedByItsDeadline(t *testing.T) {
	c := newClient(t, quickjs.Options{Timeout: 300 * time.Millisecond}).Extend(client.Extension{Setup: `(s: any): any => { for (;;) {} }`})
	for i := range 3 {
		out, err := c.Run(context.Background(), "export default async () => 1\n// "+strconv.Itoa(i), client.RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if out.Kind != client.ProgramFailed || out.Error.Name != "TimeoutError" {
			t.Fatalf("run %d: %s %+v, want a TimeoutError", i, out.Kind, out.Error)
		}
	}
}

// TestPrebuildWaitsForNoOtherScope sends a scope whose setup takes 1.5 s a
// second time, so that it is built, and while it builds the second run of
// another scope, with a deadline of 500 ms: that run must not wait for the
// build (it waited, and in the sandbox its process was killed at its
// deadline, failing the building run too).
func TestPrebuildWaitsForNoOtherScope(t *testing.T) {
	base := newClient(t, quickjs.Options{})
	// The setup reads the clock, so it is not prebuilt in the end; it
	// runs in the build for as long as in a run.
	slow := base.Extend(client.Extension{Setup: `(s: any): any => { const end = Date.now() + 1500; ` +
		`for (;;) { for (let i = 0; i < 100000; i++); if (Date.now() > end) return s; } }`})
	quick := base.Extend(client.Extension{Setup: `(s: any): any => ({ ...s, q: 1 })`})
	run := func(c *client.Client, i int, timeout time.Duration) (*client.Outcome, error) {
		return c.Run(context.Background(), "export default async (s: any) => 1\n// "+strconv.Itoa(i), client.RunOptions{Limits: client.Limits{Timeout: timeout}})
	}
	for _, c := range []*client.Client{slow, quick} {
		if o, err := run(c, 0, 30*time.Second); err != nil || o.Kind != client.Success {
			t.Fatalf("first run: %+v %v", o, err)
		}
	}
	building := make(chan *client.Outcome, 1)
	go func() {
		o, err := run(slow, 1, 30*time.Second)
		if err != nil {
			t.Error(err)
		}
		building <- o
	}()
	time.Sleep(300 * time.Millisecond)
	if o, err := run(quick, 1, 500*time.Millisecond); err != nil || o.Kind != client.Success {
		t.Errorf("the other scope's run during the build: %+v %+v %v", o, o.Error, err)
	}
	if o := <-building; o == nil || o.Kind != client.Success {
		t.Errorf("the building run: %+v", o)
	}
	// The other scope is built at a later run.
	for i := 2; i < 5; i++ {
		if o, err := run(quick, i, 30*time.Second); err != nil || o.Kind != client.Success || string(o.Value) != "1" {
			t.Fatalf("run %d: %+v %v", i, o, err)
		}
	}
}

// TestPrebuiltScopeLeavesOtherScopesAlone: what a setup does to the global
// object, once its scope is prebuilt into the snapshot shared by every
// scope on the driver, must not be seen by another client's programs (it
// was, from the third run of the first client on).
func TestPrebuiltScopeLeavesOtherScopesAlone(t *testing.T) {
	d := newDriver(quickjs.Options{})
	b := newClientOn(t, d)
	a := b.Extend(client.Extension{Setup: `(s: any): any => { (globalThis as any).tenantA = "a's"; ` +
		`(Object.prototype as any).fromA = 1; return s; }`})
	for i := range 4 {
		if o, err := a.Run(context.Background(), "export default async () => (globalThis as any).tenantA\n// "+strconv.Itoa(i), client.RunOptions{}); err != nil || o.Kind != client.Success || string(o.Value) != `"a's"` {
			t.Fatalf("a's run %d: %+v %v", i, o, err)
		}
		o, err := b.Run(context.Background(), "export default async () => typeof (globalThis as any).tenantA + typeof ({} as any).fromA\n// "+strconv.Itoa(i), client.RunOptions{})
		if err != nil || o.Kind != client.Success {
			t.Fatalf("b's run %d: %+v %v", i, o, err)
		}
		if string(o.Value) != `"undefinedundefined"` {
			t.Errorf("b's run %d sees a's setup: %s", i, o.Value)
		}
		awaitPrebuilds(t, d)
	}
}
