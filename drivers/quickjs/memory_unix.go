//go:build unix

package quickjs

import (
	"sync"
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
// serves one instantiation, and keeps the memory it made so that the
// driver can unmap it (unmap).
type mmapAllocator struct {
	track   *writeTracker
	tracked bool
	mem     *mmapMemory
}

func (a *mmapAllocator) Allocate(cap, max uint64) experimental.LinearMemory {
	buf, err := syscall.Mmap(-1, 0, int(max), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON|syscall.MAP_NORESERVE)
	if err != nil {
		return nil
	}
	a.tracked = a.track != nil && a.track.register(buf) == nil
	a.mem = &mmapMemory{buf: buf}
	return a.mem
}

// unmap gives the memory back to the kernel. The driver calls it once
// nothing can touch the engine any more (instance.close).
func (a *mmapAllocator) unmap() {
	if a.mem != nil {
		a.mem.unmap()
	}
}

// newMemoryAllocator returns the allocator for one instantiation; track
// may be nil.
func newMemoryAllocator(track *writeTracker) *mmapAllocator { return &mmapAllocator{track: track} }

type mmapMemory struct {
	mu  sync.Mutex
	buf []byte
}

func (m *mmapMemory) Reallocate(size uint64) []byte {
	if size > uint64(len(m.buf)) {
		return nil
	}
	return m.buf[:size]
}

// Free is wazero closing the module, which can happen in the middle of a
// call into it: the interrupt handler closes the module to stop a program
// (host.go), and the engine's goroutine then still reads the engine's
// memory and may call into it while it unwinds. Unmapping here made those
// touches hit unmapped pages, a SIGSEGV that killed the process (an
// adversarial review: a halt or cancel with tool calls in flight). The
// mapping is left to unmap, which the driver calls when it is done with
// the engine.
func (m *mmapMemory) Free() {}

func (m *mmapMemory) unmap() {
	m.mu.Lock()
	defer m.mu.Unlock()
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
