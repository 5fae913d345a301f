//go:build unix

package quickjs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/codemode-go/codemode/internal/wire"
	"golang.org/x/sys/unix"
)

// killGrace is how far past its deadline an execution may run before its
// sandbox process is killed: the runner inside stops a program at its
// deadline whenever the engine reaches an interrupt poll, so only a program
// stuck where no poll comes (a long C builtin, a corrupted engine) gets here.
const killGrace = 250 * time.Millisecond

// After a cancel the supervisor asks the sandbox process every cancelCheck
// whether the execution has stopped, and kills the process if it still runs
// it (or cannot answer) cancelStop after the cancel: well within the
// client's 10 s grace after a cancel, so that its liveness probe sees a working runtime.
const (
	cancelCheck = time.Second
	cancelStop  = 5 * time.Second
)

// bootTimeout bounds the boot of a replacement sandbox process.
const bootTimeout = 2 * time.Minute

// supervisor is the host side of a sandboxed runtime. The client reads and
// writes the sandbox process's wire through the supervisor's channel,
// which checks each frame on the client's goroutine; the supervisor watches
// every execution's deadline, and replaces the process when it must be
// killed or dies. It runs no guest code.
type supervisor struct {
	d      *Driver
	opts   Options
	source string
	probe  bool // tests: boot, run the confinement probe, report

	mu      sync.Mutex
	cond    *sync.Cond // signalled when cur is set, a message is queued or closing
	cur     *sandbox   // nil while a replacement boots
	reading *sandbox   // the process the client reads (cur, or one ended and not drained yet)
	queue   [][]byte   // frames of the supervisor's own for the client, ahead of the process's
	boxes   map[*sandbox]bool
	execs   map[uint64]*watched
	closing bool
	err     error
	stopped chan struct{} // closed by shutdown
	wg      sync.WaitGroup
	boots   int // sandbox processes started, for tests

	// scopes are the namespaces the client sent per scope (wire 1.2),
	// kept so that a replacement process, which keeps none, is sent the
	// list of a scope the client names alone.
	scopes scopeCache[[]wire.Namespace]
}

// sandbox is one sandbox process.
type sandbox struct {
	cmd *exec.Cmd
	// data carries the configuration and the boot report; the wire
	// protocol follows on two pipes (wirePipes): the host reads fromChild
	// and writes toChild.
	data, fromChild, toChild *os.File
	// in and out read fromChild and write toChild once the process has
	// booted (newRawFile).
	in     io.Reader
	out    io.Writer
	ctrl   *os.File
	r      *wire.Reader
	w      *wire.Writer
	stderr *tail
	exited chan struct{} // closed once the process was reaped
	report childBoot

	killed  bool // under supervisor.mu: the supervisor ended it
	drained bool // under supervisor.mu: the client read its stream to the end
	// readEnded is closed once drained is set: the reaper closes
	// fromChild after it, so that frames the process wrote before it died
	// are read, not cut off by the close.
	readEnded chan struct{}
	// hostKilled is closed when the host kills the process
	// (killSandbox): what it wrote last is not waited for then.
	hostKilled chan struct{}
	killOnce   sync.Once
	// inflight is the driver's count of executions in flight (all its
	// runtimes'), answering the process's tool calls the host has not
	// answered yet (it may fall below 0 when a request starts it over),
	// and expected how many more messages the host's reader spins for
	// since the host's last answer: expectsAnswer.
	inflight  *atomic.Int32
	answering atomic.Int32
	expected  atomic.Int32
	// scopes are the scopes sent to the process with their namespaces,
	// under supervisor.mu; past maxSentScopes the set starts over.
	scopes map[string]bool

	qmu     sync.Mutex
	queries map[uint64]chan bool
	ctrlMu  sync.Mutex
	// heard counts the messages read from the process: a process that
	// sends messages is not frozen, even when it is too busy to answer a
	// liveness query in time (checkCancelled).
	heard atomic.Uint64
}

// watched is an execution the supervisor relays.
type watched struct {
	id        uint64
	limit     time.Duration
	box       *sandbox    // nil until it was sent to a process
	timer     *time.Timer // the deadline watch
	check     *time.Timer // after a cancel, the check that it stopped
	cancelled bool
	// cancelledAt is when the client cancelled it, or when the process
	// was last seen busy rather than frozen (checkCancelled); heard is the
	// process's message count at the previous check.
	cancelledAt time.Time
	heard       uint64
	slot        bool          // holds one of the driver's engine slots
	gone        chan struct{} // closed when it leaves the table
}

