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

// rawPair returns a raw socket over the host's end of a socket pair (as the
// supervisor makes it) and the other end, non-blocking and in the poller as
// the sandbox process has it.
func rawPair(t *testing.T) (*rawSocket, *os.File, *os.File) {
	t.Helper()
	host, child, err := socketPair()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeAll(host, child) })
	sock, err := newRawSocket(host)
	if err != nil {
		t.Fatal(err)
	}
	return sock, host, child
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

// TestRawSocketWritesWhole: a write many times the socket's buffer (the
// kernel takes a piece at a time and answers EAGAIN in between) arrives
// whole and in order, and two such writes from two goroutines do not
// interleave.
func TestRawSocketWritesWhole(t *testing.T) {
	sock, host, child := rawPair(t)
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
		rc, _ := host.SyscallConn()
		_ = rc.Control(func(fd uintptr) { _ = unix.Shutdown(int(fd), unix.SHUT_WR) })
	}()
	got, err := io.ReadAll(child)
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

// TestRawSocketReadInterruptedByDeadline: a read waiting for the sandbox is
// ended by a read deadline in the past set on the file (what the supervisor
// does to deliver a message of its own), with os.ErrDeadlineExceeded, and
// once the deadline is cleared the next read returns what the process sent,
// nothing lost.
func TestRawSocketReadInterruptedByDeadline(t *testing.T) {
	sock, host, child := rawPair(t)
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

// TestRawSocketPeerEnds: how the stream ends when the sandbox process's end
// closes (the process exited or was killed): io.EOF between frames,
// io.ErrUnexpectedEOF in the middle of one; a write waiting for room, and
// any write after, fails (EPIPE) instead of waiting forever or ending the
// host with SIGPIPE.
func TestRawSocketPeerEnds(t *testing.T) {
	t.Run("read between frames", func(t *testing.T) {
		sock, _, child := rawPair(t)
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
		sock, _, child := rawPair(t)
		if _, err := child.Write(frameOf(pattern(1<<20, 3))[:100<<10]); err != nil {
			t.Fatal(err)
		}
		_ = child.Close()
		var fr frameReader
		if _, err := fr.next(sock); !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("a frame cut short: %v, want io.ErrUnexpectedEOF", err)
		}
	})
	t.Run("write waiting for room", func(t *testing.T) {
		sock, _, child := rawPair(t)
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

// TestRawSocketLocalClose: closing the host's file (the supervisor does
// once the process was reaped) ends a read and a write that wait.
func TestRawSocketLocalClose(t *testing.T) {
	sock, host, _ := rawPair(t)
	read, wrote := make(chan error, 1), make(chan error, 1)
	go func() {
		_, err := sock.Read(make([]byte, 16))
		read <- err
	}()
	go func() {
		_, err := sock.Write(make([]byte, 8<<20))
		wrote <- err
	}()
	_ = host.Close()
	if err := <-read; err == nil || errors.Is(err, io.EOF) {
		t.Fatalf("a read when the file closed: %v, want an error other than io.EOF", err)
	}
	if err := <-wrote; err == nil {
		t.Fatal("a write when the file closed succeeded")
	}
}

// TestRawSocketRefusesBlockingFile: a raw read of a socket in blocking mode
// would wait inside syscall.RawSyscall, holding its thread's processor where
// the scheduler cannot take it back (a stop-the-world, and any goroutine
// queued on that processor, would wait for the peer), so newRawSocket
// refuses one.
func TestRawSocketRefusesBlockingFile(t *testing.T) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	a, b := os.NewFile(uintptr(fds[0]), "blocking-a"), os.NewFile(uintptr(fds[1]), "blocking-b")
	defer closeAll(a, b)
	if s, err := newRawSocket(a); err == nil {
		t.Fatalf("newRawSocket of a blocking socket: %v, want an error", s)
	}
}
