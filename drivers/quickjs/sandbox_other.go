//go:build unix && !linux

package quickjs

import (
	"errors"
	"os"
	"syscall"
)

// sandboxExecutable is how the supervisor starts the sandbox: the running
// binary.
func sandboxExecutable() (string, error) { return os.Executable() }

// sandboxSysProcAttr puts the sandbox in its own process group.
func sandboxSysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// confineAndReexec: there is no stage 1 outside Linux.
func confineAndReexec(token, cacheDir string) error {
	return errors.New("stage 1 runs on Linux only")
}

// confineSyscalls: Landlock and seccomp are Linux's; elsewhere the sandbox
// is a separate process and nothing more.
func confineSyscalls([]ioctlRule) string { return "unavailable: not Linux" }

const sandboxFirstStage = "2" // no stage 1 outside Linux