func newSupervisor(d *Driver, source string) *supervisor {
	s := &supervisor{d: d, opts: d.opts, source: source,
		boxes: map[*sandbox]bool{}, execs: map[uint64]*watched{}, stopped: make(chan struct{})}
	s.cond = sync.NewCond(&s.mu)
	return s
}

// connectSandboxed boots a runtime whose engines run in a sandbox process.
func (d *Driver) connectSandboxed(ctx context.Context, runnerSource string) (*connection, error) {
	s := newSupervisor(d, runnerSource)
	box, ready, err := s.start(ctx)
	if err != nil {
		return nil, err
	}
	c := &connection{host: &channel{s: s}, done: make(chan struct{})}
	c.cancel = func() { s.shutdown(nil) }
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		s.shutdown(nil)
		s.wait()
		return nil, errors.New("quickjs: the driver is closed")
	}
	if d.conns == nil {
		d.conns = map[*connection]bool{}
	}
	d.conns[c] = true
	d.mu.Unlock()
	s.mu.Lock()
	s.cur = box
	if ready != nil {
		s.tellLocked(ready)
	}
	s.mu.Unlock()
	go func() {
		<-s.stopped
		s.wait()
		c.err = s.err
		d.mu.Lock()
		delete(d.conns, c)
		var sp *spare
		if len(d.conns) == 0 {
			// No runtime is left to need a spare soon: an idle driver
			// holds no process.
			sp, d.spare = d.spare, nil
		}
		d.mu.Unlock()
		if sp != nil {
			d.discardSpare(sp)
		}
		close(c.done)
	}()
	return c, nil
}

// probeSandbox boots a sandbox process that runs the test binary's
// confinement probe instead of serving, and returns its boot report.
func (d *Driver) probeSandbox(ctx context.Context, runnerSource string) (childBoot, error) {
	s := newSupervisor(d, runnerSource)
	s.probe = true
	box, _, err := s.start(ctx)
	if err != nil {
		return childBoot{}, err
	}
	<-box.exited
	s.shutdown(nil)
	s.wait()
	return box.report, nil
}

// start gives the supervisor a booted sandbox process: the driver's spare
// when it has one for this runner source (so that a new or replacement
// runtime does not wait for a process to boot), else a new one. Its reader
// goroutines run until it ends.
func (s *supervisor) start(ctx context.Context) (*sandbox, *wire.Message, error) {
	var box *sandbox
	var ready *wire.Message
	var err error
	if s.probe {
		box, ready, err = s.d.bootSandbox(ctx, s.source, probeBoot)
	} else {
		box, ready, err = s.d.takeSandbox(ctx, s.source)
	}
	if err != nil {
		return nil, nil, err
	}
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		s.kill(box)
		<-box.exited
		return nil, nil, errors.New("quickjs: the runtime is closed")
	}
	s.boxes[box] = true
	s.boots++
	s.wg.Add(1)
	s.mu.Unlock()
	go func() {
		defer s.wg.Done()
		<-box.exited
		s.mu.Lock()
		delete(s.boxes, box)
		s.mu.Unlock()
	}()
	if s.probe {
		return box, nil, nil
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		box.readAnswers()
	}()
	return box, ready, nil
}

// spare is a sandbox process the driver boots ahead of need.
type spare struct {
	source string
	cancel context.CancelFunc
	done   chan struct{} // closed when the boot ended; then box, ready and err are set
	box    *sandbox
	ready  *wire.Message
	err    error
}

// takeSandbox returns a booted sandbox process for source: the spare if it
// booted for the same source, else a new process. Either way it starts the
// boot of the next spare, unless Options.NoSpare is set.
func (d *Driver) takeSandbox(ctx context.Context, source string) (*sandbox, *wire.Message, error) {
	d.mu.Lock()
	sp := d.spare
	d.spare = nil
	d.mu.Unlock()
	if sp != nil && sp.source == source {
		select {
		case <-sp.done:
			if sp.err == nil {
				d.refillSpare(source)
				return sp.box, sp.ready, nil
			}
		case <-ctx.Done():
			d.discardSpare(sp)
			return nil, nil, fmt.Errorf("quickjs: booting the sandbox process: %w", context.Cause(ctx))
		}
	} else if sp != nil {
		d.discardSpare(sp)
	}
	box, ready, err := d.bootSandbox(ctx, source, serveBoot)
	if err == nil {
		d.refillSpare(source)
	}
	return box, ready, err
}

