package quickjs

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"
)

// cpuMeter enforces one execution's CPU time limit (wire.Limits.CPUMs):
// the time its engine runs, not the time it waits for tool results and
// timers. Where a thread's CPU clock can be read (Linux: threadClock),
// the execution's goroutine is locked to its thread while the engine runs
// (and unlocked while it waits, so that a thousand waiting executions do
// not hold a thousand threads), and the meter counts that thread's CPU
// time, which a loaded machine does not inflate; elsewhere it counts the
// wall time the engine is busy.
//
// The meter reads the running thread's clock from a timer: a thread
// cannot use more CPU time than wall time passes, so the limit cannot be
// reached before the time the execution had left, and the timer is armed
// for that and stopped while the engine waits. Past the limit, it cancels
// the execution's context, and the engine stops at its next interrupt
// poll (host.go) as at the deadline.
type cpuMeter struct {
	limit time.Duration
	stop  context.CancelCauseFunc

	mu    sync.Mutex
	timer *time.Timer
	// clock reads the running thread's CPU time (nil: wall time is
	// counted); mark is its reading when the engine resumed, and used the
	// time counted before. running is false while the engine waits.
	clock   func() (time.Duration, bool)
	mark    time.Duration
	used    time.Duration
	running bool
}

// newCPUMeter starts metering the calling goroutine's engine for limit,
// calling stop with an error naming the limit when it is used up; nil
// when limit is 0. The caller calls pause, resume and end on the same
// goroutine.
func newCPUMeter(limit time.Duration, stop context.CancelCauseFunc) *cpuMeter {
	if limit <= 0 {
		return nil
	}
	m := &cpuMeter{limit: limit, stop: stop}
	m.resume()
	return m
}

// now reads the running thread's CPU time, or the wall clock.
func (m *cpuMeter) now() time.Duration {
	if m.clock != nil {
		if t, ok := m.clock(); ok {
			return t
		}
	}
	return time.Duration(time.Now().UnixNano())
}

// leftLocked is the time the execution has left.
func (m *cpuMeter) leftLocked() time.Duration {
	used := m.used
	if m.running {
		used += m.now() - m.mark
	}
	return m.limit - used
}

// resume starts the count when the engine runs, on the calling thread.
func (m *cpuMeter) resume() {
	if m == nil {
		return
	}
	runtime.LockOSThread()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.clock = threadClock()
	m.mark, m.running = m.now(), true
	left := max(m.leftLocked(), 0)
	if m.timer == nil {
		m.timer = time.AfterFunc(left, m.check)
	} else {
		m.timer.Reset(left)
	}
}

// pause stops the count while the engine waits, and unlocks the thread.
func (m *cpuMeter) pause() {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.timer.Stop()
	running := m.running
	if running {
		m.used += m.now() - m.mark
		m.running = false
	}
	m.mu.Unlock()
	if running {
		runtime.UnlockOSThread()
	}
}

// end stops the meter for good (it may be paused already).
func (m *cpuMeter) end() { m.pause() }

// check runs when the engine may have used its limit.
func (m *cpuMeter) check() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.running {
		return
	}
	if left := m.leftLocked(); left > 0 {
		m.timer.Reset(left)
		return
	}
	m.stop(fmt.Errorf("the execution's %w of %s was exceeded (its own work, not counting waits for tool calls and timers)", errCPULimit, m.limit))
}

// errCPULimit is what the cause of an execution stopped by its CPU time
// limit wraps: its result is marked (wire.Message.CPULimit), so that the
// host tells it from a TimeoutError the program threw itself.
var errCPULimit = errors.New("CPU time limit")
