package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers"
	"github.com/codemode-go/codemode/drivers/node"
	"github.com/codemode-go/codemode/drivers/quickjs"
	"github.com/codemode-go/codemode/internal/nodetest"
	"github.com/codemode-go/codemode/internal/wire"
)

type heldRow struct {
	N int `json:"n"`
}

type heldRows struct {
	Items []heldRow `json:"items"`
}

// rowsOutput is the JSON of n rows, the last one's n replaced by last.
func rowsOutput(n int, last string) json.RawMessage {
	var b strings.Builder
	b.WriteString(`{"items":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		if i == n-1 {
			fmt.Fprintf(&b, `{"n":%s}`, last)
		} else {
			fmt.Fprintf(&b, `{"n":%d}`, i)
		}
	}
	b.WriteString(`]}`)
	return json.RawMessage(b.String())
}

// TestLargeOutputsAreCheckedBeforeTheProgramSees: a tool output large
// enough to travel held (wire 1.6) reaches the program only when it passed
// the tool's output schema; one that breaks it fails the call with a
// ToolValidationError and the program sees none of it, on every driver.
// Small outputs travel as before.
func TestLargeOutputsAreCheckedBeforeTheProgramSees(t *testing.T) {
	ctx := context.Background()
	rows, err := contract.NewTool("rows", "Lists rows.", func(ctx context.Context, in struct{}) (heldRows, error) {
		return heldRows{}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	c, err := contract.New(rows)
	if err != nil {
		t.Fatal(err)
	}
	const program = `export default async function ({ codemode }) {
  try {
    const r = await codemode.rows({});
    return "rows " + r.items.length + " last " + JSON.stringify(r.items[r.items.length - 1]);
  } catch (e) {
    return e.name;
  }
}`
	tests := []struct {
		name     string
		rows     int
		last     string
		want     string
		wantHeld bool
	}{
		{"large and valid", 4000, `3999`, "rows 4000 last {\"n\":3999}", true},
		{"large, breaks the schema", 4000, `"leaked"`, "ToolValidationError", true},
		{"large, not JSON", 4000, `1,]`, "ToolValidationError", true},
		{"large, a number beyond a double", 4000, `-1e400`, "ToolValidationError", true},
		{"small and valid", 3, `2`, "rows 3 last {\"n\":2}", false},
		{"small, breaks the schema", 3, `"leaked"`, "ToolValidationError", false},
	}
	for _, driver := range []string{"sandbox", "inprocess", "node"} {
		t.Run(driver, func(t *testing.T) {
			spy := &heldSpy{Driver: heldDriver(t, driver)}
			rt, err := client.NewRuntime(ctx, spy)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { rt.Close() })
			cl := client.New(rt, c)
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					output := rowsOutput(tt.rows, tt.last)
					forge := func(client.ToolCaller) client.ToolCaller {
						return func(context.Context, client.ToolCall) (json.RawMessage, error) { return output, nil }
					}
					before := spy.counts()
					out, err := cl.Run(ctx, program, client.RunOptions{Middleware: forge})
					if err != nil {
						t.Fatal(err)
					}
					if out.Kind != client.Success || string(out.Value) != fmt.Sprintf("%q", tt.want) {
						t.Fatalf("outcome %s %s (%+v), want the value %q", out.Kind, out.Value, out.Error, tt.want)
					}
					after := spy.counts()
					held, released := after[0]-before[0], after[1]-before[1]
					wantHeld, wantReleased := 0, 0
					if tt.wantHeld {
						wantHeld = 1
						if tt.want != "ToolValidationError" {
							wantReleased = 1
						}
					}
					if held != wantHeld || released != wantReleased {
						t.Fatalf("%d held outputs and %d releases sent, want %d and %d", held, released, wantHeld, wantReleased)
					}
				})
			}
		})
	}
}

func heldDriver(t *testing.T, name string) drivers.Driver {
	t.Helper()
	switch name {
	case "sandbox":
		d := quickjs.New(quickjs.Options{})
		t.Cleanup(func() { d.Close() })
		return d
	case "inprocess":
		d := quickjs.New(quickjs.Options{InProcess: true})
		t.Cleanup(func() { d.Close() })
		return d
	}
	path := nodetest.Path()
	if path == "" {
		if os.Getenv("CODEMODE_REQUIRE_NODE") != "" {
			t.Fatal("no Node.js")
		}
		t.Skip("no Node.js")
	}
	return node.New(node.Options{NodePath: path})
}

// driverRuntime is a runtime of its own on heldDriver's driver of that
// name, closed with the test.
func driverRuntime(t *testing.T, name string) *client.Runtime {
	t.Helper()
	rt, err := client.NewRuntime(context.Background(), heldDriver(t, name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Close() })
	return rt
}

// heldSpy counts the held tool results and releases the host writes.
type heldSpy struct {
	drivers.Driver
	mu             sync.Mutex
	held, released int
	partial        []byte // the start of a frame not written whole yet
}

func (s *heldSpy) Connect(ctx context.Context, req drivers.ConnectRequest) (drivers.Connection, error) {
	c, err := s.Driver.Connect(ctx, req)
	if err != nil {
		return nil, err
	}
	return &heldSpyConn{Connection: c, ch: &heldSpyChannel{ReadWriteCloser: c.Channel(), spy: s}}, nil
}

func (s *heldSpy) counts() [2]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return [2]int{s.held, s.released}
}

// saw reads the whole frames in what the host wrote so far.
func (s *heldSpy) saw(p []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.partial = append(s.partial, p...)
	for {
		r := bytes.NewReader(s.partial)
		payload, err := wire.ReadFrame(r, wire.MaxFrameSize)
		if err != nil {
			return // a frame not written whole yet
		}
		s.partial = s.partial[len(s.partial)-r.Len():]
		if m, err := wire.Unmarshal(payload); err == nil && m.Kind == wire.KindToolResult {
			if m.Held {
				s.held++
			}
			if m.Release {
				s.released++
			}
		}
	}
}

type heldSpyConn struct {
	drivers.Connection
	ch *heldSpyChannel
}

func (c *heldSpyConn) Channel() io.ReadWriteCloser { return c.ch }

type heldSpyChannel struct {
	io.ReadWriteCloser
	spy *heldSpy
}

func (c *heldSpyChannel) Write(p []byte) (int, error) {
	c.spy.saw(p)
	return c.ReadWriteCloser.Write(p)
}

// TestNoHeldOutputsBefore16: a runner older than wire 1.6 gets a large
// output as before, checked first and sent whole.
func TestNoHeldOutputsBefore16(t *testing.T) {
	ctx := context.Background()
	answers := make(chan *wire.Message, 4)
	d := &pipeDriver{versions: &wire.VersionRange{Min: wire.Version{Major: 1}, Max: wire.Version{Major: 1, Minor: 5}}}
	d.serve = func(r *wire.Reader, w *wire.Writer, _ net.Conn) {
		for {
			m, err := r.Read()
			if err != nil {
				return
			}
			switch m.Kind {
			case wire.KindExecute:
				if w.Write(&wire.Message{Kind: wire.KindToolCall, Execution: m.Execution, Seq: 1, Namespace: "codemode", Tool: "rows", Input: []byte(`{}`)}) != nil {
					return
				}
			case wire.KindToolResult:
				answers <- m
				if w.Write(&wire.Message{Kind: wire.KindResult, Execution: m.Execution, Outcome: wire.OutcomeSuccess}) != nil {
					return
				}
			}
		}
	}
	rt, err := client.NewRuntime(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	rows, _ := contract.NewTool("rows", "Lists rows.", func(ctx context.Context, in struct{}) (heldRows, error) { return heldRows{}, nil })
	c, _ := contract.New(rows)
	output := rowsOutput(4000, "1")
	forge := func(client.ToolCaller) client.ToolCaller {
		return func(context.Context, client.ToolCall) (json.RawMessage, error) { return output, nil }
	}
	if out, err := client.New(rt, c).Run(ctx, `export default async () => {}`, client.RunOptions{Middleware: forge}); err != nil || out.Kind != client.Success {
		t.Fatalf("%+v %v", out, err)
	}
	m := <-answers
	if m.Held || m.Release || !bytes.Equal(m.Output, output) {
		t.Fatalf("a 1.5 runner got held %v, release %v and %d bytes of output, want the %d bytes whole", m.Held, m.Release, len(m.Output), len(output))
	}
	if len(answers) != 0 {
		t.Fatalf("%d more tool results", len(answers))
	}
}

type heldSecret struct {
	Secret string `json:"secret"`
}

// TestNestedRunDoesNotHoldIntoTheOuterCall: a tool handler that runs a
// program of its own (here one whose call is answered from a prefilled
// result, as a durable run's replay is) passes its call's context on. The
// inner run's check of its large output must not send that output held as
// the answer to the outer call: the outer program would be given the inner
// tool's output, which never passed the outer tool's schema.
func TestNestedRunDoesNotHoldIntoTheOuterCall(t *testing.T) {
	ctx := context.Background()
	rt, err := client.NewRuntime(ctx, quickjs.New(quickjs.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	secret := heldSecret{Secret: strings.Repeat("s", 20<<10)}
	secretJSON, _ := json.Marshal(secret)
	inner, err := contract.NewTool("inner", "Tells a secret.", func(ctx context.Context, in struct{}) (heldSecret, error) {
		return secret, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var cl *client.Client
	outer, err := contract.NewTool("outer", "Lists rows.", func(ctx context.Context, in struct{}) (heldRows, error) {
		out, err := cl.Run(ctx, `export default async ({ codemode }) => (await codemode.inner({})).secret.length`,
			client.RunOptions{Prefill: map[uint64]json.RawMessage{1: secretJSON}})
		if err != nil || out.Kind != client.Success {
			return heldRows{}, fmt.Errorf("inner run: %v %+v", err, out)
		}
		return heldRows{Items: []heldRow{{N: 1}}}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	c, err := contract.New(inner, outer)
	if err != nil {
		t.Fatal(err)
	}
	cl = client.New(rt, c)
	out, err := cl.Run(ctx, `export default async ({ codemode }) => JSON.stringify(Object.keys(await codemode.outer({})))`, client.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if out.Kind != client.Success || string(out.Value) != `"[\"items\"]"` {
		t.Fatalf("outcome %s %.200s (%+v), want the outer tool's own output, keys [\"items\"]", out.Kind, out.Value, out.Error)
	}
}