// refillSpare boots the next spare process in the background, unless there
// is one, the driver is closed or Options.NoSpare is set. The driver owns
// it: Close ends it.
func (d *Driver) refillSpare(source string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed || d.spare != nil || d.opts.NoSpare {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), bootTimeout)
	sp := &spare{source: source, cancel: cancel, done: make(chan struct{})}
	d.spare = sp
	d.spares.Add(1)
	go func() {
		defer d.spares.Done()
		defer cancel()
		sp.box, sp.ready, sp.err = d.bootSandbox(ctx, source, serveBoot)
		close(sp.done)
	}()
}

// discardSpare ends a spare that will not be used: its boot is cancelled
// (which kills a process still booting) and a booted process is killed.
func (d *Driver) discardSpare(sp *spare) {
	sp.cancel()
	<-sp.done
	if sp.box != nil {
		killSandbox(sp.box)
		<-sp.box.exited
	}
}

// closeSpare ends the driver's spare process, if any, and waits for every
// spare's goroutines. Called by Close.
func (d *Driver) closeSpare() {
	d.mu.Lock()
	sp := d.spare
	d.spare = nil
	d.mu.Unlock()
	if sp != nil {
		d.discardSpare(sp)
	}
	d.spares.Wait()
}

// bootKind says what a sandbox process is started for.
type bootKind uint8

const (
	serveBoot bootKind = iota // serve executions: boot up to the runner's ready message
	probeBoot                 // probe the platform: write the boot report and exit
)

// bootSandbox starts and boots a sandbox process: configuration, boot
// report, ready message. The goroutine that reaps the process ends when the
// process does: whoever holds the returned sandbox kills it in the end.
func (d *Driver) bootSandbox(ctx context.Context, source string, kind bootKind) (*sandbox, *wire.Message, error) {
	cacheDir := d.sandboxDir()
	box, token, reportRead, err := startSandbox(cacheDir, kind)
	if err != nil {
		return nil, nil, err
	}
	opts := d.opts
	opts.CacheDir = cacheDir
	opts.MaxEngines = 0 // the supervisor holds the driver's engine slots
	cfg, err := json.Marshal(childConfig{Token: token, RunnerSource: source, Options: opts, Probe: kind == probeBoot})
	if err != nil {
		killSandbox(box)
		return nil, nil, err
	}
	box.inflight = &d.inflight
	done := make(chan booted, 1)
	go func() { done <- box.boot(cfg, kind, reportRead) }()
	var b booted
	select {
	case b = <-done:
	case <-ctx.Done():
		b.err = context.Cause(ctx)
	}
	if b.err != nil {
		killSandbox(box)
		<-box.exited
		return nil, nil, fmt.Errorf("quickjs: booting the sandbox process: %w%s", b.err, box.describeExit())
	}
	if msg := confinementWarning(runtime.GOOS, box.report); msg != "" {
		d.warned.Do(func() { slog.Warn(msg, "landlock", box.report.Landlock, "seccomp", box.report.Seccomp) })
	}
	return box, b.ready, nil
}

// confinementWarning says, on Linux, that a sandbox process booted without
// Landlock or without seccomp (a kernel without Landlock, a container
// runtime's seccomp profile that refuses the system calls), or "" when it
// has both. The process still runs programs: WebAssembly and the separate
// process remain between a program and the host.
func confinementWarning(goos string, r childBoot) string {
	if goos != "linux" || (!strings.HasPrefix(r.Landlock, "unavailable") && !strings.HasPrefix(r.Seccomp, "unavailable")) {
		return ""
	}
	return "quickjs: the sandbox process runs with less confinement than it asks for (see drivers/quickjs's package documentation and docs/operations.md); programs still run, in WebAssembly in a separate process"
}

