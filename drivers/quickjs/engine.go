package quickjs

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"github.com/tetratelabs/wazero/api"
)

// jsValue is a QuickJS JSValue as the wasm32 build passes it: NaN-boxed in 64
// bits, the tag in the high 32 bits (quickjs.h, JS_NAN_BOXING).
type jsValue uint64

const (
	tagModule    = -3
	tagException = 6
	tagBool      = 1
	tagInt       = 0
	tagNull      = 2
	tagUndefined = 3

	evalTypeGlobal  = 0
	evalTypeModule  = 1
	evalFlagCompile = 1 << 5

	// JS_WRITE_OBJ_BYTECODE and JS_READ_OBJ_BYTECODE (quickjs.h): allow
	// function bytecode in JS_WriteObject and JS_ReadObject.
	writeObjBytecode = 1 << 0
	readObjBytecode  = 1 << 0
)

func (v jsValue) tag() int32 { return int32(uint32(uint64(v) >> 32)) }

func (v jsValue) isException() bool { return v.tag() == tagException }

func mkValue(tag int32, payload uint32) jsValue {
	return jsValue(uint64(uint32(tag))<<32 | uint64(payload))
}

var jsNull = mkValue(tagNull, 0)

func jsBool(b bool) jsValue {
	if b {
		return mkValue(tagBool, 1)
	}
	return mkValue(tagBool, 0)
}

func jsInt(i int32) jsValue { return mkValue(tagInt, uint32(i)) }

// exports are the QuickJS C API functions the driver calls, looked up once
// per instance.
type exports struct {
	malloc, free                                    api.Function
	newString, toCString, freeCString               api.Function
	eval, evalFunction, moduleNamespace             api.Function
	call, freeValue, dupValue                       api.Function
	global, getProp, setProp, getException, runJobs api.Function
	newRuntime, newContext, setMemoryLimit          api.Function
	writeObject, readObject, jsFree                 api.Function
	initialize                                      api.Function
}

func lookupExports(m api.Module) (*exports, error) {
	e := &exports{}
	for name, dst := range map[string]*api.Function{
		"malloc": &e.malloc, "free": &e.free,
		"JS_NewStringLen": &e.newString, "JS_ToCStringLen2": &e.toCString, "JS_FreeCString": &e.freeCString,
		"JS_Eval": &e.eval, "JS_EvalFunction": &e.evalFunction, "JS_GetModuleNamespace": &e.moduleNamespace,
		"JS_Call": &e.call, "JS_FreeValue": &e.freeValue, "JS_DupValue": &e.dupValue,
		"JS_GetGlobalObject": &e.global, "JS_GetPropertyStr": &e.getProp, "JS_SetPropertyStr": &e.setProp,
		"JS_GetException": &e.getException, "JS_ExecutePendingJob": &e.runJobs,
		"JS_NewRuntime": &e.newRuntime, "JS_NewContext": &e.newContext, "JS_SetMemoryLimit": &e.setMemoryLimit,
		"JS_WriteObject": &e.writeObject, "JS_ReadObject": &e.readObject, "js_free": &e.jsFree,
		"_initialize": &e.initialize,
	} {
		f := m.ExportedFunction(name)
		if f == nil {
			return nil, fmt.Errorf("quickjs: the wasm module does not export %s", name)
		}
		*dst = f
	}
	return e, nil
}

// layout is what the template instance set up before its memory was
// snapshotted: pointers and value handles that are valid in every copy.
type layout struct {
	rt, ctx uint32                // JSRuntime*, JSContext*
	scratch uint32                // scratchSize bytes of scratch memory (argv, out-lengths)
	runner  jsValue               // CodeModeRunner.quickjs
	fns     [len(fnNames)]jsValue // the runner entries, by fn* index
	// stackTop and stackFloor bound the C stack's region (machine.go,
	// stackSize): the stack pointer starts at stackTop and the guard
	// (patch.go) traps below stackFloor.
	stackTop, stackFloor uint32
}

const (
	fnPrepare = iota
	fnStart
	fnDeliver
	fnFire
	fnDrain
	fnHold
	fnRelease
	fnDeliverValue
	fnHoldValue
	fnWaitingStack
	fnStopStack
	fnPrebuild
	fnPrebuildBegin
)

var fnNames = [...]string{"prepare", "start", "deliver", "fire", "drain", "hold", "release", "deliverValue", "holdValue", "waitingStack", "stopStack", "prebuild", "prebuildBegin"}

