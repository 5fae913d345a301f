package quickjs

import (
	"context"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/codemode-go/codemode/drivers"
	"github.com/codemode-go/codemode/wire"
	"github.com/tetratelabs/wazero"
)

// Options configures the QuickJS driver. The zero value is valid: every
// field has a default, applied by New.
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
	// PoolSize is how many idle engines a runtime keeps, restored from the
	// snapshot, for the next executions. Default 8.
	PoolSize int
	// CacheDir, when set, stores compiled QuickJS machine code on disk so
	// that later processes skip compilation (wazero's compilation cache).
	CacheDir string
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
	if o.PoolSize <= 0 {
		o.PoolSize = 8
	}
	return o
}

// Driver boots QuickJS runtimes. One Driver shares its compiled QuickJS
// module among every runtime it connects, so keep one per process. It is
// safe for concurrent use.
type Driver struct {
	opts Options

	once     sync.Once
	cache    wazero.CompilationCache
	cacheErr error
}

var _ drivers.Driver = (*Driver)(nil)

// New returns a QuickJS driver with the given options (zero fields take
// their defaults).
func New(opts Options) *Driver {
	return &Driver{opts: opts.withDefaults()}
}

// Description says what programs run on, for an embedder to show an agent.
func (d *Driver) Description() string {
	return fmt.Sprintf("QuickJS-NG (ES2023) in a WebAssembly sandbox: no file system, network, environment or process access; "+
		"setTimeout/clearTimeout; per-execution deadline %s and memory limit %d MiB", d.opts.Timeout, d.opts.MemoryLimit>>20)
}

// TypeDefinitionFiles returns the declarations of what the QuickJS runtime
// provides beyond the ECMAScript library: the timer functions.
func (d *Driver) TypeDefinitionFiles(ctx context.Context) ([]drivers.TypeDefinitionFile, error) {
	return []drivers.TypeDefinitionFile{{Name: "quickjs-globals.d.ts", Text: globalsDTS}}, nil
}

const globalsDTS = `declare function setTimeout<A extends unknown[]>(callback: (...args: A) => void, ms?: number, ...args: A): number;
declare function clearTimeout(id: number | undefined): void;
`

// Connect boots a runtime: a wazero runtime with QuickJS compiled (or loaded
// from the cache), a template engine with req.RunnerSource installed and
// snapshotted, and the Go runner serving the wire protocol on the returned
// connection. ctx governs boot only.
func (d *Driver) Connect(ctx context.Context, req drivers.ConnectRequest) (drivers.Connection, error) {
	d.once.Do(func() {
		if d.opts.CacheDir != "" {
			d.cache, d.cacheErr = wazero.NewCompilationCacheWithDir(d.opts.CacheDir)
		} else {
			d.cache = wazero.NewCompilationCache()
		}
	})
	if d.cacheErr != nil {
		return nil, fmt.Errorf("quickjs: opening the compilation cache %s: %w", d.opts.CacheDir, d.cacheErr)
	}
	m, err := newMachine(ctx, d.cache, d.opts, req.RunnerSource)
	if err != nil {
		return nil, err
	}
	host, guest := net.Pipe()
	s := &server{m: m, opts: d.opts, r: wire.NewReader(guest), w: wire.NewWriter(guest), conn: guest, execs: map[uint64]*execution{}}
	c := &connection{host: host, done: make(chan struct{})}
	runCtx, cancel := context.WithCancel(context.Background())
	c.cancel = cancel
	go func() {
		err := s.serve(runCtx)
		_ = guest.Close()
		_ = m.close(context.Background())
		c.err = err
		close(c.done)
	}()
	return c, nil
}

// connection is the host's end of a QuickJS runtime.
type connection struct {
	host   net.Conn
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
