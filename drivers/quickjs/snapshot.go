package quickjs

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"
)

// The template on disk. Booting a template runs the runner's bundle in a
// fresh engine (about 71 ms of a sandbox process's 140 ms boot) after
// patching the QuickJS module (8 ms); the result is the same for the same
// executable, runner source and options. So a template booted once is kept
// in the cache directory, next to wazero's compiled code: the patched
// module, the engine's memory and its layout. A later process with the same
// key compiles the module (from the compilation cache) and takes the
// memory as it is, as every engine of a template already does
// (template.restore). The key names the executable by path, size,
// modification time and inode, so a rebuilt binary never reads another
// build's template; a checksum over the file catches a torn or damaged one,
// which is then booted afresh and written again. The file is as
// trustworthy as the compiled machine code beside it: whoever can write the
// cache directory can already replace that.

// snapshotMagic starts a template file; its last digit is the format's
// version, raised whenever what boot puts into a template changes.
const snapshotMagic = "codemode-quickjs-template-2\n"

// keptSnapshots is how many template files a cache directory keeps (the
// newest): each rebuild of a program writes one of about 6 MB.
const keptSnapshots = 4

// diskTemplate is what a template file holds.
type diskTemplate struct {
	wasm          []byte // the patched module
	memory        []byte // the booted engine's linear memory
	l             layout
	interruptSlot uint32
	stringHead    []byte // template.stringHead
}

// snapshotKey identifies the template that o and runnerSource boot in
// this executable, or "" when the executable cannot be identified.
func snapshotKey(o Options, runnerSource string) string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	st, err := os.Stat(running(exe))
	if err != nil {
		return ""
	}
	opts, err := json.Marshal(o)
	if err != nil {
		return ""
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%d\x00%d\x00%d\x00", snapshotMagic, exe, st.Size(), st.ModTime().UnixNano(), inode(st))
	h.Write(opts)
	h.Write([]byte{0})
	h.Write([]byte(runnerSource))
	return hex.EncodeToString(h.Sum(nil))
}

// running is the file this process runs: on Linux /proc/self/exe, which
// stays the running file when an upgrade replaces exe's path (its stat
// then names the old file, whose template it is; second review of
// 2026-12-06); elsewhere exe.
func running(exe string) string {
	if runtime.GOOS == "linux" {
		if _, err := os.Stat("/proc/self/exe"); err == nil {
			return "/proc/self/exe"
		}
	}
	return exe
}

// maxSnapshotFile bounds a template file's size, in bytes: a template is
// about 6 MB, and a larger file (a sparse gigabyte someone put there) is
// not read.
const maxSnapshotFile = 256 << 20

// snapshotPath is the template file for key in dir.
func snapshotPath(dir, key string) string {
	return filepath.Join(dir, "template-"+key[:32]+".bin")
}

// readSnapshot reads the template file for key, or returns an error saying
// why there is none to use.
func readSnapshot(dir, key string) (*diskTemplate, error) {
	path := snapshotPath(dir, key)
	raw, err := readRegular(path, maxSnapshotFile)
	if err != nil {
		return nil, err
	}
	t, err := decodeSnapshot(raw, key)
	if err == nil {
		now := time.Now()
		_ = os.Chtimes(path, now, now) // pruning keeps the templates last used
	}
	return t, err
}

