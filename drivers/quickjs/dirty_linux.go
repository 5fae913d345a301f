//go:build linux

package quickjs

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// writeTracker finds the pages of an engine's memory that were written since
// they were last write-protected, so that resetting the engine from its
// snapshot copies those pages only instead of the whole memory (a one-call
// program writes about 170 of its 1,136 pages).
//
// It uses the kernel's asynchronous userfaultfd write protection
// (UFFD_FEATURE_WP_ASYNC, Linux 6.7): a write to a protected page is
// resolved inside the kernel, which clears the page's protection bit and
// does not stop the writer, and the PAGEMAP_SCAN ioctl on /proc/self/pagemap
// lists the pages whose bit is clear (written) and can protect them again
// in the same walk. No thread handles faults; the descriptor only registers
// ranges. See https://docs.kernel.org/admin-guide/mm/userfaultfd.html
// ("Write Protect Notifications", asynchronous mode) and
// https://docs.kernel.org/admin-guide/mm/pagemap.html ("Pagemap Scan IOCTL").
//
// The userfaultfd is made with UFFD_USER_MODE_ONLY, which unprivileged
// processes may use when vm.unprivileged_userfaultfd is 0 (the default).
// Where the kernel lacks any of this, newWriteTracker fails and engines are
// reset by copying the whole snapshot, as before.
type writeTracker struct {
	uffd    *os.File // closed by its finalizer too, should the driver never be closed
	pagemap *os.File
}

// Constants of linux/userfaultfd.h and linux/fs.h newer than the headers
// golang.org/x/sys/unix is generated from. The ioctl numbers use the
// generic encoding (asm-generic/ioctl.h: amd64, arm64, riscv64 and most
// others); where an architecture encodes them otherwise the kernel refuses
// them, newWriteTracker fails and engines are reset by copying.
const (
	uffdUserModeOnly      = 1
	uffdAPI               = 0xAA
	uffdFeatureWPAsync    = 1 << 15
	uffdRegisterModeWP    = 1 << 1
	pmScanWPMatching      = 1 << 0
	pmScanCheckWPAsync    = 1 << 1
	pageIsWritten         = 1 << 1
	pmScanArgSize         = 96
	uffdioRegisterIoctl   = 3<<30 | 32<<16 | 0xAA<<8        // _IOWR(0xAA, 0x00, struct uffdio_register)
	uffdioAPIIoctl        = 3<<30 | 24<<16 | 0xAA<<8 | 0x3F // _IOWR(0xAA, 0x3F, struct uffdio_api)
	pagemapScanIoctl      = 3<<30 | pmScanArgSize<<16 | 'f'<<8 | 16
	trackerRegionsPerScan = 64
	// trackerScanSpan bounds the memory one PAGEMAP_SCAN call walks. The
	// call is raw (scan says why), so the goroutine keeps its processor
	// for the whole walk, and a stop-the-world waits for it: a walk that
	// write-protects 72 MiB took about 1 ms, 1 GiB about 14 ms. 8 MiB (an
	// engine's memory is about 4.5 MiB after boot) keeps one call to about
	// a tenth of a millisecond.
	trackerScanSpan = 8 << 20
)

type uffdioAPIArg struct{ api, features, ioctls uint64 }

type uffdioRegisterArg struct{ start, len, mode, ioctls uint64 }

type pmScanArg struct {
	size, flags, start, end, walkEnd, vec, vecLen, maxPages       uint64
	categoryInverted, categoryMask, categoryAnyofMask, returnMask uint64
}

// pageRegion is a run of pages [start, end) the scan found written, as
// addresses (struct page_region).
type pageRegion struct{ start, end, categories uint64 }

// scanCall is one PAGEMAP_SCAN call's argument and the regions the kernel
// writes back. It is allocated on the heap, which the Go runtime never
// moves: the argument holds the regions' address as an integer, which
// would go stale if a goroutine stack holding them grew or shrank before
// the call.
type scanCall struct {
	arg pmScanArg
	vec [trackerRegionsPerScan]pageRegion
}

// newWriteTracker opens the userfaultfd and /proc/self/pagemap. It fails
// where the kernel has no asynchronous write protection or no PAGEMAP_SCAN;
// the caller then resets engines by copying.
func newWriteTracker() (*writeTracker, error) {
	fd, _, e := unix.Syscall(unix.SYS_USERFAULTFD, unix.O_CLOEXEC|uffdUserModeOnly, 0, 0)
	if e != 0 {
		return nil, fmt.Errorf("quickjs: userfaultfd: %w", e)
	}
	api := uffdioAPIArg{api: uffdAPI, features: uffdFeatureWPAsync}
	if err := ioctlPtr(int(fd), uffdioAPIIoctl, unsafe.Pointer(&api)); err != nil || api.features&uffdFeatureWPAsync == 0 {
		_ = unix.Close(int(fd))
		return nil, fmt.Errorf("quickjs: userfaultfd without asynchronous write protection: %v", err)
	}
	pm, err := os.Open("/proc/self/pagemap")
	if err != nil {
		_ = unix.Close(int(fd))
		return nil, fmt.Errorf("quickjs: opening the page map: %w", err)
	}
	t := &writeTracker{uffd: os.NewFile(fd, "userfaultfd"), pagemap: pm}
	// Probe PAGEMAP_SCAN (Linux 6.7) with an empty range: older kernels
	// answer ENOTTY.
	a := pmScanArg{size: pmScanArgSize, start: 1 << 16, end: 1 << 16}
	if _, _, e := unix.Syscall(unix.SYS_IOCTL, pm.Fd(), pagemapScanIoctl, uintptr(unsafe.Pointer(&a))); e != 0 {
		t.close()
		return nil, fmt.Errorf("quickjs: the kernel has no PAGEMAP_SCAN: %w", e)
	}
	return t, nil
}

