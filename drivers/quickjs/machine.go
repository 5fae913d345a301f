package quickjs

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"
	"unsafe"

	quickjswasi "github.com/aperturerobotics/go-quickjs-wasi-reactor"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
)

const wasmPage = 64 << 10

// template is one wazero runtime with QuickJS compiled in it, and the memory
// snapshot of an engine with the runner installed. A Driver keeps one per
// runner source and shares it among all the runtimes it connects.
type template struct {
	rt       wazero.Runtime
	compiled wazero.CompiledModule
	// snapshot is the engine memory every engine is restored from, and gen
	// its generation: 0 as booted, one more for each scope prebuilt into it
	// (prebuild.go). Read them with current.
	snapMu   sync.RWMutex
	snapshot []byte
	gen      uint64
	// snapFile holds snapshot for new engines to map (nil where it cannot:
	// they copy it). Under snapMu: a new generation closes the last one's.
	snapFile *snapshotFile
	// prebuilt are the scopes prebuilt into the snapshot, or being or
	// failed to be (prebuild.go).
	prebuilt prebuilds
	l        layout
	// tracker, when not nil, finds the pages an execution wrote, so that
	// a reset copies those only (dirty_linux.go).
	tracker  *writeTracker
	trackErr error // why there is no tracker
	// interruptSlot is the function table index of the interrupt handler.
	interruptSlot uint32
	// stringHead is how the engine's serialised strings start, for
	// instance.asciiString; nil when it could not be learned.
	stringHead []byte
}

// machine is one connected runtime's pool of engines, restored from its
// template. Every execution takes an engine of its own.
//
// The idle pool is sized to demand: it keeps at least poolSize engines, and
// up to the most engines in use at once during the current or the previous
// demandWindow (at most maxIdle), so that a burst of concurrent executions
// that recurs finds restored engines instead of instantiating new ones (an
// instantiation maps fresh memory and faults in every page of the
// snapshot as it copies it). Demand that goes away lets the pool shrink
// back within two windows.
type machine struct {
	*template
	poolSize int

	mu       sync.Mutex
	idle     []*instance
	closed   bool
	inUse    int       // engines taken by executions
	peak     int       // the most in use at once in this window
	prevPeak int       // ... in the previous window
	window   time.Time // when this window began
}

// demandWindow is how long a peak of concurrent executions sizes the idle
// pool; maxIdle bounds it (each idle engine holds about its snapshot's size
// of resident memory).
const (
	demandWindow = 10 * time.Second
	maxIdle      = 256
)

// target is how many engines (idle and in use) the pool keeps. Called with
// m.mu held.
func (m *machine) target() int {
	if m.closed {
		return 0
	}
	if now := time.Now(); now.Sub(m.window) > demandWindow {
		m.prevPeak, m.peak, m.window = m.peak, m.inUse, now
	}
	return min(maxIdle, max(m.poolSize, m.peak, m.prevPeak))
}

// newTemplate compiles (or loads from cache) QuickJS, boots an engine with
// the runner installed, and snapshots its memory.
func newTemplate(ctx context.Context, cache wazero.CompilationCache, o Options, runnerSource string) (*template, error) {
	cfg := wazero.NewRuntimeConfig().
		WithMemoryLimitPages(uint32((o.MemoryLimit + memoryOverhead + wasmPage - 1) / wasmPage))
	if cache != nil {
		cfg = cfg.WithCompilationCache(cache)
	}
	t := &template{rt: wazero.NewRuntimeWithConfig(ctx, cfg)}
	if err := t.bootCached(ctx, o, runnerSource); err != nil {
		_ = t.rt.Close(context.Background())
		return nil, err
	}
	t.snapFile, _ = newSnapshotFile(t.snapshot) // without one, new engines copy it
	if o.FullReset {
		t.trackErr = errors.New("Options.FullReset is set")
	} else {
		// Without a tracker (an older kernel, or userfaultfd refused),
		// engines are reset by copying the whole snapshot.
		t.tracker, t.trackErr = newWriteTracker()
	}
	return t, nil
}

