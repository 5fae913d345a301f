package client

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/codemode-go/codemode/internal/wire"
)

// sender is the one owner of a runtime's writes. Callers queue messages and
// never block on the peer: a peer that stops reading stalls the sender
// alone, and every caller waiting for a write selects on its own context.
// The exception is sendNow, for small messages, which writes on the
// caller's goroutine when the writer is idle.
type sender struct {
	w *wire.Writer
	// wmu is held by whoever writes: the writer goroutine, from taking a
	// message off the queue until it is written, or a caller of sendNow.
	wmu sync.Mutex

	mu    sync.Mutex
	queue []*outgoing
	err   error // the first write failure; later messages fail with it
	wake  chan struct{}
	stop  chan struct{}
}

// The states of an outgoing message.
const (
	queued int32 = iota
	writing
	abandoned
)

type outgoing struct {
	msg   *wire.Message
	state atomic.Int32
	sent  chan error // buffered; receives the write's result
}

func newSender(w *wire.Writer) *sender {
	return &sender{w: w, wake: make(chan struct{}, 1), stop: make(chan struct{})}
}

// run writes queued messages in order until close; it is the runtime's
// writer goroutine.
func (s *sender) run() {
	for {
		select {
		case <-s.wake:
		case <-s.stop:
			return
		}
		for {
			s.wmu.Lock()
			s.mu.Lock()
			if len(s.queue) == 0 {
				s.mu.Unlock()
				s.wmu.Unlock()
				break
			}
			o := s.queue[0]
			s.queue[0] = nil
			s.queue = s.queue[1:]
			err := s.err
			s.mu.Unlock()
			if !o.state.CompareAndSwap(queued, writing) {
				s.wmu.Unlock()
				continue // its caller gave up before it was written
			}
			if err == nil {
				err = s.write(o.msg)
			}
			s.wmu.Unlock()
			o.sent <- err
		}
	}
}

// write writes m; the caller holds wmu. A failure other than a message too
// large to encode breaks the channel: it is kept, and later messages fail
// with it.
func (s *sender) write(m *wire.Message) error {
	err := s.w.Write(m)
	if err != nil && !isEncodeError(err) {
		s.mu.Lock()
		if s.err == nil {
			s.err = err
		}
		s.mu.Unlock()
	}
	return err
}

// sendNow writes m on the calling goroutine when nothing is queued or being
// written, sparing the hand-off to the writer goroutine and back (a tool
// call's round trip pays for each goroutine it wakes); otherwise it queues
// m as send does. Only for small messages: a caller that writes is blocked
// while the peer does not read, and a small frame fits in what the channel
// buffers. written and err are as for send.
func (s *sender) sendNow(ctx context.Context, done <-chan struct{}, m *wire.Message) (written bool, err error) {
	s.mu.Lock()
	if len(s.queue) == 0 && s.err == nil && s.wmu.TryLock() {
		// Holding wmu with an empty queue: no message taken off the
		// queue is waiting to be written, so m keeps its place in order.
		s.mu.Unlock()
		err := s.write(m)
		s.wmu.Unlock()
		return err == nil, err
	}
	s.mu.Unlock()
	return s.send(ctx, done, m)
}

// isEncodeError reports a message refused before anything was written (too
// large to encode): the channel is still good.
func isEncodeError(err error) bool { return errors.Is(err, wire.ErrFrameTooLarge) }

// post queues m without waiting for it to be written.
func (s *sender) post(m *wire.Message) *outgoing {
	o := &outgoing{msg: m, sent: make(chan error, 1)}
	s.mu.Lock()
	s.queue = append(s.queue, o)
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
	return o
}

// send queues m and waits until it is written, ctx ends or done closes.
// written reports whether m may have reached the peer: false means it
// never will (the caller gave up while it was queued, or the write failed).
func (s *sender) send(ctx context.Context, done <-chan struct{}, m *wire.Message) (written bool, err error) {
	o := s.post(m)
	var cause error
	select {
	case err := <-o.sent:
		// A failed write broke the channel (or, too large, wrote
		// nothing): either way the peer will not act on m.
		return err == nil, err
	case <-ctx.Done():
		cause = context.Cause(ctx)
	case <-done:
		cause = errRuntimeDone
	}
	if o.state.CompareAndSwap(queued, abandoned) {
		return false, cause
	}
	return true, cause
}

// abandon drops o, a message post queued, unless its write has begun; o
// may be nil.
func (s *sender) abandon(o *outgoing) {
	if o != nil {
		o.state.CompareAndSwap(queued, abandoned)
	}
}

// close stops the writer goroutine; queued messages are dropped.
func (s *sender) close() { close(s.stop) }
