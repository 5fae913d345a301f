package remote_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
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

var token = []byte("0123456789abcdef0123456789abcdef")

// hostEnv makes the test binary a runner host instead of running tests: it
// serves QuickJS on the address in the variable, prints "ready" on stdout
// and drains on SIGTERM (see TestMain).
const hostEnv = "CODEMODE_REMOTE_TEST_HOST"

// cacheDir holds QuickJS compiled once for every driver of the test
// process (and its host processes); set by TestMain, then only read.
var cacheDir string

func TestMain(m *testing.M) {
	cacheDir = os.Getenv("CODEMODE_REMOTE_TEST_CACHE")
	if addr := os.Getenv(hostEnv); addr != "" {
		os.Exit(serveForTest(addr))
	}
	dir, err := os.MkdirTemp("", "codemode-remote-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	cacheDir = dir
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

func serveForTest(addr string) int {
	d := quickjs.New(quickjs.Options{CacheDir: cacheDir})
	defer d.Close()
	srv, err := runnerhost.NewServer(runnerhost.ServerOptions{Driver: d, Token: token})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	l, err := runnerhost.Listen(addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		_ = srv.Shutdown(context.Background())
	}()
	fmt.Println("ready")
	if err := srv.Serve(l); !errors.Is(err, runnerhost.ErrServerClosed) {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	_ = srv.Shutdown(context.Background())
	return 0
}

// exampleHost serves QuickJS runtimes on loopback TCP for ExampleNew, as
// `codemode runner serve` would; stop closes the host.
func exampleHost(secret []byte) (addr string, stop func()) {
	// A CacheDir keeps QuickJS compiled on disk, so the host boots each
	// connection's runtime quickly.
	local := quickjs.New(quickjs.Options{CacheDir: cacheDir})
	srv, err := runnerhost.NewServer(runnerhost.ServerOptions{Driver: local, Token: secret})
	if err != nil {
		log.Fatal(err)
	}
	l, err := runnerhost.Listen("127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	return l.Addr().String(), func() {
		_ = srv.Close()
		if err := <-served; !errors.Is(err, runnerhost.ErrServerClosed) {
			log.Print(err)
		}
		_ = local.Close()
	}
}

// host is a runner host on loopback TCP inside the test process.
type host struct {
	srv  *runnerhost.Server
	addr string
}

func startHost(t testing.TB, local drivers.Driver, opts runnerhost.ServerOptions) *host {
	t.Helper()
	l, err := runnerhost.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	opts.Driver = local
	if opts.Token == nil && opts.TLS == nil {
		opts.Token = token
	}
	srv, err := runnerhost.NewServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	t.Cleanup(func() {
		_ = srv.Close()
		if err := <-served; !errors.Is(err, runnerhost.ErrServerClosed) {
			t.Errorf("Serve returned %v, want ErrServerClosed", err)
		}
	})
	return &host{srv: srv, addr: l.Addr().String()}
}

func (h *host) driver(t testing.TB) drivers.Driver {
	t.Helper()
	d, err := remote.New(remote.Options{Address: h.addr, Token: token})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func (h *host) runtime(t testing.TB) *client.Runtime {
	t.Helper()
	rt, err := client.NewRuntime(context.Background(), h.driver(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Close() })
	return rt
}

// waitFor polls cond until it holds, failing the test after 20 s. It waits
// for an event (a goroutine exiting, a file descriptor closing); the test
// asserts nothing about how long that takes.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// resources counts what a leak would leave behind in this process.
type resources struct{ goroutines, fds, children int }

func measure() resources {
	fds, _ := os.ReadDir("/proc/self/fd")
	return resources{goroutines: runtime.NumGoroutine(), fds: len(fds), children: len(children())}
}

// children lists this process's child processes.
func children() []int {
	var kids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// The command name (field 2) is in parentheses and may hold spaces.
		rest := string(stat)
		if i := strings.LastIndexByte(rest, ')'); i >= 0 {
			rest = rest[i+1:]
		}
		f := strings.Fields(rest)
		if len(f) > 1 && f[1] == strconv.Itoa(os.Getpid()) {
			pid, _ := strconv.Atoi(e.Name())
			kids = append(kids, pid)
		}
	}
	return kids
}

// noLeaks waits until the process is back to the counts in before.
func noLeaks(t testing.TB, before resources) {
	t.Helper()
	var now resources
	deadline := time.Now().Add(20 * time.Second)
	for {
		now = measure()
		if now.goroutines <= before.goroutines && now.fds <= before.fds && now.children <= before.children {
			return
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("leak: before %+v, after %+v\n%s", before, now, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// gate is a tool whose calls block until release is closed; each call
// sends on started first.
func gate(t testing.TB, started chan<- struct{}, release <-chan struct{}) *contract.Tool {
	t.Helper()
	schema := json.RawMessage(`{"type":"object","properties":{"value":{"type":"string"}},"required":["value"],"additionalProperties":false}`)
	tool, err := contract.NewRawTool("gate", "Waits until the test releases it.", schema, schema,
		func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) {
			started <- struct{}{}
			select {
			case <-release:
				return in, nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		})
	if err != nil {
		t.Fatal(err)
	}
	return tool
}

func gateClient(t testing.TB, ex client.Executor, started chan<- struct{}, release <-chan struct{}) *client.Client {
	t.Helper()
	c, err := contract.New(gate(t, started, release))
	if err != nil {
		t.Fatal(err)
	}
	return client.New(ex, c)
}

func gateProgram(value string) string {
	return fmt.Sprintf(`export default async function ({ codemode, result }) {
  const r = await codemode.gate({ value: %q });
  result.appendText(r.value);
}`, value)
}

// startHostProcess runs this test binary as a runner host on a unix socket
// and returns the process and its address once it is ready.
func startHostProcess(t *testing.T) (*exec.Cmd, string) {
	t.Helper()
	addr := "unix:" + filepath.Join(t.TempDir(), "runner.sock")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), hostEnv+"="+addr, "CODEMODE_REMOTE_TEST_CACHE="+cacheDir)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "ready\n" {
		t.Fatalf("the host process printed %q, %v", line, err)
	}
	return cmd, addr
}