// resetMode says how engines made from the template are reset, having
// reset one: "written pages", or "full copy: " and why. The sandbox reports
// it once confined, where the tracker's calls must pass the seccomp filter.
func (m *template) resetMode(ctx context.Context) string {
	if m.tracker == nil {
		return "full copy: " + m.trackErr.Error()
	}
	mm := &machine{template: m, poolSize: 1}
	in, err := mm.get(ctx)
	if err != nil {
		return "full copy: " + err.Error()
	}
	defer mm.discard(in)
	if !in.armed {
		return "full copy: the engine's memory could not be registered"
	}
	if !in.mem.WriteByte(0, 1) || m.restore(in) != nil || !in.armed {
		return "full copy: the tracker failed in a reset"
	}
	return "written pages"
}

// close releases the compiled engine and the write tracker; engines made
// from the template must be closed first.
func (m *template) close() error {
	err := m.rt.Close(context.Background())
	m.snapMu.Lock()
	m.snapFile.close()
	m.snapFile = nil
	m.snapMu.Unlock()
	if m.tracker != nil {
		m.tracker.close()
	}
	return err
}

// memoryOverhead is linear memory beyond the JavaScript heap limit: the C
// stack, static data and allocator slack.
const memoryOverhead = 8 << 20

// runnerFilename names the runner script in stack traces.
const runnerFilename = "codemode-runner.js"

// gcThreshold is the JavaScript heap size, in bytes, past which QuickJS
// runs its first collection in an execution.
const gcThreshold = 8 << 20

// bootCached boots the template from its file in o.CacheDir when there is
// one for this executable, runner source and options (snapshot.go), and
// otherwise afresh, then writes the file for the next process.
func (m *template) bootCached(ctx context.Context, o Options, runnerSource string) error {
	if err := instantiateHostWASI(ctx, m.rt); err != nil {
		return err
	}
	key := ""
	if o.CacheDir != "" {
		key = snapshotKey(o, runnerSource)
	}
	if key != "" {
		if d, err := readSnapshot(o.CacheDir, key); err == nil && m.load(ctx, d) == nil {
			return nil
		}
	}
	d, err := m.boot(ctx, o, runnerSource)
	if err != nil {
		return err
	}
	if key != "" {
		writeSnapshot(o.CacheDir, key, d)
	}
	return nil
}

// load makes the template from a template file's contents.
func (m *template) load(ctx context.Context, d *diskTemplate) error {
	compiled, err := m.rt.CompileModule(ctx, d.wasm)
	if err != nil {
		return fmt.Errorf("quickjs: compiling the QuickJS module: %w", err)
	}
	m.compiled, m.interruptSlot, m.l, m.snapshot, m.stringHead = compiled, d.interruptSlot, d.l, d.memory, d.stringHead
	return nil
}

// boot patches and compiles QuickJS, boots an engine with the runner
// installed and keeps its memory as the template's snapshot. It returns
// what a template file holds.
func (m *template) boot(ctx context.Context, o Options, runnerSource string) (*diskTemplate, error) {
	wasm, slot, err := addImportToTable(quickjswasi.QuickJSWASM, wasi_snapshot_preview1.ModuleName, "environ_sizes_get")
	if err != nil {
		return nil, fmt.Errorf("quickjs: preparing the module: %w", err)
	}
	m.interruptSlot = slot
	wasm, trackerSlot, err := addRejectionTracker(wasm)
	if err != nil {
		return nil, fmt.Errorf("quickjs: adding the promise rejection tracker: %w", err)
	}
	if wasm, err = instrument(wasm); err != nil {
		return nil, fmt.Errorf("quickjs: adding the stack guard: %w", err)
	}
	limitOffset, err := stackLimitOffset(quickjswasi.QuickJSWASM)
	if err != nil {
		return nil, err
	}
	compiled, err := m.rt.CompileModule(ctx, wasm)
	if err != nil {
		return nil, fmt.Errorf("quickjs: compiling the QuickJS module: %w", err)
	}
	m.compiled = compiled
	in, err := m.instantiate(ctx)
	if err != nil {
		return nil, err
	}
	defer in.close()
	if _, err := in.invoke(ctx, in.x.initialize); err != nil {
		return nil, fmt.Errorf("quickjs: initialising the C runtime: %w", err)
	}
	if err := setup(ctx, in, o, runnerSource, tableSlots{interrupt: m.interruptSlot, tracker: trackerSlot}, limitOffset); err != nil {
		return nil, err
	}
	m.l = in.l
	m.stringHead = in.learnStringHead(ctx)
	snap, ok := in.mem.Read(0, in.mem.Size())
	if !ok {
		return nil, errors.New("quickjs: reading the template memory")
	}
	m.snapshot = append([]byte(nil), snap...)
	return &diskTemplate{wasm: wasm, memory: m.snapshot, l: m.l, interruptSlot: slot, stringHead: m.stringHead}, nil
}

