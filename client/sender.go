package client

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/codemode-go/codemode/wire"
)

// sender is the one owner of a runtime's writes. Callers queue messages and
// never block on the peer: a peer that stops reading stalls the sender
// alone, and every caller waiting for a write selects on its own context.
type sender struct {
	w *wire.Writer

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
			s.mu.Lock()
			if len(s.queue) == 0 {
				s.mu.Unlock()
				break
			}
			o := s.queue[0]
			s.queue[0] = nil
			s.queue = s.queue[1:]
			err := s.err
			s.mu.Unlock()
			if !o.state.CompareAndSwap(queued, writing) {
				continue // its caller gave up before it was written
			}
			if err == nil {
				err = s.w.Write(o.msg)
				if err != nil && !isEncodeError(err) {
					s.mu.Lock()
					if s.err == nil {
						s.err = err
					}
					s.mu.Unlock()
				}
			}
			o.sent <- err
		}
	}
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

// close stops the writer goroutine; queued messages are dropped.
func (s *sender) close() { close(s.stop) }
