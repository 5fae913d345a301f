//go:build linux

package quickjs

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/codemode-go/codemode/runner"
	"golang.org/x/sys/unix"
)

// TestResetRestoresTheSnapshot runs programs that write an engine's memory
// in different ways on one engine, resetting it after each, and checks that
// every byte outside the C stack's dead region is the snapshot's again and
// that memory grown past the snapshot reads as zeros.
// It runs with the kernel's write tracking (where there is one) and with
// full copies, over more resets than reprotectEvery, so that pages written
// after their protection was renewed are covered too.
func TestResetRestoresTheSnapshot(t *testing.T) {
	if testing.Short() {
		t.Skip("a long sweep; go test without -short runs it")
	}
	programs := []struct{ name, src string }{
		{"new objects", `globalThis.secret = "secret ".repeat(5000); [1, 2, 3].map(x => ({ x, s: String(x) }))`},
		{"changed intrinsics", `Object.prototype.leak = 1; Array.prototype.push = function () { return 0 }; Math.random()`},
		{"memory grown past the snapshot", `globalThis.big = new Uint8Array(24 << 20).fill(7); big.length`},
		{"a thrown error", `throw new Error("x".repeat(100000))`},
		{"nothing", `0`},
		{"many small strings", `let a = []; for (let i = 0; i < 20000; i++) a.push("k" + i); a.length`},
	}
	for _, full := range []bool{false, true} {
		name := "tracked"
		if full {
			name = "full copy"
		}
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			tpl, in := resetEngine(t, full)
			if in.armed == full {
				t.Fatalf("armed %v with FullReset %v", in.armed, full)
			}
			snap := tpl.snapshot
			lo, hi := tpl.l.stackFloor-stackRedZone, tpl.l.stackTop
			for i := 0; i < reprotectEvery+len(programs)+10; i++ {
				p := programs[i%len(programs)]
				if i%3 == 1 {
					p = programs[4] // mostly small programs, as in use
				}
				_, exc, err := in.evalRaw(ctx, p.src, "t.js", evalTypeGlobal)
				if err != nil {
					t.Fatalf("%d %s: %v", i, p.name, err)
				}
				if exc != 0 {
					_ = in.freeValue(ctx, exc)
				}
				if i%5 == 2 {
					// A write by the kernel, as getrandom(2) makes when
					// wazero fills guest memory for WASI random_get.
					mem, _ := in.mem.Read(0, in.mem.Size())
					at := (len(snap)/3 + i*4096) % (len(snap) - 64)
					if _, err := unix.Getrandom(mem[at:at+64], 0); err != nil {
						t.Fatal(err)
					}
				}
				if err := tpl.restore(in); err != nil {
					t.Fatalf("%d %s: reset: %v", i, p.name, err)
				}
				if in.armed == full {
					t.Fatalf("%d %s: tracking armed %v after a reset", i, p.name, in.armed)
				}
				mem, _ := in.mem.Read(0, in.mem.Size())
				if err := sameOutside(mem[:len(snap)], snap, lo, hi); err != nil {
					t.Fatalf("%d %s: %v", i, p.name, err)
				}
				{
					zero := make([]byte, 4096)
					for at := len(snap); at < len(mem); at += len(zero) {
						if !bytes.Equal(mem[at:min(at+len(zero), len(mem))], zero[:min(len(zero), len(mem)-at)]) {
							t.Fatalf("%d %s: memory at %#x past the snapshot is not zero after the reset", i, p.name, at)
						}
					}
				}
			}
		})
	}
}

// resetEngine boots a template (with full resets, or with write tracking,
// skipping the test where the kernel has none) and takes one engine from
// it; both are closed when the test ends.
func resetEngine(t *testing.T, full bool) (*template, *instance) {
	t.Helper()
	tpl, err := newTemplate(context.Background(), nil, Options{FullReset: full}.withDefaults(), runner.Source)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tpl.close() })
	if !full && tpl.tracker == nil {
		t.Skipf("no write tracking on this kernel: %v", tpl.trackErr)
	}
	m := &machine{template: tpl, poolSize: 1}
	in, err := m.get(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.discard(in) })
	return tpl, in
}

// sameOutside reports the first page where got and want differ outside
// [lo, hi).
func sameOutside(got, want []byte, lo, hi uint32) error {
	for _, r := range [][2]int{{0, int(lo)}, {int(hi), len(want)}} {
		for p := r[0]; p < r[1]; p += 4096 {
			e := min(p+4096, r[1])
			if !bytes.Equal(got[p:e], want[p:e]) {
				return fmt.Errorf("memory at %#x differs from the snapshot after the reset", p)
			}
		}
	}
	return nil
}

// TestResetModeInProcess: where this process can track writes, templates
// do, and FullReset turns it off.
func TestResetModeInProcess(t *testing.T) {
	tr, err := newWriteTracker()
	if err != nil {
		t.Skipf("no write tracking on this kernel: %v", err)
	}
	tr.close()
	ctx := context.Background()
	for _, c := range []struct {
		full bool
		want string
	}{{false, "written pages"}, {true, "full copy: Options.FullReset is set"}} {
		tpl, err := newTemplate(ctx, nil, Options{FullReset: c.full}.withDefaults(), runner.Source)
		if err != nil {
			t.Fatal(err)
		}
		if got := tpl.resetMode(ctx); got != c.want {
			t.Errorf("FullReset %v: reset mode %q, want %q", c.full, got, c.want)
		}
		_ = tpl.close()
	}
}