// The C stack. The module's own stack is 64 KiB below its heap, too small
// for JavaScript recursion of any depth (QuickJS's interpreter recurses in C
// for every JavaScript call). setup moves it to a region of stackSize bytes
// that it allocates from the engine's heap before anything else, and sets
// the stack guard's floor (patch.go, instrument) stackRedZone bytes above the
// region's start: LLVM lets a leaf function use up to 128 bytes below the
// stack pointer without moving it. QuickJS's own check is turned on by
// writing rt->stack_limit, stackMargin bytes above the floor: below it a
// call or a recursive builtin (JSON, regular expressions, the parser)
// throws a RangeError the program can catch, and the margin is room for the
// C code that runs between two such checks. Recursion that still gets past
// the margin reaches the guard, which traps; the driver fails that
// execution with "recursion too deep" and replaces the engine.
const (
	stackSize    = 1 << 20
	stackRedZone = 256
	stackMargin  = 128 << 10
)

// moveStack allocates the C stack's region and points the stack pointer at
// its top.
func moveStack(ctx context.Context, in *instance) error {
	p, err := in.invoke(ctx, in.x.malloc, stackSize)
	if err != nil || p == 0 {
		return fmt.Errorf("quickjs: allocating the %d-byte C stack: %v", stackSize, err)
	}
	in.l.stackFloor = (uint32(p) + stackRedZone + 15) &^ 15
	in.l.stackTop = (uint32(p) + stackSize) &^ 15
	in.setStack()
	return nil
}

// setStack puts the stack pointer at the top of the C stack's region, sets
// the guard's floor and clears the out-of-memory flag.
func (in *instance) setStack() {
	in.sp.Set(uint64(in.l.stackTop))
	in.floor.Set(uint64(in.l.stackFloor))
	in.oom.Set(0)
}

// outOfMemory reports whether QuickJS raised "out of memory" since the
// engine was last reset (patch.go, instrument).
func (in *instance) outOfMemory() bool { return in.oom.Get() != 0 }

// belowStackFloor reports whether the stack pointer is below the guard's
// floor: after a trap, that the guard trapped, on a stack overflow.
func (in *instance) belowStackFloor() bool {
	floor := uint32(in.floor.Get())
	return floor != 0 && uint32(in.sp.Get()) < floor
}

// tableSlots are the function table slots the patched module adds: the
// interrupt handler's (patch.go, addImportToTable) and the promise
// rejection tracker's (rejection.go).
type tableSlots struct{ interrupt, tracker uint32 }

