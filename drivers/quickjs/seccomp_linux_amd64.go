package quickjs

import "golang.org/x/sys/unix"

const (
	seccompArch   = 0xc000003e // AUDIT_ARCH_X86_64
	seccompX32Bit = 0x40000000 // __X32_SYSCALL_BIT: x32 calls are refused
	seccompArgLow = 0          // the low half of an argument comes first
)

// sandboxSyscalls lists the system calls the booted sandbox may make freely.
func sandboxSyscalls() []uintptr {
	return append(sandboxCommonSyscalls(), unix.SYS_EPOLL_WAIT, unix.SYS_ARCH_PRCTL, unix.SYS_POLL)
}
