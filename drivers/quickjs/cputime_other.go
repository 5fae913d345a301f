//go:build !linux

package quickjs

import "time"

// threadClock is nil where the driver reads no thread's CPU clock: the
// meter counts the engine's busy wall time instead.
func threadClock() func() (time.Duration, bool) { return nil }
