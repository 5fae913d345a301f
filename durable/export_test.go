package durable

import "time"

// SetCreateDelay sets how long h's new executions' records wait for their
// pass's first journal write (recordDelay by default), so that a test
// decides which write makes the record, whatever the machine's speed.
func SetCreateDelay(h *Handle, d time.Duration) { h.createDelay = d }