// startSandbox starts a sandbox process on two socket pairs (data,
// control) and two pipes (the wire) with a fresh token, and the goroutine
// that reaps it. A probe sandbox exits as soon as it has written its
// report: its files are closed once reportRead is closed, not before.
func startSandbox(cacheDir string, kind bootKind) (box *sandbox, token string, reportRead chan struct{}, err error) {
	exe, err := sandboxExecutable()
	if err != nil {
		return nil, "", nil, fmt.Errorf("quickjs: finding the executable for the sandbox process: %w", err)
	}
	dataP, dataC, err := socketPair()
	if err != nil {
		return nil, "", nil, err
	}
	ctrlP, ctrlC, err := socketPair()
	if err != nil {
		closeAll(dataP, dataC)
		return nil, "", nil, err
	}
	w, err := wirePipes()
	if err != nil {
		closeAll(dataP, dataC, ctrlP, ctrlC)
		return nil, "", nil, err
	}
	tokenBytes := make([]byte, 16)
	_, _ = rand.Read(tokenBytes)
	token = hex.EncodeToString(tokenBytes)
	cmd := exec.Command(exe)
	cmd.Args = []string{"codemode-quickjs-sandbox"}
	cmd.Env = sandboxEnviron(token, cacheDir)
	// Descriptors 3 to 6 in the process (sandboxDataFD to sandboxWireOutFD).
	cmd.ExtraFiles = []*os.File{dataC, ctrlC, w.childIn, w.childOut}
	box = &sandbox{cmd: cmd, data: dataP, fromChild: w.fromChild, toChild: w.toChild, ctrl: ctrlP,
		stderr: &tail{}, exited: make(chan struct{}), readEnded: make(chan struct{}), hostKilled: make(chan struct{}),
		queries: map[uint64]chan bool{}}
	cmd.Stderr = box.stderr
	cmd.SysProcAttr = sandboxSysProcAttr()
	err = cmd.Start()
	closeAll(dataC, ctrlC, w.childIn, w.childOut)
	if err != nil {
		closeAll(dataP, ctrlP, w.fromChild, w.toChild)
		return nil, "", nil, fmt.Errorf("quickjs: starting the sandbox process: %w", err)
	}
	reportRead = make(chan struct{})
	go func() {
		_ = cmd.Wait()
		if kind == probeBoot {
			<-reportRead
		}
		closeAll(dataP, ctrlP, w.toChild)
		if kind == serveBoot {
			// What a process that ended by itself wrote before it ended
			// is still in the pipe: the client's read ends at its end
			// (EOF), and only then is the pipe closed; when no read comes
			// (no execution was on the process), after drainWait.
			t := time.NewTimer(drainWait)
			select {
			case <-box.readEnded:
			case <-box.hostKilled:
			case <-t.C:
			}
			t.Stop()
		}
		_ = w.fromChild.Close()
		close(box.exited)
	}()
	return box, token, reportRead, nil
}

// sandboxEnviron is a sandbox process's whole environment: its stage and
// token, its cache, and the Go runtime's settings of the host.
func sandboxEnviron(token, cacheDir string) []string {
	env := []string{sandboxEnv + "=" + sandboxFirstStage + ":" + token, sandboxCacheEnv + "=" + cacheDir}
	for _, keep := range []string{"GORACE", "GODEBUG", "GOMAXPROCS", "GOGC", "GOTRACEBACK"} {
		if v, ok := os.LookupEnv(keep); ok {
			env = append(env, keep+"="+v)
		}
	}
	if _, ok := os.LookupEnv("GOMAXPROCS"); !ok {
		// The sandbox runs the host's parallelism, also when the host set it
		// in code (runtime.GOMAXPROCS, go test -cpu).
		env = append(env, "GOMAXPROCS="+strconv.Itoa(runtime.GOMAXPROCS(0)))
	}
	return env
}

// booted is the end of a sandbox's boot: the runner's ready message (none
// for a probe) or what went wrong.
type booted struct {
	ready *wire.Message
	err   error
}

// boot sends the configuration, reads the boot report and, unless the
// sandbox only probes, the runner's ready message.
func (box *sandbox) boot(cfg []byte, kind bootKind, reportRead chan struct{}) booted {
	read := sync.OnceFunc(func() { close(reportRead) })
	defer read()
	if err := wire.WriteFrame(box.data, cfg); err != nil {
		return booted{err: fmt.Errorf("sending the configuration: %w", err)}
	}
	raw, err := wire.ReadFrame(box.data, 1<<20)
	read()
	if err != nil {
		return booted{err: fmt.Errorf("reading the boot report: %w", err)}
	}
	if err := json.Unmarshal(raw, &box.report); err != nil {
		return booted{err: fmt.Errorf("decoding the boot report: %w", err)}
	}
	if box.report.Error != "" {
		return booted{err: errors.New(box.report.Error)}
	}
	if kind == probeBoot {
		return booted{}
	}
	in, err := newRawFile(box.fromChild, box.expectsAnswer)
	if err != nil {
		return booted{err: err}
	}
	out, err := newRawFile(box.toChild, nil)
	if err != nil {
		return booted{err: err}
	}
	box.in, box.out = in, out
	box.r = wire.NewReader(in)
	box.w = wire.NewWriter(out)
	m, err := box.r.Read()
	if err == nil && m.Kind != wire.KindReady {
		err = fmt.Errorf("the first message is %s, not ready", m.Kind)
	}
	return booted{ready: m, err: err}
}

// sandboxSupported: this platform runs engines in sandbox processes.
const sandboxSupported = true

