// Package tail holds Buffer, an io.Writer that keeps only the last bytes
// written to it: the end of a child process's standard error, quoted in the
// error that reports the child's failure.
package tail

import "sync"

// Buffer keeps the last Max bytes written to it. It is safe for concurrent
// use: exec.Cmd may write a child's stdout and stderr from two goroutines
// while another reads the tail for a message.
type Buffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

// New returns a Buffer that keeps the last max bytes (max > 0).
func New(max int) *Buffer { return &Buffer{max: max} }

// Write appends p, dropping the oldest bytes past the bound. It never fails,
// so a chatty child is never stopped by a full buffer.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := len(p)
	if len(p) >= b.max {
		b.buf = append(b.buf[:0], p[len(p)-b.max:]...)
		return n, nil
	}
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - b.max; over > 0 {
		b.buf = append(b.buf[:0], b.buf[over:]...)
	}
	return n, nil
}

// String returns the kept bytes as written (callers trim what they quote).
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}
