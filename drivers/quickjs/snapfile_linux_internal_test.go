//go:build linux

package quickjs

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TestNewEngineMapsTheSnapshot: a new engine's memory is the template's
// snapshot file mapped privately, of the generation it was made at; what
// its programs write reaches neither the file nor another engine; its resets
// restore the snapshot; and an engine made after a new generation, or reset
// to it, maps that generation's file.
func TestNewEngineMapsTheSnapshot(t *testing.T) {
	ctx := context.Background()
	tpl, in := resetEngine(t, false)
	if tpl.snapFile == nil {
		t.Fatal("the template has no snapshot file")
	}
	snap, _ := tpl.current()
	lo, hi := tpl.l.stackFloor-stackRedZone, tpl.l.stackTop
	mem, _ := in.mem.Read(0, uint32(len(snap)))
	if m := mappingAt(t, mem); !strings.Contains(m, "memfd:codemode-quickjs-snapshot") {
		t.Fatalf("the engine's memory is mapped as %q, not from the snapshot file", m)
	}
	if err := sameOutside(mem, snap, lo, hi); err != nil {
		t.Fatal(err)
	}
	m := &machine{template: tpl, poolSize: 2}
	other, err := m.get(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer m.discard(other)
	for i := 0; i < 3; i++ {
		if _, exc, err := in.evalRaw(ctx, `globalThis.s = "w".repeat(300000); Object.prototype.z = 1`, "t.js", evalTypeGlobal); err != nil || exc != 0 {
			t.Fatalf("%v %v", exc, err)
		}
		otherMem, _ := other.mem.Read(0, uint32(len(snap)))
		if err := sameOutside(otherMem, snap, lo, hi); err != nil {
			t.Fatalf("another engine saw the writes: %v", err)
		}
		if err := tpl.restore(in); err != nil {
			t.Fatal(err)
		}
		mem, _ = in.mem.Read(0, uint32(len(snap)))
		if err := sameOutside(mem, snap, lo, hi); err != nil {
			t.Fatalf("reset %d: %v", i, err)
		}
	}
	file := make([]byte, len(snap))
	if _, err := unix.Pread(int(tpl.snapFile.f.Fd()), file, 0); err != nil || !bytes.Equal(file, snap) {
		t.Fatalf("the snapshot file changed (read error %v)", err)
	}

	next := append([]byte(nil), snap...)
	next[64<<10] ^= 0x5a
	gen := tpl.install(next)
	fresh, err := m.get(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer m.discard(fresh)
	got, _ := fresh.mem.Read(0, uint32(len(next)))
	if fresh.gen != gen || got[64<<10] != next[64<<10] || !strings.Contains(mappingAt(t, got), "memfd:codemode-quickjs-snapshot") {
		t.Fatalf("an engine made at generation %d: generation %d, byte %#x want %#x", gen, fresh.gen, got[64<<10], next[64<<10])
	}
	if err := sameOutside(got, next, lo, hi); err != nil {
		t.Fatal(err)
	}
	// An engine of the last generation maps the new one at its reset,
	// dropping the pages it wrote.
	if _, exc, err := in.evalRaw(ctx, `globalThis.s = "v".repeat(300000)`, "t.js", evalTypeGlobal); err != nil || exc != 0 {
		t.Fatalf("%v %v", exc, err)
	}
	if err := tpl.restore(in); err != nil {
		t.Fatal(err)
	}
	mem, _ = in.mem.Read(0, uint32(len(next)))
	if in.gen != gen || !in.armed || !strings.Contains(mappingAt(t, mem), "memfd:codemode-quickjs-snapshot") {
		t.Fatalf("an engine reset to generation %d: generation %d, armed %v, mapped as %q", gen, in.gen, in.armed, mappingAt(t, mem))
	}
	if err := sameOutside(mem, next, lo, hi); err != nil {
		t.Fatal(err)
	}
}

// TestSnapshotFileRefusesWrites: the sealed file cannot be written or
// resized, nor mapped shared for writing.
func TestSnapshotFileRefusesWrites(t *testing.T) {
	page := os.Getpagesize()
	f, err := newSnapshotFile(bytes.Repeat([]byte{7}, 4*page))
	if err != nil {
		t.Skip(err)
	}
	defer f.close()
	fd := int(f.f.Fd())
	if _, err := unix.Pwrite(fd, []byte{1}, 0); err == nil {
		t.Error("a write to the snapshot file succeeded")
	}
	if err := unix.Ftruncate(fd, int64(8*page)); err == nil {
		t.Error("the snapshot file grew")
	}
	if b, err := unix.Mmap(fd, 0, 4*page, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED); err == nil {
		_ = unix.Munmap(b)
		t.Error("the snapshot file was mapped shared for writing")
	}
	if err := f.mapOnto(make([]byte, page)); err == nil {
		t.Error("mapped over memory of another size")
	}
}

// mappingAt returns the /proc/self/maps line of the mapping that holds b.
func mappingAt(t *testing.T, b []byte) string {
	t.Helper()
	raw, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Skip(err)
	}
	addr := uint64(uintptr(unsafe.Pointer(&b[0])))
	for _, line := range strings.Split(string(raw), "\n") {
		var start, end uint64
		if _, err := fmt.Sscanf(line, "%x-%x", &start, &end); err == nil && start <= addr && addr < end {
			return line
		}
	}
	return ""
}