// setup creates the JS runtime and context in a fresh engine and installs the
// runner. The context has the ECMAScript intrinsics only: no std or os
// module, no module loader, so `import` of anything fails. limitOffset is
// the offset of stack_limit in JSRuntime (patch.go, stackLimitOffset).
func setup(ctx context.Context, in *instance, o Options, runnerSource string, slots tableSlots, limitOffset uint32) error {
	if err := moveStack(ctx, in); err != nil {
		return err
	}
	r, err := in.invoke(ctx, in.x.newRuntime)
	if err != nil || r == 0 {
		return fmt.Errorf("quickjs: JS_NewRuntime failed: %v", err)
	}
	in.l.rt = uint32(r)
	if !in.mem.WriteUint32Le(in.l.rt+limitOffset, in.l.stackFloor+stackMargin) {
		return errors.New("quickjs: setting the stack limit")
	}
	if _, err := in.invoke(ctx, in.x.setMemoryLimit, uint64(in.l.rt), uint64(o.MemoryLimit)); err != nil {
		return fmt.Errorf("quickjs: setting the memory limit: %w", err)
	}
	c, err := in.invoke(ctx, in.x.newContext, uint64(in.l.rt))
	if err != nil || c == 0 {
		return fmt.Errorf("quickjs: JS_NewContext failed: %v", err)
	}
	in.l.ctx = uint32(c)
	s, err := in.invoke(ctx, in.x.malloc, scratchSize)
	if err != nil || s == 0 {
		return fmt.Errorf("quickjs: allocating scratch memory: %v", err)
	}
	in.l.scratch = uint32(s)
	set := in.mod.ExportedFunction("JS_SetInterruptHandler")
	if set == nil {
		return errors.New("quickjs: the wasm module does not export JS_SetInterruptHandler")
	}
	if _, err := in.invoke(ctx, set, uint64(in.l.rt), uint64(slots.interrupt), interruptOpaque); err != nil {
		return fmt.Errorf("quickjs: installing the interrupt handler: %w", err)
	}

	// Evaluate the runner bundle inside a function, so that its CodeModeRunner
	// variable is local and programs cannot reach the runner, and take
	// CodeModeRunner.quickjs.
	src := "(() => {\n" + runnerSource + "\n;const r = CodeModeRunner.quickjs; r.install(globalThis); return r; })()"
	v, err := in.evalText(ctx, src, runnerFilename, evalTypeGlobal)
	if err != nil {
		return fmt.Errorf("quickjs: installing the runner: %w", err)
	}
	in.l.runner = v
	for i, name := range fnNames {
		f, err := in.property(ctx, v, name)
		if err != nil {
			return fmt.Errorf("quickjs: runner entry %s: %w", name, err)
		}
		in.l.fns[i] = f
	}
	if err := installRejectionTracker(ctx, in, v, slots.tracker); err != nil {
		return err
	}
	return collect(ctx, in)
}

// collect collects the garbage of setting up a template engine, then
// raises the GC threshold: an execution is short-lived and its engine is
// reset from the snapshot afterwards, so a collection inside it would only
// cost time. A program that allocates past the threshold still gets
// collected.
func collect(ctx context.Context, in *instance) error {
	if f := in.mod.ExportedFunction("JS_RunGC"); f != nil {
		if _, err := in.invoke(ctx, f, uint64(in.l.rt)); err != nil {
			return err
		}
	}
	if f := in.mod.ExportedFunction("JS_SetGCThreshold"); f != nil {
		if _, err := in.invoke(ctx, f, uint64(in.l.rt), gcThreshold); err != nil {
			return err
		}
	}
	return nil
}

// evalText evaluates source with the given JS_Eval flags. An exception is
// returned as an error with its text.
func (in *instance) evalText(ctx context.Context, source, filename string, flags int) (jsValue, error) {
	v, exc, err := in.evalRaw(ctx, source, filename, flags)
	if err != nil {
		return 0, err
	}
	if exc != 0 {
		text, _ := in.goString(ctx, exc)
		_ = in.freeValue(ctx, exc)
		return 0, fmt.Errorf("%s", text)
	}
	return v, nil
}

// evalRaw is JS_Eval; on a JavaScript exception it returns the exception
// value (owned by the caller) instead of a result.
func (in *instance) evalRaw(ctx context.Context, source, filename string, flags int) (v, exc jsValue, err error) {
	src, err := in.alloc(ctx, []byte(source))
	if err != nil {
		return 0, 0, err
	}
	name, err := in.alloc(ctx, []byte(filename))
	if err != nil {
		return 0, 0, err
	}
	r, err := in.invoke(ctx, in.x.eval, uint64(in.l.ctx), uint64(src), uint64(len(source)), uint64(name), uint64(flags))
	if err != nil {
		return 0, 0, err
	}
	if err := in.release(ctx, src); err != nil {
		return 0, 0, err
	}
	if err := in.release(ctx, name); err != nil {
		return 0, 0, err
	}
	if jsValue(r).isException() {
		exc, err := in.exception(ctx)
		return 0, exc, err
	}
	return jsValue(r), 0, nil
}

