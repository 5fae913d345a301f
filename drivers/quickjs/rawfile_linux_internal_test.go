//go:build linux

package quickjs

import (
	"bytes"
	"errors"
	"io"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// rawPipes returns the wire's pipes as the supervisor makes them and raw
// files over the host's ends: in reads what the process writes (childOut),
// out writes what it reads (childIn). The process's ends are set
// non-blocking, and so in the poller, as the sandbox process has them.
func rawPipes(t *testing.T) (in, out *rawFile, p pipes) {
	t.Helper()
	p, err := wirePipes()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeAll(p.toChild, p.childIn, p.childOut, p.fromChild) })
	for _, f := range []*os.File{p.childIn, p.childOut} {
		rc, err := f.SyscallConn()
		if err != nil {
			t.Fatal(err)
		}
		_ = rc.Control(func(fd uintptr) { err = unix.SetNonblock(int(fd), true) })
		if err != nil {
			t.Fatal(err)
		}
	}
	if in, err = newRawFile(p.fromChild); err != nil {
		t.Fatal(err)
	}
	if out, err = newRawFile(p.toChild); err != nil {
		t.Fatal(err)
	}
	return in, out, p
}

// pattern is n bytes that differ from their neighbours' positions, so a
// lost, repeated or reordered piece shows.
func pattern(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7) ^ byte(i>>11) ^ seed
	}
	return b
}

// TestRawFileWritesWhole: a write many times the pipe's buffer (the kernel
// takes a piece at a time and answers EAGAIN in between) arrives whole and
// in order, and two such writes from two goroutines do not interleave.
func TestRawFileWritesWhole(t *testing.T) {
	_, sock, p := rawPipes(t)
	a, b := pattern(6<<20, 1), pattern(5<<20, 2)
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for _, p := range [][]byte{a, b} {
		wg.Go(func() {
			n, err := sock.Write(p)
			if err == nil && n != len(p) {
				err = io.ErrShortWrite
			}
			errs <- err
		})
	}
	go func() {
		// The stream ends once both writes returned, whole or not.
		wg.Wait()
		_ = p.toChild.Close()
	}()
	got, err := io.ReadAll(p.childIn)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	first, second := a, b
	if !bytes.HasPrefix(got, a[:64]) {
		first, second = b, a
	}
	if len(got) != len(a)+len(b) || !bytes.Equal(got[:len(first)], first) || !bytes.Equal(got[len(first):], second) {
		t.Fatalf("%d bytes arrived, changed or interleaved; %d were written", len(got), len(a)+len(b))
	}
}

// TestRawFileReadInterruptedByDeadline: a read waiting for the sandbox is
// ended by a read deadline in the past set on the file (what the supervisor
// does to deliver a message of its own), with os.ErrDeadlineExceeded, and
// once the deadline is cleared the next read returns what the process sent,
// nothing lost.
func TestRawFileReadInterruptedByDeadline(t *testing.T) {
	sock, _, p := rawPipes(t)
	host, child := p.fromChild, p.childOut
	read := make(chan error, 1)
	go func() {
		_, err := sock.Read(make([]byte, 16))
		read <- err
	}()
	if err := host.SetReadDeadline(time.Unix(1, 0)); err != nil {
		t.Fatal(err)
	}
	if err := <-read; !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("the interrupted read: %v, want os.ErrDeadlineExceeded", err)
	}
	if _, err := sock.Read(make([]byte, 16)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("a read with the deadline still past: %v, want os.ErrDeadlineExceeded", err)
	}
	if err := host.SetReadDeadline(time.Time{}); err != nil {
		t.Fatal(err)
	}
	if _, err := child.Write([]byte("after")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 16)
	n, err := sock.Read(buf)
	if err != nil || string(buf[:n]) != "after" {
		t.Fatalf("after the deadline was cleared: %q, %v", buf[:n], err)
	}
}

// TestRawFilePeerEnds: how the stream ends when the sandbox process's end
// closes (the process exited or was killed): io.EOF between frames,
// io.ErrUnexpectedEOF in the middle of one; a write waiting for room, and
// any write after, fails (EPIPE) instead of waiting forever or ending the
// host with SIGPIPE.
func TestRawFilePeerEnds(t *testing.T) {
	t.Run("read between frames", func(t *testing.T) {
		sock, _, p := rawPipes(t)
		child := p.childOut
		frame := frameOf([]byte("whole"))
		if _, err := child.Write(frame); err != nil {
			t.Fatal(err)
		}
		_ = child.Close()
		var fr frameReader
		got, err := fr.next(sock)
		if err != nil || !bytes.Equal(got, frame) {
			t.Fatalf("the frame sent before the end: %q, %v", got, err)
		}
		if _, err := fr.next(sock); !errors.Is(err, io.EOF) {
			t.Fatalf("after it: %v, want io.EOF", err)
		}
	})
	t.Run("read inside a frame", func(t *testing.T) {
		sock, _, p := rawPipes(t)
		child := p.childOut
		// More than a pipe holds: written while the frame is read.
		go func() {
			_, _ = child.Write(frameOf(pattern(1<<20, 3))[:100<<10])
			_ = child.Close()
		}()
		var fr frameReader
		if _, err := fr.next(sock); !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("a frame cut short: %v, want io.ErrUnexpectedEOF", err)
		}
	})
	t.Run("write waiting for room", func(t *testing.T) {
		_, sock, p := rawPipes(t)
		child := p.childIn
		done := make(chan error, 1)
		var n int
		go func() {
			var err error
			n, err = sock.Write(make([]byte, 8<<20)) // far past the buffers: it waits
			done <- err
		}()
		// Whether the writer waits already or not, it is to fail, not hang.
		_ = child.Close()
		if err := <-done; !errors.Is(err, syscall.EPIPE) && !errors.Is(err, syscall.ECONNRESET) {
			t.Fatalf("a write to a closed peer: %d bytes, %v; want EPIPE", n, err)
		}
		if _, err := sock.Write([]byte("more")); !errors.Is(err, syscall.EPIPE) {
			t.Fatalf("a write after: %v, want EPIPE", err)
		}
	})
}

// TestRawFileLocalClose: closing the host's files (the supervisor does
// once the process was reaped) ends a read and a write that wait.
func TestRawFileLocalClose(t *testing.T) {
	in, out, p := rawPipes(t)
	read, wrote := make(chan error, 1), make(chan error, 1)
	go func() {
		_, err := in.Read(make([]byte, 16))
		read <- err
	}()
	go func() {
		_, err := out.Write(make([]byte, 8<<20))
		wrote <- err
	}()
	closeAll(p.fromChild, p.toChild)
	if err := <-read; err == nil || errors.Is(err, io.EOF) {
		t.Fatalf("a read when the file closed: %v, want an error other than io.EOF", err)
	}
	if err := <-wrote; err == nil {
		t.Fatal("a write when the file closed succeeded")
	}
}

// TestRawFileRefusesBlockingFile: a raw read of a pipe in blocking mode
// would wait inside syscall.RawSyscall, holding its thread's processor where
// the scheduler cannot take it back (a stop-the-world, and any goroutine
// queued on that processor, would wait for the peer), so newRawFile refuses
// one.
func TestRawFileRefusesBlockingFile(t *testing.T) {
	var fds [2]int
	if err := unix.Pipe2(fds[:], unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	a, b := os.NewFile(uintptr(fds[0]), "blocking-r"), os.NewFile(uintptr(fds[1]), "blocking-w")
	defer closeAll(a, b)
	if s, err := newRawFile(a); err == nil {
		t.Fatalf("newRawFile of a blocking pipe: %v, want an error", s)
	}
}
