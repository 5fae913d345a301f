package quickjs

import (
	"context"
	"errors"
	"fmt"
)

// Unhandled rejections. A program that lets a promise reject with no
// handler (a tool call it never awaited, `Promise.reject(e)` left alone)
// is told at its end, by a warning line on stderr (runner/src/core.ts,
// warnAtEnd). The runner keeps the list; QuickJS tells it of rejections
// through its host promise rejection tracker
// (JS_SetHostPromiseRejectionTracker), which the engine calls with
// is_handled false when a promise is rejected while it has no handler and
// with is_handled true when a handler is attached to it later. It costs
// nothing where no promise is rejected unhandled: QuickJS tests for the
// tracker only there.
//
// The tracker must be a function in the module's table, of the C type
// JSHostPromiseRejectionTracker: (JSContext *ctx, JSValue promise, JSValue
// reason, bool is_handled, void *opaque), in wasm (i32, i64, i64, i32, i32)
// with no result. No import has that type and adding one would move every
// function index, so addRejectionTracker appends a defined function, the
// stub below, and puts it in a new table slot; no index changes. The stub
// calls the runner's track(promise, reason, handled) with JS_Call: the
// function is the JSValue stored at opaque (installRejectionTracker), the
// arguments go on the C stack (so that a rejection inside track, should
// there be one, gets its own), and both values stay borrowed, as the
// tracker receives them: track keeps what it keeps by its own reference,
// which the engine counts. Whatever track returns or throws is freed. The
// stub does nothing while an exception is pending, which it would
// otherwise take. It runs wholly in wasm: no host function, no system call.
//
// In the stub, locals 0-4 are the parameters, 5 the arguments' address
// and 6 what JS_Call returned:
//
//	if (JS_HasException(ctx)) return;
//	argv = __stack_pointer -= 32;
//	argv[0] = promise; argv[1] = reason; argv[2] = JS_NewBool(is_handled);
//	r = JS_Call(ctx, *(JSValue *)opaque, JS_UNDEFINED, 3, argv);
//	if (r == JS_EXCEPTION) r = JS_GetException(ctx);
//	JS_FreeValue(ctx, r);
//	__stack_pointer = argv + 32;
//
// The stack guard (instrument, which runs after) checks the stack pointer
// the stub lowers like any other.

// trackerType is the wasm function type of the tracker: (i32, i64, i64,
// i32, i32) -> ().
var trackerType = []byte{0x60, 5, 0x7f, 0x7e, 0x7e, 0x7f, 0x7f, 0}

// trackerCalls are the exported functions the stub calls.
var trackerCalls = [...]string{"JS_HasException", "JS_Call", "JS_GetException", "JS_FreeValue"}

// trackerStub is the stub's body (locals and code) given the function
// indices of trackerCalls, in order.
func trackerStub(fns [len(trackerCalls)]uint32) []byte {
	hasException, call, getException, freeValue := fns[0], fns[1], fns[2], fns[3]
	b := []byte{2, 1, 0x7f, 1, 0x7e} // locals: one i32, one i64
	b = append(b, 0x20, 0, 0x10)
	b = appendULEB(b, uint64(hasException))
	b = append(b, 0x04, 0x40, 0x0f, 0x0b, // if; return; end
		0x23, 0, 0x41, 32, 0x6b, 0x22, 5, 0x24, 0, // argv = sp - 32; sp = argv
		0x20, 5, 0x20, 1, 0x37, 3, 0, // argv[0] = promise
		0x20, 5, 0x20, 2, 0x37, 3, 8, // argv[1] = reason
		0x20, 5, 0x20, 3, 0xad, 0x42) // argv[2] = bool: is_handled | tag << 32
	b = appendSLEB64(b, int64(mkValue(tagBool, 0)))
	b = append(b, 0x84, 0x37, 3, 16,
		0x20, 0, 0x20, 4, 0x29, 3, 0, 0x42) // ctx, *opaque, undefined
	b = appendSLEB64(b, int64(mkValue(tagUndefined, 0)))
	b = append(b, 0x41, 3, 0x20, 5, 0x10) // 3, argv
	b = appendULEB(b, uint64(call))
	b = append(b, 0x22, 6, 0x42) // if r == JS_EXCEPTION
	b = appendSLEB64(b, int64(mkValue(tagException, 0)))
	b = append(b, 0x51, 0x04, 0x40, 0x20, 0, 0x10)
	b = appendULEB(b, uint64(getException))
	b = append(b, 0x21, 6, 0x0b, // r = JS_GetException(ctx); end
		0x20, 0, 0x20, 6, 0x10)
	b = appendULEB(b, uint64(freeValue))
	return append(b, 0x20, 5, 0x41, 32, 0x6a, 0x24, 0, 0x0b) // sp = argv + 32; end
}

