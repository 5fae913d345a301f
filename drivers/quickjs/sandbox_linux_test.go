//go:build linux && (amd64 || arm64)

package quickjs

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/codemode-go/codemode/runner"
	"golang.org/x/sys/unix"
)

// The confinement probe: the test binary, started as a sandbox with Probe
// set, runs it inside the booted sandbox before and after the seccomp filter.
var _ = func() bool { sandboxProbe = probeConfinement; return true }()

// probeConfinement tries what a sandbox must not do and reports one line per
// attempt: "<when> <what>: <errno name or ok>".
func probeConfinement(when string) string {
	var b strings.Builder
	report := func(what string, err error) {
		res := "ok"
		var errno syscall.Errno
		if errors.As(err, &errno) {
			res = unix.ErrnoName(errno)
		} else if err != nil {
			res = err.Error()
		}
		fmt.Fprintf(&b, "%s %s: %s\n", when, what, res)
	}
	fd, err := unix.Open("/etc/passwd", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err == nil {
		unix.Close(fd)
	}
	report("read /etc/passwd", err)
	name := fmt.Sprintf("%s/codemode-probe-%d", os.TempDir(), os.Getpid())
	fd, err = unix.Open(name, unix.O_CREAT|unix.O_WRONLY|unix.O_CLOEXEC, 0o600)
	if err == nil {
		unix.Close(fd)
		unix.Unlink(name)
	}
	report("create a file", err)
	report("execute /bin/sh", unix.Exec("/bin/sh", []string{"sh", "-c", "exit 0"}, nil))
	s, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err == nil {
		err = unix.Connect(s, &unix.SockaddrInet4{Port: 9, Addr: [4]byte{127, 0, 0, 1}})
		unix.Close(s)
	}
	report("connect over TCP", err)
	s, err = unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err == nil {
		// The test listens there, outside the sandbox.
		err = unix.Connect(s, &unix.SockaddrUnix{Name: fmt.Sprintf("@codemode-probe-%d", os.Getppid())})
		unix.Close(s)
	}
	report("connect to an abstract socket", err)
	report("signal the parent", unix.Kill(os.Getppid(), 0))
	if when == "after seccomp" {
		pid, _, e := unix.RawSyscall6(unix.SYS_CLONE, uintptr(syscall.SIGCHLD), 0, 0, 0, 0, 0)
		if e == 0 && pid == 0 {
			unix.RawSyscall(unix.SYS_EXIT_GROUP, 0, 0, 0)
		}
		var err error
		if e != 0 {
			err = e
		}
		report("fork", err)
		// The filter lets through the write tracker's ioctls on its own
		// two descriptors only.
		_, err = unix.IoctlGetInt(0, unix.TIOCINQ)
		report("ioctl TIOCINQ", err)
		var arg [32]byte
		_, _, e = unix.Syscall(unix.SYS_IOCTL, 0, uffdioRegisterIoctl, uintptr(unsafe.Pointer(&arg[0])))
		err = nil
		if e != 0 {
			err = e
		}
		report("ioctl UFFDIO_REGISTER on another descriptor", err)
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var caps [2]unix.CapUserData
	err = unix.Capget(&hdr, &caps[0])
	if err == nil {
		for _, d := range caps {
			if d.Effective|d.Permitted|d.Inheritable != 0 {
				err = fmt.Errorf("capabilities %+v", caps)
			}
		}
	}
	if err == nil {
		for c := 0; c <= 40; c++ {
			if in, e := unix.PrctlRetInt(unix.PR_CAPBSET_READ, uintptr(c), 0, 0, 0); e == nil && in == 1 {
				err = fmt.Errorf("capability %d in the bounding set", c)
				break
			}
		}
	}
	report("capabilities", err)
	v, err := unix.PrctlRetInt(unix.PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0)
	if err == nil && v != 1 {
		err = fmt.Errorf("no_new_privs is %d", v)
	}
	report("no_new_privs", err)
	return b.String()
}

// TestSandboxConfinement boots a sandbox that runs the probe and checks each
// layer: Landlock alone (before seccomp) refuses files, TCP, abstract
// sockets and signals outside the sandbox; no_new_privs is set and no
// capability is left (the test runs as root in CI); with seccomp every one
// of those calls, and fork, fails with EPERM.
func TestSandboxConfinement(t *testing.T) {
	l, err := net.Listen("unix", fmt.Sprintf("@codemode-probe-%d", os.Getpid()))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	d := New(Options{})
	defer d.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	boot, err := d.probeSandbox(ctx, runner.Source)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("landlock: %s; seccomp: %s\n%s", boot.Landlock, boot.Seccomp, boot.Probe)
	got := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(boot.Probe), "\n") {
		k, v, _ := strings.Cut(line, ": ")
		got[k] = v
	}
	if !strings.HasPrefix(boot.Seccomp, "filter of") {
		t.Fatalf("seccomp: %s", boot.Seccomp)
	}
	want := map[string]string{
		"after seccomp read /etc/passwd":                            "EPERM",
		"after seccomp create a file":                               "EPERM",
		"after seccomp execute /bin/sh":                             "EPERM",
		"after seccomp connect over TCP":                            "EPERM",
		"after seccomp connect to an abstract socket":               "EPERM",
		"after seccomp signal the parent":                           "EPERM",
		"after seccomp fork":                                        "EPERM",
		"after seccomp ioctl TIOCINQ":                               "EPERM",
		"after seccomp ioctl UFFDIO_REGISTER on another descriptor": "EPERM",
		"after seccomp no_new_privs":                                "EPERM", // prctl itself is filtered
		"before seccomp no_new_privs":                               "ok",
		"before seccomp capabilities":                               "ok", // none, even when the host runs as root
		"after seccomp capabilities":                                "EPERM",
		"before seccomp read /etc/passwd":                           "EACCES",
		"before seccomp create a file":                              "EACCES",
		"before seccomp execute /bin/sh":                            "EACCES",
		"before seccomp connect over TCP":                           "EACCES",
		"before seccomp connect to an abstract socket":              "EPERM",
		"before seccomp signal the parent":                          "EPERM",
	}
	abi := 0
	fmt.Sscanf(boot.Landlock, "abi %d", &abi)
	for k, v := range want {
		if strings.HasPrefix(k, "before") && !strings.HasSuffix(k, "no_new_privs") && !strings.HasSuffix(k, "capabilities") {
			switch {
			case abi == 0:
				continue // no Landlock on this kernel
			case abi < 4 && strings.Contains(k, "TCP"), abi < 6 && (strings.Contains(k, "abstract") || strings.Contains(k, "signal")):
				continue
			}
		}
		if got[k] != v {
			t.Errorf("%s: %s, want %s", k, got[k], v)
		}
	}
	if abi == 0 {
		t.Logf("Landlock is not available here (%s): only seccomp was checked", boot.Landlock)
	}
	// The write tracker (dirty_linux.go) works confined wherever it works
	// in this process: Landlock lets the sandbox open its page map and
	// seccomp lets its ioctls through.
	if tr, err := newWriteTracker(); err != nil {
		t.Logf("no write tracking on this kernel (%v); the sandbox resets by %s", err, boot.Reset)
	} else {
		tr.close()
		if boot.Reset != "written pages" {
			t.Errorf("the confined sandbox resets engines by %q, want written pages", boot.Reset)
		}
	}
}
