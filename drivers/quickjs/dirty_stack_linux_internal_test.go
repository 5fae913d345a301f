//go:build linux

package quickjs

import (
	"os"
	"syscall"
	"testing"
	"unsafe"
)

//go:noinline
func atStackDepth(d int, f func()) int {
	var pad [4]uint64
	pad[d%4] = uint64(d)
	if d == 0 {
		f()
		return int(pad[0])
	}
	return atStackDepth(d-1, f) + int(pad[d%4])
}

// TestScanSurvivesStackMoves: the PAGEMAP_SCAN argument holds the address of
// the array the kernel writes the page regions to, as a plain integer. When
// that array was on the goroutine's stack (before 2026-12-07), a call made
// between building the argument and the system call (t.pagemap.Fd(), not
// inlined) could grow the stack and move the array: the kernel wrote the
// regions into the freed old stack and scan returned a zeroed copy, which
// the engine's reset either panicked on (a region outside the memory) or
// took for "nothing written". Run scan at every stack depth in a fresh
// goroutine, so that some depth leaves too little room for the frames
// before the call.
func TestScanSurvivesStackMoves(t *testing.T) {
	page := os.Getpagesize()
	tr, buf := trackedMemory(t, 16*page)
	base := unsafe.Pointer(&buf[0])
	bad := 0
	for d := 0; d < 600; d++ {
		if _, err := tr.scan(base, 0, uint64(len(buf)), true, nil); err != nil {
			t.Fatal(err)
		}
		buf[3*page]++ // one page written
		done := make(chan []pageRegion, 1)
		go func() {
			atStackDepth(d, func() {
				out, err := tr.scan(base, 0, uint64(len(buf)), true, nil)
				if err != nil {
					t.Error(err)
				}
				done <- out
			})
		}()
		out := <-done
		if len(out) != 1 || out[0].start != uint64(3*page) || out[0].end != uint64(4*page) {
			bad++
			if bad < 5 {
				t.Errorf("depth %d: scan found %+v, want one region [%d, %d)", d, out, 3*page, 4*page)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of 600 depths got a wrong scan", bad)
	}
}

// TestScanAcrossSpans: a range longer than trackerScanSpan is walked in
// several calls, and pages written on either side of a span's edge, and in
// the last span, are all found, each once.
func TestScanAcrossSpans(t *testing.T) {
	page := os.Getpagesize()
	size := 3*trackerScanSpan + 5*page
	tr, buf := trackedMemory(t, size)
	base := unsafe.Pointer(&buf[0])
	if _, err := tr.scan(base, 0, uint64(size), true, nil); err != nil {
		t.Fatal(err)
	}
	written := []int{0, trackerScanSpan - page, trackerScanSpan, 2*trackerScanSpan + page, size - page}
	for _, at := range written {
		buf[at]++
	}
	out, err := tr.scan(base, 0, uint64(size), true, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	for _, r := range out {
		for p := r.start; p < r.end; p += uint64(page) {
			got = append(got, int(p))
		}
	}
	if len(got) != len(written) {
		t.Fatalf("the scan found pages %v, want %v", got, written)
	}
	for i := range got {
		if got[i] != written[i] {
			t.Fatalf("the scan found pages %v, want %v", got, written)
		}
	}
	if again, err := tr.scan(base, 0, uint64(size), true, nil); err != nil || len(again) != 0 {
		t.Fatalf("a second scan found %v (%v), want nothing: the first protected every page again", again, err)
	}
}

// trackedMemory maps size bytes of anonymous memory and registers them with
// a new write tracker, both undone when the test ends; it skips the test
// where the kernel cannot track writes.
func trackedMemory(t *testing.T, size int) (*writeTracker, []byte) {
	t.Helper()
	tr, err := newWriteTracker()
	if err != nil {
		t.Skip(err)
	}
	t.Cleanup(tr.close)
	buf, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON|syscall.MAP_NORESERVE)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Munmap(buf) })
	if err := tr.register(buf); err != nil {
		t.Fatal(err)
	}
	return tr, buf
}
