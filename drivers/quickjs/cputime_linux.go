package quickjs

import (
	"time"

	"golang.org/x/sys/unix"
)

// threadClock returns a reader of the calling thread's CPU time (user and
// system), which other threads may call: the clock of
// pthread_getcpuclockid, made from the thread's id as the Linux ABI
// defines it (MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED) in
// include/linux/posix-timers.h). The caller has locked its goroutine to
// the thread for as long as it reads the clock.
func threadClock() func() (time.Duration, bool) {
	const perThread, sched = 4, 2
	id := int32(^uint32(unix.Gettid()))<<3 | perThread | sched
	return func() (time.Duration, bool) {
		var ts unix.Timespec
		if err := unix.ClockGettime(id, &ts); err != nil {
			return 0, false
		}
		return time.Duration(ts.Nano()), true
	}
}
