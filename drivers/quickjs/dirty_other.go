//go:build !linux

package quickjs

import (
	"errors"
	"unsafe"
)

// writeTracker finds the pages of an engine's memory written since they were
// last protected; only Linux has one (dirty_linux.go). Elsewhere engines are
// reset by copying their whole snapshot.
type writeTracker struct{}

// pageRegion is a run of written pages [start, end), as offsets.
type pageRegion struct{ start, end, categories uint64 }

var errNoWriteTracker = errors.New("quickjs: write tracking needs Linux")

func newWriteTracker() (*writeTracker, error) { return nil, errNoWriteTracker }

func (t *writeTracker) register(b []byte) error { return errNoWriteTracker }

func (t *writeTracker) scan(base unsafe.Pointer, lo, hi uint64, protect bool, out []pageRegion) ([]pageRegion, error) {
	return out, errNoWriteTracker
}

func (t *writeTracker) close() {}

// ioctlRule is an ioctl a seccomp filter allows (Linux only).
type ioctlRule struct {
	fd  int
	req uint32
}

func (t *writeTracker) ioctls() []ioctlRule { return nil }
