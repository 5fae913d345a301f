package quickjs

import (
	"context"
	"testing"

	"github.com/codemode-go/codemode/drivers"
	"github.com/codemode-go/codemode/internal/wire"
	"github.com/codemode-go/codemode/runner"
)

func TestSmoke(t *testing.T) {
	d := New(Options{})
	c, err := d.Connect(context.Background(), drivers.ConnectRequest{RunnerSource: runner.Source})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r := wire.NewReader(c.Channel())
	w := wire.NewWriter(c.Channel())
	m, err := r.Read()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", m)
	src := `let n = 0; export default async function ({codemode, console, result}) { console.log("hi", {a:1}); const v = await codemode.echo({value: "x"}); result.appendText("got " + JSON.stringify(v)); }`
	go w.Write(&wire.Message{Kind: wire.KindExecute, Execution: 1, Source: src, Filename: "agent.js", Namespaces: []wire.Namespace{{Name: "codemode", Tools: []string{"echo"}}}})
	for {
		m, err := r.Read()
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%+v %+v", m, m.Error)
		if m.Kind == wire.KindToolCall {
			go w.Write(&wire.Message{Kind: wire.KindToolResult, Execution: 1, Seq: m.Seq, Output: m.Input})
		}
		if m.Kind == wire.KindResult {
			break
		}
	}
}

// TestRefusesTypeScript: the QuickJS runner does not offer to strip types
// (wire 1.4) and refuses TypeScript it is sent anyway, with nothing run, so
// that the host erases it and sends it again.
func TestRefusesTypeScript(t *testing.T) {
	for _, inProcess := range []bool{false, true} {
		d := New(Options{InProcess: inProcess})
		c, err := d.Connect(context.Background(), drivers.ConnectRequest{RunnerSource: runner.Source})
		if err != nil {
			t.Fatal(err)
		}
		r, w := wire.NewReader(c.Channel()), wire.NewWriter(c.Channel())
		ready, err := r.Read()
		if err != nil || ready.Kind != wire.KindReady || ready.TypeScript {
			t.Fatalf("ready %+v %v: want no typeScript", ready, err)
		}
		go w.Write(&wire.Message{Kind: wire.KindExecute, Execution: 1, Source: "export default async function (): Promise<number> { return 1; }", Filename: "agent.ts", TypeScript: true})
		m, err := r.Read()
		if err != nil || m.Kind != wire.KindResult || !m.StripRefused || m.Outcome != wire.OutcomeProgramFailed {
			t.Fatalf("in process %v: got %+v %v, want a stripRefused result", inProcess, m, err)
		}
		c.Close()
		d.Close()
	}
}