func (in *instance) property(ctx context.Context, obj jsValue, name string) (jsValue, error) {
	p, err := in.alloc(ctx, []byte(name))
	if err != nil {
		return 0, err
	}
	r, err := in.invoke(ctx, in.x.getProp, uint64(in.l.ctx), uint64(obj), uint64(p))
	if err != nil {
		return 0, err
	}
	return jsValue(r), in.release(ctx, p)
}

// instantiate makes a new module instance with no file system, arguments,
// environment or network: only a wall clock, a monotonic clock and random
// bytes, which QuickJS needs for Date and Math.random.
func (m *template) instantiate(ctx context.Context) (*instance, error) {
	cfg := wazero.NewModuleConfig().
		WithName("").
		WithStartFunctions().
		WithSysWalltime().
		WithSysNanotime().
		WithRandSource(rand.Reader)
	alloc := newMemoryAllocator(m.tracker)
	mod, err := m.rt.InstantiateModule(experimental.WithMemoryAllocator(ctx, alloc), m.compiled, cfg)
	if err != nil {
		alloc.unmap()
		return nil, fmt.Errorf("quickjs: instantiating the QuickJS module: %w", err)
	}
	x, err := lookupExports(mod)
	if err != nil {
		_ = mod.Close(context.Background())
		alloc.unmap()
		return nil, err
	}
	sp, ok1 := mod.ExportedGlobal(stackPointerExport).(api.MutableGlobal)
	floor, ok2 := mod.ExportedGlobal(stackFloorExport).(api.MutableGlobal)
	oom, ok3 := mod.ExportedGlobal(outOfMemoryExport).(api.MutableGlobal)
	if !ok1 || !ok2 || !ok3 {
		_ = mod.Close(context.Background())
		alloc.unmap()
		return nil, errors.New("quickjs: the module does not export the stack globals")
	}
	return &instance{mod: mod, mem: mod.Memory(), unmap: alloc.unmap, x: x, l: m.l, sp: sp, floor: floor, oom: oom, tracked: alloc.tracked, fresh: true}, nil
}

// current returns the snapshot and its generation.
func (m *template) current() ([]byte, uint64) {
	m.snapMu.RLock()
	defer m.snapMu.RUnlock()
	return m.snapshot, m.gen
}

// install makes snap the snapshot, of the next generation, and returns that
// generation. Engines restored from an earlier one map the new one (or copy
// it whole) at their next reset.
func (m *template) install(snap []byte) uint64 {
	f, _ := newSnapshotFile(snap) // without one, new engines copy it
	m.snapMu.Lock()
	defer m.snapMu.Unlock()
	m.snapFile.close()
	m.snapshot, m.snapFile = snap, f
	m.gen++
	return m.gen
}

// errMemoryLost is a failed mapping of a snapshot file that left part of an
// engine's memory unmapped (snapshotFile.mapOnto).
var errMemoryLost = errors.New("quickjs: the engine's memory is no longer mapped")

// mapSnapshot maps the snapshot of generation gen over an instance's memory
// (snapshotFile), its pages the file's again, puts the mapping under the
// write tracker, and reports whether it did; otherwise the caller copies the
// snapshot in. The lock keeps install from closing the file while it is
// mapped. A mapping that failed and left memory unmapped is an error: the
// instance must be closed.
func (m *template) mapSnapshot(in *instance, gen uint64) (bool, error) {
	m.snapMu.RLock()
	defer m.snapMu.RUnlock()
	if m.snapFile == nil || m.gen != gen {
		return false, nil
	}
	b, ok := in.mem.Read(0, uint32(len(m.snapshot)))
	if !ok {
		return false, nil
	}
	err := m.snapFile.mapOnto(b)
	if errors.Is(err, errMemoryLost) {
		return false, err
	}
	// The mapping, or the fresh memory mapped back after a failed one,
	// replaced the part of the memory the tracker followed.
	if in.tracked && m.tracker.register(b) != nil {
		in.tracked = false
	}
	return err == nil, nil
}

