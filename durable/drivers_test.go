package durable_test

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/drivers/node"
	"github.com/codemode-go/codemode/drivers/quickjs"
	"github.com/codemode-go/codemode/drivers/remote"
	"github.com/codemode-go/codemode/internal/nodetest"
	"github.com/codemode-go/codemode/internal/runnerhost"
)

// The durable scenarios run on every driver: the shared QuickJS runtime, a
// Node.js 24 child process, and a runner host (drivers/remote) serving
// QuickJS on a Unix socket. Each is booted once per test process and closed
// by TestMain (closeDrivers).
type driverCase struct {
	name string
	open func(t testing.TB) client.Executor
}

func onEveryDriver(t *testing.T, test func(t *testing.T, ex client.Executor)) {
	for _, d := range []driverCase{{"quickjs", executor}, {"node", nodeExecutor}, {"remote", remoteExecutor}} {
		t.Run(d.name, func(t *testing.T) { test(t, d.open(t)) })
	}
}

// booted is a runtime started once for the package's tests.
type booted struct {
	once  sync.Once
	rt    *client.Runtime
	err   error
	skip  string
	close []func()
}

var (
	nodeRuntime   booted
	remoteRuntime booted
)

// closeDrivers stops the Node.js and runner-host runtimes (TestMain).
func closeDrivers() {
	for _, b := range []*booted{&nodeRuntime, &remoteRuntime} {
		for i := len(b.close) - 1; i >= 0; i-- {
			b.close[i]()
		}
	}
}

func (b *booted) get(t testing.TB, boot func(b *booted)) client.Executor {
	t.Helper()
	b.once.Do(func() { boot(b) })
	if b.skip != "" {
		if os.Getenv("CODEMODE_REQUIRE_NODE") != "" {
			t.Fatal(b.skip)
		}
		t.Skip(b.skip)
	}
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.rt
}

func nodeExecutor(t testing.TB) client.Executor {
	return nodeRuntime.get(t, func(b *booted) {
		path := nodetest.Path()
		if path == "" {
			b.skip = "no Node.js: install Node.js 24 (the project's .tools, or on PATH)"
			return
		}
		d := node.New(node.Options{NodePath: path})
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if _, err := d.Version(ctx); err != nil {
			b.skip = err.Error()
			return
		}
		b.rt, b.err = client.NewRuntime(ctx, d)
		if b.err == nil {
			b.close = append(b.close, func() { b.rt.Close() })
		}
	})
}

var remoteToken = []byte("0123456789abcdef0123456789abcdef")

func remoteExecutor(t testing.TB) client.Executor {
	return remoteRuntime.get(t, func(b *booted) {
		dir, err := os.MkdirTemp("", "durable-remote-")
		if err != nil {
			b.err = err
			return
		}
		b.close = append(b.close, func() { os.RemoveAll(dir) })
		host := quickjs.New(quickjs.Options{Timeout: 10 * time.Second})
		b.close = append(b.close, func() { host.Close() })
		srv, err := runnerhost.NewServer(runnerhost.ServerOptions{Driver: host, Token: remoteToken, HandshakeTimeout: 5 * time.Minute})
		if err != nil {
			b.err = err
			return
		}
		addr := "unix:" + filepath.Join(dir, "runner.sock")
		l, err := runnerhost.Listen(addr)
		if err != nil {
			b.err = err
			return
		}
		served := make(chan struct{})
		go func() { defer close(served); _ = srv.Serve(l) }()
		b.close = append(b.close, func() { srv.Close(); <-served })
		// The host boots QuickJS during the handshake: minutes under -race
		// on a loaded machine.
		d, err := remote.New(remote.Options{Address: addr, Token: remoteToken, HandshakeTimeout: 5 * time.Minute})
		if err != nil {
			b.err = err
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		b.rt, b.err = client.NewRuntime(ctx, d)
		if b.err == nil {
			b.close = append(b.close, func() { b.rt.Close() })
		}
	})
}
