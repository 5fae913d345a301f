package quickjs

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"time"
)

// cpuMeter enforces one execution's CPU time limit (wire.Limits.CPUMs):
// the time its engine runs, not the time it waits for tool results and
// timers. Where the engine thread's CPU clock can be read (Linux:
// threadClock), the execution's goroutine is locked to its thread for the
// execution and the meter counts that thread's CPU time, which a loaded
// machine does not inflate; elsewhere it counts the wall time the engine
// is busy (between resume and pause).
//
// The meter reads the clock only when a timer fires: a thread cannot use
// more CPU time than wall time passes, so the limit cannot be reached
// before the time it had left, and the timer is armed for that and
// stopped while the engine waits. Past the limit, it cancels the
// execution's context, and the engine stops at its next interrupt poll
// (host.go) as at the deadline.
type cpuMeter struct {
	limit time.Duration
	stop  context.CancelCauseFunc
	clock func() (time.Duration, bool) // the engine thread's CPU time; nil: wall time

	mu      sync.Mutex
	timer   *time.Timer
	running bool
	resumed time.Time     // when the engine last resumed (wall time)
	busy    time.Duration // wall time busy before resumed
	start   time.Duration // the thread's CPU time at the start
}

// newCPUMeter starts metering the calling goroutine's engine for limit,
// calling stop with an error naming the limit when it is used up; nil
// when limit is 0. The caller calls end on the same goroutine.
func newCPUMeter(limit time.Duration, stop context.CancelCauseFunc) *cpuMeter {
	if limit <= 0 {
		return nil
	}
	runtime.LockOSThread()
	m := &cpuMeter{limit: limit, stop: stop, clock: threadClock()}
	if m.clock != nil {
		m.start, _ = m.clock()
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.resumeLocked()
	return m
}

// usedLocked is the CPU time (or busy time) the execution has used.
func (m *cpuMeter) usedLocked() time.Duration {
	if m.clock != nil {
		if t, ok := m.clock(); ok {
			return t - m.start
		}
	}
	used := m.busy
	if m.running {
		used += time.Since(m.resumed)
	}
	return used
}

func (m *cpuMeter) resumeLocked() {
	m.running, m.resumed = true, time.Now()
	left := m.limit - m.usedLocked()
	if m.timer == nil {
		m.timer = time.AfterFunc(max(left, 0), m.check)
	} else {
		m.timer.Reset(max(left, 0))
	}
}

// check runs when the engine may have used its limit.
func (m *cpuMeter) check() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.running {
		return
	}
	if left := m.limit - m.usedLocked(); left > 0 {
		m.timer.Reset(left)
		return
	}
	m.stop(fmt.Errorf("the execution's %s of %s was exceeded (its own work, not counting waits for tool calls and timers)", "CPU time limit", m.limit))
}

// pause stops the count while the engine waits.
func (m *cpuMeter) pause() {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.timer.Stop()
	m.busy += time.Since(m.resumed)
	m.running = false
}

// resume restarts the count when the engine runs again.
func (m *cpuMeter) resume() {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.resumeLocked()
}

// end stops the meter and unlocks the goroutine's thread; it runs on the
// goroutine newCPUMeter ran on.
func (m *cpuMeter) end() {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.timer.Stop()
	m.running = false
	m.mu.Unlock()
	runtime.UnlockOSThread()
}
