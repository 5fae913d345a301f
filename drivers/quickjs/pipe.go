package quickjs

import (
	"io"
	"sync"
)

// pipe returns the two ends of an in-memory, full-duplex byte channel.
// Unlike net.Pipe, a write does not wait for the reader: bytes are buffered
// (without bound; the wire's frame limit bounds one message) so the runner
// and the host each hand off a message without a context switch per write.
// Closing either end ends both directions: reads then drain what was
// buffered and return io.EOF, writes return io.ErrClosedPipe.
func pipe() (io.ReadWriteCloser, io.ReadWriteCloser) {
	ab, ba := newStream(), newStream()
	return &end{r: ba, w: ab}, &end{r: ab, w: ba}
}

type stream struct {
	mu     sync.Mutex
	cond   *sync.Cond
	buf    []byte
	closed bool
}

func newStream() *stream {
	s := &stream{}
	s.cond = sync.NewCond(&s.mu)
	return s
}

func (s *stream) write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return 0, io.ErrClosedPipe
	}
	s.buf = append(s.buf, p...)
	s.cond.Signal()
	return len(p), nil
}

func (s *stream) read(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(s.buf) == 0 {
		if s.closed {
			return 0, io.EOF
		}
		s.cond.Wait()
	}
	n := copy(p, s.buf)
	s.buf = s.buf[n:]
	if len(s.buf) == 0 {
		s.buf = nil // let a large message's buffer go
	}
	return n, nil
}

func (s *stream) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	s.cond.Broadcast()
}

type end struct {
	r, w *stream
}

func (e *end) Read(p []byte) (int, error)  { return e.r.read(p) }
func (e *end) Write(p []byte) (int, error) { return e.w.write(p) }

func (e *end) Close() error {
	e.w.close()
	e.r.close()
	return nil
}

var _ io.ReadWriteCloser = (*end)(nil)