// restore writes the snapshot over an instance's memory, growing it first
// when needed. The instance is then a copy of the template engine, but for
// the dead contents of its C stack.
func (m *template) restore(in *instance) error {
	snap, gen := m.current()
	if size := in.mem.Size(); size < uint32(len(snap)) {
		if _, ok := in.mem.Grow((uint32(len(snap)) - size) / wasmPage); !ok {
			return errors.New("quickjs: growing memory for the snapshot")
		}
	}
	// The C stack's region is not copied: what a finished call left there
	// is dead, every frame is written before it is read, and copying it
	// would cost a 1 MiB copy per execution.
	lo, hi := m.l.stackFloor-stackRedZone, m.l.stackTop
	if m.l.stackFloor == 0 || hi <= lo || int(hi) > len(snap) {
		lo, hi = uint32(len(snap)), uint32(len(snap))
	}
	if in.armed && in.gen == gen {
		// Only the pages written since the last reset differ from the
		// snapshot.
		if err := m.restoreWritten(in, snap, lo, hi); err == nil {
			in.l = m.l
			in.setStack()
			return nil
		}
		// The tracker failed: copy everything from now on.
		in.armed, in.tracked = false, false
	}
	// A new engine, or one of another generation, whose snapshot differs in
	// pages the engine did not write, maps the snapshot file over its
	// memory (dropping what it wrote), or else copies the snapshot whole;
	// either way the pages are protected again below.
	mapped := false
	if in.fresh || in.gen != gen {
		var err error
		if mapped, err = m.mapSnapshot(in, gen); err != nil {
			return err
		}
	}
	in.gen, in.fresh = gen, false
	if !mapped {
		if err := in.write(0, snap[:lo]); err != nil {
			return err
		}
		if err := in.write(hi, snap[hi:]); err != nil {
			return err
		}
	}
	// Memory an execution grew past the snapshot is dead (the restored C
	// library grows from the memory's end), but may hold its data.
	if size := int(in.mem.Size()); size > len(snap) {
		b, _ := in.mem.Read(0, uint32(size))
		releasePages(b[len(snap):])
	}
	in.armed = false
	if in.tracked {
		// Protect every page, so that the next reset finds what the next
		// execution writes.
		_, err := m.scanTracked(in, lo, hi, true, nil)
		in.armed = err == nil
	}
	in.l = m.l
	in.setStack()
	return nil
}

// trackedRanges are the parts of an instance's memory whose writes the
// tracker follows: all of it but the pages wholly inside the C stack's dead
// region [lo, hi), page-aligned.
func trackedRanges(size, lo, hi uint64) [2][2]uint64 {
	page := uint64(os.Getpagesize())
	plo, phi := (lo+page-1)/page*page, hi/page*page
	if phi <= plo || phi > size {
		return [2][2]uint64{{0, size}, {size, size}}
	}
	return [2][2]uint64{{0, plo}, {phi, size}}
}

// scanTracked appends the runs of pages written in the tracked ranges to
// out, as offsets; with protect it write-protects them in the same walk.
func (m *template) scanTracked(in *instance, lo, hi uint32, protect bool, out []pageRegion) ([]pageRegion, error) {
	size := in.mem.Size()
	b, ok := in.mem.Read(0, size)
	if !ok || size == 0 {
		return out, errors.New("quickjs: reading the engine's memory")
	}
	var err error
	for _, r := range trackedRanges(uint64(size), uint64(lo), uint64(hi)) {
		if r[0] < r[1] {
			if out, err = m.tracker.scan(unsafe.Pointer(&b[0]), r[0], r[1], protect, out); err != nil {
				return out, err
			}
		}
	}
	return out, nil
}

