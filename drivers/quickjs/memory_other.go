//go:build !unix

package quickjs

import "github.com/tetratelabs/wazero/experimental"

// sliceAllocator reserves each engine's maximum memory up front, so the
// backing array never moves (see memory_unix.go).
// There is no write tracking here: tracked stays false.
type sliceAllocator struct{ tracked bool }

func (*sliceAllocator) Allocate(cap, max uint64) experimental.LinearMemory {
	return &sliceMemory{buf: make([]byte, 0, max)}
}

type sliceMemory struct{ buf []byte }

func (m *sliceMemory) Reallocate(size uint64) []byte {
	if size > uint64(cap(m.buf)) {
		return nil
	}
	return m.buf[:size]
}

func (m *sliceMemory) Free() { m.buf = nil }

// newMemoryAllocator returns the allocator for one instantiation.
func newMemoryAllocator(*writeTracker) *sliceAllocator { return &sliceAllocator{} }

// releasePages clears memory no longer in use.
func releasePages(b []byte) { clear(b) }
