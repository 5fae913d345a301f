package remote_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers"
	"github.com/codemode-go/codemode/drivers/quickjs"
	"github.com/codemode-go/codemode/drivers/remote"
	"github.com/codemode-go/codemode/internal/runnerhost"
)

// quickjsDriver returns a QuickJS driver for a host, warmed by one boot so
// that the first remote connection does not wait for QuickJS to compile.
// These tests are about the runner host and its protocol, so the engines
// run in process (drivers/quickjs tests the sandbox process). A host that
// boots a sandbox process per connection made connections in this package's
// race-detector run fail their handshake with EOF: booting a sandbox
// process per connection, many at once under the race detector, can outlast
// the handshake deadline, and the refusal saying so was written after the
// deadline and lost (TestSlowBootIsRefusedClearly now pins the refusal).
func quickjsDriver(t testing.TB) *quickjs.Driver {
	t.Helper()
	d := quickjs.New(quickjs.Options{CacheDir: cacheDir, InProcess: true})
	t.Cleanup(func() { _ = d.Close() })
	rt, err := client.NewRuntime(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	_ = rt.Close()
	return d
}

// runOK runs a program that needs no tools and fails the test unless it
// succeeds: the host still serves.
func runOK(t *testing.T, rt *client.Runtime) {
	t.Helper()
	k, _ := contract.New()
	out, err := client.New(rt, k).Run(context.Background(), `export default async function ({ result }) { result.appendText("ok"); }`, client.RunOptions{})
	if err != nil || out.Kind != client.Success || out.Content[0].Text != "ok" {
		t.Fatalf("a good client's run: %+v %v", out, err)
	}
}

func TestAuthenticationFailures(t *testing.T) {
	h := startHost(t, quickjsDriver(t), runnerhost.ServerOptions{})
	for _, tc := range []struct {
		name  string
		token []byte
		want  error
	}{
		{"wrong token", []byte("fedcba9876543210fedcba9876543210"), remote.ErrAuthFailed},
		{"token prefix", token[:16], remote.ErrAuthFailed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := measure()
			d, err := remote.New(remote.Options{Address: h.addr, Token: tc.token})
			if err != nil {
				t.Fatal(err)
			}
			_, err = client.NewRuntime(context.Background(), d)
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), "remote runner: authentication failed") {
				t.Fatalf("NewRuntime = %v, want %v", err, tc.want)
			}
			if _, err := d.TypeDefinitionFiles(context.Background()); !errors.Is(err, tc.want) {
				t.Fatalf("TypeDefinitionFiles = %v, want %v", err, tc.want)
			}
			noLeaks(t, before)
			runOK(t, h.runtime(t))
		})
	}
}

// TestGarbageBeforeAuthentication: whatever a client sends instead of a
// valid auth, only its connection ends; nothing leaks and the host serves
// the next client.
func TestGarbageBeforeAuthentication(t *testing.T) {
	h := startHost(t, quickjsDriver(t), runnerhost.ServerOptions{HandshakeTimeout: 2 * time.Second})
	frame := func(payload []byte) []byte {
		return binary.BigEndian.AppendUint32(nil, uint32(len(payload)))
	}
	for _, tc := range []struct {
		name  string
		bytes []byte
	}{
		{"HTTP request", []byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n")},
		{"huge length prefix", []byte{0x7f, 0xff, 0xff, 0xff}},
		{"length just past the limit", binary.BigEndian.AppendUint32(nil, 1025)},
		{"random CBOR", append(frame([]byte{0xa1, 0x00, 0x02}), 0xa1, 0x00, 0x02)},
		{"not CBOR", append(frame(bytes.Repeat([]byte{0xff}, 9)), bytes.Repeat([]byte{0xff}, 9)...)},
		{"cut inside a frame", []byte{0, 0, 0, 100, 1, 2}},
		{"nothing (handshake deadline)", nil},
		{"a wire execute frame", append(frame([]byte{0xa2, 0x00, 0x02, 0x01, 0x01}), 0xa2, 0x00, 0x02, 0x01, 0x01)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			waitFor(t, "the previous runtime to close", func() bool { return h.srv.ActiveConnections() == 0 })
			before := measure()
			c, err := net.Dial("tcp", h.addr)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.Write(tc.bytes); err != nil {
				t.Fatal(err)
			}
			if tc.name == "cut inside a frame" {
				_ = c.(*net.TCPConn).CloseWrite()
			}
			// The host greets, may name the fault, then closes.
			rest, err := io.ReadAll(c)
			_ = c.Close()
			if err != nil && !errors.Is(err, syscall.ECONNRESET) {
				t.Fatalf("reading until the host closes: %v", err)
			}
			if len(rest) == 0 {
				t.Fatal("the host sent no hello")
			}
			if h.srv.ActiveConnections() != 0 {
				t.Fatalf("%d runtimes after garbage", h.srv.ActiveConnections())
			}
			noLeaks(t, before)
			runOK(t, h.runtime(t))
		})
	}
}