// reprotectEvery is how many resets an engine's written pages stay
// writable before they are protected again (restoreWritten).
const reprotectEvery = 256

// restoreWritten resets an armed instance: it copies the snapshot over the
// pages written since they were last protected and releases those past the
// snapshot's end (memory an execution grew, which the restored C library
// no longer uses: its next growth starts at the memory's end).
func (m *template) restoreWritten(in *instance, snapshot []byte, lo, hi uint32) error {
	regions, err := m.scanTracked(in, lo, hi, false, in.written[:0])
	in.written = regions[:0]
	if err != nil {
		return err
	}
	b, ok := in.mem.Read(0, in.mem.Size())
	if !ok {
		return errors.New("quickjs: reading the engine's memory")
	}
	snap := uint64(len(snapshot))
	written := uint64(0) // bytes, in whole pages
	for _, r := range regions {
		s, e := r.start, min(r.end, uint64(len(b)))
		written += e - s
		if s < snap {
			copy(b[s:min(e, snap)], snapshot[s:min(e, snap)])
		}
		if e > snap {
			releasePages(b[max(s, snap):e])
		}
	}
	// A written page is left writable and copied at every reset, which
	// is cheaper than protecting it again and taking a fault when the next
	// execution writes it (executions write much the same pages). Every
	// reprotectEvery resets, or once the set has grown past half the
	// memory, every page is protected again, so that pages one execution
	// wrote are not copied for ever.
	in.resets++
	if in.resets%reprotectEvery == 0 || 2*written > uint64(len(b)) {
		_, err = m.scanTracked(in, lo, hi, true, nil)
	}
	return err
}

// get returns a ready engine: an idle one, or a new one restored from the
// snapshot.
func (m *machine) get(ctx context.Context) (*instance, error) {
	m.mu.Lock()
	m.inUse++
	m.peak = max(m.peak, m.inUse)
	if n := len(m.idle); n > 0 {
		in := m.idle[n-1]
		m.idle = m.idle[:n-1]
		m.mu.Unlock()
		return in, nil
	}
	m.mu.Unlock()
	in, err := m.instantiate(ctx)
	if err == nil {
		if err = m.restore(in); err != nil {
			in.close()
		}
	}
	if err != nil {
		m.mu.Lock()
		m.inUse--
		m.mu.Unlock()
		return nil, err
	}
	return in, nil
}

// put takes back an engine after an execution that ended without a trap. It
// is restored from the snapshot and kept, unless the pool is full or its
// memory grew well past the snapshot, in which case it is closed.
func (m *machine) put(in *instance) {
	m.mu.Lock()
	m.inUse--
	keep := len(m.idle)+m.inUse < m.target()
	m.mu.Unlock()
	snap, _ := m.current()
	if keep && in.mem.Size() <= uint32(2*len(snap)) && m.restore(in) == nil {
		m.mu.Lock()
		if !m.closed {
			m.idle = append(m.idle, in)
			in = nil
		}
		// Demand fell: let go of the engines past the target.
		var extra []*instance
		if t := m.target(); len(m.idle)+m.inUse > t && len(m.idle) > 0 {
			k := min(len(m.idle), len(m.idle)+m.inUse-t)
			extra = append(extra, m.idle[:k]...)
			m.idle = append(m.idle[:0], m.idle[k:]...)
		}
		m.mu.Unlock()
		for _, x := range extra {
			x.close()
		}
		if in == nil {
			return
		}
	}
	in.close()
}

// discard closes an engine that trapped or was stopped.
func (m *machine) discard(in *instance) {
	m.mu.Lock()
	m.inUse--
	m.mu.Unlock()
	in.close()
}

// close closes the machine's idle engines; engines in use are closed by
// their executions.
func (m *machine) close() {
	m.mu.Lock()
	idle := m.idle
	m.idle = nil
	m.closed = true
	m.mu.Unlock()
	for _, in := range idle {
		in.close()
	}
}