// ioctlRule is an ioctl the sandbox's seccomp filter allows: request req on
// descriptor fd.
type ioctlRule struct {
	fd  int
	req uint32
}

// ioctls are the calls the tracker makes once the sandbox is confined:
// registering new engines' memory, and scanning. A nil tracker makes none.
func (t *writeTracker) ioctls() []ioctlRule {
	if t == nil {
		return nil
	}
	return []ioctlRule{{int(t.uffd.Fd()), uffdioRegisterIoctl}, {int(t.pagemap.Fd()), pagemapScanIoctl}}
}

// register puts a whole mapping under asynchronous write protection.
// Registering protects nothing yet: every page counts as written until a
// scan with protect set.
func (t *writeTracker) register(b []byte) error {
	if len(b) == 0 {
		return errors.New("quickjs: registering an empty mapping")
	}
	// Per-page tracking: a transparent huge page would be reported, and
	// copied, 2 MiB at a time.
	_ = unix.Madvise(b, unix.MADV_NOHUGEPAGE)
	r := uffdioRegisterArg{start: uint64(uintptr(unsafe.Pointer(&b[0]))), len: uint64(len(b)), mode: uffdRegisterModeWP}
	err := ioctlPtr(int(t.uffd.Fd()), uffdioRegisterIoctl, unsafe.Pointer(&r))
	runtime.KeepAlive(t)
	if err != nil {
		return fmt.Errorf("quickjs: registering memory for write tracking: %w", err)
	}
	return nil
}

// scan appends to out the page runs written in [base+lo, base+hi) as
// offsets from base; with protect, it write-protects them in the same walk.
// lo and hi must be page-aligned. It fails if any page of the range is not
// under asynchronous write protection (PM_SCAN_CHECK_WPASYNC), so a range
// that was never registered is never taken for clean.
func (t *writeTracker) scan(base unsafe.Pointer, lo, hi uint64, protect bool, out []pageRegion) ([]pageRegion, error) {
	b := uint64(uintptr(base))
	start, end := b+lo, b+hi
	flags := uint64(pmScanCheckWPAsync)
	if protect {
		flags |= pmScanWPMatching
	}
	fd := t.pagemap.Fd()
	c := new(scanCall)
	a := &c.arg
	for start < end {
		*a = pmScanArg{
			size: pmScanArgSize, flags: flags, start: start, end: min(end, start+trackerScanSpan),
			vec: uint64(uintptr(unsafe.Pointer(&c.vec[0]))), vecLen: uint64(len(c.vec)),
			categoryMask: pageIsWritten, returnMask: pageIsWritten,
		}
		// A raw call: the walk is CPU work on this process's page tables
		// under its mmap lock, held for reading. It waits for no other
		// process and no I/O, at most for this process's own threads that
		// hold the lock to map or unmap, and trackerScanSpan bounds it, so
		// it need not tell the scheduler. syscall.Syscall would, and its
		// first call after the process idled woke the Go runtime's monitor
		// thread from its deep sleep into a millisecond of 20 µs naps
		// (runtime/proc.go, entersyscall and sysmon): about seven wake-ups
		// an execution, since the scan follows every execution
		// (rawfile_linux.go says the same of the wire's reads and writes).
		n, _, e := unix.RawSyscall(unix.SYS_IOCTL, fd, pagemapScanIoctl, uintptr(unsafe.Pointer(a)))
		if e != 0 {
			return out, fmt.Errorf("quickjs: scanning for written pages: %w", e)
		}
		for _, r := range c.vec[:n] {
			out = append(out, pageRegion{start: r.start - b, end: r.end - b})
		}
		if a.walkEnd <= start {
			return out, errors.New("quickjs: scanning for written pages: the walk made no progress")
		}
		start = a.walkEnd
	}
	runtime.KeepAlive(t)
	runtime.KeepAlive(c)
	return out, nil
}

// close closes the tracker's descriptors. Registered mappings stay
// registered until they are unmapped.
func (t *writeTracker) close() {
	_ = t.uffd.Close()
	_ = t.pagemap.Close()
}

func ioctlPtr(fd int, req uintptr, arg unsafe.Pointer) error {
	if _, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), req, uintptr(arg)); e != 0 {
		return e
	}
	return nil
}
