//go:build unix

package quickjs

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"

	"github.com/codemode-go/codemode/internal/wire"
	"github.com/tetratelabs/wazero"
	"golang.org/x/sys/unix"
)

// The sandbox process. A Driver in its default mode runs the engines of each
// runtime in a child process: the program's own executable, started again
// with the environment variable sandboxEnv set, two Unix sockets as file
// descriptors 3 (the configuration and the boot report) and 4 (liveness
// queries), and two pipes as 5 and 6 (the wire protocol, from the host and to
// it). The init hook below notices the marker, becomes the sandbox and never
// returns to the program's main. The marker alone does nothing: the hook
// also requires those descriptors to be Unix sockets and pipes, and the first
// frame on descriptor 3 must carry the token from the marker; otherwise it
// clears the marker and the program starts normally.
//
// Boot runs in two stages on Linux. Stage 1 sets no_new_privs and a Landlock
// domain on its only locked thread and executes the binary again, so that
// both cover every thread of stage 2 (Landlock restricts one thread, and Go
// starts threads from any thread). Stage 2 reads its configuration from
// descriptor 3, compiles QuickJS (through the compilation cache), boots the
// template engine, installs a seccomp filter on all its threads, answers with
// a boot report and then serves the wire protocol with the same Go runner as
// the in-process mode.
const (
	sandboxEnv      = "CODEMODE_QUICKJS_SANDBOX"       // "<stage>:<token>"
	sandboxCacheEnv = "CODEMODE_QUICKJS_SANDBOX_CACHE" // the compilation cache directory, for the Landlock rules
	sandboxDataFD   = 3                                // a Unix socket: the configuration and the boot report
	sandboxCtrlFD   = 4                                // a Unix socket: liveness queries
	// The wire protocol, once booted: a pipe from the host and one to it
	// (wirePipes says why pipes).
	sandboxWireInFD  = 5
	sandboxWireOutFD = 6
)

// childConfig is the first frame the host sends on descriptor 3: what the
// sandbox needs to boot. It travels over the socket rather than argv or the
// environment, which other processes of the user can read.
type childConfig struct {
	Token        string  `json:"token"`
	RunnerSource string  `json:"runnerSource"`
	Options      Options `json:"options"`
	// Probe asks the sandbox to run the test binary's confinement probe
	// after confinement and report it instead of serving. Only the package's
	// tests set it; production binaries have no probe to run.
	Probe bool `json:"probe,omitempty"`
}

// childBoot is the sandbox's answer to the configuration: a boot failure, or
// what confinement it achieved. The wire protocol (its ready message first)
// follows a successful boot.
type childBoot struct {
	Error    string `json:"error,omitempty"`
	Landlock string `json:"landlock"`
	Seccomp  string `json:"seccomp"`
	Probe    string `json:"probe,omitempty"`
	// Reset is how the sandbox resets engines, checked once confined
	// (template.resetMode); probe boots only.
	Reset string `json:"reset,omitempty"`
}

// sandboxGCPercent is the sandbox process's GOGC.
const sandboxGCPercent = 400

// maxConfigFrame bounds the configuration frame: a runner source and options.
const maxConfigFrame = wire.MaxFrameSize

func init() {
	marker, ok := os.LookupEnv(sandboxEnv)
	if !ok {
		return
	}
	if !isUnixSocket(sandboxDataFD) || !isUnixSocket(sandboxCtrlFD) || !isPipe(sandboxWireInFD) || !isPipe(sandboxWireOutFD) {
		// Not started by a Driver: the marker leaked into an unrelated
		// process. Drop it and let the program run.
		_ = os.Unsetenv(sandboxEnv)
		_ = os.Unsetenv(sandboxCacheEnv)
		return
	}
	os.Exit(sandboxMain(marker))
}

