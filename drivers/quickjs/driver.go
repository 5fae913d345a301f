package quickjs

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/codemode-go/codemode/drivers"
	"github.com/codemode-go/codemode/internal/wire"
	"github.com/tetratelabs/wazero"
)

// Options configures the QuickJS driver. The zero value is valid: every
// field has a default, applied by New.
//
// Timeout, MemoryLimit, MaxOutput, MaxContent and MaxTimers are each
// execution's defaults and hard caps: an execute message's limits
// (client.RunOptions.Limits) lower them for one execution and
// never raise them.
type Options struct {
	// Timeout is the per-execution deadline, measured from the execute
	// message; it stops CPU-bound code. Default 30s.
	Timeout time.Duration
	// MemoryLimit caps one execution's JavaScript heap, in bytes
	// (JS_SetMemoryLimit); the engine's linear memory is capped at this plus
	// 8 MiB for the C stack and static data. Default 64 MiB.
	MemoryLimit uint64
	// MaxOutput caps one execution's console output, in UTF-16 code units;
	// later output is dropped after a truncation notice. Default 1 MiB.
	MaxOutput int
	// MaxContent caps one execution's result content, in UTF-16 code units;
	// an append past it throws a RangeError in the program. Default 8 MiB.
	MaxContent int
	// MaxTimers caps the timers one execution has pending at once; a
	// setTimeout past it fails the execution with a RangeError naming the
	// limit. Default 1,000.
	MaxTimers int
	// MaxEngines caps the executions running at once across every runtime
	// the driver made (each holds an engine of up to MemoryLimit plus 8
	// MiB); more wait for a free engine, and the wait counts against their
	// deadline. 0 means no cap. A runner host serving untrusted clients
	// sets it to bound its memory.
	MaxEngines int
	// PoolSize is how many idle engines a runtime keeps at least, restored
	// from the snapshot, for the next executions. Default 8. Beyond it the
	// pool follows demand: it keeps as many engines as were in use at once
	// in the last 10 to 20 seconds (at most 256), so that a recurring burst
	// of concurrent executions reuses engines instead of instantiating them.
	// An idle engine holds about its snapshot's size of memory (a few MiB).
	PoolSize int
	// CacheDir, when set, stores compiled QuickJS machine code on disk so
	// that later processes skip compilation (wazero's compilation cache),
	// and the booted template engine (about 5 MB per executable, runner
	// and options; the 4 newest are kept), so that later processes skip
	// booting it (RATIONALE.md, "A sandbox process boots from a template
	// file"). Sandbox processes use it too; when it is empty they use
	// codemode/quickjs under the user's cache directory (os.UserCacheDir),
	// or compile and boot QuickJS afresh if there is none.
	CacheDir string
	// InProcess runs the engines inside the host process instead of in a
	// sandbox process per runtime. It is for embedders who trust their
	// programs: a program stuck where the interrupt cannot reach it (a long
	// C builtin, deep recursion that corrupts the engine) then freezes the
	// whole host process, deadlines, signals and other runtimes included,
	// and WebAssembly is the only wall between a program and the host.
	// Platforms without the sandbox process (not Unix) always run in
	// process. See the package documentation.
	InProcess bool `json:"-"`
	// NoSpare turns off the spare sandbox process. By default, once a
	// runtime's sandbox process has booted, the driver boots one more and
	// keeps it idle, so that the next NewRuntime, and the replacement of a
	// process that was killed or died, take a booted process (well under a
	// millisecond) instead of booting one on their critical path (about
	// 0.1-0.4 s: two process starts, QuickJS from the compilation cache,
	// the template engine). The spare costs one idle process (its resident
	// memory is about that of an idle runtime) while the driver has a live
	// runtime; it ends with the driver's last runtime, or at Close.
	NoSpare bool `json:"-"`
	// FullReset resets an engine after each execution by copying its whole
	// snapshot back (3.6 MB, all but the C stack). By default, on Linux 6.7
	// and later, the driver has the kernel track the pages an execution writes
	// (asynchronous userfaultfd write protection, read back with the
	// PAGEMAP_SCAN ioctl) and copies those pages only: about 170 for a
	// one-call program. Where the kernel cannot track, every reset is full
	// whatever this says. It is there to compare the two, as a way out
	// should a kernel's tracking be in doubt, and for hosts whose tenants
	// share a runtime and must not learn about each other by timing:
	// pages an execution wrote stay writable for later executions on the
	// same engine (until it is protected again, every 256 resets), so a
	// program that times its own allocations can tell roughly how much
	// heap an earlier execution used (RATIONALE.md, "Resetting an
	// engine"). A full reset leaves no such trace.
	FullReset bool
}

