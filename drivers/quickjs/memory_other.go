//go:build !unix

package quickjs

import "github.com/tetratelabs/wazero/experimental"

// sliceAllocator reserves each engine's maximum memory up front, so the
// backing array never moves (see memory_unix.go).
type sliceAllocator struct{}

func (sliceAllocator) Allocate(cap, max uint64) experimental.LinearMemory {
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

var memoryAllocator experimental.MemoryAllocator = sliceAllocator{}
