package quickjs

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// rawFile reads or writes a non-blocking pipe (the sandbox's wire, one pipe
// each way: wirePipes) with raw system calls, waiting in Go's poller only
// when the pipe has nothing to read or no room to write, exactly as an
// *os.File does (read deadlines included, since both share the file's poller
// entry); a reader whose owner says so first keeps reading an empty pipe for
// a while (spinFor).
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
	// spin, when set, says whether a read that found the pipe empty keeps
	// reading for a while instead of waiting in the poller (spinning).
	spin func() bool
	// misses counts the spins in a row that ended without data, and
	// waits the waits since the reader last tried one (see spinFor).
	misses, waits atomic.Int32
}

// spinFor is how long a reader whose spin says so keeps reading a pipe
// that is empty instead of waiting in Go's poller. On the project's virtual
// machines a wake-up on another CPU costs tens of microseconds: a sandboxed
// tool call's round trip took 218-234 µs with both processes at GOMAXPROCS
// 1 and 131-141 µs with both pinned to one CPU, the same two context
// switches a round trip either way (RATIONALE.md, "Waking the other process
// costs more than the work"). A reader that is still reading when the data
// comes is woken by nobody.
//
// The owners let a reader spin only while their process has nothing else to
// run and the other side is expected to write soon: the sandbox process while
// its one execution waits for the host, the host for the next few messages
// of its one execution's program after it answered its tool calls
// (server.waitsForHost, sandbox.expectsAnswer). spinFor covers a journalled
// call's answer (a SQLite commit in the handler) on a slow phase of those
// machines: at 250 µs the sandbox's spins ended before it, and plain calls
// gained where journalled ones did not. After missSpins spins in a row that
// ended without data, the reader waits in the poller at once, trying a spin
// again every retrySpin waits: the other side is slow (a tool that calls the
// network, a program computing between two calls), and spinning would only
// spend CPU. spinFor also bounds how late the supervisor's interruption of
// the client's read can be (wakeReaderLocked).
const (
	spinFor   = 400 * time.Microsecond
	missSpins = 3
	retrySpin = 16
)

// newRawFile wraps f, a non-blocking file Go's poller owns (os.Pipe's, or
// os.NewFile of a descriptor in non-blocking mode). It refuses a descriptor
// in blocking mode: a raw read of one would wait inside the system call,
// holding its thread's processor where the scheduler cannot take it back.
// spin is rawFile.spin (nil for a file that is only written).
func newRawFile(f *os.File, spin func() bool) (*rawFile, error) {
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
	return &rawFile{rc: rc, spin: spin}, nil
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
	var w wait
	err := s.rc.Read(func(fd uintptr) bool {
		for {
			n, _, errno = syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
			switch {
			case errno == syscall.EINTR:
			case errno != syscall.EAGAIN:
				return true
			case !s.spinning(&w):
				return false // wait in the poller
			default:
				runtime.Gosched() // what this processor has to run goes first
			}
		}
	})
	if w.began && err == nil && errno == 0 {
		s.misses.Store(0) // the spin took the data
	}
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

// wait is one read's spin: until when it spins, and whether it began one.
type wait struct {
	until time.Time
	began bool
}

// spinning reports whether a read that found the pipe empty reads again at
// once (see spinFor); w is the read's spin, begun at its first call.
func (s *rawFile) spinning(w *wait) bool {
	if s.spin == nil {
		return false
	}
	now := time.Now()
	if w.until.IsZero() {
		w.until = now // even if no spin begins: the next empty read waits
		if !s.spin() || s.misses.Load() >= missSpins && s.waits.Add(1)%retrySpin != 0 {
			return false
		}
		w.began = true
		w.until = now.Add(spinFor)
		return true
	}
	if !now.Before(w.until) {
		if w.began {
			s.misses.Add(1) // the other side was slow
			w.began = false
		}
		return false
	}
	if !s.spin() {
		w.began = false // the process has work again: no miss
		return false
	}
	return true
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
