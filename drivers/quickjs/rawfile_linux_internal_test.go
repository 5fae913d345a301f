//go:build linux

package quickjs

import (
	"bytes"
	"errors"
	"io"
	"os"
	"sync"
	"sync/atomic"
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
	if in, err = newRawFile(p.fromChild, nil); err != nil {
		t.Fatal(err)
	}
	if out, err = newRawFile(p.toChild, nil); err != nil {
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
	if s, err := newRawFile(a, nil); err == nil {
		t.Fatalf("newRawFile of a blocking pipe: %v, want an error", s)
	}
}

// spinReader is a raw file over the host's end of the process's pipe whose
// spin is on and counts its calls; onCall, when set, runs at each call.
func spinReader(t *testing.T) (r *rawFile, childOut *os.File, calls *int, onCall *func(int)) {
	t.Helper()
	in, _, p := rawPipes(t)
	n := 0
	var hook func(int)
	in.spin = func() bool {
		n++
		if hook != nil {
			hook(n)
		}
		return true
	}
	return in, p.childOut, &n, &hook
}

// readOne reads one byte from r, which write sends once the read has
// begun to spin (or, with no spin, once it waits), and returns how many
// times the read asked its spin.
func readOne(t *testing.T, r *rawFile, calls *int, write func()) int {
	t.Helper()
	before := *calls
	got := make(chan error, 1)
	go func() {
		_, err := r.Read(make([]byte, 1))
		got <- err
	}()
	time.Sleep(5 * time.Millisecond) // far past spinFor: a spin has ended by now
	write()
	if err := <-got; err != nil {
		t.Fatalf("Read: %v", err)
	}
	return *calls - before
}

// TestRawFileSpinBacksOff: a reader whose spins keep ending without data
// (the other side is slow) stops spinning after missSpins of them and asks
// its spin once a wait, trying a spin again every retrySpin waits.
func TestRawFileSpinBacksOff(t *testing.T) {
	r, childOut, calls, _ := spinReader(t)
	write := func() {
		if _, err := childOut.Write([]byte{1}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range missSpins {
		if n := readOne(t, r, calls, write); n < 2 {
			t.Fatalf("read %d asked its spin %d times: it did not spin", i, n)
		}
	}
	if got := r.misses.Load(); got != missSpins {
		t.Fatalf("misses after %d slow answers: %d", missSpins, got)
	}
	spun := 0
	for i := 1; i <= retrySpin; i++ {
		switch n := readOne(t, r, calls, write); {
		case n == 1:
		case i == retrySpin:
			spun++
		default:
			t.Fatalf("wait %d after backing off asked its spin %d times, want once", i, n)
		}
	}
	if spun != 1 {
		t.Fatalf("the reader did not try a spin again after %d waits", retrySpin)
	}
}

// TestRawFileSpinTakesData: data written while a read spins is read by
// that spin, which counts as a hit (the misses start over); a read whose
// spin turns false (its process has work again) waits without a miss.
func TestRawFileSpinTakesData(t *testing.T) {
	r, childOut, calls, hook := spinReader(t)
	r.misses.Store(missSpins - 1)
	*hook = func(n int) {
		if n == 2 { // the spin is on: write now, from inside it
			if _, err := childOut.Write([]byte{2}); err != nil {
				t.Error(err)
			}
		}
	}
	// A spin that loses its processor for longer than spinFor between its
	// first two reads misses the data; on a loaded machine, try again.
	for try := 0; ; try++ {
		*calls = 0
		r.misses.Store(missSpins - 1)
		if _, err := r.Read(make([]byte, 1)); err != nil {
			t.Fatal(err)
		}
		if r.misses.Load() == 0 {
			break
		}
		if try == 20 {
			t.Fatalf("no spin of 20 took the data written during it (misses %d)", r.misses.Load())
		}
	}

	*hook = nil
	r.spin = func() bool { *calls++; return *calls < 3 }
	for try := 0; ; try++ { // as above: the spin must not outlast spinFor
		*calls = 0
		r.misses.Store(0)
		readOne(t, r, calls, func() { _, _ = childOut.Write([]byte{3}) })
		if r.misses.Load() == 0 {
			break
		}
		if try == 20 {
			t.Fatal("a spin its process stopped counted as a miss, 20 times")
		}
	}
}

// TestAnsweredInterruptsTheRead: the host's answer to the last tool call
// of the driver's only execution interrupts the client's read of the
// process, which waited while the handler ran, so that it reads again and
// spins; an answer that leaves calls unanswered, or comes while other
// executions are in flight, leaves the read waiting.
func TestAnsweredInterruptsTheRead(t *testing.T) {
	for _, c := range []struct {
		name                string
		inflight, answering int32
		interrupts          bool
	}{
		{"the last call answered", 1, 1, true},
		{"a call still unanswered", 1, 2, false},
		{"another execution in flight", 2, 1, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			in, _, p := rawPipes(t)
			var n atomic.Int32
			n.Store(c.inflight)
			box := &sandbox{fromChild: p.fromChild, inflight: &n}
			box.answering.Store(c.answering)
			got := make(chan error, 1)
			go func() {
				_, err := in.Read(make([]byte, 1))
				got <- err
			}()
			time.Sleep(10 * time.Millisecond) // let the read wait in the poller
			box.answered()
			if got := box.expected.Load(); (got == spinMessages) != c.interrupts {
				t.Errorf("messages to spin for after the answer: %d", got)
			}
			select {
			case err := <-got:
				if !c.interrupts || !errors.Is(err, os.ErrDeadlineExceeded) {
					t.Fatalf("the read ended with %v (interrupt wanted: %v)", err, c.interrupts)
				}
			case <-time.After(200 * time.Millisecond):
				if c.interrupts {
					t.Fatal("the answer did not interrupt the read")
				}
				_ = p.fromChild.SetReadDeadline(time.Unix(1, 0)) // end it
				<-got
			}
		})
	}
}
