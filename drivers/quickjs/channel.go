//go:build unix

package quickjs

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/codemode-go/codemode/internal/wire"
)

// channel is the client's end of a sandboxed runtime. The client reads and
// writes the sandbox process's wire (two pipes) through it on its own
// goroutines: a frame crosses from the client's reader or writer straight to
// the pipe,
// with the supervisor's checks made inline, instead of hopping through
// relay goroutines (each hop is a goroutine wake-up, which a tool call's
// round trip pays twice per direction). The supervisor keeps its watch out
// of band: deadlines on timers, liveness on the control socket.
type channel struct {
	s *supervisor

	rmu     sync.Mutex
	pending []byte      // the rest of the frame being read out
	fr      frameReader // the frames of the process being read (s.reading)

	wmu  sync.Mutex
	wbuf []byte // the start of a frame the client has not finished writing
}

// Read reads what the client is to see: the supervisor's own messages
// first, then the frames the current sandbox process sends that the
// supervisor admits. It returns io.EOF once the supervisor shut down.
func (c *channel) Read(p []byte) (int, error) {
	c.rmu.Lock()
	defer c.rmu.Unlock()
	if len(c.pending) == 0 {
		f, err := c.next()
		if err != nil {
			return 0, err
		}
		c.pending = f
	}
	n := copy(p, c.pending)
	c.pending = c.pending[n:]
	return n, nil
}

// next returns the next frame for the client, reading the sandbox
// process's pipe on the caller's goroutine. The supervisor interrupts
// that read (a read deadline in the past) when it has a message of its own
// to deliver.
func (c *channel) next() ([]byte, error) {
	for {
		box, frame, err := c.source()
		if frame != nil || err != nil {
			return frame, err
		}
		frame, err = c.fr.next(box.in)
		switch {
		case errors.Is(err, os.ErrDeadlineExceeded):
			_ = box.fromChild.SetReadDeadline(time.Time{})
		case err != nil:
			c.s.endRead(box, err)
		case c.s.admit(box, frame):
			return frame, nil
		}
	}
}

// source returns a frame the supervisor queued, the end of the channel
// (io.EOF after shutdown), or the sandbox process to read, waiting while a
// replacement boots. A process whose stream ended is left for the current
// one, with the frame reader started afresh.
func (c *channel) source() (*sandbox, []byte, error) {
	s := c.s
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		if len(s.queue) > 0 {
			f := s.queue[0]
			s.queue[0] = nil
			s.queue = s.queue[1:]
			return nil, f, nil
		}
		if s.closing {
			return nil, nil, io.EOF
		}
		if s.reading != nil && !s.reading.drained {
			return s.reading, nil, nil
		}
		if s.cur != nil && !s.cur.drained {
			s.reading = s.cur
			c.fr = frameReader{}
			return s.cur, nil, nil
		}
		s.cond.Wait()
	}
}

// Write takes the client's frames (the wire writer writes each in one
// call; a frame split across calls is put together) and hands each to the
// supervisor on the caller's goroutine. It fails only once the supervisor
// shut down or the client broke the protocol.
func (c *channel) Write(p []byte) (int, error) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	select {
	case <-c.s.stopped:
		return 0, io.ErrClosedPipe
	default:
	}
	buf := p
	if len(c.wbuf) > 0 {
		c.wbuf = append(c.wbuf, p...)
		buf = c.wbuf
	}
	for len(buf) >= 4 {
		n := binary.BigEndian.Uint32(buf)
		if n > wire.MaxFrameSize {
			err := fmt.Errorf("quickjs runner: %w: frame of %d bytes (limit %d)", wire.ErrFrameTooLarge, n, wire.MaxFrameSize)
			c.s.shutdown(err)
			return 0, err
		}
		if len(buf) < 4+int(n) {
			break
		}
		if err := c.s.fromClient(buf[:4+n]); err != nil {
			return 0, err
		}
		buf = buf[4+n:]
	}
	c.wbuf = append([]byte(nil), buf...)
	return len(p), nil
}

// Close shuts the supervisor down: every sandbox process is killed.
func (c *channel) Close() error {
	c.s.shutdown(nil)
	return nil
}

var _ io.ReadWriteCloser = (*channel)(nil)

// frameReader reads whole frames (length prefix included) from a stream,
// keeping a partial frame across an interrupted read.
type frameReader struct {
	buf  []byte
	r, w int // buf[r:w] is read and not yet returned
}

// frameReadSize is what a frame reader asks the pipe for at least; a
// buffer grown past frameKeepSize for a large frame is let go once empty.
const (
	frameReadSize = 64 << 10
	frameKeepSize = 1 << 20
)