// TestConnectionLimit: connections past the limit are refused with a clear
// error; the ones inside it keep working, and a freed slot is reusable.
func TestConnectionLimit(t *testing.T) {
	const limit, flood = 4, 24
	// All from one address: the per-address and per-network handshake caps
	// must not be what refuses.
	h := startHost(t, quickjsDriver(t), runnerhost.ServerOptions{MaxConnections: limit, MaxHandshakesPerAddress: flood, MaxHandshakesPerNetwork: flood})
	d := h.driver(t)
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		runtimes []*client.Runtime
		refused  []error
	)
	for i := 0; i < flood; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rt, err := client.NewRuntime(context.Background(), d)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				refused = append(refused, err)
				return
			}
			runtimes = append(runtimes, rt)
		}()
	}
	wg.Wait()
	if len(runtimes) != limit || len(refused) != flood-limit {
		t.Fatalf("%d runtimes and %d refusals, want %d and %d: %v", len(runtimes), len(refused), limit, flood-limit, refused)
	}
	for _, err := range refused {
		if !errors.Is(err, remote.ErrRefused) || !strings.Contains(err.Error(), "connection refused: limit of 4 connections reached") {
			t.Fatalf("refusal: %v", err)
		}
	}
	for _, rt := range runtimes {
		runOK(t, rt)
	}
	_ = runtimes[0].Close()
	waitFor(t, "the host to free the closed runtime's slot", func() bool { return h.srv.ActiveConnections() == limit-1 })
	runOK(t, h.runtime(t))
	for _, rt := range runtimes[1:] {
		_ = rt.Close()
	}
}

// TestThousandBlockedExecutionsOnOneConnection: 1,000 executions in flight
// on one remote runtime, each blocked in a tool call, all succeed once
// released.
func TestThousandBlockedExecutionsOnOneConnection(t *testing.T) {
	if testing.Short() {
		t.Skip("1,000 QuickJS engines")
	}
	const n = 1000
	// Booting 1,000 engines on two busy cores can take most of a minute:
	// the deadline here is generous on both the runner and the host.
	const deadline = 5 * time.Minute
	d := quickjs.New(quickjs.Options{CacheDir: cacheDir, Timeout: deadline, InProcess: true})
	t.Cleanup(func() { _ = d.Close() })
	h := startHost(t, d, runnerhost.ServerOptions{})
	rt := h.runtime(t)
	started := make(chan struct{}, n)
	release := make(chan struct{})
	c := gateClient(t, rt, started, release)
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		go func() {
			out, err := c.Run(context.Background(), gateProgram(fmt.Sprint(i)), client.RunOptions{Limits: client.Limits{Timeout: deadline}})
			switch {
			case err != nil:
				errs <- err
			case out.Kind != client.Success || out.Content[0].Text != fmt.Sprint(i):
				errs <- fmt.Errorf("execution %d: %+v", i, out)
			default:
				errs <- nil
			}
		}()
	}
	for i := 0; i < n; i++ {
		select {
		case <-started:
		case err := <-errs:
			t.Fatalf("after %d calls started: %v", i, err)
		}
	}
	close(release)
	for i := 0; i < n; i++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// TestDroppedConnectionFreesHostResources: a client that goes away in the
