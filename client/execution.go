package client

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/codemode-go/codemode/internal/membudget"
	"github.com/codemode-go/codemode/internal/wire"
)

// maxQueued bounds the bytes of runner messages waiting for one execution
// to take them. The runner bounds output itself; a runner past this bound
// is not trusted, and the execution fails rather than the host's memory.
const maxQueued = 64 << 20

// item is one entry of an execution's queue: a runner message, or an end
// the host decided (a halt, a limit, a message it could not accept).
type item struct {
	msg *wire.Message
	end *Outcome
}

// execution is the host's state of one running execution: the queue the
// reader posts to (it never blocks) and the host-enforced tool-call bounds.
type execution struct {
	id  uint64
	lim Limits

	mu       sync.Mutex
	items    []item
	queued   int
	ended    bool // an end was posted; later items are dropped
	wake     chan struct{}
	lastSeq  uint64
	calls    int
	inFlight int
	// waiting names the admitted calls not yet released, by seq, for a
	// deadline's message (waitingFor); the names are joined only then, so
	// that a call allocates nothing for it.
	waiting map[uint64]callName
	// budget holds the bytes of tool inputs and outputs, and of what their
	// handlers read, held for in-flight calls (Limits.MaxInFlightBytes).
	budget *membudget.Budget
	// clock holds the clock values the program observed, in the order of
	// the runner's messages: each tool call's, appended by whoever admits
	// it (admit).
	clock []float64
	// start, when set, starts a tool call on the reader's goroutine (see
	// call); nil while the execution's own goroutine takes every call
	// (an execution with prefilled results checks those in order there).
	start func(m *wire.Message, clock int)
}

// newExecution returns an execution's state; shared, when not nil, is a
// wider budget its in-flight bytes are also taken from (a server's).
func newExecution(id uint64, lim Limits, shared *membudget.Budget) *execution {
	return &execution{id: id, lim: lim, wake: make(chan struct{}, 1),
		budget: membudget.New(lim.MaxInFlightBytes, "Limits.MaxInFlightBytes", shared)}
}

// post appends it to the queue without blocking.
func (e *execution) post(it item) {
	e.mu.Lock()
	if e.ended {
		e.mu.Unlock()
		return
	}
	if it.end != nil {
		e.ended = true
	} else if e.queued += size(it.msg); e.queued > maxQueued {
		it = item{end: internalFailure("the runner sent more than %d MiB of messages that the execution had not taken yet", maxQueued>>20)}
		e.ended = true
	}
	e.items = append(e.items, it)
	e.mu.Unlock()
	select {
	case e.wake <- struct{}{}:
	default:
	}
}

// call takes a tool-call message on the reader's goroutine. When the
// execution starts calls there (start is set), it admits the call and starts
// it at once: a round trip then spares the hand-off to the execution's
// goroutine, one goroutine wake-up of the several a call pays. Otherwise, and
// once the execution has ended, the message is queued as post queues it.
func (e *execution) call(m *wire.Message) {
	e.mu.Lock()
	if e.start == nil || e.ended {
		e.mu.Unlock()
		e.post(item{msg: m})
		return
	}
	clock, end := e.admitLocked(m)
	start := e.start
	e.mu.Unlock()
	if end != nil {
		e.post(item{end: end})
		return
	}
	start(m, clock)
}

// result queues the execution's result message. From then on the reader
// starts no call: one a runner sends after its result is queued behind the
// result, which ends the execution, so it never runs and its clock values
// are not the outcome's.
func (e *execution) result(m *wire.Message) {
	e.mu.Lock()
	e.start = nil
	e.mu.Unlock()
	e.post(item{msg: m})
}

// startCalls has the reader start tool calls with start (see call).
func (e *execution) startCalls(start func(m *wire.Message, clock int)) {
	e.mu.Lock()
	e.start = start
	e.mu.Unlock()
}

// finish marks the execution over for the reader: later messages are
// dropped and no more calls start. Execute calls it as it returns.
func (e *execution) finish() {
	e.mu.Lock()
	e.ended = true
	e.start = nil
	e.mu.Unlock()
	e.budget.Close()
}