// isPipe reports whether fd is an open pipe.
func isPipe(fd int) bool {
	var st unix.Stat_t
	return unix.Fstat(fd, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFIFO
}

// isUnixSocket reports whether fd is an open Unix domain socket.
func isUnixSocket(fd int) bool {
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFSOCK {
		return false
	}
	sa, err := unix.Getsockname(fd)
	if err != nil {
		return false
	}
	_, ok := sa.(*unix.SockaddrUnix)
	return ok
}

// sandboxMain runs the sandbox process and returns its exit code.
func sandboxMain(marker string) int {
	stage, token := marker[:min(1, len(marker))], ""
	if len(marker) > 2 {
		token = marker[2:]
	}
	if stage == "1" {
		// Stage 1 returns only when it could not execute stage 2.
		err := confineAndReexec(token, os.Getenv(sandboxCacheEnv))
		fmt.Fprintf(os.Stderr, "codemode quickjs sandbox: %v\n", err)
		return 3
	}
	// Non-blocking, so that Go's poller owns the sockets and pipes: a reader
	// waiting for the host parks instead of holding a thread in a read,
	// which kept the runtime's monitor thread waking every 20 us to take its
	// processor (a third of the process's context switches per tool call
	// round trip, perf's sched_switch events showed).
	_ = unix.SetNonblock(sandboxDataFD, true)
	_ = unix.SetNonblock(sandboxCtrlFD, true)
	data := os.NewFile(sandboxDataFD, "codemode-boot")
	ctrl := os.NewFile(sandboxCtrlFD, "codemode-ctrl")
	raw, err := wire.ReadFrame(data, maxConfigFrame)
	if err != nil {
		fmt.Fprintf(os.Stderr, "codemode quickjs sandbox: reading the configuration: %v\n", err)
		return 3
	}
	var cfg childConfig
	if err := json.Unmarshal(raw, &cfg); err != nil || cfg.Token == "" || cfg.Token != token {
		fmt.Fprintln(os.Stderr, "codemode quickjs sandbox: the configuration does not match the marker")
		return 3
	}
	// The wire's pipes are touched only once the token proved the host.
	_ = unix.SetNonblock(sandboxWireInFD, true)
	_ = unix.SetNonblock(sandboxWireOutFD, true)
	wireIn := os.NewFile(sandboxWireInFD, "codemode-wire-in")
	wireOut := os.NewFile(sandboxWireOutFD, "codemode-wire-out")
	return serveSandbox(data, ctrl, wireIn, wireOut, cfg)
}

// serveSandbox boots the template engine, confines the process, reports on
// data and serves the wire protocol, reading wireIn and writing wireOut,
// until the host closes wireIn.
func serveSandbox(data, ctrl, wireIn, wireOut *os.File, cfg childConfig) int {
	report := func(b childBoot) bool {
		p, _ := json.Marshal(b)
		return wire.WriteFrame(data, p) == nil
	}
	opts := cfg.Options.withDefaults()
	ctx := context.Background()
	cache, err := openCache(opts.CacheDir)
	var t *template
	if err == nil {
		t, err = newTemplate(ctx, cache, opts, cfg.RunnerSource)
	}
	if err != nil {
		report(childBoot{Error: err.Error()})
		return 1
	}
	boot := childBoot{Landlock: os.Getenv(sandboxEnv + "_LANDLOCK")}
	probe := cfg.Probe && sandboxProbe != nil
	if probe {
		boot.Probe = sandboxProbe("before seccomp")
	}
	boot.Seccomp = confineSyscalls(t.tracker.ioctls())
	if cfg.Probe {
		if probe {
			boot.Probe += sandboxProbe("after seccomp")
		}
		boot.Reset = t.resetMode(ctx)
		report(boot)
		return 0
	}
	if !report(boot) {
		return 1
	}
	// A program stuck where the interrupt cannot reach it (a long C builtin)
	// blocks the garbage collector's stop-the-world, and with it the whole
	// process, once a collection is due. Collect the boot garbage now and
	// make collections rare: the heap here is small and mostly per-execution
	// garbage, so this costs little memory and makes such a freeze unlikely
	// before the supervisor kills the stuck program at its deadline.
	runtime.GC()
	debug.SetGCPercent(sandboxGCPercent)
	m := &machine{template: t, poolSize: opts.PoolSize}
	// The host's supervisor enforces MaxEngines across its sandboxes.
	var s *server
	in, err := newRawFile(wireIn, func() bool { return s.waitsForHost() })
	if err != nil {
		fmt.Fprintf(os.Stderr, "codemode quickjs sandbox: %v\n", err)
		return 1
	}
	out, err := newRawFile(wireOut, nil)
	if err != nil {
		fmt.Fprintf(os.Stderr, "codemode quickjs sandbox: %v\n", err)
		return 1
	}
	s = &server{m: m, opts: opts, r: wire.NewReader(in), w: wire.NewWriter(out), conn: out, execs: map[uint64]*execution{}, procs: newProcs()}
	go answerLiveness(ctrl, s)
	// Served from a goroutine of its own: this one runs the package's
	// init, which the runtime keeps locked to the main thread, and a
	// locked goroutine that parks (waiting for the host) hands its
	// processor to another thread and back each time, several context
	// switches per tool call round trip.
	served := make(chan error, 1)
	go func() { served <- s.serve(ctx) }()
	err = <-served
	m.close()
	if err != nil {
		fmt.Fprintf(os.Stderr, "codemode quickjs sandbox: %v\n", err)
		return 1
	}
	return 0
}

// sandboxProbe, when set by the package's tests, checks the confinement from
// inside a booted sandbox, before and after the seccomp filter, and
// describes what it could do. It is nil in every other binary.
var sandboxProbe func(when string) string

// openCache opens the compilation cache in dir, or an in-memory one.
func openCache(dir string) (wazero.CompilationCache, error) {
	if dir == "" {
		return wazero.NewCompilationCache(), nil
	}
	c, err := wazero.NewCompilationCacheWithDir(dir)
	if err != nil {
		return nil, fmt.Errorf("quickjs: opening the compilation cache %s: %w", dir, err)
	}
	return c, nil
}

// answerLiveness answers the supervisor's liveness queries: each is an
// execution id (8 bytes, big-endian), and the answer is the id and one byte,
// 1 when the runner still runs that execution. A process frozen by a guest
// cannot answer, which the supervisor treats as "still running".
func answerLiveness(ctrl *os.File, s *server) {
	var q [8]byte
	var a [9]byte
	for {
		if _, err := io.ReadFull(ctrl, q[:]); err != nil {
			return
		}
		copy(a[:8], q[:])
		id := beUint64(q[:])
		s.mu.Lock()
		_, live := s.execs[id]
		s.mu.Unlock()
		a[8] = 0
		if live {
			a[8] = 1
		}
		if _, err := ctrl.Write(a[:]); err != nil {
			return
		}
	}
}

func beUint64(b []byte) uint64 {
	_ = b[7]
	return uint64(b[0])<<56 | uint64(b[1])<<48 | uint64(b[2])<<40 | uint64(b[3])<<32 |
		uint64(b[4])<<24 | uint64(b[5])<<16 | uint64(b[6])<<8 | uint64(b[7])
}

func putBeUint64(b []byte, v uint64) {
	_ = b[7]
	for i := 7; i >= 0; i-- {
		b[i] = byte(v)
		v >>= 8
	}
}
