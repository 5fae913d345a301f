package quickjs

import (
	"context"
	"encoding/binary"
	"time"

	"github.com/tetratelabs/wazero/api"
)

// stopSite records where a program was when an interrupt poll stopped it
// at its deadline or CPU time limit: the stack of an Error QuickJS makes
// from inside the poll (the runner's stopStack: QuickJS walks the frames
// the program is in),
// so that the TimeoutError names the line that ran (a busy loop) instead of
// none. The engine is closed right after; the capture is best effort and
// never stops the stop: any fault leaves the stack empty.
type stopSite struct {
	in    *instance
	tried bool
	stack string
}

// stopSiteKey is the context key of an execution's *stopSite, read by the
// interrupt poll (environSizesGet) once the execution's context is done.
type stopSiteKey struct{}

// withStopSite returns ctx carrying site for the interrupt poll.
func withStopSite(ctx context.Context, site *stopSite) context.Context {
	return context.WithValue(ctx, stopSiteKey{}, site)
}

// stopSiteTimeout bounds the calls that read the stack: the runner's
// stopStack and the string it returns, which run no program code but
// Error.stackTraceLimit's valueOf.
const stopSiteTimeout = 100 * time.Millisecond

// stopSiteLen is a place in the instance's scratch memory that a call in
// progress does not use (engine.go: scratchSize, and argv from 8 to at most
// stopSiteLen).
const stopSiteLen = 112 // the string's length, written by JS_ToCStringLen2

// capture reads the program's stack from inside the interrupt poll of m,
// the engine's module, once. It calls the module again from the poll
// (each function afresh, so that no call in progress shares its call
// engine), with a context of its own that is not done.
func (s *stopSite) capture(m api.Module) {
	if s == nil || s.tried {
		return
	}
	s.tried = true
	defer func() { _ = recover() }() // a trap in a nested call leaves the stack empty
	ctx, cancel := context.WithTimeout(context.Background(), stopSiteTimeout)
	defer cancel()
	call := func(name string, params ...uint64) (uint64, bool) {
		f := m.ExportedFunction(name)
		if f == nil {
			return 0, false
		}
		r, err := f.Call(ctx, params...)
		if err != nil || len(r) == 0 {
			return 0, false
		}
		return r[0], true
	}
	jsctx, mem := uint64(s.in.l.ctx), m.Memory()
	// The runner's stopStack makes an Error (QuickJS walks the frames the
	// program is in) and writes its stack as the engine does: the
	// runner's hook writes the stack a program reads otherwise
	// (runner/src/stack.ts), and the host maps the engine's.
	st, ok := call("JS_Call", jsctx, uint64(s.in.l.fns[fnStopStack]), uint64(s.in.l.runner), 0, 0)
	if !ok || jsValue(st).isException() {
		return
	}
	defer call("JS_FreeValue", jsctx, st)
	lenPtr := s.in.l.scratch + stopSiteLen
	p, ok := call("JS_ToCStringLen2", jsctx, uint64(lenPtr), st, 0)
	if !ok || uint32(p) == 0 {
		return
	}
	defer call("JS_FreeCString", jsctx, p)
	lb, ok := mem.Read(lenPtr, 4)
	if !ok {
		return
	}
	// One byte past the bound, so that a longer stack is cut at a line's
	// end (cutToLines), not in a line or a character.
	n := min(binary.LittleEndian.Uint32(lb), maxWaitingStack+1)
	if b, ok := mem.Read(uint32(p), n); ok {
		s.stack = validStack(cutToLines(string(b), maxWaitingStack))
	}
}
