//go:build unix

package quickjs

import (
	"syscall"

	"github.com/tetratelabs/wazero/experimental"
	"golang.org/x/sys/unix"
)

// mmapAllocator backs each engine's linear memory with one anonymous
// mapping of the memory's maximum size. Pages are committed by the kernel
// only when touched, and the backing array never moves when the guest grows
// its memory, so the interrupt guard's pointer into it stays valid for the
// engine's life (interrupt.go).
//
// With a write tracker, the allocator registers the mapping with it, so
// that the engine can be reset by copying back only the pages a program
// wrote (dirty_linux.go); tracked reports whether it did. An allocator
// serves one instantiation.
type mmapAllocator struct {
	track   *writeTracker
	tracked bool
}

func (a *mmapAllocator) Allocate(cap, max uint64) experimental.LinearMemory {
	buf, err := syscall.Mmap(-1, 0, int(max), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON|syscall.MAP_NORESERVE)
	if err != nil {
		return nil
	}
	a.tracked = a.track != nil && a.track.register(buf) == nil
	return &mmapMemory{buf: buf}
}

// newMemoryAllocator returns the allocator for one instantiation; track
// may be nil.
func newMemoryAllocator(track *writeTracker) *mmapAllocator { return &mmapAllocator{track: track} }

type mmapMemory struct{ buf []byte }

func (m *mmapMemory) Reallocate(size uint64) []byte {
	if size > uint64(len(m.buf)) {
		return nil
	}
	return m.buf[:size]
}

func (m *mmapMemory) Free() {
	if m.buf != nil {
		_ = syscall.Munmap(m.buf)
		m.buf = nil
	}
}

// releasePages gives page-aligned memory back to the kernel, which reads as
// zeros from then on; where it cannot, the memory is cleared.
func releasePages(b []byte) {
	if len(b) > 0 && unix.Madvise(b, unix.MADV_DONTNEED) != nil {
		clear(b)
	}
}
