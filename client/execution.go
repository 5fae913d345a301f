package client

import (
	"fmt"
	"sync"

	"github.com/codemode-go/codemode/wire"
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
	held     int64 // bytes of tool inputs and outputs held for in-flight calls
}

func newExecution(id uint64, lim Limits) *execution {
	return &execution{id: id, lim: lim, wake: make(chan struct{}, 1)}
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

// take removes and returns the queued items.
func (e *execution) take() []item {
	e.mu.Lock()
	defer e.mu.Unlock()
	items := e.items
	e.items, e.queued = nil, 0
	return items
}

// admit counts a tool call against the execution's bounds. It returns the
// execution's end when the call breaks one: a seq out of issuance order (a
// runner the host cannot trust) or a tool-call limit.
func (e *execution) admit(m *wire.Message) *Outcome {
	e.mu.Lock()
	defer e.mu.Unlock()
	if m.Seq != e.lastSeq+1 {
		return internalFailure("the runner sent tool call seq %d after seq %d; calls are numbered in order", m.Seq, e.lastSeq)
	}
	e.lastSeq = m.Seq
	e.calls++
	e.inFlight++
	e.held += int64(len(m.Input))
	switch {
	case e.calls > e.lim.MaxToolCalls:
		return failure("RangeError", fmt.Sprintf("the program made more than %d tool calls (Limits.MaxToolCalls)", e.lim.MaxToolCalls))
	case e.inFlight > e.lim.MaxInFlightCalls:
		return failure("RangeError", fmt.Sprintf("the program had more than %d tool calls in flight at once (Limits.MaxInFlightCalls)", e.lim.MaxInFlightCalls))
	case e.held > e.lim.MaxInFlightBytes:
		return failure("RangeError", fmt.Sprintf("the tool calls in flight held more than %d bytes of input and output (Limits.MaxInFlightBytes)", e.lim.MaxInFlightBytes))
	}
	return nil
}

// hold counts n more bytes of output held for an in-flight call, returning
// the execution's end when that breaks MaxInFlightBytes.
func (e *execution) hold(n int64) *Outcome {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.held += n
	if e.held > e.lim.MaxInFlightBytes {
		return failure("RangeError", fmt.Sprintf("the tool calls in flight held more than %d bytes of input and output (Limits.MaxInFlightBytes)", e.lim.MaxInFlightBytes))
	}
	return nil
}

// release ends an in-flight call that held n bytes.
func (e *execution) release(n int64) {
	e.mu.Lock()
	e.inFlight--
	e.held -= n
	e.mu.Unlock()
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
