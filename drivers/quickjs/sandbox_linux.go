package quickjs

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"syscall"
	"unsafe"

	"github.com/codemode-go/codemode/internal/cloexec"
	"golang.org/x/sys/unix"
)

// sandboxExecutable is how the supervisor starts the sandbox: the running
// binary itself, even if its file was replaced on disk since.
func sandboxExecutable() (string, error) { return "/proc/self/exe", nil }

// sandboxSysProcAttr puts the sandbox in its own process group (the
// supervisor kills the group) and has the kernel kill it if the supervising
// thread's process ends.
func sandboxSysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// confineAndReexec is stage 1 of the sandbox: on its one thread (init runs
// locked to the main thread) it sets no_new_privs and, where the kernel has
// Landlock, a domain that allows nothing but reading and executing the
// binary (and the system libraries a dynamically linked binary needs) and
// using the compilation cache; then it executes the binary again, so that
// stage 2 and every thread it starts inherit both. It returns only on
// failure.
func confineAndReexec(token, cacheDir string) error {
	runtime.LockOSThread()
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("setting no_new_privs: %w", err)
	}
	if err := dropCapabilities(); err != nil {
		return err
	}
	limitResources()
	status := restrictFiles(cacheDir)
	env := []string{sandboxEnv + "=2:" + token, sandboxEnv + "_LANDLOCK=" + status}
	for _, keep := range []string{"GORACE", "GODEBUG", "GOMAXPROCS", "GOGC", "GOTRACEBACK"} {
		if v, ok := os.LookupEnv(keep); ok {
			env = append(env, keep+"="+v)
		}
	}
	closeInheritedFiles()
	if err := unix.Exec("/proc/self/exe", []string{"codemode-quickjs-sandbox"}, env); err != nil {
		return fmt.Errorf("starting stage 2: %w", err)
	}
	return errors.New("starting stage 2: exec returned")
}

// dropCapabilities leaves the sandbox no Linux capability, even when the
// host runs as root: it empties the bounding set (so the exec of stage 2
// grants root none: capabilities(7), "Transformation of capabilities
// during execve()"), the ambient set, and the current sets. Without
// CAP_SETPCAP (an unprivileged host) the bounding set cannot shrink, and
// there is nothing to drop: the current sets are already empty, and a
// process with no_new_privs gains none through exec.
func dropCapabilities() error {
	for c := 0; c <= 63; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil {
			if errors.Is(err, unix.EINVAL) {
				break // past the kernel's last capability
			}
			if errors.Is(err, unix.EPERM) {
				break // no CAP_SETPCAP
			}
			return fmt.Errorf("dropping capability %d from the bounding set: %w", c, err)
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("clearing the ambient capabilities: %w", err)
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("clearing the capabilities: %w", err)
	}
	return nil
}

// limitResources sets rlimits that cost the engine nothing: no core dumps
// (a dump would hold programs' data), and few open files.
func limitResources() {
	_ = unix.Setrlimit(unix.RLIMIT_CORE, &unix.Rlimit{})
	_ = unix.Setrlimit(unix.RLIMIT_NOFILE, &unix.Rlimit{Cur: 64, Max: 64})
}

// Landlock access rights by ABI version (Documentation/userspace-api/landlock.rst).
const (
	llFSv1 = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_READ_FILE |
		unix.LANDLOCK_ACCESS_FS_READ_DIR | unix.LANDLOCK_ACCESS_FS_REMOVE_DIR | unix.LANDLOCK_ACCESS_FS_REMOVE_FILE |
		unix.LANDLOCK_ACCESS_FS_MAKE_CHAR | unix.LANDLOCK_ACCESS_FS_MAKE_DIR | unix.LANDLOCK_ACCESS_FS_MAKE_REG |
		unix.LANDLOCK_ACCESS_FS_MAKE_SOCK | unix.LANDLOCK_ACCESS_FS_MAKE_FIFO | unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK |
		unix.LANDLOCK_ACCESS_FS_MAKE_SYM
	llFSv2  = llFSv1 | unix.LANDLOCK_ACCESS_FS_REFER
	llFSv3  = llFSv2 | unix.LANDLOCK_ACCESS_FS_TRUNCATE
	llFSv5  = llFSv3 | unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	llNet   = unix.LANDLOCK_ACCESS_NET_BIND_TCP | unix.LANDLOCK_ACCESS_NET_CONNECT_TCP
	llScope = unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | unix.LANDLOCK_SCOPE_SIGNAL
)

// landlockRulesetAttr is struct landlock_ruleset_attr as of ABI 6 (its own
// copy: golang.org/x/sys renames and extends it between versions).
type landlockRulesetAttr struct {
	accessFS, accessNet, scoped uint64
}

