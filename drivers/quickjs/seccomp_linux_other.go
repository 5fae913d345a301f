//go:build linux && !amd64 && !arm64

package quickjs

import (
	"errors"

	"golang.org/x/sys/unix"
)

// seccompProgram: the filter is written for amd64 and arm64 only.
func seccompProgram(pid int, ioctls []ioctlRule) ([]unix.SockFilter, error) {
	return nil, errors.New("no seccomp filter for this architecture")
}
