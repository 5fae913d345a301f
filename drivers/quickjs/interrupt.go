package quickjs

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Stopping a running program.
//
// wazero's WithCloseOnContextDone would stop a busy guest, but in wazero
// v1.12 it calls into Go at every loop back-edge, which made QuickJS five
// times slower here (RATIONALE.md). Instead the driver uses QuickJS's own
// interrupt polling: the interpreter calls rt->interrupt_handler, when set,
// every few thousand bytecodes and at function calls
// (JS_SetInterruptHandler, quickjs.h). To stop a program, the host writes an
// out-of-range table index into that field; the next poll's call_indirect
// traps with "invalid table access", the call into the engine returns an
// error, and the engine is discarded. The field's offset inside JSRuntime is
// found once per template by setting a marker handler through the C API
// and scanning for it.

const (
	markerHandler = 0x7EADBEEF
	markerOpaque  = 0x7EEDFACE
	// badHandler is a function table index far beyond any table.
	badHandler = 0xFFFFFFF0
)

// findInterruptField returns the offset of interrupt_handler in JSRuntime.
func findInterruptField(ctx context.Context, in *instance) (uint32, error) {
	set := in.mod.ExportedFunction("JS_SetInterruptHandler")
	if set == nil {
		return 0, errors.New("quickjs: the wasm module does not export JS_SetInterruptHandler")
	}
	if _, err := in.invoke(ctx, set, uint64(in.l.rt), markerHandler, markerOpaque); err != nil {
		return 0, err
	}
	const scan = 4096
	b, ok := in.mem.Read(in.l.rt, scan)
	if !ok {
		return 0, errors.New("quickjs: reading JSRuntime")
	}
	off := -1
	for i := 0; i+8 <= scan; i += 4 {
		if binary.LittleEndian.Uint32(b[i:]) == markerHandler && binary.LittleEndian.Uint32(b[i+4:]) == markerOpaque {
			off = i
			break
		}
	}
	if _, err := in.invoke(ctx, set, uint64(in.l.rt), 0, 0); err != nil {
		return 0, err
	}
	if off < 0 {
		return 0, errors.New("quickjs: could not locate JSRuntime.interrupt_handler")
	}
	return in.l.rt + uint32(off), nil
}

// guard stops one execution's engine on request, from any goroutine.
type guard struct {
	mu       sync.Mutex
	field    *uint32 // interrupt_handler in the engine's memory
	disarmed bool
	reason   error
	fired    atomic.Bool
}

func newGuard(in *instance) (*guard, error) {
	b, ok := in.mem.Read(in.l.interrupt, 4)
	if !ok || in.l.interrupt%4 != 0 {
		return nil, fmt.Errorf("quickjs: interrupt field at %#x is unusable", in.l.interrupt)
	}
	return &guard{field: (*uint32)(unsafe.Pointer(&b[0]))}, nil
}

// stop makes the engine trap at its next interrupt poll; reason is what the
// execution reports. Only the first reason counts.
func (g *guard) stop(reason error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.disarmed || g.fired.Load() {
		return
	}
	g.reason = reason
	g.fired.Store(true)
	atomic.StoreUint32(g.field, badHandler)
}

// disarm ends the guard: later stops do nothing. It returns the reason the
// guard fired with, or nil.
func (g *guard) disarm() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.disarmed = true
	return g.reason
}
