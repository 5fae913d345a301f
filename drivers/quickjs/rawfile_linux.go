package quickjs

import (
	"fmt"
	"io"
	"os"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// rawFile reads or writes a non-blocking pipe (the sandbox's wire, one pipe
// each way: wirePipes) with raw system calls, waiting in Go's poller only
// when the pipe has nothing to read or no room to write, exactly as an
// *os.File does (read deadlines included, since both share the file's poller
// entry).
//
// The difference is the scheduler's bookkeeping around each call.
// syscall.Syscall tells the Go runtime a goroutine entered a system call, and
// the first such call after the process was idle wakes the runtime's monitor
// thread (sysmon) from its deep sleep and sets it polling every 20 µs again
// (runtime/proc.go, entersyscall and sysmon). A tool call's round trip idles
// both processes in turn, so each paid that wake-up, and the polling, once
// per message: on the project's 2-core virtual machines, where every context
// switch exits to the hypervisor, a measurable share of a round trip.
// syscall.RawSyscall skips the bookkeeping, which is safe only for a call that
// cannot block: on a non-blocking pipe read and write return EAGAIN instead.
type rawFile struct {
	rc syscall.RawConn
}

// newRawFile wraps f, a non-blocking file Go's poller owns (os.Pipe's, or
// os.NewFile of a descriptor in non-blocking mode). It refuses a descriptor
// in blocking mode: a raw read of one would wait inside the system call,
// holding its thread's processor where the scheduler cannot take it back.
func newRawFile(f *os.File) (*rawFile, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, fmt.Errorf("quickjs: the pipe %s: %w", f.Name(), err)
	}
	flags := 0
	cerr := rc.Control(func(fd uintptr) { flags, err = unix.FcntlInt(fd, unix.F_GETFL, 0) })
	switch {
	case cerr != nil:
		return nil, fmt.Errorf("quickjs: the pipe %s: %w", f.Name(), cerr)
	case err != nil:
		return nil, fmt.Errorf("quickjs: the pipe %s: reading its flags: %w", f.Name(), err)
	case flags&unix.O_NONBLOCK == 0:
		return nil, fmt.Errorf("quickjs: the pipe %s is in blocking mode, which raw system calls cannot wait on", f.Name())
	}
	return &rawFile{rc: rc}, nil
}

// Read reads at most len(p) bytes. It returns io.EOF when the other process
// closed its end, the poller's error (os.ErrDeadlineExceeded, or "use of closed file"
// once f is closed: unlike f.Read's, that is not os.ErrClosed) or the system
// call's otherwise.
func (s *rawFile) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	var n uintptr
	var errno syscall.Errno
	err := s.rc.Read(func(fd uintptr) bool {
		for {
			n, _, errno = syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
			if errno != syscall.EINTR {
				return errno != syscall.EAGAIN
			}
		}
	})
	switch {
	case err != nil:
		return 0, err
	case errno != 0:
		return 0, errno
	case n == 0:
		return 0, io.EOF
	}
	return int(n), nil
}

// Write writes all of p, waiting in the poller while the pipe is full. It returns the bytes written and the first error.
func (s *rawFile) Write(p []byte) (int, error) {
	written := 0
	var errno syscall.Errno
	err := s.rc.Write(func(fd uintptr) bool {
		for written < len(p) {
			var n uintptr
			n, _, errno = syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&p[written])), uintptr(len(p)-written))
			switch errno {
			case 0:
				written += int(n)
			case syscall.EINTR:
			case syscall.EAGAIN:
				errno = 0
				return false
			default:
				return true
			}
		}
		return true
	})
	if err == nil && errno != 0 {
		err = errno
	}
	return written, err
}
