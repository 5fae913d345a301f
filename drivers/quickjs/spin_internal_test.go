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
// when the driver runs one execution whose program has made a tool call
// since its request, and the host has answered its calls.
func TestExpectsAnswer(t *testing.T) {
	for _, c := range []struct {
		inflight, answering int32
		called              bool
		want                bool
	}{
		{1, 0, false, false}, // the program compiles: its first message is far off
		{1, 0, true, true},
		{1, 1, true, false}, // the host's handler runs: the reader waits
		{1, -1, true, true}, // a call answered after a request started the count over
		{2, 0, true, false}, // the host's CPUs have other executions to serve
		{0, 0, true, false},
	} {
		var n atomic.Int32
		n.Store(c.inflight)
		box := &sandbox{inflight: &n}
		box.called.Store(c.called)
		box.answering.Store(c.answering)
		if got := box.expectsAnswer(); got != c.want {
			t.Errorf("inflight %d, answering %d, called %v: expectsAnswer %v, want %v", c.inflight, c.answering, c.called, got, c.want)
		}
	}
	if (&sandbox{}).expectsAnswer() {
		t.Error("a sandbox booted without the driver's count expects an answer")
	}
}
