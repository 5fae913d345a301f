//go:build !unix

package quickjs

import "github.com/tetratelabs/wazero/experimental"

// sliceAllocator reserves each engine's maximum memory up front, so the
// backing array never moves (see memory_unix.go).
// There is no write tracking here: tracked stays false.
type sliceAllocator struct {
	tracked bool
	mem     *sliceMemory
}

func (a *sliceAllocator) Allocate(cap, max uint64) experimental.LinearMemory {
	a.mem = &sliceMemory{buf: make([]byte, 0, max)}
	return a.mem
}

// unmap lets the memory go once the driver is done with the engine (see
// memory_unix.go: wazero's Free can come in the middle of a call).
func (a *sliceAllocator) unmap() {
	if a.mem != nil {
		a.mem.buf = nil
	}
}

type sliceMemory struct{ buf []byte }

func (m *sliceMemory) Reallocate(size uint64) []byte {
	if size > uint64(cap(m.buf)) {
		return nil
	}
	return m.buf[:size]
}

// Free keeps the memory: see unmap.
func (m *sliceMemory) Free() {}

// newMemoryAllocator returns the allocator for one instantiation.
func newMemoryAllocator(*writeTracker) *sliceAllocator { return &sliceAllocator{} }

// releasePages clears memory no longer in use.
func releasePages(b []byte) { clear(b) }