// middle of executions makes the host close that runtime (its engines and
// goroutines) and nothing else.
func TestDroppedConnectionFreesHostResources(t *testing.T) {
	for _, tc := range []struct {
		name  string
		local func(t *testing.T) drivers.Driver
	}{
		{"quickjs", func(t *testing.T) drivers.Driver { return quickjsDriver(t) }},
		{"node", func(t *testing.T) drivers.Driver { return nodeDriver(t) }},
	} {
		t.Run(tc.name, func(t *testing.T) { droppedConnection(t, tc.local(t)) })
	}
}

func droppedConnection(t *testing.T, local drivers.Driver) {
	h := startHost(t, local, runnerhost.ServerOptions{})
	other := h.runtime(t)
	runOK(t, other)
	before := measure()

	rt, err := client.NewRuntime(context.Background(), h.driver(t))
	if err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{}, 3)
	c := gateClient(t, rt, started, make(chan struct{}))
	errs := make(chan error, 3)
	for i := 0; i < 3; i++ {
		go func() {
			_, err := c.Run(context.Background(), gateProgram("x"), client.RunOptions{})
			errs <- err
		}()
	}
	for i := 0; i < 3; i++ {
		<-started
	}
	if h.srv.ActiveConnections() != 2 {
		t.Fatalf("%d runtimes on the host, want 2", h.srv.ActiveConnections())
	}
	_ = rt.Close()
	for i := 0; i < 3; i++ {
		if err := <-errs; !errors.Is(err, client.ErrRuntimeClosed) {
			t.Fatalf("Run = %v, want ErrRuntimeClosed", err)
		}
	}
	waitFor(t, "the host to close the dropped runtime", func() bool { return h.srv.ActiveConnections() == 1 })
	noLeaks(t, before)
	runOK(t, other)
}