// addRejectionTracker appends the tracker stub to the module as a defined
// function and puts it in a new table slot, which it returns.
func addRejectionTracker(wasm []byte) ([]byte, uint32, error) {
	sections, err := splitSections(wasm)
	if err != nil {
		return nil, 0, err
	}
	var imported uint32
	var calls [len(trackerCalls)]uint32
	typeIndex, fn := int64(-1), int64(-1)
	haveExports := false
	for k := range sections {
		s := &sections[k]
		switch s.id {
		case 1:
			if s.payload, typeIndex, err = withType(s.payload, trackerType); err != nil {
				return nil, 0, err
			}
		case 2:
			if imported, _, err = importCounts(s.payload); err != nil {
				return nil, 0, err
			}
		case 3:
			if typeIndex < 0 {
				return nil, 0, fmt.Errorf("%w: the function section comes before the types", errMalformedWasm)
			}
			var defined uint64
			if s.payload, defined, err = appendVectorItem(s.payload, appendULEB(nil, uint64(typeIndex))); err != nil {
				return nil, 0, err
			}
			fn = int64(imported) + int64(defined)
		case 7:
			for i, name := range trackerCalls {
				f, err := exportedFunc(s.payload, name)
				if err != nil {
					return nil, 0, err
				}
				if f < 0 {
					return nil, 0, fmt.Errorf("quickjs: the module does not export %s", name)
				}
				calls[i] = uint32(f)
			}
			haveExports = true
		case 10:
			if !haveExports {
				return nil, 0, fmt.Errorf("%w: the code section comes before the exports", errMalformedWasm)
			}
			body := trackerStub(calls)
			if s.payload, _, err = appendVectorItem(s.payload, appendULEB(nil, uint64(len(body)))); err != nil {
				return nil, 0, err
			}
			s.payload = append(s.payload, body...)
		}
	}
	if fn < 0 || fn >= 1<<32 {
		return nil, 0, fmt.Errorf("%w: the rejection tracker needs a function and a code section", errMalformedWasm)
	}
	slot, err := addToTable(sections, uint32(fn))
	if err != nil {
		return nil, 0, err
	}
	return joinSections(wasm, sections), slot, nil
}

// withType returns a type section holding t, appended unless the section
// has it already, and its index. Value types are one byte each, as in
// every type of this module.
func withType(section, t []byte) ([]byte, int64, error) {
	count, i, err := readULEB(section, 0)
	if err != nil {
		return nil, 0, err
	}
	for k := uint64(0); k < count; k++ {
		start := i
		if i >= len(section) || section[i] != 0x60 {
			return nil, 0, errMalformedWasm
		}
		i++
		for range 2 { // parameters, then results
			n, j, err := readULEB(section, i)
			if err != nil || j+int(n) > len(section) || j+int(n) < j {
				return nil, 0, errMalformedWasm
			}
			i = j + int(n)
		}
		if string(section[start:i]) == string(t) {
			return section, int64(k), nil
		}
	}
	out, _, err := appendVectorItem(section, t)
	return out, int64(count), err
}

// appendVectorItem returns a section that is a vector (a count, then its
// items) with item appended, and the number of items it held before.
func appendVectorItem(section, item []byte) ([]byte, uint64, error) {
	count, i, err := readULEB(section, 0)
	if err != nil {
		return nil, 0, err
	}
	out := appendULEB(nil, count+1)
	out = append(out, section[i:]...)
	return append(out, item...), count, nil
}

// installRejectionTracker registers the tracker stub in table slot slot as
// the runtime's promise rejection tracker, with runner's track function
// as the JSValue its opaque argument points at. Called in the template
// before its memory is snapshotted: every engine restored from it has the
// tracker installed.
func installRejectionTracker(ctx context.Context, in *instance, runner jsValue, slot uint32) error {
	set := in.mod.ExportedFunction("JS_SetHostPromiseRejectionTracker")
	if set == nil {
		return errors.New("quickjs: the wasm module does not export JS_SetHostPromiseRejectionTracker")
	}
	track, err := in.property(ctx, runner, "track")
	if err != nil {
		return fmt.Errorf("quickjs: runner entry track: %w", err)
	}
	cell, err := in.invoke(ctx, in.x.malloc, 8)
	if err != nil || cell == 0 {
		return fmt.Errorf("quickjs: allocating the rejection tracker's cell: %v", err)
	}
	if !in.mem.WriteUint64Le(uint32(cell), uint64(track)) {
		return errors.New("quickjs: writing the rejection tracker's cell")
	}
	if _, err := in.invoke(ctx, set, uint64(in.l.rt), uint64(slot), cell); err != nil {
		return fmt.Errorf("quickjs: installing the promise rejection tracker: %w", err)
	}
	return nil
}