// TestTrackerSeesEveryKindOfWrite protects a fresh engine's pages and
// checks that the tracker reports a page written by Go code, one written by
// the kernel (getrandom(2), as WASI random_get fills guest memory), and the
// memory grown past the snapshot (wazero clears a grown wasm page, so all
// 64 KiB of it count as written), and nothing else.
func TestTrackerSeesEveryKindOfWrite(t *testing.T) {
	tpl, in := resetEngine(t, false)
	lo, hi := tpl.l.stackFloor-stackRedZone, tpl.l.stackTop
	if got, err := tpl.scanTracked(in, lo, hi, false, nil); err != nil || len(got) != 0 {
		t.Fatalf("a freshly armed engine has written pages %v (%v)", got, err)
	}
	if _, ok := in.mem.Grow(1); !ok {
		t.Fatal("growing memory")
	}
	mem, _ := in.mem.Read(0, in.mem.Size())
	page := uint64(os.Getpagesize())
	goPage, kernelPage, newPage := uint64(16)*page, uint64(len(tpl.snapshot))-8*page, uint64(len(tpl.snapshot))+page
	mem[goPage+5]++
	if _, err := unix.Getrandom(mem[kernelPage:kernelPage+32], 0); err != nil {
		t.Fatal(err)
	}
	mem[newPage] = 1
	got, err := tpl.scanTracked(in, lo, hi, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	grown := uint64(len(tpl.snapshot))
	want := []pageRegion{{start: goPage, end: goPage + page}, {start: kernelPage, end: kernelPage + page}, {start: grown, end: grown + wasmPage}}
	if len(got) != len(want) {
		t.Fatalf("written %v, want %v", got, want)
	}
	for i := range want {
		if got[i].start != want[i].start || got[i].end != want[i].end {
			t.Fatalf("written %v, want %v", got, want)
		}
	}
}

// TestTrackerDescriptorsDoNotOutliveTheDriver: drivers that are dropped
// without Close do not leave their userfaultfd open for ever.
func TestTrackerDescriptorsDoNotOutliveTheDriver(t *testing.T) {
	if testing.Short() {
		t.Skip("a long sweep; go test without -short runs it")
	}
	if tr, err := newWriteTracker(); err != nil {
		t.Skipf("no write tracking on this kernel: %v", err)
	} else {
		tr.close()
	}
	count := func() (n int) {
		es, _ := os.ReadDir("/proc/self/fd")
		for _, e := range es {
			if l, _ := os.Readlink("/proc/self/fd/" + e.Name()); strings.Contains(l, "userfaultfd") {
				n++
			}
		}
		return n
	}
	before := count()
	drivers := make([]*Driver, 10)
	for i := range drivers {
		drivers[i] = New(Options{InProcess: true})
		if _, err := drivers[i].template(context.Background(), runner.Source); err != nil {
			t.Fatal(err)
		}
	}
	if n := count(); n < before+len(drivers) {
		t.Fatalf("%d userfaultfd descriptors with 10 live drivers, %d before: the trackers were not made", n, before)
	}
	runtime.KeepAlive(drivers)
	deadline := time.Now().Add(10 * time.Second)
	for count() > before && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(20 * time.Millisecond)
	}
	if n := count(); n > before {
		t.Fatalf("%d userfaultfd descriptors stay open after 10 dropped drivers were collected (%d before)", n, before)
	}
}

// TestResetToANewSnapshot installs a snapshot that differs from the one an
// armed engine was restored from in pages the engine never writes (as a
// prebuilt scope's does, prebuild.go), and checks that the next reset
// copies it whole: a reset of the written pages alone would leave the old
// contents there.
func TestResetToANewSnapshot(t *testing.T) {
	ctx := context.Background()
	tpl, in := resetEngine(t, false)
	if _, exc, err := in.evalRaw(ctx, `[1, 2, 3].map(x => x + 1)`, "t.js", evalTypeGlobal); err != nil || exc != 0 {
		t.Fatalf("%v %v", exc, err)
	}
	old, _ := tpl.current()
	lo, hi := tpl.l.stackFloor-stackRedZone, tpl.l.stackTop
	next := append([]byte(nil), old...)
	for at := 0; at < int(lo); at += 64 << 10 {
		next[at+7] ^= 0x5a
	}
	next = append(next, make([]byte, wasmPage)...)
	next[len(next)-1] = 9
	gen := tpl.install(next)
	if err := tpl.restore(in); err != nil {
		t.Fatal(err)
	}
	if in.gen != gen || !in.armed {
		t.Fatalf("engine at generation %d (armed %v), want %d, armed", in.gen, in.armed, gen)
	}
	mem, _ := in.mem.Read(0, in.mem.Size())
	if len(mem) < len(next) {
		t.Fatalf("memory of %d bytes, snapshot of %d", len(mem), len(next))
	}
	if err := sameOutside(mem[:len(next)], next, lo, hi); err != nil {
		t.Fatal(err)
	}
	// The next reset, of the same generation, copies the written pages.
	if _, exc, err := in.evalRaw(ctx, `globalThis.x = "y".repeat(9000)`, "t.js", evalTypeGlobal); err != nil || exc != 0 {
		t.Fatalf("%v %v", exc, err)
	}
	if err := tpl.restore(in); err != nil {
		t.Fatal(err)
	}
	mem, _ = in.mem.Read(0, in.mem.Size())
	if err := sameOutside(mem[:len(next)], next, lo, hi); err != nil {
		t.Fatal(err)
	}
}