// TestConnectionsAreIsolated: two connections use the same execution ids
// at the same time; each sees only its own results.
func TestConnectionsAreIsolated(t *testing.T) {
	h := startHost(t, quickjsDriver(t), runnerhost.ServerOptions{})
	a, b := h.runtime(t), h.runtime(t)
	k, _ := contract.New()
	var wg sync.WaitGroup
	for _, side := range []struct {
		name string
		rt   *client.Runtime
	}{{"a", a}, {"b", b}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cl := client.New(side.rt, k)
			for i := 0; i < 50; i++ {
				out, err := cl.Run(context.Background(), fmt.Sprintf(`export default async function ({ result }) { result.appendText(%q); }`, side.name), client.RunOptions{})
				if err != nil || out.Kind != client.Success || out.Content[0].Text != side.name {
					t.Errorf("runtime %s, run %d: %+v %v", side.name, i, out, err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// TestShutdownDrainsInFlightExecutions: Shutdown lets an in-flight
// execution finish, answers new executions with RunnerDrainingError,
// refuses new connections, and closes the connection after its last
// execution.
func TestShutdownDrainsInFlightExecutions(t *testing.T) {
	h := startHost(t, quickjsDriver(t), runnerhost.ServerOptions{})
	rt := h.runtime(t)
	idle := h.runtime(t)
	started := make(chan struct{}, 1)
	release := make(chan struct{})
	c := gateClient(t, rt, started, release)
	type result struct {
		out *client.Outcome
		err error
	}
	inflight := make(chan result, 1)
	go func() {
		out, err := c.Run(context.Background(), gateProgram("finished"), client.RunOptions{})
		inflight <- result{out, err}
	}()
	<-started
	shutdown := make(chan error, 1)
	go func() { shutdown <- h.srv.Shutdown(context.Background()) }()

	// The idle connection is closed at once; the busy one refuses new work.
	<-idle.Done()
	if f := idle.Err(); !errors.Is(f, client.ErrRuntimeFailed) || !errors.Is(f, remote.ErrConnectionLost) {
		t.Fatalf("idle runtime: %+v", f)
	}
	out, err := c.Run(context.Background(), gateProgram("late"), client.RunOptions{})
	if err != nil || out.Kind != client.ProgramFailed || out.Error.Name != "RunnerDrainingError" || !strings.Contains(out.Error.Message, "draining") {
		t.Fatalf("execute during drain: %+v %v", out, err)
	}
	if _, err := client.NewRuntime(context.Background(), h.driver(t)); err == nil {
		t.Fatal("a new connection was accepted during drain")
	}
	select {
	case err := <-shutdown:
		t.Fatalf("Shutdown returned %v with an execution in flight", err)
	default:
	}
	close(release)
	if r := <-inflight; r.err != nil || r.out.Kind != client.Success || r.out.Content[0].Text != "finished" {
		t.Fatalf("in-flight execution: %+v %v", r.out, r.err)
	}
	if err := <-shutdown; err != nil {
		t.Fatalf("Shutdown = %v", err)
	}
	<-rt.Done()
}

// TestShutdownDeadlineClosesRemainingConnections: when the drain outlasts
// Shutdown's context, the remaining executions fail with a lost connection.
func TestShutdownDeadlineClosesRemainingConnections(t *testing.T) {
	h := startHost(t, quickjsDriver(t), runnerhost.ServerOptions{})
	rt := h.runtime(t)
	started := make(chan struct{}, 1)
	c := gateClient(t, rt, started, make(chan struct{}))
	errc := make(chan error, 1)
	go func() {
		_, err := c.Run(context.Background(), gateProgram("x"), client.RunOptions{})
		errc <- err
	}()
	<-started
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := h.srv.Shutdown(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Shutdown = %v, want context.Canceled", err)
	}
	if err := <-errc; !errors.Is(err, client.ErrRuntimeFailed) || !strings.Contains(err.Error(), "remote runner connection lost") {
		t.Fatalf("Run = %v", err)
	}
}

// TestIdleConnectionIsClosed: a connection with nothing in flight and no
// traffic is closed after the idle timeout; one whose execution is blocked
// longer than that is not.
func TestIdleConnectionIsClosed(t *testing.T) {
	const idle = 100 * time.Millisecond
	h := startHost(t, quickjsDriver(t), runnerhost.ServerOptions{IdleTimeout: idle})
	busy := h.runtime(t)
	started := make(chan struct{}, 1)
	release := make(chan struct{})
	c := gateClient(t, busy, started, release)
	done := make(chan error, 1)
	go func() {
		out, err := c.Run(context.Background(), gateProgram("x"), client.RunOptions{})
		if err == nil && out.Kind != client.Success {
			err = fmt.Errorf("%+v", out)
		}
		done <- err
	}()
	select {
	case <-started:
	case err := <-done:
		t.Fatalf("the busy execution ended before its tool call started: %v", err)
	}
	quiet := h.runtime(t)
	<-quiet.Done()
	if f := quiet.Err(); !errors.Is(f, remote.ErrConnectionLost) {
		t.Fatalf("idle runtime: %+v", f)
	}
	time.Sleep(5 * idle) // the busy connection outlives several idle periods
	close(release)
	if err := <-done; err != nil {
		t.Fatalf("the execution blocked past the idle timeout: %v", err)
	}
}

// TestKilledHostFailsInFlightExecutions: SIGKILL on the host process fails
// the executions in flight on its connections with a lost connection, and
// the client process keeps no goroutine or file descriptor of it.
func TestKilledHostFailsInFlightExecutions(t *testing.T) {
	before := measure()
	cmd, addr := startHostProcess(t)
	d, err := remote.New(remote.Options{Address: addr, Token: token})
	if err != nil {
		t.Fatal(err)
	}
	rt, err := client.NewRuntime(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{}, 3)
	c := gateClient(t, rt, started, make(chan struct{}))
	errs := make(chan error, 3)
	for i := 0; i < 3; i++ {
		go func() {
			_, err := c.Run(context.Background(), gateProgram("x"), client.RunOptions{})
			errs <- err
		}()
	}
	for i := 0; i < 3; i++ {
		<-started
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		err := <-errs
		if !errors.Is(err, client.ErrRuntimeFailed) || !errors.Is(err, remote.ErrConnectionLost) {
			t.Fatalf("Run = %v, want a lost connection", err)
		}
	}
	if f := rt.Err(); !errors.Is(f, client.ErrRuntimeFailed) || !strings.Contains(f.Error(), "remote runner connection lost: the host closed the connection") {
		t.Fatalf("Finished = %+v", f)
	}
	_ = rt.Close()
	_ = cmd.Wait()
	noLeaks(t, before)
}

// TestSIGTERMDrainsTheHostProcess: SIGTERM lets the in-flight execution
// finish, then the host exits 0.
func TestSIGTERMDrainsTheHostProcess(t *testing.T) {
	cmd, addr := startHostProcess(t)
	d, err := remote.New(remote.Options{Address: addr, Token: token})
	if err != nil {
		t.Fatal(err)
	}
	rt, err := client.NewRuntime(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	started := make(chan struct{}, 1)
	release := make(chan struct{})
	c := gateClient(t, rt, started, release)
	done := make(chan error, 1)
	go func() {
		out, err := c.Run(context.Background(), gateProgram("drained"), client.RunOptions{})
		if err == nil && (out.Kind != client.Success || out.Content[0].Text != "drained") {
			err = fmt.Errorf("%+v", out)
		}
		done <- err
	}()
	<-started
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	// Wait until the host drains: a new execution is refused.
	waitFor(t, "the host to start draining", func() bool {
		k, _ := contract.New()
		out, err := client.New(rt, k).Run(context.Background(), `export default async function () {}`, client.RunOptions{})
		return err == nil && out.Kind == client.ProgramFailed && out.Error.Name == "RunnerDrainingError"
	})
	close(release)
	if err := <-done; err != nil {
		t.Fatalf("in-flight execution: %v", err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the host exited with %v, want status 0", err)
	}
}

// TestBusyHandshakesAreRefusedClearly: past MaxHandshakes connections still
// authenticating, a client is told the host is busy (not that it is some
// other service), and is served once a slot frees.
func TestBusyHandshakesAreRefusedClearly(t *testing.T) {
	h := startHost(t, quickjsDriver(t), runnerhost.ServerOptions{MaxHandshakes: 1})
	idle, err := net.Dial("tcp", h.addr) // holds the only slot, saying nothing
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the idle connection to be accepted", func() bool {
		_, err := client.NewRuntime(context.Background(), h.driver(t))
		return err != nil && strings.Contains(err.Error(), "too many connections are authenticating")
	})
	idle.Close()
	waitFor(t, "a free slot", func() bool {
		rt, err := client.NewRuntime(context.Background(), h.driver(t))
		if err == nil {
			rt.Close()
		}
		return err == nil
	})
}

// slowBootDriver is a driver whose Connect never boots: it waits for its
// context, as a runtime too slow for the handshake deadline does.
type slowBootDriver struct{ drivers.Driver }

func (d slowBootDriver) Connect(ctx context.Context, _ drivers.ConnectRequest) (drivers.Connection, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// TestSlowBootIsRefusedClearly: a runtime that does not boot within the
// handshake deadline is refused with a message naming the boot, not a bare
// EOF (the refusal was written after the connection's deadline had passed,
// so it was lost).
func TestSlowBootIsRefusedClearly(t *testing.T) {
	h := startHost(t, slowBootDriver{quickjsDriver(t)}, runnerhost.ServerOptions{HandshakeTimeout: 500 * time.Millisecond, AuthTimeout: 500 * time.Millisecond})
	_, err := client.NewRuntime(context.Background(), h.driver(t))
	if err == nil || !strings.Contains(err.Error(), "did not boot within its handshake timeout (500ms)") {
		t.Fatalf("NewRuntime: %v, want a refusal naming the boot", err)
	}
}
