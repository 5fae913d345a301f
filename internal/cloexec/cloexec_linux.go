package cloexec

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// MarkFrom sets close-on-exec on every open descriptor numbered from or
// above. close_range(2) with CLOSE_RANGE_CLOEXEC needs Linux 5.11; older
// kernels get the same per descriptor from /proc/self/fd. Errors are
// ignored: a descriptor that cannot be marked is one that is not open.
func MarkFrom(from int) {
	if unix.CloseRange(uint(from), ^uint(0), unix.CLOSE_RANGE_CLOEXEC) == nil {
		return
	}
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return
	}
	for _, e := range entries {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd >= from {
			_, _ = unix.FcntlInt(uintptr(fd), unix.F_SETFD, unix.FD_CLOEXEC)
		}
	}
}
