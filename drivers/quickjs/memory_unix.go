//go:build unix

package quickjs

import (
	"syscall"

	"github.com/tetratelabs/wazero/experimental"
)

// mmapAllocator backs each engine's linear memory with one anonymous
// mapping of the memory's maximum size. Pages are committed by the kernel
// only when touched, and the backing array never moves when the guest grows
// its memory, so the interrupt guard's pointer into it stays valid for the
// engine's life (interrupt.go).
type mmapAllocator struct{}

func (mmapAllocator) Allocate(cap, max uint64) experimental.LinearMemory {
	buf, err := syscall.Mmap(-1, 0, int(max), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON|syscall.MAP_NORESERVE)
	if err != nil {
		return nil
	}
	return &mmapMemory{buf: buf}
}

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

var memoryAllocator experimental.MemoryAllocator = mmapAllocator{}
