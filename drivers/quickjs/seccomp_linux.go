//go:build linux && (amd64 || arm64)

package quickjs

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// The seccomp filter of the sandbox: an allow list of what the Go runtime,
// wazero's compiled code and the runner use once booted. A system call not on
// it fails with EPERM (ENOSYS for clone3, so that a C library falls back to
// clone, which the filter can inspect). clone is allowed only for threads,
// kill and tgkill only towards the sandbox itself.
//
// Classic BPF over struct seccomp_data (linux/seccomp.h): nr at offset 0,
// arch at 4, args[i] at 16+8i (the low half first on little-endian targets).

const (
	seccompRetAllow = unix.SECCOMP_RET_ALLOW
	seccompRetKill  = unix.SECCOMP_RET_KILL_PROCESS

	bpfLdAbsW = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
	bpfJeqK   = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
	bpfJsetK  = unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K
	bpfJgeK   = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
	bpfRetK   = unix.BPF_RET | unix.BPF_K
)

func seccompErrno(errno unix.Errno) uint32 {
	return unix.SECCOMP_RET_ERRNO | uint32(errno)&unix.SECCOMP_RET_DATA
}

// seccompProgram builds the filter for the process pid; ioctls are the
// only ioctl calls it allows (the write tracker's, dirty_linux.go).
func seccompProgram(pid int, ioctls []ioctlRule) ([]unix.SockFilter, error) {
	var a bpfAsm
	a.ld(4)
	a.jeq(seccompArch, "", "kill")
	a.ld(0)
	if seccompX32Bit != 0 {
		a.jge(seccompX32Bit, "deny", "")
	}
	for _, nr := range sandboxSyscalls() {
		a.jeq(uint32(nr), "allow", "")
	}
	a.jeq(unix.SYS_CLONE, "clone", "")
	a.jeq(unix.SYS_KILL, "self", "")
	a.jeq(unix.SYS_TGKILL, "self", "")
	a.jeq(unix.SYS_CLONE3, "enosys", "")
	if len(ioctls) > 0 {
		a.jeq(unix.SYS_IOCTL, "ioctl", "")
	}
	a.label("deny")
	a.ret(seccompErrno(unix.EPERM))
	// ioctl: allowed for the listed descriptor (args[0]) and request
	// (args[1]) pairs. The kernel reads both as 32-bit values.
	if len(ioctls) > 0 {
		a.label("ioctl")
		for i, r := range ioctls {
			next := fmt.Sprintf("ioctl%d", i+1)
			a.ld(16 + seccompArgLow)
			a.jeq(uint32(r.fd), "", next)
			a.ld(24 + seccompArgLow)
			a.jeq(r.req, "allow", next)
			a.label(next)
		}
		a.ret(seccompErrno(unix.EPERM))
	}
	// clone: allowed when its flags (args[0]) make a thread, not a process.
	a.label("clone")
	a.ld(16 + seccompArgLow)
	a.jset(unix.CLONE_THREAD, "allow", "deny2")
	// kill, tgkill: allowed when the target process (args[0]) is this one.
	a.label("self")
	a.ld(16 + seccompArgLow)
	a.jeq(uint32(pid), "allow", "deny2")
	a.label("deny2")
	a.ret(seccompErrno(unix.EPERM))
	a.label("enosys")
	a.ret(seccompErrno(unix.ENOSYS))
	a.label("kill")
	a.ret(seccompRetKill)
	a.label("allow")
	a.ret(seccompRetAllow)
	return a.assemble()
}

// bpfAsm assembles classic BPF with forward jumps to named labels.
type bpfAsm struct {
	prog   []unix.SockFilter
	jumps  []bpfJump
	labels map[string]int
}

type bpfJump struct {
	at     int
	jt, jf string
}

func (a *bpfAsm) ld(off uint32)                { a.prog = append(a.prog, unix.SockFilter{Code: bpfLdAbsW, K: off}) }
func (a *bpfAsm) ret(k uint32)                 { a.prog = append(a.prog, unix.SockFilter{Code: bpfRetK, K: k}) }
func (a *bpfAsm) jeq(k uint32, jt, jf string)  { a.jump(bpfJeqK, k, jt, jf) }
func (a *bpfAsm) jge(k uint32, jt, jf string)  { a.jump(bpfJgeK, k, jt, jf) }
func (a *bpfAsm) jset(k uint32, jt, jf string) { a.jump(bpfJsetK, k, jt, jf) }