// expectsAnswer reports whether the host's read of the process's pipe
// keeps reading for a while when the pipe is empty (rawFile's spin): when
// the driver runs one execution, on this process, the host has answered
// its program's tool calls, and the program has sent fewer than
// spinMessages messages since the last answer. The program's next message
// (its next call, its output, its result) then usually comes within tens
// of microseconds, which a reader still reading takes without being woken.
// While the host's handler runs, the reader waits (a spinning reader would
// take a CPU from the handler and from the process, which spins for the
// answer), and the answer interrupts that wait (answered). With more
// executions in flight the host's CPUs have other work; after a request
// the first message waits for the program to compile; and a program that
// keeps writing output after an answer gets its reader spinning for
// spinMessages of its messages, not for as long as it runs.
func (box *sandbox) expectsAnswer() bool {
	return box.expected.Load() > 0 && box.answering.Load() <= 0 && box.alone()
}

// spinMessages is how many messages of the program the host's reader
// spins for after each answer (expectsAnswer): the next call, or a few
// lines of output and then the call or the result.
const spinMessages = 4

// alone reports whether the driver runs one execution.
func (box *sandbox) alone() bool { return box.inflight != nil && box.inflight.Load() == 1 }

// sandboxCacheDir is the compilation cache of sandbox processes: dir, or
// codemode/quickjs in the user's cache directory, created (0700) if needed;
// "" (compile in each process) when neither is usable.
func sandboxCacheDir(dir string) string {
	if dir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return ""
		}
		dir = filepath.Join(base, "codemode", "quickjs")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return ""
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	return dir
}

// describeExit says how a dead sandbox process ended, with the end of what
// it wrote to stderr.
func (b *sandbox) describeExit() string {
	out := ""
	if st := b.cmd.ProcessState; st != nil {
		out = " (" + st.String() + ")"
	}
	if t := b.stderr.String(); t != "" {
		out += ": " + t
	}
	return out
}

func socketPair() (parent, child *os.File, err error) {
	// Under ForkLock, so that no process started meanwhile inherits them
	// before they are close-on-exec.
	syscall.ForkLock.RLock()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err == nil {
		unix.CloseOnExec(fds[0])
		unix.CloseOnExec(fds[1])
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return nil, nil, fmt.Errorf("quickjs: creating a socket pair for the sandbox process: %w", err)
	}
	// The host's end is non-blocking so that Go's poller owns it and
	// closing it ends a blocked read.
	if err := unix.SetNonblock(fds[0], true); err != nil {
		_ = unix.Close(fds[0])
		_ = unix.Close(fds[1])
		return nil, nil, fmt.Errorf("quickjs: socket pair: %w", err)
	}
	return os.NewFile(uintptr(fds[0]), "codemode-sandbox"), os.NewFile(uintptr(fds[1]), "codemode-sandbox-child"), nil
}

// drainWait bounds how long a dead process's pipe stays open for the
// client's read to reach its end.
const drainWait = time.Second

// pipes is the sandbox's wire (wirePipes): the host writes toChild and
// reads fromChild; the process gets childIn and childOut.
type pipes struct {
	toChild, childIn, childOut, fromChild *os.File
}

// wirePipes makes the sandbox's wire: a pipe each way, the host's ends
// non-blocking in Go's poller. The pipes keep the system's default buffer
// (64 KiB on Linux): a 1 MB result crossed no faster through pipes grown to
// 256 KiB, and every grown pipe takes more of a budget all the user's
// pipes share (/proc/sys/fs/pipe-user-pages-soft).
//
// Pipes rather than the socket pair the wire once was: a Unix socket's
// reader, taking what the other end wrote, wakes whatever waits on the
// writer's socket for room to write (unix_write_space in the kernel's
// net/unix/af_unix.c), and Go's poller waits on every file it owns for
// reading and writing at once (edge-triggered epoll). So every message woke
// the sending process's poller thread for nothing: a context switch, and an
// inter-processor interrupt when that thread slept on an idle CPU, once per
// message in each process. A pipe wakes its writer only when a read makes
// room in a full pipe (pipe_read in fs/pipe.c). Two Go processes passing 16
// bytes back and forth measured 23-28 µs a round trip over a socket pair
// and 12-17 µs over two pipes, with 2.0 and 1.2 context switches (RATIONALE.md,
// "The sandbox's wire: two pipes").
func wirePipes() (pipes, error) {
	var p pipes
	var err error
	if p.childIn, p.toChild, err = os.Pipe(); err != nil {
		return pipes{}, fmt.Errorf("quickjs: creating a pipe for the sandbox process: %w", err)
	}
	if p.fromChild, p.childOut, err = os.Pipe(); err != nil {
		closeAll(p.childIn, p.toChild)
		return pipes{}, fmt.Errorf("quickjs: creating a pipe for the sandbox process: %w", err)
	}
	return p, nil
}

