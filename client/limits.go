package client

import (
	"fmt"
	"time"

	"github.com/codemode-go/codemode/internal/membudget"
)

// Limits bound one execution. Zero fields take the defaults below (for the
// deadline) or the runtime's own defaults (memory, output, content, timers).
// The limits the runner applies (Timeout, CPUTime, MemoryBytes, MaxOutput,
// MaxContent, MaxTimers) travel in the execute message, and a driver cuts
// each to its own hard cap (for example quickjs.Options.Timeout); the
// tool-call limits are enforced by the host, which trusts nothing the runner
// says. Exceeding a limit fails the execution: a ProgramFailed outcome whose
// error names the limit (TimeoutError for the deadline and the CPU time,
// RangeError for the others).
type Limits struct {
	// Timeout is the execution's deadline, from the moment it is sent.
	// Default 30 s. Erasing a program blank does not read (esbuild, in a
	// child process, before the program is sent) may take as long again;
	// past it the run fails with a TimeoutError naming the erasure. The runner stops the program at the deadline; if it
	// cannot (a Node.js process in a busy loop), the host gives up 2 s
	// later with the same TimeoutError and probes the runtime.
	Timeout time.Duration
	// CPUTime caps the CPU time of the program's own work: the time the
	// engine runs it, not the time it awaits tool calls or timers, so a
	// program that waits 25 s on a slow tool still has all of it. 0: no
	// cap but the deadline. Past it the execution fails with a
	// TimeoutError whose message names the CPU time limit, and whose
	// ProgramError wraps ErrCPUTimeLimit. The QuickJS driver counts the
	// engine thread's CPU time and stops the program at its next
	// interrupt poll (a program stuck in one long builtin is stopped by
	// the deadline instead). The Node.js driver can only approximate it:
	// executions share one thread, so each is charged the thread's CPU
	// time from the moment it resumes (a tool result, a timer) until the
	// event loop's next turn, which includes any other execution resumed
	// in the same turn; and it checks between turns, so a loop that never
	// yields (for(;;){}) holds the event loop until the deadline.
	CPUTime time.Duration
	// MemoryBytes caps the program's heap (QuickJS). 0: the driver's default.
	MemoryBytes uint64
	// MaxOutput caps console output in UTF-16 code units; later output is
	// dropped after a notice. 0: the driver's default.
	MaxOutput int
	// MaxContent caps result content in UTF-16 code units. 0: the driver's
	// default.
	MaxContent int
	// MaxTimers caps pending timers. 0: the driver's default.
	MaxTimers int
	// MaxToolCalls caps the tool calls one execution may make in total.
	// Default 10,000.
	MaxToolCalls int
	// MaxInFlightCalls caps the tool calls running at once. Default
	// 1,000.
	MaxInFlightCalls int
	// MaxInFlightBytes caps the bytes the host holds for tool calls still
	// running or not yet delivered, reserved before the memory is taken
	// and kept until the call's answer is written: each input twice (it,
	// and the handler's decoded copy), each output twice (its encoding and
	// its frame), and what the host's own handlers allocate (a fetch's or
	// an OpenAPI connector's response body as it arrives, the buffers it
	// outgrew, which are garbage only once collected, and the output they
	// build; a streamable HTTP MCP server's answer as it arrives, three
	// times over for its decoded copies).
	// A call that would pass the bound fails with a RangeError naming it,
	// unrun when its input alone would. So the Go heap of the calls in
	// flight stays within about the bound (twice it at most with the
	// garbage the default GOGC lets wait for a collection; see
	// RATIONALE.md, "Memory bounds are reservations"). Default
	// 256 MiB.
	MaxInFlightBytes int64
}

// Defaults for the other Limits the host enforces. The tool-call bounds
// follow the shape of Vercel's code mode (maxBridgeRequests,
// maxInFlightBridgeRequests).
const (
	defaultTimeout          = 30 * time.Second
	defaultMaxToolCalls     = 10_000
	defaultMaxInFlightCalls = 1_000
	// hostGrace is how long after an execution's deadline the host waits
	// for the runner to end it before giving up on it.
	hostGrace = 2 * time.Second
)

func (l Limits) withDefaults() Limits {
	if l.Timeout <= 0 {
		l.Timeout = defaultTimeout
	}
	if l.MaxToolCalls <= 0 {
		l.MaxToolCalls = defaultMaxToolCalls
	}
	if l.MaxInFlightCalls <= 0 {
		l.MaxInFlightCalls = defaultMaxInFlightCalls
	}
	if l.MaxInFlightBytes <= 0 {
		l.MaxInFlightBytes = membudget.DefaultLimit
	}
	return l
}

// check refuses negative limits, naming the field.
func (l Limits) check() error {
	switch {
	case l.Timeout < 0:
		return fmt.Errorf("codemode: Limits.Timeout is negative (%s)", l.Timeout)
	case l.CPUTime < 0:
		return fmt.Errorf("codemode: Limits.CPUTime is negative (%s)", l.CPUTime)
	case l.MaxOutput < 0:
		return fmt.Errorf("codemode: Limits.MaxOutput is negative (%d)", l.MaxOutput)
	case l.MaxContent < 0:
		return fmt.Errorf("codemode: Limits.MaxContent is negative (%d)", l.MaxContent)
	case l.MaxTimers < 0:
		return fmt.Errorf("codemode: Limits.MaxTimers is negative (%d)", l.MaxTimers)
	case l.MaxToolCalls < 0:
		return fmt.Errorf("codemode: Limits.MaxToolCalls is negative (%d)", l.MaxToolCalls)
	case l.MaxInFlightCalls < 0:
		return fmt.Errorf("codemode: Limits.MaxInFlightCalls is negative (%d)", l.MaxInFlightCalls)
	case l.MaxInFlightBytes < 0:
		return fmt.Errorf("codemode: Limits.MaxInFlightBytes is negative (%d)", l.MaxInFlightBytes)
	}
	return nil
}
