package client_test

import (
	"context"
	"fmt"
	"net"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/drivers/quickjs"
	"github.com/codemode-go/codemode/internal/wire"
)

// scopeRequest is an execution whose namespaces are named by their digest.
func scopeRequest() client.ExecuteRequest {
	ns := map[string][]string{"github": {"a", "b"}, "slack": {"post"}}
	list := []wire.Namespace{{Name: "github", Tools: ns["github"]}, {Name: "slack", Tools: ns["slack"]}}
	return client.ExecuteRequest{Source: "export default () => {}", Filename: "a.js", Namespaces: ns, Scope: wire.ScopeDigest(list)}
}

// The scope of wire 1.2 goes only to a runner that speaks 1.2, and alone
// only after the runtime sent it with its list.
func TestScopeSentByVersion(t *testing.T) {
	ctx := context.Background()
	req := scopeRequest()
	full := []wire.Namespace{{Name: "github", Tools: []string{"a", "b"}}, {Name: "slack", Tools: []string{"post"}}}
	tests := []struct {
		name      string
		versions  *wire.VersionRange
		wantScope []string
		wantList  []bool
	}{
		{"a 1.2 runner: the list once, then the scope alone", &wire.Supported,
			[]string{req.Scope, req.Scope, req.Scope}, []bool{true, false, false}},
		{"a 1.1 runner: the list every time, no scope", &wire.VersionRange{Min: wire.Version{Major: 1}, Max: wire.Version{Major: 1, Minor: 1}},
			[]string{"", "", ""}, []bool{true, true, true}},
		{"a 1.0 runner: the list every time, no scope", nil,
			[]string{"", "", ""}, []bool{true, true, true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := &readyDriver{ready: &wire.Message{Kind: wire.KindReady, Version: 1, Versions: tt.versions, Runner: "test"}}
			rt, err := client.NewRuntime(ctx, d)
			if err != nil {
				t.Fatal(err)
			}
			defer rt.Close()
			for range tt.wantScope {
				if out, err := rt.Execute(ctx, req); err != nil || out.Kind != client.Success {
					t.Fatalf("%+v %v", out, err)
				}
			}
			d.mu.Lock()
			defer d.mu.Unlock()
			if len(d.got) != len(tt.wantScope) {
				t.Fatalf("the runner received %d messages, want %d", len(d.got), len(tt.wantScope))
			}
			for i, m := range d.got {
				if m.Scope != tt.wantScope[i] {
					t.Errorf("execute %d: scope %q, want %q", i, m.Scope, tt.wantScope[i])
				}
				if tt.wantList[i] && !reflect.DeepEqual(m.Namespaces, full) || !tt.wantList[i] && m.Namespaces != nil {
					t.Errorf("execute %d: namespaces %v, want the list: %v", i, m.Namespaces, tt.wantList[i])
				}
			}
		})
	}
}

// forgetfulDriver plays a 1.2 runner that keeps no scope: it answers every
// execute that names a scope alone with scopeUnknown (or, with lies set,
// also those that carry the list), and records what it received.
func forgetfulDriver(lies bool, got *[]*wire.Message, mu *sync.Mutex) *pipeDriver {
	return &pipeDriver{serve: func(r *wire.Reader, w *wire.Writer, _ net.Conn) {
		for {
			m, err := r.Read()
			if err != nil {
				return
			}
			mu.Lock()
			*got = append(*got, m)
			mu.Unlock()
			if m.Kind != wire.KindExecute {
				continue
			}
			if m.Scope != "" && (m.Namespaces == nil || lies) {
				_ = w.Write(&wire.Message{Kind: wire.KindResult, Execution: m.Execution, Outcome: wire.OutcomeProgramFailed,
					Error: &wire.Error{Name: "InternalError", Message: "unknown scope"}, ScopeUnknown: true})
				continue
			}
			_ = w.Write(&wire.Message{Kind: wire.KindResult, Execution: m.Execution, Outcome: wire.OutcomeSuccess, Value: []byte(`1`)})
		}
	}}
}

// A runner that no longer keeps a scope (restarted, evicted) answers
// scopeUnknown; nothing ran, so the host sends the execution once more,
// under a new id, with the list.
func TestScopeUnknownIsSentAgainWithTheList(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	var got []*wire.Message
	d := forgetfulDriver(false, &got, &mu)
	rt, err := client.NewRuntime(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	defer d.wg.Wait()
	defer rt.Close()
	req := scopeRequest()
	for i := range 3 {
		out, err := rt.Execute(ctx, req)
		if err != nil || out.Kind != client.Success || string(out.Value) != "1" {
			t.Fatalf("execution %d: %+v %v", i, out, err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	// The list; the scope alone, refused, then the list again; and so on.
	want := []bool{true, false, true, false, true}
	if len(got) != len(want) {
		t.Fatalf("the runner received %d messages, want %d", len(got), len(want))
	}
	ids := map[uint64]bool{}
	for i, m := range got {
		if (m.Namespaces != nil) != want[i] || m.Scope != req.Scope {
			t.Errorf("execute %d: namespaces %v, scope %q; want the list %v and the scope", i, m.Namespaces, m.Scope, want[i])
		}
		if ids[m.Execution] {
			t.Errorf("execute %d reuses execution id %d", i, m.Execution)
		}
		ids[m.Execution] = true
	}
}

// A runner that answers scopeUnknown to the list itself is not sent it
// forever: the execution fails with an InternalError naming the scope.
func TestScopeUnknownWithTheListFails(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	var got []*wire.Message
	d := forgetfulDriver(true, &got, &mu)
	rt, err := client.NewRuntime(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	defer d.wg.Wait()
	defer rt.Close()
	req := scopeRequest()
	for i := range 2 {
		out, err := rt.Execute(ctx, req)
		if err != nil || out.Kind != client.ProgramFailed || out.Error.Name != "InternalError" || !strings.Contains(out.Error.Message, req.Scope) {
			t.Fatalf("execution %d: %+v %v", i, out, err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) > 3 {
		t.Fatalf("the runner received %d messages for two executions", len(got))
	}
}

// On a real runner, the execute message of a catalogue the runtime already
// sent is the same size with 1,000 tools as with one: the list travels once.
func TestScopeKeepsExecuteMessagesSmall(t *testing.T) {
	ctx := context.Background()
	for _, inProcess := range []bool{false, true} {
		t.Run(fmt.Sprintf("in process %v", inProcess), func(t *testing.T) {
			d := &countingDriver{Driver: quickjs.New(quickjs.Options{InProcess: inProcess})}
			rt, err := client.NewRuntime(ctx, d)
			if err != nil {
				t.Fatal(err)
			}
			defer rt.Close()
			const src = `export default async function ({ github }) { return Object.keys(github).length; }`
			for _, n := range []int{1, 1000} {
				cl := client.New(rt, catalogue(t, n))
				var sizes []int64
				for range 3 {
					before := d.written.Load()
					out, err := cl.Run(ctx, src, client.RunOptions{})
					if err != nil || out.Kind != client.Success || string(out.Value) != fmt.Sprint(n) {
						t.Fatalf("%d tools: %+v %v", n, out, err)
					}
					sizes = append(sizes, d.written.Load()-before)
				}
				if n == 1000 && sizes[0] < 20_000 {
					t.Fatalf("%d tools: the first execute message is %d bytes, too small to hold the list", n, sizes[0])
				}
				if sizes[1] > 1024 || sizes[2] > 1024 {
					t.Fatalf("%d tools: execute messages of %v bytes; after the first they should carry the scope alone", n, sizes)
				}
			}
		})
	}
}