func (o Options) withDefaults() Options {
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Second
	}
	if o.MemoryLimit == 0 {
		o.MemoryLimit = 64 << 20
	}
	if o.MaxOutput <= 0 {
		o.MaxOutput = 1 << 20
	}
	if o.MaxContent <= 0 {
		o.MaxContent = 8 << 20
	}
	if o.MaxTimers <= 0 {
		o.MaxTimers = 1000
	}
	if o.PoolSize <= 0 {
		o.PoolSize = 8
	}
	return o
}

// Driver boots QuickJS runtimes. It compiles QuickJS and boots a template
// engine once, then gives every runtime it connects engines restored from
// that template, so keep one Driver per process and Close it after the
// runtimes it made. It is safe for concurrent use.
type Driver struct {
	opts  Options
	slots chan struct{} // one per running execution when MaxEngines > 0

	mu        sync.Mutex
	cache     wazero.CompilationCache
	templates map[string]*template // by runner source
	conns     map[*connection]bool // live connections, closed by Close
	closed    bool
	spare     *spare         // the next sandbox process, booted ahead (sandbox mode)
	inflight  atomic.Int32   // executions its supervisors run (sandbox.expectsAnswer)
	spares    sync.WaitGroup // the goroutines that boot and end spares

	library    func() ([]drivers.TypeDefinitionFile, error) // the embedded library, read once
	sandboxDir func() string                                // the sandbox processes' compilation cache, resolved once
	warned     sync.Once                                    // the warning that a sandbox process lacks Landlock or seccomp
}

var _ drivers.Driver = (*Driver)(nil)

// New returns a QuickJS driver with the given options (zero fields take
// their defaults).
func New(opts Options) *Driver {
	d := &Driver{opts: opts.withDefaults(), library: sync.OnceValues(readLibrary)}
	d.sandboxDir = sync.OnceValue(func() string { return sandboxCacheDir(d.opts.CacheDir) })
	if d.opts.MaxEngines > 0 {
		d.slots = make(chan struct{}, d.opts.MaxEngines)
	}
	return d
}

// Description says what programs run on, for an embedder to show an agent.
func (d *Driver) Description() string {
	return fmt.Sprintf("QuickJS-NG (ECMAScript 2025 without Intl and Atomics) in a WebAssembly sandbox: no file system, network, environment or process access; "+
		"setTimeout/setInterval, console and the web platform globals (TextEncoder, URL, structuredClone, crypto, AbortController, …; fetch only through the host's policy); per-execution deadline %s and memory limit %d MiB", d.opts.Timeout, d.opts.MemoryLimit>>20)
}

// TypeDefinitionFiles returns the declarations of what the QuickJS runtime
// provides: its ECMAScript library, and beyond it the timer functions, a
// global console that writes to the program's output like the scope
// console, and the web platform globals ("quickjs-web.d.ts": TextEncoder,
// TextDecoder, atob, btoa, URL, URLSearchParams, structuredClone, crypto,
// Event, EventTarget, AbortController, AbortSignal, DOMException, fetch,
// Request, Response, Headers; fetch goes through the host's policy,
// client.RunOptions.Fetch).
//
// The library is TypeScript's es2025 library without what this QuickJS
// build lacks (Intl, Atomics, RegExp's legacy statics such as RegExp.$1),
// so that a program using them is rejected by the checker instead of
// failing at run time. It is "quickjs-lib.d.ts", which replaces the
// checker's default library (`/// <reference no-default-lib="true"/>`),
// and the files it references, "quickjs-lib/lib.*.d.ts" (generated into
// lib/ by lib_test.go from the TypeScript compiler's own).
func (d *Driver) TypeDefinitionFiles(ctx context.Context) ([]drivers.TypeDefinitionFile, error) {
	lib, err := d.library()
	if err != nil {
		return nil, err
	}
	files := append([]drivers.TypeDefinitionFile{{Name: "quickjs-globals.d.ts", Text: globalsDTS}, {Name: "quickjs-web.d.ts", Text: webDTS}}, lib...)
	return files, nil
}

//go:embed lib/*.d.ts
var libFS embed.FS

// readLibrary reads the embedded library.
func readLibrary() ([]drivers.TypeDefinitionFile, error) {
	entries, err := libFS.ReadDir("lib")
	if err != nil {
		return nil, fmt.Errorf("quickjs: reading the embedded library: %w", err)
	}
	files := []drivers.TypeDefinitionFile{{Name: "quickjs-lib.d.ts", Text: libEntry}}
	for _, e := range entries {
		text, err := libFS.ReadFile("lib/" + e.Name())
		if err != nil {
			return nil, fmt.Errorf("quickjs: reading the embedded library: %w", err)
		}
		files = append(files, drivers.TypeDefinitionFile{Name: "quickjs-lib/" + e.Name(), Text: string(text)})
	}
	return files, nil
}

const libEntry = `/// <reference no-default-lib="true"/>
// The ECMAScript library of QuickJS: TypeScript's es2025 without Intl,
// Atomics and RegExp's legacy statics, which this QuickJS build lacks.
/// <reference path="quickjs-lib/lib.es2025.d.ts" />
`