func closeAll(files ...*os.File) {
	for _, f := range files {
		_ = f.Close()
	}
}

// kill ends a sandbox process and its process group.
func (s *supervisor) kill(b *sandbox) { killSandbox(b) }

// killSandbox ends a sandbox process and its process group.
func killSandbox(b *sandbox) {
	b.killOnce.Do(func() { close(b.hostKilled) })
	if p := b.cmd.Process; p != nil {
		_ = syscall.Kill(-p.Pid, syscall.SIGKILL)
		_ = p.Kill()
	}
}

// limitFor is an execution's deadline: the one its execute message asks
// for, cut to Options.Timeout, as the runner in the sandbox computes it.
func (s *supervisor) limitFor(m *wire.Message) time.Duration {
	return limitsOf(m, s.opts).timeout
}

// execute starts the watch of an execution the client sent (frame, m
// decoded) and hands it to a process, now or once an engine slot is free.
func (s *supervisor) execute(m *wire.Message, frame []byte) {
	if m.Scope != "" && m.Namespaces != nil {
		// Kept in the order of the client's messages, so that a later
		// execution naming the scope alone finds it even if it reaches a
		// process first (slots are not taken in order).
		s.scopes.put(m.Scope, m.Namespaces, namesSize(m.Namespaces))
	}
	s.mu.Lock()
	if _, dup := s.execs[m.Execution]; dup {
		s.tellLocked(failure(m.Execution, "Error", "duplicate execution id"))
		s.mu.Unlock()
		return
	}
	w := &watched{id: m.Execution, limit: s.limitFor(m), gone: make(chan struct{})}
	s.execs[w.id] = w
	s.d.inflight.Add(1)
	if slots := s.d.slots; slots != nil {
		select {
		case slots <- struct{}{}:
			w.slot = true
		default:
			s.wg.Add(1)
			s.mu.Unlock()
			go func() {
				defer s.wg.Done()
				s.waitForSlot(w, m)
			}()
			return
		}
	}
	s.mu.Unlock()
	s.send(w, m, frame)
}

// waitForSlot holds an execution until one of the driver's engine slots is
// free; the wait counts against its deadline.
func (s *supervisor) waitForSlot(w *watched, m *wire.Message) {
	start := time.Now()
	t := time.NewTimer(w.limit)
	defer t.Stop()
	select {
	case s.d.slots <- struct{}{}:
		s.mu.Lock()
		if s.execs[w.id] != w {
			s.mu.Unlock()
			<-s.d.slots
			return
		}
		w.slot = true
		// The wait counted against the deadline: the runner gets what is
		// left of it.
		left := max(w.limit-time.Since(start), time.Millisecond)
		w.limit = left
		s.mu.Unlock()
		lim := wire.Limits{}
		if m.Limits != nil {
			lim = *m.Limits
		}
		lim.TimeoutMs = uint64(left / time.Millisecond)
		if lim.TimeoutMs == 0 {
			lim.TimeoutMs = 1
		}
		fwd := *m
		fwd.Limits = &lim
		s.send(w, &fwd, nil)
	case <-t.C:
		s.mu.Lock()
		if s.execs[w.id] == w {
			s.forget(w)
			s.tellLocked(failure(w.id, "TimeoutError", fmt.Sprintf("the execution deadline of %s was exceeded while waiting for an engine (all %d in use)", w.limit, cap(s.d.slots))))
		}
		s.mu.Unlock()
	case <-w.gone:
	case <-s.stopped:
	}
}

// send hands an execution to the current sandbox process, waiting for a
// replacement to boot if there is none, and starts its deadline watch.
// frame is m's encoding as the client sent it, or nil.
func (s *supervisor) send(w *watched, m *wire.Message, frame []byte) {
	s.mu.Lock()
	for s.cur == nil && !s.closing {
		s.cond.Wait()
	}
	if s.closing || s.execs[w.id] != w {
		s.mu.Unlock()
		return
	}
	box := s.cur
	w.box = box
	w.timer = time.AfterFunc(w.limit+killGrace, func() { s.overrun(w, box) })
	fwd := s.withScope(box, m)
	s.mu.Unlock()
	box.answering.Store(0)
	box.expected.Store(0)
	if fwd == m && frame != nil {
		_, _ = box.out.Write(frame)
		return
	}
	_ = box.w.Write(fwd)
}

// maxSentScopes bounds the scopes the supervisor remembers having sent one
// process; forgetting them costs only a list sent again.
const maxSentScopes = 64