// instance is one QuickJS engine in its own wasm module instance. It is used
// by one goroutine at a time.
type instance struct {
	mod api.Module
	mem api.Memory
	// unmap releases the engine's memory; close calls it after closing the
	// module (memory_unix.go says why not before).
	unmap func()
	x     *exports
	l     layout
	stack []uint64
	// sp and floor are the module's __stack_pointer and the stack guard's
	// floor, oom the out-of-memory flag (patch.go, instrument).
	sp, floor, oom api.MutableGlobal
	// tracked: the memory is registered with the template's write
	// tracker; armed: its pages are protected, so the tracker knows what
	// was written since the last reset. written is the scan's buffer.
	tracked, armed bool
	written        []pageRegion
	resets         int
	// gen is the generation of the template's snapshot the engine was
	// last restored from (template.current); fresh is set until the first
	// restore, which maps the snapshot, as a restore to another generation
	// does (template.mapSnapshot).
	gen   uint64
	fresh bool
}

// errEngineClosed is what a call into an engine whose module is closed
// returns: the interrupt handler closed it to stop a program.
var errEngineClosed = errors.New("quickjs: the engine was closed")

// close closes the engine's module and then unmaps its memory; nothing may
// use the instance afterwards.
func (in *instance) close() {
	_ = in.mod.Close(context.Background())
	in.unmap()
}

// invoke calls f with params and returns its first result. It refuses to
// enter a closed module: wazero would run its code (it does not check), and
// after an interrupt the engine's state is that of a C call cut short.
func (in *instance) invoke(ctx context.Context, f api.Function, params ...uint64) (uint64, error) {
	if in.mod.IsClosed() {
		return 0, errEngineClosed
	}
	n := len(params)
	if n < 1 {
		n = 1
	}
	if cap(in.stack) < n {
		in.stack = make([]uint64, n)
	}
	stack := in.stack[:n]
	copy(stack, params)
	if err := f.CallWithStack(ctx, stack); err != nil {
		return 0, err
	}
	return stack[0], nil
}

func (in *instance) write(ptr uint32, data []byte) error {
	if !in.mem.Write(ptr, data) {
		return fmt.Errorf("quickjs: write of %d bytes at %#x is out of range", len(data), ptr)
	}
	return nil
}

// alloc copies data plus a NUL byte into guest memory; free it with in.x.free.
func (in *instance) alloc(ctx context.Context, data []byte) (uint32, error) {
	r, err := in.invoke(ctx, in.x.malloc, uint64(len(data)+1))
	if err != nil {
		return 0, err
	}
	ptr := uint32(r)
	if ptr == 0 {
		return 0, fmt.Errorf("quickjs: out of memory allocating %d bytes", len(data)+1)
	}
	buf := make([]byte, len(data)+1)
	copy(buf, data)
	return ptr, in.write(ptr, buf)
}

func (in *instance) release(ctx context.Context, ptr uint32) error {
	_, err := in.invoke(ctx, in.x.free, uint64(ptr))
	return err
}

// newString makes a JS string from UTF-8 text. The text is written into
// guest memory straight from s (a catalogue's tool names are 258 KB for
// 10,000 tools: no Go copies on the way).
func (in *instance) newString(ctx context.Context, s string) (jsValue, error) {
	r, err := in.invoke(ctx, in.x.malloc, uint64(len(s)+1))
	if err != nil {
		return 0, err
	}
	ptr := uint32(r)
	if ptr == 0 {
		return 0, fmt.Errorf("quickjs: out of memory allocating %d bytes", len(s)+1)
	}
	if !in.mem.WriteString(ptr, s) || !in.mem.WriteByte(ptr+uint32(len(s)), 0) {
		return 0, fmt.Errorf("quickjs: write of %d bytes at %#x is out of range", len(s)+1, ptr)
	}
	v, err := in.invoke(ctx, in.x.newString, uint64(in.l.ctx), uint64(ptr), uint64(len(s)))
	if err != nil {
		return 0, err
	}
	return jsValue(v), in.release(ctx, ptr)
}