func (a *bpfAsm) jump(code uint16, k uint32, jt, jf string) {
	a.jumps = append(a.jumps, bpfJump{at: len(a.prog), jt: jt, jf: jf})
	a.prog = append(a.prog, unix.SockFilter{Code: code, K: k})
}

func (a *bpfAsm) label(name string) {
	if a.labels == nil {
		a.labels = map[string]int{}
	}
	a.labels[name] = len(a.prog)
}

// assemble resolves the jumps; an empty label means the next instruction.
func (a *bpfAsm) assemble() ([]unix.SockFilter, error) {
	off := func(at int, label string) (uint8, error) {
		if label == "" {
			return 0, nil
		}
		to, ok := a.labels[label]
		if !ok {
			return 0, fmt.Errorf("seccomp: no label %q", label)
		}
		d := to - at - 1
		if d < 0 || d > 255 {
			return 0, fmt.Errorf("seccomp: jump from %d to %s (%d) is out of range", at, label, to)
		}
		return uint8(d), nil
	}
	for _, j := range a.jumps {
		jt, err := off(j.at, j.jt)
		if err != nil {
			return nil, err
		}
		jf, err := off(j.at, j.jf)
		if err != nil {
			return nil, err
		}
		a.prog[j.at].Jt, a.prog[j.at].Jf = jt, jf
	}
	return a.prog, nil
}

// sandboxCommonSyscalls are the calls both architectures name alike: I/O on
// descriptors the sandbox already holds, memory (memfd_create included: a
// prebuilt scope's snapshot is a memory file new engines map, and such a
// file is anonymous memory, reachable by no path: snapfile_linux.go),
// threads (futex, rseq, robust lists), signals, the network poller on those
// descriptors, clocks, timers, random bytes and exit. Absent: every open,
// socket, connect, bind, exec, fork, ptrace, mount and prctl, and every
// ioctl but the write tracker's (seccompProgram).
func sandboxCommonSyscalls() []uintptr {
	return []uintptr{
		unix.SYS_READ, unix.SYS_WRITE, unix.SYS_READV, unix.SYS_WRITEV, unix.SYS_PREAD64, unix.SYS_PWRITE64,
		unix.SYS_CLOSE, unix.SYS_FSTAT, unix.SYS_LSEEK, unix.SYS_FCNTL, unix.SYS_SHUTDOWN,
		unix.SYS_MMAP, unix.SYS_MPROTECT, unix.SYS_MUNMAP, unix.SYS_MADVISE, unix.SYS_MREMAP, unix.SYS_MINCORE, unix.SYS_BRK, unix.SYS_MEMFD_CREATE,
		unix.SYS_RT_SIGACTION, unix.SYS_RT_SIGPROCMASK, unix.SYS_RT_SIGRETURN, unix.SYS_SIGALTSTACK,
		unix.SYS_SCHED_YIELD, unix.SYS_SCHED_GETAFFINITY, unix.SYS_NANOSLEEP, unix.SYS_CLOCK_NANOSLEEP,
		unix.SYS_CLOCK_GETTIME, unix.SYS_CLOCK_GETRES, unix.SYS_GETTIMEOFDAY,
		unix.SYS_GETPID, unix.SYS_GETTID, unix.SYS_GETPPID, unix.SYS_GETUID, unix.SYS_GETEUID, unix.SYS_GETGID, unix.SYS_GETEGID,
		unix.SYS_FUTEX, unix.SYS_SET_ROBUST_LIST, unix.SYS_RSEQ, unix.SYS_MEMBARRIER,
		unix.SYS_EXIT, unix.SYS_EXIT_GROUP, unix.SYS_RESTART_SYSCALL,
		unix.SYS_EPOLL_CREATE1, unix.SYS_EPOLL_CTL, unix.SYS_EPOLL_PWAIT, unix.SYS_EPOLL_PWAIT2, unix.SYS_EVENTFD2, unix.SYS_PPOLL,
		unix.SYS_GETRLIMIT, unix.SYS_GETRANDOM, unix.SYS_UNAME,
		unix.SYS_SETITIMER, unix.SYS_TIMER_CREATE, unix.SYS_TIMER_SETTIME, unix.SYS_TIMER_DELETE,
	}
}