// next returns the next frame, length prefix included; it stays valid
// until the next call. Errors are the stream's (io.EOF at a clean end
// between frames, io.ErrUnexpectedEOF inside one) or wire.ErrFrameTooLarge.
func (f *frameReader) next(r io.Reader) ([]byte, error) {
	for {
		if f.w-f.r >= 4 {
			n := binary.BigEndian.Uint32(f.buf[f.r:])
			if n > wire.MaxFrameSize {
				return nil, fmt.Errorf("%w: frame of %d bytes (limit %d)", wire.ErrFrameTooLarge, n, wire.MaxFrameSize)
			}
			if size := 4 + int(n); f.w-f.r >= size {
				frame := f.buf[f.r : f.r+size : f.r+size]
				f.r += size
				return frame, nil
			}
		}
		if err := f.fill(r); err != nil {
			if errors.Is(err, io.EOF) && f.w > f.r {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
	}
}

// fill reads once more, first moving the unread bytes to the front (the
// frame returned last is no longer read) and growing the buffer to hold the
// frame begun.
func (f *frameReader) fill(r io.Reader) error {
	need := frameReadSize
	if f.w-f.r >= 4 {
		need = max(need, 4+int(binary.BigEndian.Uint32(f.buf[f.r:])))
	}
	if f.r == f.w && len(f.buf) > frameKeepSize {
		f.buf, f.r, f.w = nil, 0, 0
	}
	f.w = copy(f.buf, f.buf[f.r:f.w])
	f.r = 0
	if len(f.buf) < need {
		grown := make([]byte, need)
		copy(grown, f.buf[:f.w])
		f.buf = grown
	}
	n, err := r.Read(f.buf[f.w:])
	f.w += n
	if n > 0 {
		return nil
	}
	if err == nil {
		err = io.ErrNoProgress
	}
	return err
}

// admit checks a frame the sandbox process sent and reports whether the
// client is to see it. Nothing from the process is trusted: messages for
// executions it does not run (or that were cancelled) are dropped, and a
// malformed or unexpected message ends the process like a crash.
func (s *supervisor) admit(box *sandbox, frame []byte) bool {
	m, err := wire.Unmarshal(frame[4:])
	if err == nil && m.Kind != wire.KindToolCall && m.Kind != wire.KindOutput && m.Kind != wire.KindResult {
		err = fmt.Errorf("unexpected %s message", m.Kind)
	}
	if err != nil {
		s.endRead(box, err)
		return false
	}
	box.heard.Add(1)
	s.mu.Lock()
	defer s.mu.Unlock()
	w := s.execs[m.Execution]
	if w == nil || w.box != box || box.killed {
		return false
	}
	box.expected.Add(-1) // one message fewer to spin for (expectsAnswer)
	switch {
	case m.Kind == wire.KindResult:
		s.forget(w)
	case m.Kind == wire.KindToolCall && !w.cancelled:
		box.answering.Add(1)
	}
	return !w.cancelled
}

// endRead is the end of a sandbox process's stream, or a message that
// broke the protocol: the client reads from the next process, and a
// process the supervisor did not end itself is handled as lost.
func (s *supervisor) endRead(box *sandbox, err error) {
	s.mu.Lock()
	if !box.drained {
		box.drained = true
		close(box.readEnded)
	}
	s.mu.Unlock()
	s.lost(box, err)
}

// fromClient acts on one frame from the client. Tool results go to their
// execution's process as they are (peeked, not decoded: a tool's output can
// be large); the rest is decoded and checked.
func (s *supervisor) fromClient(frame []byte) error {
	if kind, id, ok := wire.PeekHead(frame[4:]); ok && kind == wire.KindToolResult {
		s.toProcess(id, frame)
		return nil
	}
	m, err := wire.Unmarshal(frame[4:])
	if err == nil && m.Kind != wire.KindExecute && m.Kind != wire.KindCancel {
		err = fmt.Errorf("%w: unexpected %s message from the host", wire.ErrMalformed, m.Kind)
	}
	if err != nil {
		err = fmt.Errorf("quickjs runner: %w", err)
		s.shutdown(err)
		return err
	}
	if m.Kind == wire.KindExecute {
		s.execute(m, frame)
	} else {
		s.cancel(m)
	}
	return nil
}

// toProcess writes a frame for execution id to the process running it, if
// one does.
func (s *supervisor) toProcess(id uint64, frame []byte) {
	s.mu.Lock()
	w := s.execs[id]
	var box *sandbox
	if w != nil && w.box != nil && !w.box.killed {
		box = w.box
	}
	s.mu.Unlock()
	if box != nil {
		_, _ = box.out.Write(frame) // a dead process is noticed by the reader
		box.answered()
	}
}

// answered notes that the host answered one of the process's tool calls.
// When that was the last one of the driver's only execution, the client's
// read of the process, which waited while the handler ran, is interrupted
// to spin for the program's next messages (sandbox.expectsAnswer): the
// reader is readied on this goroutine's processor, and runs there when the
// handler is done.
func (box *sandbox) answered() {
	if box.answering.Add(-1) == 0 && box.alone() {
		box.expected.Store(spinMessages)
		_ = box.fromChild.SetReadDeadline(time.Unix(1, 0))
	}
}

// tellLocked queues m for the client ahead of what the sandbox process
// sends next, and wakes the client's read. Called with s.mu held.
func (s *supervisor) tellLocked(m *wire.Message) {
	p, err := wire.Marshal(m)
	if err != nil {
		return // the supervisor's own messages always encode
	}
	frame := make([]byte, 4+len(p))
	binary.BigEndian.PutUint32(frame, uint32(len(p)))
	copy(frame[4:], p)
	s.queue = append(s.queue, frame)
	s.wakeReaderLocked()
}

// wakeReaderLocked ends the client's wait for a process or its read of
// one, so that it looks at the queue and the state again. Called with s.mu
// held.
func (s *supervisor) wakeReaderLocked() {
	s.cond.Broadcast()
	if s.reading != nil {
		_ = s.reading.fromChild.SetReadDeadline(time.Unix(1, 0))
	}
}