// asciiString makes a JS string of s, which holds ASCII only, from its
// serialised form (JS_ReadObject of head, the ULEB128 of its length times
// two and its bytes; see learnStringHead): the engine copies the bytes as
// they are, where JS_NewStringLen decodes UTF-8 byte by byte. For a
// catalogue's 244 KB of tool names that took 190 µs against 660 µs, most
// of a one-call execution's cost over a 10-tool catalogue's.
func (in *instance) asciiString(ctx context.Context, head []byte, s string) (jsValue, error) {
	var n [binary.MaxVarintLen64]byte
	length := binary.PutUvarint(n[:], uint64(len(s))<<1)
	size := len(head) + length + len(s)
	r, err := in.invoke(ctx, in.x.malloc, uint64(size))
	if err != nil {
		return 0, err
	}
	ptr := uint32(r)
	if ptr == 0 {
		return 0, fmt.Errorf("quickjs: out of memory allocating %d bytes", size)
	}
	if !in.mem.Write(ptr, head) || !in.mem.Write(ptr+uint32(len(head)), n[:length]) || !in.mem.WriteString(ptr+uint32(len(head)+length), s) {
		return 0, fmt.Errorf("quickjs: write of %d bytes at %#x is out of range", size, ptr)
	}
	v, err := in.invoke(ctx, in.x.readObject, uint64(in.l.ctx), uint64(ptr), uint64(size), 0)
	if err != nil {
		return 0, err
	}
	if err := in.release(ctx, ptr); err != nil {
		return 0, err
	}
	if jsValue(v).isException() {
		exc, err := in.exception(ctx)
		if err != nil {
			return 0, err
		}
		text, _ := in.goString(ctx, exc)
		_ = in.freeValue(ctx, exc)
		return 0, fmt.Errorf("quickjs: reading a serialised string: %s", text)
	}
	return jsValue(v), nil
}

// text makes a JS string of s: asciiString when head is known and s is
// ASCII, newString otherwise.
func (in *instance) text(ctx context.Context, head []byte, ascii bool, s string) (jsValue, error) {
	if head != nil && ascii {
		return in.asciiString(ctx, head, s)
	}
	return in.newString(ctx, s)
}

// learnStringHead returns what JS_WriteObject writes before a string's
// length and bytes (the format's version, an empty atom table, the string
// tag), found by serialising two probe strings in the engine, or nil when
// asciiString's encoding does not reproduce both exactly.
func (in *instance) learnStringHead(ctx context.Context) []byte {
	var head []byte
	for _, probe := range []string{"ab", strings.Repeat("x", 200)} {
		v, err := in.newString(ctx, probe)
		if err != nil {
			return nil
		}
		b, err := in.writeObject(ctx, v)
		_ = in.freeValue(ctx, v)
		tail := binary.AppendUvarint(nil, uint64(len(probe))<<1)
		tail = append(tail, probe...)
		if err != nil || !bytes.HasSuffix(b, tail) || (head != nil && !bytes.Equal(head, b[:len(b)-len(tail)])) {
			return nil
		}
		head = b[:len(b)-len(tail)]
	}
	return head
}

// goString converts a JS value to Go text (JS_ToCStringLen2), without freeing v.
func (in *instance) goString(ctx context.Context, v jsValue) (string, error) {
	lenPtr := in.l.scratch
	p, err := in.invoke(ctx, in.x.toCString, uint64(in.l.ctx), uint64(lenPtr), uint64(v), 0)
	if err != nil {
		return "", err
	}
	if uint32(p) == 0 {
		return "", fmt.Errorf("quickjs: value is not convertible to a string")
	}
	lb, ok := in.mem.Read(lenPtr, 4)
	if !ok {
		return "", fmt.Errorf("quickjs: reading string length")
	}
	n := binary.LittleEndian.Uint32(lb)
	b, ok := in.mem.Read(uint32(p), n)
	if !ok {
		return "", fmt.Errorf("quickjs: reading %d-byte string", n)
	}
	s := string(b)
	_, err = in.invoke(ctx, in.x.freeCString, uint64(in.l.ctx), p)
	return s, err
}

func (in *instance) freeValue(ctx context.Context, v jsValue) error {
	_, err := in.invoke(ctx, in.x.freeValue, uint64(in.l.ctx), uint64(v))
	return err
}

// exception takes the pending exception (JS_GetException).
func (in *instance) exception(ctx context.Context) (jsValue, error) {
	v, err := in.invoke(ctx, in.x.getException, uint64(in.l.ctx))
	return jsValue(v), err
}

// scratchSize is the size of an instance's scratch memory: an out-length
// at 0, a runner call's arguments (argv) from 8, the stop site's length at
// stopSiteLen.
const scratchSize = 128

// maxRunnerArgs is the most arguments callRunner passes: argv ends before
// stopSiteLen.
const maxRunnerArgs = (stopSiteLen - 8) / 8