// withScope returns the execute message to send box: m, or, when m names a
// scope alone that box was never sent, m with the scope's namespaces (a
// replacement process keeps no scope). A scope the supervisor does not
// keep either goes alone: the process answers scopeUnknown and the client
// sends the list. Called with s.mu held.
func (s *supervisor) withScope(box *sandbox, m *wire.Message) *wire.Message {
	if m.Scope == "" {
		return m
	}
	if box.scopes == nil || len(box.scopes) >= maxSentScopes {
		box.scopes = map[string]bool{}
	}
	if m.Namespaces != nil {
		box.scopes[m.Scope] = true
		return m
	}
	if box.scopes[m.Scope] {
		return m
	}
	ns, ok := s.scopes.get(m.Scope)
	if !ok {
		return m
	}
	fwd := *m
	fwd.Namespaces = ns
	box.scopes[m.Scope] = true
	return &fwd
}

func (s *supervisor) cancel(m *wire.Message) {
	s.mu.Lock()
	w := s.execs[m.Execution]
	if w == nil || w.cancelled {
		s.mu.Unlock()
		return
	}
	if w.box == nil {
		// Still waiting for an engine or a process: it leaves quietly.
		s.forget(w)
		s.mu.Unlock()
		return
	}
	w.cancelled = true
	w.cancelledAt = time.Now()
	w.heard = w.box.heard.Load()
	s.armCheck(w, w.box)
	box := w.box
	s.mu.Unlock()
	_ = box.w.Write(m)
}

// forget removes an execution from the table and releases what it holds.
// Called with s.mu held.
func (s *supervisor) forget(w *watched) {
	delete(s.execs, w.id)
	s.d.inflight.Add(-1)
	if w.timer != nil {
		w.timer.Stop()
	}
	if w.check != nil && w.check.Stop() {
		s.wg.Done() // the check will not run
	}
	if w.slot {
		w.slot = false
		<-s.d.slots
	}
	close(w.gone)
}

// lost handles a sandbox process that ended or broke the protocol without
// the supervisor killing it: its executions fail and a new process starts.
func (s *supervisor) lost(box *sandbox, cause error) {
	s.mu.Lock()
	if box.killed || s.closing {
		s.mu.Unlock()
		return
	}
	victims := s.takeDown(box)
	s.mu.Unlock()
	s.kill(box)
	select {
	case <-box.exited:
	case <-time.After(time.Second):
	}
	why := "it ended unexpectedly"
	if !errors.Is(cause, io.EOF) && !errors.Is(cause, io.ErrUnexpectedEOF) {
		why = fmt.Sprintf("it broke the protocol (%v)", cause)
	}
	msg := fmt.Sprintf("the sandbox process running the program was replaced: %s%s", why, box.describeExit())
	s.mu.Lock()
	for _, w := range victims {
		if !w.cancelled {
			s.tellLocked(failure(w.id, "InternalError", msg))
		}
	}
	s.mu.Unlock()
	s.replace()
}

// takeDown marks box killed and takes every execution on it out of the
// table. Called with s.mu held.
func (s *supervisor) takeDown(box *sandbox) []*watched {
	box.killed = true
	if s.cur == box {
		s.cur = nil
	}
	var victims []*watched
	for _, w := range s.execs {
		if w.box == box {
			victims = append(victims, w)
		}
	}
	for _, w := range victims {
		s.forget(w)
	}
	return victims
}

// overrun kills the sandbox process of an execution that ran past its
// deadline and grace: the program is stuck where the runner cannot stop it.
func (s *supervisor) overrun(w *watched, box *sandbox) {
	s.mu.Lock()
	if s.execs[w.id] != w || w.box != box || box.killed || s.closing {
		s.mu.Unlock()
		return
	}
	victims := s.takeDown(box)
	for _, v := range victims {
		switch {
		case v.cancelled:
		case v == w:
			s.tellLocked(failure(v.id, "TimeoutError", fmt.Sprintf(
				"the program was stopped: the execution deadline of %s was exceeded, and the program did not yield to be stopped, so its sandbox process was killed", v.limit)))
		default:
			s.tellLocked(failure(v.id, "InternalError", "the sandbox process was restarted because another execution overran its deadline; this execution was stopped with it"))
		}
	}
	s.mu.Unlock()
	s.kill(box)
	s.replace()
}

// armCheck schedules the next check of a cancelled execution. Called with
// s.mu held.
func (s *supervisor) armCheck(w *watched, box *sandbox) {
	s.wg.Add(1)
	w.check = time.AfterFunc(cancelCheck, func() {
		defer s.wg.Done()
		s.checkCancelled(w, box)
	})
}

