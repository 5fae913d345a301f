package quickjs

const (
	seccompArch   = 0xc00000b7 // AUDIT_ARCH_AARCH64
	seccompX32Bit = 0
	seccompArgLow = 0 // the low half of an argument comes first
)

// sandboxSyscalls lists the system calls the booted sandbox may make freely.
func sandboxSyscalls() []uintptr { return sandboxCommonSyscalls() }
