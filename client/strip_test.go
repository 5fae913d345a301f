package client_test

import (
	"context"
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/internal/wire"
)

// sent is an execute message as a test runner received it.
type sent struct {
	id         uint64
	source     string
	typeScript bool
}

// strippingRunner records each execute message and answers it: a program
// sent as TypeScript is refused (stripRefused) when refuse says so, and
// otherwise succeeds with the value 1.
func strippingRunner(refuse func(source string) bool, mu *sync.Mutex, got *[]sent) func(r *wire.Reader, w *wire.Writer, conn net.Conn) {
	return answerExecutes(func(m *wire.Message, w *wire.Writer, _ net.Conn) error {
		mu.Lock()
		*got = append(*got, sent{m.Execution, m.Source, m.TypeScript})
		mu.Unlock()
		if m.TypeScript && refuse(m.Source) {
			return w.Write(&wire.Message{Kind: wire.KindResult, Execution: m.Execution, Outcome: wire.OutcomeProgramFailed,
				Error: &wire.Error{Name: "SyntaxError", Message: "refused"}, StripRefused: true})
		}
		return w.Write(&wire.Message{Kind: wire.KindResult, Execution: m.Execution, Outcome: wire.OutcomeSuccess, Value: []byte("1")})
	})
}

// TestTypeStripping: to a runner that strips TypeScript itself (wire 1.4)
// the client sends a module as it was written, and the JavaScript it
// erased only when the runner refuses it, or when blanking the types could
// change the module's meaning or positions (imports, exports other than the
// default, classes, a byte order mark); a syntax error the erasure then
// finds is the program's failure, as it always was.
func TestTypeStripping(t *testing.T) {
	const typed = "export default async function (): Promise<number> { const n: number = 1; return n; }\n"
	tests := []struct {
		name       string
		offers     bool // the runner's ready says typeScript
		source     string
		refuse     bool
		wantSent   []bool // typeScript of each execute message sent
		wantSyntax bool   // the outcome is esbuild's SyntaxError
	}{
		{"stripped by the runner", true, typed, false, []bool{true}, false},
		{"refused, then erased here", true, typed, true, []bool{true, false}, false},
		{"refused, and a syntax error here", true, "export default async function () { const n: number = ; }\n", true, []bool{true}, true},
		{"a runner that does not strip", false, typed, false, []bool{false}, false},
		{"an import", true, "import { x } from \"node:os\";\n" + typed, false, []bool{false}, false},
		{"an export list", true, "const a: number = 1;\nexport { a };\n" + typed, false, []bool{false}, false},
		{"an export list after a comment", true, "const a: number = 1;\nexport/**/{ a };\n" + typed, false, []bool{false}, false},
		{"another export", true, "export const a: number = 1;\n" + typed, false, []bool{false}, false},
		{"a class", true, "class A { x = 1\n declare y: number\n ['z'] = 2 }\n" + typed, false, []bool{false}, false},
		{"a byte order mark", true, "\uFEFF" + typed, false, []bool{false}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			var got []sent
			d := &pipeDriver{typeScript: tt.offers, serve: strippingRunner(func(string) bool { return tt.refuse }, &mu, &got)}
			rt, err := client.NewRuntime(context.Background(), d)
			if err != nil {
				t.Fatal(err)
			}
			defer rt.Close()
			k, err := contract.New()
			if err != nil {
				t.Fatal(err)
			}
			out, err := client.New(rt, k).Run(context.Background(), tt.source, client.RunOptions{})
			if err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(got) != len(tt.wantSent) {
				t.Fatalf("%d execute messages %+v, want %d", len(got), got, len(tt.wantSent))
			}
			for i, m := range got {
				if m.typeScript != tt.wantSent[i] {
					t.Errorf("message %d: typeScript %v, want %v", i, m.typeScript, tt.wantSent[i])
				}
				if m.typeScript && m.source != tt.source {
					t.Errorf("message %d: TypeScript sent as %q, not as written", i, m.source)
				}
				if !m.typeScript && strings.Contains(m.source, ": number") {
					t.Errorf("message %d: JavaScript with types left: %q", i, m.source)
				}
				if i > 0 && m.id == got[i-1].id {
					t.Errorf("message %d: sent again under the same id %d", i, m.id)
				}
			}
			if tt.wantSyntax {
				if out.Kind != client.ProgramFailed || out.Error.Name != "SyntaxError" || !strings.Contains(out.Error.Message, "agent.ts:1:") {
					t.Fatalf("outcome %s %+v, want the erasure's SyntaxError", out.Kind, out.Error)
				}
				return
			}
			if out.Kind != client.Success || string(out.Value) != "1" {
				t.Fatalf("outcome %s %+v %s", out.Kind, out.Error, out.Value)
			}
		})
	}
}

// A runner that did not offer to strip and is sent TypeScript anyway would
// refuse it; a runner that answers stripRefused to JavaScript is
// misbehaving, and the execution fails with an InternalError.
func TestStripRefusedToJavaScript(t *testing.T) {
	d := &pipeDriver{serve: answerExecutes(func(m *wire.Message, w *wire.Writer, _ net.Conn) error {
		return w.Write(&wire.Message{Kind: wire.KindResult, Execution: m.Execution, Outcome: wire.OutcomeProgramFailed,
			Error: &wire.Error{Name: "SyntaxError", Message: "refused"}, StripRefused: true})
	})}
	rt, err := client.NewRuntime(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	out, err := rt.Execute(context.Background(), client.ExecuteRequest{Source: "export default async function () {}", Filename: "agent.ts"})
	if err != nil {
		t.Fatal(err)
	}
	if out.Kind != client.ProgramFailed || out.Error.Name != "InternalError" || !strings.Contains(out.Error.Message, "sent as JavaScript") {
		t.Fatalf("outcome %s %+v", out.Kind, out.Error)
	}
}
