package remote_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers"
	"github.com/codemode-go/codemode/drivers/remote"
	"github.com/codemode-go/codemode/internal/runnerhost"
)

// countingDriver counts the runtimes a runner host boots for its clients.
type countingDriver struct {
	drivers.Driver
	connects atomic.Int64
}

func (d *countingDriver) Connect(ctx context.Context, req drivers.ConnectRequest) (drivers.Connection, error) {
	d.connects.Add(1)
	return d.Driver.Connect(ctx, req)
}

// TestPoolOverHosts: a pool over two runner hosts (one Address naming
// both) spreads its runtimes over them, and when one host dies the pool
// replaces its runtimes with runtimes on the other, so executions go on.
func TestPoolOverHosts(t *testing.T) {
	local := quickjsDriver(t)
	a, b := &countingDriver{Driver: local}, &countingDriver{Driver: local}
	ha := startHost(t, a, runnerhost.ServerOptions{})
	hb := startHost(t, b, runnerhost.ServerOptions{})
	d, err := remote.New(remote.Options{Address: ha.addr + ", " + hb.addr, Token: token})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	const size = 4
	p, err := client.NewPool(ctx, d, client.PoolOptions{Size: size})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	if a.connects.Load() != size/2 || b.connects.Load() != size/2 {
		t.Fatalf("the pool's %d runtimes went %d to host a and %d to host b, want an even spread", size, a.connects.Load(), b.connects.Load())
	}
	k, _ := contract.New()
	c := client.New(p, k)
	run := func() (*client.Outcome, error) {
		return c.Run(ctx, `export default async function () { return 6 * 7; }`, client.RunOptions{})
	}
	for range 2 * size {
		if out, err := run(); err != nil || out.Kind != client.Success {
			t.Fatalf("before the failure: %+v %v", out, err)
		}
	}
	_ = ha.srv.Close()
	before := b.connects.Load()
	// An execution sent to a dead host's runtime before the client saw the
	// connection close fails (it may have started: it is not run again);
	// each such runtime is then replaced by one on host b. The pool's
	// executions are sequential here, so at most one fails per runtime
	// that was on host a, and all later ones succeed.
	failed := 0
	for i := range 4 * size {
		out, err := run()
		switch {
		case err != nil && errors.Is(err, client.ErrRuntimeFailed) && i < size:
			failed++
		case err != nil || out.Kind != client.Success || string(out.Value) != "42":
			t.Fatalf("execution %d after host a died: %+v %v", i, out, err)
		}
	}
	if failed > size/2 {
		t.Errorf("%d executions failed after host a died, want at most the %d runtimes it held", failed, size/2)
	}
	if got := b.connects.Load() - before; got < size/2 {
		t.Errorf("host b booted %d runtimes after host a died, want at least the %d that were on a", got, size/2)
	}
	if !strings.Contains(d.Description(), ha.addr) {
		t.Errorf("the description %q does not name the hosts", d.Description())
	}
}

// TestAddressList: every address of a list is checked.
func TestAddressList(t *testing.T) {
	for _, tc := range []struct {
		addr string
		ok   bool
	}{
		{"127.0.0.1:1", true},
		{"127.0.0.1:1,127.0.0.1:2", true},
		{"unix:/tmp/a.sock, runner.example:7311", true},
		{"127.0.0.1:1,", false},
		{"127.0.0.1:1,nohostport", false},
	} {
		_, err := remote.New(remote.Options{Address: tc.addr, Token: token})
		if (err == nil) != tc.ok {
			t.Errorf("New(%q): %v, want ok=%v", tc.addr, err, tc.ok)
		}
	}
}

// TestAddressName: a host name counts as each address it resolves to;
// one that refuses (localhost's ::1, where the host does not listen) is
// skipped for the next.
func TestAddressName(t *testing.T) {
	h := startHost(t, quickjsDriver(t), runnerhost.ServerOptions{})
	_, port, _ := strings.Cut(h.addr, ":")
	d, err := remote.New(remote.Options{Address: "localhost:" + port, Token: token})
	if err != nil {
		t.Fatal(err)
	}
	p, err := client.NewPool(context.Background(), d, client.PoolOptions{Size: 3})
	if err != nil {
		t.Fatalf("a pool over localhost:%s: %v", port, err)
	}
	_ = p.Close()
}