// checkCancelled asks the sandbox process whether a cancelled execution has
// stopped, and kills the process if it has not (or cannot answer).
func (s *supervisor) checkCancelled(w *watched, box *sandbox) {
	s.mu.Lock()
	if s.execs[w.id] != w || box.killed || s.closing {
		s.mu.Unlock()
		return
	}
	s.mu.Unlock()
	live, answered := box.query(w.id, 2*killGrace)
	s.mu.Lock()
	if s.execs[w.id] != w || box.killed || s.closing {
		s.mu.Unlock()
		return
	}
	if !live {
		s.forget(w)
		s.mu.Unlock()
		return
	}
	// A process that did not answer in time but sent messages since the
	// previous check is busy (a burst of executions on two cores can keep the answering
	// goroutine waiting for a thread for seconds), not frozen by a guest:
	// ask again later rather than count the silence against the cancelled
	// execution. A frozen process sends nothing, and one that answers
	// "still running" is counted as before.
	if heard := box.heard.Load(); !answered && heard != w.heard {
		w.cancelledAt = time.Now()
	}
	w.heard = box.heard.Load()
	if time.Since(w.cancelledAt) < cancelStop {
		s.armCheck(w, box)
		s.mu.Unlock()
		return
	}
	victims := s.takeDown(box)
	for _, v := range victims {
		if !v.cancelled {
			s.tellLocked(failure(v.id, "InternalError", "the sandbox process was restarted because a cancelled execution did not stop; this execution was stopped with it"))
		}
	}
	s.mu.Unlock()
	s.kill(box)
	s.replace()
}

// query asks the sandbox process whether it still runs execution id. No
// answer within timeout counts as yes.
func (b *sandbox) query(id uint64, timeout time.Duration) (live, answered bool) {
	ch := make(chan bool, 1)
	b.qmu.Lock()
	b.queries[id] = ch
	b.qmu.Unlock()
	defer func() {
		b.qmu.Lock()
		delete(b.queries, id)
		b.qmu.Unlock()
	}()
	var q [8]byte
	putBeUint64(q[:], id)
	b.ctrlMu.Lock()
	_ = b.ctrl.SetWriteDeadline(time.Now().Add(timeout))
	_, err := b.ctrl.Write(q[:])
	b.ctrlMu.Unlock()
	if err != nil {
		return true, false
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case live := <-ch:
		return live, true
	case <-t.C:
		return true, false
	case <-b.exited:
		return false, true
	}
}

// readAnswers delivers the sandbox's liveness answers to their queries.
func (b *sandbox) readAnswers() {
	var a [9]byte
	for {
		if _, err := io.ReadFull(b.ctrl, a[:]); err != nil {
			return
		}
		id := beUint64(a[:8])
		b.qmu.Lock()
		ch := b.queries[id]
		b.qmu.Unlock()
		if ch != nil {
			select {
			case ch <- a[8] == 1:
			default:
			}
		}
	}
}

// replace boots a new sandbox process in the background; executions that
// arrive meanwhile wait for it. A replacement that cannot boot ends the
// runtime with the reason.
func (s *supervisor) replace() {
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		return
	}
	s.wg.Add(1)
	s.mu.Unlock()
	go func() {
		defer s.wg.Done()
		ctx, cancel := context.WithTimeout(context.Background(), bootTimeout)
		defer cancel()
		go func() {
			select {
			case <-s.stopped:
				cancel()
			case <-ctx.Done():
			}
		}()
		box, _, err := s.start(ctx)
		s.mu.Lock()
		if s.closing {
			s.mu.Unlock()
			if box != nil {
				s.kill(box)
			}
			return
		}
		if err != nil {
			s.mu.Unlock()
			s.shutdown(fmt.Errorf("quickjs: replacing the sandbox process: %w", err))
			return
		}
		s.cur = box
		s.wakeReaderLocked()
		s.mu.Unlock()
	}()
}

// shutdown ends the runtime: every sandbox process is killed, and the
// client's channel reads io.EOF. err, if any, is
// the runtime's failure.
func (s *supervisor) shutdown(err error) {
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		return
	}
	s.closing = true
	s.err = err
	close(s.stopped)
	s.wakeReaderLocked()
	boxes := make([]*sandbox, 0, len(s.boxes))
	for b := range s.boxes {
		b.killed = true
		boxes = append(boxes, b)
	}
	for _, w := range s.execs {
		s.forget(w)
	}
	s.mu.Unlock()
	for _, b := range boxes {
		s.kill(b)
	}
}

// wait waits for every goroutine of the supervisor after shutdown.
func (s *supervisor) wait() { s.wg.Wait() }

// tail keeps the last bytes a sandbox process wrote to stderr.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

const tailSize = 2 << 10

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > tailSize {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-tailSize:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