// readRegular reads the file at path when it is a regular file of at most
// limit bytes; a symbolic link, a FIFO or a device (which would block or
// never end) is refused without reading (openNoFollow).
func readRegular(path string, limit int64) ([]byte, error) {
	f, err := openNoFollow(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	switch {
	case err != nil:
		return nil, err
	case !st.Mode().IsRegular():
		return nil, fmt.Errorf("%s is not a regular file", path)
	case st.Size() > limit:
		return nil, fmt.Errorf("%s is %d bytes, more than a template's %d", path, st.Size(), limit)
	}
	raw := make([]byte, st.Size())
	if _, err := io.ReadFull(f, raw); err != nil {
		return nil, err
	}
	return raw, nil
}

// decodeSnapshot parses a template file: the magic, the key, the layout,
// the module, the memory and the string head, then a SHA-256 of all that.
func decodeSnapshot(raw []byte, key string) (*diskTemplate, error) {
	if len(raw) < len(snapshotMagic)+sha256.Size || !bytes.HasPrefix(raw, []byte(snapshotMagic)) {
		return nil, errors.New("not a template file")
	}
	body, sum := raw[:len(raw)-sha256.Size], raw[len(raw)-sha256.Size:]
	if got := sha256.Sum256(body); !bytes.Equal(got[:], sum) {
		return nil, errors.New("the template file's checksum does not match")
	}
	r := bytes.NewReader(body[len(snapshotMagic):])
	var fileKey [64]byte
	var t diskTemplate
	var sizes [3]uint32
	fixed := []any{&fileKey, &t.l.rt, &t.l.ctx, &t.l.scratch, &t.l.runner, &t.l.fns, &t.l.stackTop, &t.l.stackFloor, &t.interruptSlot, &sizes}
	for _, f := range fixed {
		if err := binary.Read(r, binary.LittleEndian, f); err != nil {
			return nil, fmt.Errorf("the template file is cut short: %w", err)
		}
	}
	if string(fileKey[:]) != key {
		return nil, errors.New("the template file is another executable's or configuration's")
	}
	if uint64(sizes[0])+uint64(sizes[1])+uint64(sizes[2]) != uint64(r.Len()) || sizes[1]%wasmPage != 0 {
		return nil, errors.New("the template file's sizes do not match its length")
	}
	rest := body[len(body)-r.Len():]
	t.wasm, t.memory, t.stringHead = rest[:sizes[0]], rest[sizes[0]:sizes[0]+sizes[1]], rest[sizes[0]+sizes[1]:]
	if len(t.stringHead) == 0 {
		t.stringHead = nil
	}
	return &t, nil
}

// encodeSnapshot is the file decodeSnapshot reads.
func encodeSnapshot(t *diskTemplate, key string) []byte {
	var b bytes.Buffer
	b.WriteString(snapshotMagic)
	b.WriteString(key)
	for _, f := range []any{t.l.rt, t.l.ctx, t.l.scratch, t.l.runner, t.l.fns, t.l.stackTop, t.l.stackFloor, t.interruptSlot,
		[3]uint32{uint32(len(t.wasm)), uint32(len(t.memory)), uint32(len(t.stringHead))}} {
		_ = binary.Write(&b, binary.LittleEndian, f) // a bytes.Buffer does not fail
	}
	b.Write(t.wasm)
	b.Write(t.memory)
	b.Write(t.stringHead)
	sum := sha256.Sum256(b.Bytes())
	return append(b.Bytes(), sum[:]...)
}

// writeSnapshot stores t for key in dir (a temporary file renamed into
// place, so that a reader sees a whole file or none) and removes the
// oldest template files past keptSnapshots. Failures are ignored: the
// next process boots afresh.
func writeSnapshot(dir, key string, t *diskTemplate) {
	f, err := os.CreateTemp(dir, "template-*.tmp")
	if err != nil {
		return
	}
	_, werr := f.Write(encodeSnapshot(t, key))
	cerr := f.Close()
	if werr != nil || cerr != nil || os.Rename(f.Name(), snapshotPath(dir, key)) != nil {
		_ = os.Remove(f.Name())
		return
	}
	pruneSnapshots(dir)
}

// pruneSnapshots removes all but the keptSnapshots most recently used
// template files in dir (a load marks its file used), and temporary ones older than a minute (a process that died
// writing).
func pruneSnapshots(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	type file struct {
		name string
		mod  time.Time
	}
	var files []file
	for _, e := range entries {
		info, err := e.Info()
		if err != nil || !strings.HasPrefix(e.Name(), "template-") {
			continue
		}
		if strings.HasSuffix(e.Name(), ".tmp") {
			if time.Since(info.ModTime()) > time.Minute {
				_ = os.Remove(filepath.Join(dir, e.Name()))
			}
			continue
		}
		files = append(files, file{e.Name(), info.ModTime()})
	}
	slices.SortFunc(files, func(a, b file) int { return b.mod.Compare(a.mod) })
	for _, f := range files[min(len(files), keptSnapshots):] {
		_ = os.Remove(filepath.Join(dir, f.name))
	}
}
