//go:build unix

package quickjs

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestReadRegularRefusesWhatIsNotATemplateFile: where a template file
// goes, a FIFO (which blocked a boot past its deadline while holding the
// driver's lock), a symbolic link (to /dev/zero, read forever) and a
// sparse gigabyte are refused without reading them; a regular file is
// read whole.
func TestReadRegularRefusesWhatIsNotATemplateFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink("/dev/zero", link); err != nil {
		t.Fatal(err)
	}
	huge := filepath.Join(dir, "huge")
	f, err := os.Create(huge)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(maxSnapshotFile + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	for _, c := range []struct{ path, want string }{
		{fifo, "not a regular file"},
		{link, "too many levels of symbolic links"},
		{huge, "more than a template's"},
	} {
		if _, err := readRegular(c.path, maxSnapshotFile); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", filepath.Base(c.path), err, c.want)
		}
	}
	ok := filepath.Join(dir, "ok")
	if err := os.WriteFile(ok, []byte("template"), 0o600); err != nil {
		t.Fatal(err)
	}
	if raw, err := readRegular(ok, maxSnapshotFile); err != nil || string(raw) != "template" {
		t.Fatalf("a regular file: %q, %v", raw, err)
	}
}
