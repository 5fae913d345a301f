package quickjs

import (
	"sync/atomic"
	"testing"
)

// TestWaitsForHost: the sandbox process's wire reader may spin only while
// its one execution waits for the host and nothing else runs an engine;
// never with no execution (the next request may be far off) or with
// several (the host has several calls to answer).
func TestWaitsForHost(t *testing.T) {
	for _, c := range []struct {
		busy, parked int32
		want         bool
	}{
		{0, 0, false}, // idle between executions
		{1, 0, false}, // an engine runs
		{1, 1, true},  // the one execution waits for a tool's answer
		{2, 1, false}, // a build, or the last engine's reset, runs beside it
		{3, 3, false}, // three wait: the host is busy answering
	} {
		var s server
		s.busy.Store(c.busy)
		s.parked.Store(c.parked)
		if got := s.waitsForHost(); got != c.want {
			t.Errorf("busy %d, parked %d: waitsForHost %v, want %v", c.busy, c.parked, got, c.want)
		}
	}
}

// TestExpectsAnswer: the host's read of a sandbox process may spin only
// when the driver runs one execution, the host has answered its calls, and
// the program has sent fewer than spinMessages messages since.
func TestExpectsAnswer(t *testing.T) {
	for _, c := range []struct {
		inflight, answering, expected int32
		want                          bool
	}{
		{1, 0, 0, false}, // after a request: the program compiles, its first message is far off
		{1, 0, spinMessages, true},
		{1, 0, 1, true},
		{1, 0, -3, false}, // it kept writing output after the answer
		{1, 1, 2, false},  // the host's handler runs: the reader waits
		{1, -1, 2, true},  // a call answered after a request started the count over
		{2, 0, 2, false},  // the host's CPUs have other executions to serve
		{0, 0, 2, false},
	} {
		var n atomic.Int32
		n.Store(c.inflight)
		box := &sandbox{inflight: &n}
		box.answering.Store(c.answering)
		box.expected.Store(c.expected)
		if got := box.expectsAnswer(); got != c.want {
			t.Errorf("inflight %d, answering %d, expected %d: expectsAnswer %v, want %v", c.inflight, c.answering, c.expected, got, c.want)
		}
	}
	if (&sandbox{}).expectsAnswer() {
		t.Error("a sandbox booted without the driver's count expects an answer")
	}
}
