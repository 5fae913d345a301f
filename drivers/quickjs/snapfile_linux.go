//go:build linux

package quickjs

import (
	"errors"
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// snapshotFile is a template's snapshot in a sealed memory file
// (memfd_create(2)), which a new engine's memory maps privately instead of
// copying the snapshot into it: the engine shares the file's pages until it
// writes one, when the kernel gives it a copy of that page. A new engine
// then costs a mapping instead of a 4 MiB copy into fresh pages, and holds
// only the pages its executions wrote; the engine reset copies those back
// from the snapshot as before (template.restoreWritten), and the write
// tracker follows a file-backed private mapping as it follows anonymous
// memory (TestNewEngineMapsTheSnapshot). See RATIONALE.md, "New engines
// map their snapshot".
type snapshotFile struct {
	f    *os.File
	size int
}

// newSnapshotFile writes snap to a new memory file and seals it against any
// change (fcntl(2), "File Sealing"), so that no writer can change what
// mapped engines see. It fails where the kernel refuses memory files.
func newSnapshotFile(snap []byte) (*snapshotFile, error) {
	if len(snap) == 0 || len(snap)%os.Getpagesize() != 0 {
		return nil, fmt.Errorf("quickjs: a snapshot of %d bytes is not whole pages", len(snap))
	}
	fd, err := unix.MemfdCreate("codemode-quickjs-snapshot", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	if err != nil {
		return nil, fmt.Errorf("quickjs: creating the snapshot's memory file: %w", err)
	}
	f := os.NewFile(uintptr(fd), "codemode-quickjs-snapshot")
	for off := 0; off < len(snap); {
		n, err := unix.Pwrite(fd, snap[off:], int64(off))
		if err != nil || n == 0 {
			_ = f.Close()
			return nil, fmt.Errorf("quickjs: writing the snapshot's memory file: %v", err)
		}
		off += n
	}
	seals := unix.F_SEAL_SHRINK | unix.F_SEAL_GROW | unix.F_SEAL_WRITE | unix.F_SEAL_SEAL
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_ADD_SEALS, seals); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("quickjs: sealing the snapshot's memory file: %w", err)
	}
	return &snapshotFile{f: f, size: len(snap)}, nil
}

// mapOnto maps the file privately over b, the first size bytes of an
// engine's memory (page-aligned: the allocator's mapping starts on a page).
// Should the mapping fail, b is mapped to fresh anonymous memory again, so
// that it is never left a hole, and the error is returned: the caller then
// copies the snapshot in. Should that fail too, the error wraps
// errMemoryLost, and the engine must be closed without touching its memory.
func (s *snapshotFile) mapOnto(b []byte) error {
	if s == nil {
		return errors.New("quickjs: no snapshot file")
	}
	if len(b) != s.size || uintptr(unsafe.Pointer(&b[0]))%uintptr(os.Getpagesize()) != 0 {
		return fmt.Errorf("quickjs: mapping a snapshot of %d bytes over %d bytes of memory", s.size, len(b))
	}
	addr := unsafe.Pointer(&b[0])
	prot := unix.PROT_READ | unix.PROT_WRITE
	_, err := unix.MmapPtr(int(s.f.Fd()), 0, addr, uintptr(len(b)), prot, unix.MAP_PRIVATE|unix.MAP_FIXED)
	if err == nil {
		return nil
	}
	if _, aerr := unix.MmapPtr(-1, 0, addr, uintptr(len(b)), prot, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_FIXED|unix.MAP_NORESERVE); aerr != nil {
		return fmt.Errorf("%w: mapping the snapshot: %v; mapping memory again: %v", errMemoryLost, err, aerr)
	}
	return fmt.Errorf("quickjs: mapping the snapshot: %w", err)
}

// close closes the file; engines that mapped it keep its pages.
func (s *snapshotFile) close() {
	if s != nil {
		_ = s.f.Close()
	}
}
