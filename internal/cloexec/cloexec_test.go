//go:build linux

package cloexec_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/internal/cloexec"
)

// TestMain doubles as the child: with CLOEXEC_TEST_CHILD set it marks its
// descriptors from 3 and starts `sh -c` listing the files its own
// descriptors lead to.
func TestMain(m *testing.M) {
	if os.Getenv("CLOEXEC_TEST_CHILD") == "1" {
		cloexec.MarkFrom(3)
		out, err := exec.Command("sh", "-c", "for f in /proc/$$/fd/*; do readlink $f; done; true").Output()
		if err != nil {
			os.Exit(2)
		}
		os.Stdout.Write(out)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestMarkFromKeepsInheritedFilesFromGrandchildren passes a file down
// without close-on-exec (as a shell's `exec 7<file` does): after MarkFrom
// the child's own children no longer hold it, while stdio stays.
func TestMarkFromKeepsInheritedFilesFromGrandchildren(t *testing.T) {
	path := filepath.Join(t.TempDir(), "inherited-marker")
	if err := os.WriteFile(path, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, mark := range []bool{false, true} {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.ExtraFiles = []*os.File{f} // descriptor 3 in the child, without close-on-exec
		if mark {
			cmd.Env = append(os.Environ(), "CLOEXEC_TEST_CHILD=1")
		} else {
			// Without MarkFrom: the same listing, by the shell directly.
			cmd = exec.Command("sh", "-c", "for f in /proc/$$/fd/*; do readlink $f; done; true")
			cmd.ExtraFiles = []*os.File{f}
		}
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("mark=%v: %v", mark, err)
		}
		if held := strings.Contains(string(out), "inherited-marker"); held == mark {
			t.Errorf("mark=%v: the grandchild's descriptors lead to\n%s", mark, out)
		}
	}
}