// callRunner calls one of the runner's QuickJS entry functions with args
// (which it does not free) and returns the result, which the caller frees.
// A JavaScript exception is returned as an error carrying its text.
func (in *instance) callRunner(ctx context.Context, fn int, args ...jsValue) (jsValue, error) {
	if len(args) > maxRunnerArgs {
		return 0, fmt.Errorf("quickjs: runner %s called with %d arguments; the scratch memory holds %d", fnNames[fn], len(args), maxRunnerArgs)
	}
	argv := in.l.scratch + 8
	buf := make([]byte, 8*len(args))
	for i, a := range args {
		binary.LittleEndian.PutUint64(buf[8*i:], uint64(a))
	}
	if err := in.write(argv, buf); err != nil {
		return 0, err
	}
	r, err := in.invoke(ctx, in.x.call, uint64(in.l.ctx), uint64(in.l.fns[fn]), uint64(in.l.runner), uint64(len(args)), uint64(argv))
	if err != nil {
		return 0, err
	}
	v := jsValue(r)
	if v.isException() {
		exc, err := in.exception(ctx)
		if err != nil {
			return 0, err
		}
		text, _ := in.goString(ctx, exc)
		_ = in.freeValue(ctx, exc)
		return 0, fmt.Errorf("quickjs: runner %s threw: %s", fnNames[fn], text)
	}
	return v, nil
}

// writeObject serialises v, a compiled function (JS_WriteObject with
// function bytecode allowed), without freeing it.
func (in *instance) writeObject(ctx context.Context, v jsValue) ([]byte, error) {
	sizePtr := in.l.scratch
	p, err := in.invoke(ctx, in.x.writeObject, uint64(in.l.ctx), uint64(sizePtr), uint64(v), writeObjBytecode)
	if err != nil {
		return nil, err
	}
	if uint32(p) == 0 {
		exc, err := in.exception(ctx)
		if err != nil {
			return nil, err
		}
		text, _ := in.goString(ctx, exc)
		_ = in.freeValue(ctx, exc)
		return nil, fmt.Errorf("quickjs: serialising a compiled function: %s", text)
	}
	sb, ok := in.mem.Read(sizePtr, 4)
	if !ok {
		return nil, fmt.Errorf("quickjs: reading a serialised function's size")
	}
	n := binary.LittleEndian.Uint32(sb)
	b, ok := in.mem.Read(uint32(p), n)
	if !ok {
		return nil, fmt.Errorf("quickjs: reading a %d-byte serialised function", n)
	}
	out := append([]byte(nil), b...)
	_, err = in.invoke(ctx, in.x.jsFree, uint64(in.l.ctx), p)
	return out, err
}

// readObject rebuilds a compiled function from writeObject's bytes
// (JS_ReadObject); the value, or an exception value, is the caller's.
func (in *instance) readObject(ctx context.Context, b []byte) (jsValue, error) {
	ptr, err := in.alloc(ctx, b)
	if err != nil {
		return 0, err
	}
	v, err := in.invoke(ctx, in.x.readObject, uint64(in.l.ctx), uint64(ptr), uint64(len(b)), readObjBytecode)
	if err != nil {
		return 0, err
	}
	return jsValue(v), in.release(ctx, ptr)
}

// readValue makes the value whose serialised form (JS_WriteObject without
// bytecode; see bjson.go) b is, with JS_ReadObject allowing no bytecode.
// When the engine throws (out of memory) the exception is cleared and ok
// is false.
func (in *instance) readValue(ctx context.Context, b []byte) (v jsValue, ok bool, err error) {
	ptr, err := in.alloc(ctx, b)
	if err != nil {
		return 0, false, err
	}
	r, err := in.invoke(ctx, in.x.readObject, uint64(in.l.ctx), uint64(ptr), uint64(len(b)), 0)
	if err != nil {
		return 0, false, err
	}
	if err := in.release(ctx, ptr); err != nil {
		return 0, false, err
	}
	if jsValue(r).isException() {
		exc, err := in.exception(ctx)
		if err != nil {
			return 0, false, err
		}
		return 0, false, in.freeValue(ctx, exc)
	}
	return jsValue(r), true, nil
}

// runJobs runs the job queue (promise reactions) until it is empty.
func (in *instance) runJobs(ctx context.Context) error {
	for {
		r, err := in.invoke(ctx, in.x.runJobs, uint64(in.l.rt), uint64(in.l.scratch))
		if err != nil {
			return err
		}
		switch int32(uint32(r)) {
		case 0:
			return nil
		case 1:
			continue
		default:
			// A job threw past every handler; the runner's own jobs catch
			// everything, so drop the exception and go on.
			exc, err := in.exception(ctx)
			if err != nil {
				return err
			}
			if err := in.freeValue(ctx, exc); err != nil {
				return err
			}
		}
	}
}