// observed returns a copy of the clock values the admitted calls carried.
func (e *execution) observed() []float64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.clock)
}

// take removes and returns the queued items.
func (e *execution) take() []item {
	e.mu.Lock()
	defer e.mu.Unlock()
	items := e.items
	e.items, e.queued = nil, 0
	return items
}

// admit counts a tool call against the execution's bounds and adds the
// clock values it carries. It returns the number of clock values observed
// up to the call, and the execution's end when the call breaks a bound: a
// seq out of issuance order (a runner the host cannot trust) or a
// tool-call limit.
func (e *execution) admit(m *wire.Message) (clock int, end *Outcome) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.admitLocked(m)
}

// admitLocked is admit with e.mu held.
func (e *execution) admitLocked(m *wire.Message) (clock int, end *Outcome) {
	e.clock = append(e.clock, m.Clock...)
	clock = len(e.clock)
	if m.Seq != e.lastSeq+1 {
		return clock, internalFailure("the runner sent tool call seq %d after seq %d; calls are numbered in order", m.Seq, e.lastSeq)
	}
	e.lastSeq = m.Seq
	e.calls++
	e.inFlight++
	if e.waiting == nil {
		e.waiting = map[uint64]callName{}
	}
	e.waiting[m.Seq] = callName{m.Namespace, m.Tool}
	switch {
	case e.calls > e.lim.MaxToolCalls:
		return clock, failure("RangeError", fmt.Sprintf("the program made more than %d tool calls (Limits.MaxToolCalls)", e.lim.MaxToolCalls))
	case e.inFlight > e.lim.MaxInFlightCalls:
		return clock, failure("RangeError", fmt.Sprintf("the program had more than %d tool calls in flight at once (Limits.MaxInFlightCalls)", e.lim.MaxInFlightCalls))
	}
	return clock, nil
}

// open returns the account of a call admitted with m, which holds what the
// call holds until it ends (release): its input twice (the input, and the
// copy of it the tool's handler decodes), what its handler reserves (a
// fetch's body), and its output until written. The error is the
// *membudget.ExceededError of an input that would pass MaxInFlightBytes on
// its own: the call then fails unrun.
func (e *execution) open(m *wire.Message) (*membudget.Account, error) {
	a := e.budget.Open()
	return a, a.Take(2 * int64(len(m.Input)))
}

// release ends in-flight call seq, giving back what its account holds.
func (e *execution) release(seq uint64, a *membudget.Account) {
	a.Close()
	e.mu.Lock()
	e.inFlight--
	delete(e.waiting, seq)
	e.mu.Unlock()
}

// maxWaitingNamed bounds the calls a deadline's message names.
const maxWaitingNamed = 3

// callName is a tool call's namespace and tool.
type callName struct{ namespace, tool string }

// waitingFor is what a deadline's message adds about the calls in flight:
// " while waiting for codemode.slow (tool call 3)", the first few by seq
// and how many more, or "" when none is.
func (e *execution) waitingFor() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.waiting) == 0 {
		return ""
	}
	seqs := slices.Sorted(maps.Keys(e.waiting))
	var named []string
	for _, seq := range seqs[:min(len(seqs), maxWaitingNamed)] {
		c := e.waiting[seq]
		named = append(named, fmt.Sprintf("%s.%s (tool call %d)", c.namespace, c.tool, seq))
	}
	text := " while waiting for " + strings.Join(named, ", ")
	if more := len(seqs) - len(named); more > 0 {
		text += fmt.Sprintf(" and %d more tool call(s)", more)
	}
	return text
}

// size approximates a message's memory for the queue bound.
func size(m *wire.Message) int {
	n := 64 + len(m.Text) + len(m.Input) + len(m.Output) + len(m.Source)
	for _, c := range m.Content {
		n += len(c.Text) + len(c.Data)
	}
	if m.Error != nil {
		n += len(m.Error.Message) + len(m.Error.Stack)
	}
	return n
}
