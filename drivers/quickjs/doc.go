// Package quickjs is the embedded default driver: QuickJS-NG compiled to a
// WASI reactor (github.com/aperturerobotics/go-quickjs-wasi-reactor) and
// hosted by wazero. It is a sandbox: engines get no file system, arguments,
// environment or network, and no module loader, so qjs:std and qjs:os cannot
// be imported; the only way out of a program is a tool call.
//
// The runner role is played in Go: each execution gets its own engine
// instance, taken from a pool of instances restored from a memory snapshot of
// an engine with the runner installed, so a deadline, memory or stack limit
// that kills an engine fails only that execution and the runtime carries on.
// After an execution its engine is reset from the snapshot: on Linux 6.7 and
// later only the pages the kernel saw written are copied back (asynchronous
// userfaultfd write protection and the PAGEMAP_SCAN ioctl), elsewhere, or
// with Options.FullReset, the whole snapshot.
//
// An execution's CPU time limit (client.Limits.CPUTime) counts the time its
// engine runs and not the time it waits for tool results and timers: on
// Linux, the CPU time of the thread the execution's goroutine is locked to
// while its engine runs (the thread's CPU clock, so a loaded machine does
// not inflate it), elsewhere the wall time the engine is busy. Past it the
// program stops at its next interrupt poll, as at the deadline; one stuck
// where the interrupt never comes is stopped by the deadline.
//
// # The sandbox process
//
// By default each runtime's engines run in a child process, so that no
// program can freeze or crash the host: WebAssembly cannot be preempted, and
// a program stuck where QuickJS's interrupt never comes (a long C builtin, an
// engine whose stack overflowed into its data) would otherwise stop every
// goroutine of the host at the next garbage collection. The child is the
// program's own executable, started again (nothing to install), and speaks
// the wire protocol with the same Go runner over two pipes, which the
// client reads and writes directly (the host checks each frame the child
// sends as it passes). The host watches every execution: one that outlives its
// deadline by 250 ms gets a TimeoutError and its process is killed (SIGKILL),
// the other executions in flight on that process fail with an InternalError
// saying so, and a new process takes over; a process that dies for any other
// reason is handled the same way. On Linux the child confines itself before
// it runs any program: no_new_privs, a Landlock domain (no file system access
// beyond its binary and the compilation cache, no TCP, no signals or abstract
// sockets beyond itself; where the kernel has Landlock) and a seccomp filter
// (no open, socket, exec, fork or ptrace, no ioctl but the reset's two on
// its own descriptors). Options.InProcess
// runs the engines in the host process instead, for trusted programs.
//
// The child is recognised by an init function of this package, so any binary
// that imports it can serve as one, test binaries of other packages included.
// The marker is the environment variable CODEMODE_QUICKJS_SANDBOX; the init
// function acts on it only when file descriptors 3 and 4 are Unix sockets, 5
// and 6 are pipes, and the first frame on descriptor 3 carries the token from
// the marker, and it otherwise removes the marker and lets the program start
// normally. The runner source and options travel over that socket, not argv
// or the environment. Compiled QuickJS machine code is cached in Options.CacheDir
// or, by default, in codemode/quickjs under os.UserCacheDir.
//
// RATIONALE.md at the module root records the design and the alternatives.
package quickjs