const globalsDTS = `declare function setTimeout<A extends unknown[]>(callback: (...args: A) => void, ms?: number, ...args: A): number;
/** The promise idiom: new Promise((resolve) => setTimeout(resolve, ms)). */
declare function setTimeout(callback: (value: void) => void, ms?: number): number;
declare function clearTimeout(id: number | undefined): void;
declare var console: CodeModeConsole;
/** QuickJS's error for engine failures such as running out of memory. */
declare var InternalError: ErrorConstructor;
`

// webDTS declares the web platform globals (runner/src/web): the WinterTC
// Minimum Common API without I/O, and fetch through the host.
//
//go:embed web.d.ts
var webDTS string

// Connect boots a runtime: a wazero runtime with QuickJS compiled (or loaded
// from the cache), a template engine with req.RunnerSource installed and
// snapshotted, and the Go runner serving the wire protocol on the returned
// connection. By default all of that happens in a new sandbox process, and
// the returned connection reads and writes its socket (see the package
// documentation); with Options.InProcess it happens in this process. ctx
// governs boot only.
func (d *Driver) Connect(ctx context.Context, req drivers.ConnectRequest) (drivers.Connection, error) {
	if !d.opts.InProcess && sandboxSupported {
		return d.connectSandboxed(ctx, req.RunnerSource)
	}
	t, err := d.template(ctx, req.RunnerSource)
	if err != nil {
		return nil, err
	}
	m := &machine{template: t, poolSize: d.opts.PoolSize}
	host, guest := pipe()
	s := &server{m: m, opts: d.opts, slots: d.slots, r: wire.NewReader(guest), w: wire.NewWriter(guest), conn: guest, execs: map[uint64]*execution{}}
	c := &connection{host: host, done: make(chan struct{})}
	runCtx, cancel := context.WithCancel(context.Background())
	c.cancel = cancel
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		cancel()
		return nil, errors.New("quickjs: the driver is closed")
	}
	if d.conns == nil {
		d.conns = map[*connection]bool{}
	}
	d.conns[c] = true
	d.mu.Unlock()
	go func() {
		err := s.serve(runCtx)
		_ = guest.Close()
		m.close()
		c.err = err
		d.mu.Lock()
		delete(d.conns, c)
		d.mu.Unlock()
		close(c.done)
	}()
	return c, nil
}

// template returns the template for runnerSource, booting it on first use.
// The lock is held while booting, so concurrent first connects boot once.
func (d *Driver) template(ctx context.Context, runnerSource string) (*template, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil, errors.New("quickjs: the driver is closed")
	}
	if t := d.templates[runnerSource]; t != nil {
		return t, nil
	}
	if d.cache == nil {
		if d.opts.CacheDir != "" {
			c, err := wazero.NewCompilationCacheWithDir(d.opts.CacheDir)
			if err != nil {
				return nil, fmt.Errorf("quickjs: opening the compilation cache %s: %w", d.opts.CacheDir, err)
			}
			d.cache = c
		} else {
			d.cache = wazero.NewCompilationCache()
		}
	}
	t, err := newTemplate(ctx, d.cache, d.opts, runnerSource)
	if err != nil {
		return nil, err
	}
	if d.templates == nil {
		d.templates = map[string]*template{}
	}
	d.templates[runnerSource] = t
	return t, nil
}

// Close releases the compiled engine and its templates. Runtimes the driver
// made that are still open are ended first (their executions fail, as when
// the runtime is closed); close them yourself for an orderly end. It is safe
// to call more than once.
func (d *Driver) Close() error {
	d.mu.Lock()
	d.closed = true
	conns := make([]*connection, 0, len(d.conns))
	for c := range d.conns {
		conns = append(conns, c)
	}
	d.mu.Unlock()
	for _, c := range conns {
		_ = c.Close()
	}
	d.closeSpare()
	d.mu.Lock()
	defer d.mu.Unlock()
	var first error
	for src, t := range d.templates {
		if err := t.close(); err != nil && first == nil {
			first = err
		}
		delete(d.templates, src)
	}
	if d.cache != nil {
		if err := d.cache.Close(context.Background()); err != nil && first == nil {
			first = err
		}
		d.cache = nil
	}
	return first
}

// connection is the host's end of a QuickJS runtime.
type connection struct {
	host   io.ReadWriteCloser
	cancel context.CancelFunc
	done   chan struct{}
	err    error
	once   sync.Once
}

func (c *connection) Channel() io.ReadWriteCloser { return c.host }
func (c *connection) Done() <-chan struct{}       { return c.done }

func (c *connection) Err() error {
	select {
	case <-c.done:
		return c.err
	default:
		return nil
	}
}

// Close ends the runner: in-flight executions are stopped, engines closed,
// and Close returns when all of it has stopped.
func (c *connection) Close() error {
	c.once.Do(func() {
		_ = c.host.Close()
		c.cancel()
	})
	<-c.done
	return nil
}