// restrictFiles applies the Landlock domain to the calling thread and says
// what it did ("abi 7", or why not). Best effort: without Landlock the
// sandbox still has seccomp.
func restrictFiles(cacheDir string) string {
	v, _, e := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if e != 0 {
		return "unavailable: " + e.Error()
	}
	abi := int(v)
	attr := landlockRulesetAttr{accessFS: llFSv1}
	switch {
	case abi >= 5:
		attr.accessFS = llFSv5
	case abi >= 3:
		attr.accessFS = llFSv3
	case abi >= 2:
		attr.accessFS = llFSv2
	}
	if abi >= 4 {
		attr.accessNet = llNet // no rule allows a port: no TCP bind or connect
	}
	if abi >= 6 {
		attr.scoped = llScope // no signals or abstract sockets beyond the domain
	}
	fd, _, e := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if e != 0 {
		return "unavailable: creating the ruleset: " + e.Error()
	}
	defer unix.Close(int(fd))
	read := uint64(unix.LANDLOCK_ACCESS_FS_READ_FILE)
	rules := []struct {
		path   string
		access uint64
	}{
		{"/proc/self/exe", read | unix.LANDLOCK_ACCESS_FS_EXECUTE},
		// The write tracker's page map (dirty_linux.go). Stage 2 is the same
		// process, so /proc/self/pagemap is the same file after the exec;
		// it gives this process's own page table entries only.
		{"/proc/self/pagemap", read},
	}
	if dynamicallyLinked() {
		// The dynamic loader and the C libraries of a cgo binary, read
		// during exec only: seccomp forbids opening files after boot.
		libs := read | unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_READ_DIR
		for _, p := range []string{"/lib", "/lib64", "/lib32", "/usr/lib", "/usr/lib64", "/usr/lib32", "/usr/local/lib"} {
			rules = append(rules, struct {
				path   string
				access uint64
			}{p, libs})
		}
		rules = append(rules, struct {
			path   string
			access uint64
		}{"/etc/ld.so.cache", read})
	}
	if cacheDir != "" {
		rules = append(rules, struct {
			path   string
			access uint64
		}{cacheDir, (read | unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_READ_DIR | unix.LANDLOCK_ACCESS_FS_MAKE_REG |
			unix.LANDLOCK_ACCESS_FS_MAKE_DIR | unix.LANDLOCK_ACCESS_FS_REMOVE_FILE | unix.LANDLOCK_ACCESS_FS_TRUNCATE) & attr.accessFS})
	}
	for _, r := range rules {
		pfd, err := unix.Open(r.path, unix.O_PATH|unix.O_CLOEXEC, 0)
		if err != nil {
			continue // a library directory this system does not have
		}
		access := r.access
		var st unix.Stat_t
		if unix.Fstat(pfd, &st) == nil && st.Mode&unix.S_IFMT != unix.S_IFDIR {
			// Directory rights on a file are refused.
			access &= unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE |
				unix.LANDLOCK_ACCESS_FS_TRUNCATE | unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
		}
		pb := unix.LandlockPathBeneathAttr{Allowed_access: access & attr.accessFS, Parent_fd: int32(pfd)}
		_, _, e := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, fd, unix.LANDLOCK_RULE_PATH_BENEATH, uintptr(unsafe.Pointer(&pb)), 0, 0, 0)
		unix.Close(pfd)
		if e != 0 {
			return fmt.Sprintf("unavailable: adding the rule for %s: %v", r.path, e)
		}
	}
	if _, _, e := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, fd, 0, 0); e != 0 {
		return "unavailable: restricting: " + e.Error()
	}
	return fmt.Sprintf("abi %d", abi)
}

// dynamicallyLinked reports whether the running binary has an ELF
// loader (a cgo build), from its memory map.
func dynamicallyLinked() bool {
	b, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return true
	}
	maps := string(b)
	return strings.Contains(maps, "/ld-linux") || strings.Contains(maps, "/ld-musl") || strings.Contains(maps, "/libc.so")
}

// confineSyscalls installs the seccomp filter on every thread of the process
// (SECCOMP_FILTER_FLAG_TSYNC) and says what it did. After it, the process
// can compute, allocate, use its threads and signals, and read and write the
// descriptors it already has; it cannot open files, create sockets or
// processes, or execute anything.
func confineSyscalls(ioctls []ioctlRule) string {
	prog, err := seccompProgram(os.Getpid(), ioctls)
	if err != nil {
		return "unavailable: " + err.Error()
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return "unavailable: setting no_new_privs: " + err.Error()
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	r, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&fprog)))
	runtime.KeepAlive(prog)
	if e != 0 {
		return "unavailable: " + e.Error()
	}
	if r != 0 {
		return fmt.Sprintf("unavailable: thread %d could not be synchronised", r)
	}
	return fmt.Sprintf("filter of %d instructions", len(prog))
}

const sandboxFirstStage = "1" // stage 1 confines and executes stage 2

// closeInheritedFiles marks every file descriptor above the sandbox's two
// sockets and two pipes close-on-exec, so that stage 2 holds none of the
// files the host process itself inherited without that flag.
func closeInheritedFiles() { cloexec.MarkFrom(sandboxWireOutFD + 1) }
