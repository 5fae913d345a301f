package quickjs

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
)

// TestScopeSentAgainIsPrebuilt runs one program source after another with
// the client's own setup (codemode.step and codemode.run) and checks that
// the second run started the scope's build into the snapshot, once, and
// that the runs after it see the setup's members.
func TestScopeSentAgainIsPrebuilt(t *testing.T) {
	d := New(Options{InProcess: true})
	t.Cleanup(func() { _ = d.Close() })
	rt, err := client.NewRuntime(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Close() })
	k, err := contract.New()
	if err != nil {
		t.Fatal(err)
	}
	c := client.New(rt, k)
	for i := range 5 {
		out, err := c.Run(context.Background(), "export default async ({ codemode }: any) => typeof codemode.step + typeof codemode.run\n// "+strconv.Itoa(i), client.RunOptions{})
		if err != nil || out.Kind != client.Success || string(out.Value) != `"functionfunction"` {
			t.Fatalf("run %d: %+v %v", i, out, err)
		}
		for end := time.Now().Add(30 * time.Second); !PrebuildsSettled(d); time.Sleep(time.Millisecond) {
			if time.Now().After(end) {
				t.Fatal("the build did not end in 30 s")
			}
		}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.templates) != 1 {
		t.Fatalf("%d templates", len(d.templates))
	}
	for _, tpl := range d.templates {
		_, gen := tpl.current()
		tpl.prebuilt.mu.Lock()
		defer tpl.prebuilt.mu.Unlock()
		if gen != 1 || len(tpl.prebuilt.entries) != 1 {
			t.Fatalf("snapshot generation %d and %d prebuilt scopes, want 1 and 1", gen, len(tpl.prebuilt.entries))
		}
		for _, e := range tpl.prebuilt.entries {
			if e.id != 1 || e.gen != 1 || e.building || e.failed {
				t.Fatalf("prebuilt scope %+v", *e)
			}
		}
	}
}

// TestPrebuildLookup: a scope is built on its second sighting, once, and
// no more than maxPrebuilt are.
func TestPrebuildLookup(t *testing.T) {
	var p prebuilds
	key := func(name string) scopeKey { return scopeKey{names: name} }
	if id, e := p.lookup(key("a"), 0); id != 0 || e != nil {
		t.Fatalf("first sighting: %d %v", id, e)
	}
	id, e := p.lookup(key("a"), 0)
	if id != 0 || e == nil || e.id != 1 {
		t.Fatalf("second sighting: %d %+v", id, e)
	}
	if id, _ := p.lookup(key("a"), 5); id != 0 {
		t.Fatalf("ready while building: %d", id)
	}
	// While a builds, b's second sighting waits for no build: it is built
	// at its next sighting.
	p.lookup(key("b"), 0)
	if id, b := p.lookup(key("b"), 0); id != 0 || b != nil {
		t.Fatalf("second sighting during another build: %d %+v", id, b)
	}
	p.settle(key("a"), e, 3, nil)
	_, b := p.lookup(key("b"), 0)
	if b == nil || b.id != 2 {
		t.Fatalf("third sighting after the build: %+v", b)
	}
	p.settle(key("b"), b, 4, errPrebuild)
	if _, again := p.lookup(key("a"), 0); again != nil {
		t.Fatalf("third sighting: %+v, want no build", again)
	}
	if id, _ := p.lookup(key("a"), 2); id != 0 {
		t.Fatalf("ready in an engine of an older snapshot: %d", id)
	}
	if id, _ := p.lookup(key("a"), 3); id != 1 {
		t.Fatalf("ready: %d, want 1", id)
	}
	// Scopes that cannot be built do not count against maxPrebuilt; those
	// built do.
	for i := range 2 * maxPrebuilt {
		k := key("bad" + strconv.Itoa(i))
		p.lookup(k, 0)
		_, e := p.lookup(k, 0)
		if e == nil {
			t.Fatalf("%v: no build", k)
		}
		p.settle(k, e, 0, errPrebuild)
	}
	built := 1 // a
	for i := range 2 * maxPrebuilt {
		k := key("good" + strconv.Itoa(i))
		p.lookup(k, 0)
		if _, e := p.lookup(k, 0); e != nil {
			p.settle(k, e, uint64(10+i), nil)
			built++
		}
	}
	if built != maxPrebuilt {
		t.Fatalf("%d scopes built, want %d", built, maxPrebuilt)
	}
	// A build stopped for a reason of its own (the server closed, no engine
	// slot, an engine that failed) is forgotten: the scope is built again
	// later.
	var q prebuilds
	q.lookup(key("b"), 0)
	_, e = q.lookup(key("b"), 0)
	q.settle(key("b"), e, 0, context.Canceled)
	q.lookup(key("b"), 0)
	if _, again := q.lookup(key("b"), 0); again == nil || again.id == e.id {
		t.Fatalf("after a stopped build: %+v, want a new build with a new number", again)
	}
}
