package quickjs

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codemode-go/codemode/runner"
	"github.com/tetratelabs/wazero"
)

// bootIn boots a template with its files in dir, closed when the test ends.
func bootIn(t *testing.T, dir string) *template {
	t.Helper()
	cache, err := wazero.NewCompilationCacheWithDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	tpl, err := newTemplate(context.Background(), cache, Options{CacheDir: dir}.withDefaults(), runner.Source)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tpl.close() })
	return tpl
}

// templateFiles are the template files in dir.
func templateFiles(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "template-*.bin"))
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestTemplateFromItsFileIsTheBootedOne: a template booted afresh writes
// its file; the next boot with the same key takes it from the file, with
// the same memory, layout and interrupt slot; over a damaged file the
// template is booted afresh and the file written again.
func TestTemplateFromItsFileIsTheBootedOne(t *testing.T) {
	dir := t.TempDir()
	booted := bootIn(t, dir)
	files := templateFiles(t, dir)
	if len(files) != 1 {
		t.Fatalf("template files after a boot: %v", files)
	}
	loaded := bootIn(t, dir)
	if !bytes.Equal(loaded.snapshot, booted.snapshot) || loaded.l != booted.l || loaded.interruptSlot != booted.interruptSlot ||
		booted.stringHead == nil || !bytes.Equal(loaded.stringHead, booted.stringHead) {
		t.Fatal("the template read from its file differs from the booted one")
	}
	raw, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	raw[len(raw)/2] ^= 0xff
	if err := os.WriteFile(files[0], raw, 0o600); err != nil {
		t.Fatal(err)
	}
	// A fresh boot differs from another in about 30 bytes (QuickJS's own
	// random state; Math.random is seeded per execution), not in layout.
	again := bootIn(t, dir)
	if again.l != booted.l || len(again.snapshot) != len(booted.snapshot) || bytes.Equal(again.snapshot, raw[len(raw)-len(again.snapshot)-32:len(raw)-32]) {
		t.Fatal("the damaged file was used")
	}
	fixed, err := os.ReadFile(files[0])
	if err != nil || bytes.Equal(fixed, raw) {
		t.Fatalf("the damaged file was not written again (%v)", err)
	}
}

// TestDecodeSnapshotRefusesWhatItCannotUse: a file of another key, a
// damaged, cut or foreign file is refused, each with its reason.
func TestDecodeSnapshotRefusesWhatItCannotUse(t *testing.T) {
	key := strings.Repeat("ab", 32)
	good := encodeSnapshot(&diskTemplate{wasm: []byte("\x00asm"), memory: make([]byte, wasmPage), l: layout{rt: 7, fns: [len(fnNames)]jsValue{1, 2, 3, 4, 5}}, interruptSlot: 3, stringHead: []byte{0x16, 0, 7}}, key)
	d, err := decodeSnapshot(good, key)
	if err != nil || d.l.rt != 7 || d.l.fns[4] != 5 || d.interruptSlot != 3 || string(d.wasm) != "\x00asm" || len(d.memory) != wasmPage || string(d.stringHead) != "\x16\x00\x07" {
		t.Fatalf("round trip: %+v, %v", d, err)
	}
	flipped := bytes.Clone(good)
	flipped[len(snapshotMagic)+70] ^= 1
	for _, c := range []struct {
		name, key string
		raw       []byte
		want      string
	}{
		{"another key", strings.Repeat("cd", 32), good, "another executable"},
		{"damaged", key, flipped, "checksum"},
		{"cut", key, good[:len(good)-10], "checksum"},
		{"foreign", key, []byte("hello, this is not a template file at all, not even close"), "not a template file"},
		{"empty", key, nil, "not a template file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := decodeSnapshot(c.raw, c.key); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want one saying %q", err, c.want)
			}
		})
	}
}

// FuzzDecodeSnapshot: any bytes are a template or an error; a template's
// parts are within the file.
func FuzzDecodeSnapshot(f *testing.F) {
	key := strings.Repeat("ab", 32)
	f.Add(encodeSnapshot(&diskTemplate{wasm: []byte("w"), memory: make([]byte, wasmPage)}, key))
	f.Add([]byte(snapshotMagic))
	f.Fuzz(func(t *testing.T, raw []byte) {
		d, err := decodeSnapshot(raw, key)
		if err == nil && len(d.wasm)+len(d.memory) > len(raw) {
			t.Fatalf("parts of %d bytes from a file of %d", len(d.wasm)+len(d.memory), len(raw))
		}
	})
}

// TestPruneKeepsTheNewestTemplates: a directory keeps keptSnapshots
// template files, the newest, and loses temporary files a dead writer
// left; other files stay.
func TestPruneKeepsTheNewestTemplates(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	write := func(name string, age time.Duration) {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, now.Add(-age), now.Add(-age)); err != nil {
			t.Fatal(err)
		}
	}
	for i := range keptSnapshots + 2 {
		write("template-"+string(rune('a'+i))+".bin", time.Duration(i)*time.Hour)
	}
	write("template-old.tmp", time.Hour)
	write("template-new.tmp", 0)
	write("other", 10*time.Hour)
	pruneSnapshots(dir)
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	want := "other template-a.bin template-b.bin template-c.bin template-d.bin template-new.tmp"
	if got := strings.Join(names, " "); got != want {
		t.Fatalf("kept %s, want %s", got, want)
	}
}

// TestASCIIStringIsNewString: a string made from its serialised form reads
// back as the same text as one JS_NewStringLen made, for the lengths the
// length's encoding changes at, and a catalogue's names.
func TestASCIIStringIsNewString(t *testing.T) {
	ctx := context.Background()
	tpl := bootIn(t, t.TempDir())
	if tpl.stringHead == nil {
		t.Fatal("the engine's string serialisation was not learned")
	}
	m := &machine{template: tpl, poolSize: 1}
	in, err := m.get(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer m.discard(in)
	var names strings.Builder
	names.WriteString("\n")
	for i := range 10000 {
		names.WriteString("tool_" + strings.Repeat("x", i%9) + "\n")
	}
	for _, s := range []string{"", "a", strings.Repeat("y", 63), strings.Repeat("y", 64), strings.Repeat("z", 8191), strings.Repeat("z", 8192), names.String()} {
		v, err := in.asciiString(ctx, tpl.stringHead, s)
		if err != nil {
			t.Fatalf("%d bytes: %v", len(s), err)
		}
		got, err := in.goString(ctx, v)
		_ = in.freeValue(ctx, v)
		if err != nil || got != s {
			t.Fatalf("%d bytes: read back %d bytes (%v)", len(s), len(got), err)
		}
	}
}
