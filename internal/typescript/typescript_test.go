package typescript

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFindSaysWhyCODEMODE_TSCWasRejected: a $CODEMODE_TSC that is not
// TypeScript 7 is named in the error, which still wraps ErrNotInstalled.
func TestFindSaysWhyCODEMODE_TSCWasRejected(t *testing.T) {
	dir := t.TempDir() // no .tools here or above
	t.Setenv("PATH", dir)
	old := filepath.Join(dir, "tsc5")
	if err := os.WriteFile(old, []byte("#!/bin/sh\necho Version 5.9.3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	noNode := filepath.Join(dir, "tsc-without-node")
	if err := os.WriteFile(noNode, []byte("#!/bin/sh\necho \"env: 'node': No such file or directory\" >&2\nexit 127\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ env, want string }{
		{old, `is not TypeScript 7: --version printed "Version 5.9.3"`},
		{"/no/such/tsc", "does not run"},
		{noNode, "does not run: exit status 127 (env: 'node': No such file or directory)"},
	} {
		t.Setenv("CODEMODE_TSC", c.env)
		_, err := Find(dir)
		if !errors.Is(err, ErrNotInstalled) || !strings.Contains(err.Error(), "$CODEMODE_TSC ("+c.env+") "+c.want) {
			t.Fatalf("CODEMODE_TSC=%s: %v", c.env, err)
		}
	}
}

// TestFindLooksAboveARelativeDirectory: Find(".") from a subfolder finds
// the project's .tools in a parent, as Find of the absolute path does.
// Before, "." was its own parent and the search stopped there.
func TestFindLooksAboveARelativeDirectory(t *testing.T) {
	root := t.TempDir()
	bin := filepath.Join(root, ".tools", "node_modules", ".bin")
	sub := filepath.Join(root, "connector", "openapi")
	for _, d := range []string{bin, sub} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	tsc := filepath.Join(bin, "tsc")
	if err := os.WriteFile(tsc, []byte("#!/bin/sh\necho Version 7.0.2\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", t.TempDir())
	t.Setenv("CODEMODE_TSC", "")
	t.Chdir(sub)
	got, err := Find(".")
	if err != nil || got != tsc {
		t.Fatalf("Find(\".\") in %s = %q, %v; want %s", sub, got, err, tsc)
	}
}

// TestFindPrefersCODEMODE_TSC: a compiler the setting names wins over a
// .tools folder in a parent of the working folder, which anyone who can
// write there (a checkout an agent host opened) could have put in place.
func TestFindPrefersCODEMODE_TSC(t *testing.T) {
	root := t.TempDir()
	bin := filepath.Join(root, ".tools", "node_modules", ".bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	planted := filepath.Join(bin, "tsc")
	chosen := filepath.Join(t.TempDir(), "tsc")
	for _, p := range []string{planted, chosen} {
		if err := os.WriteFile(p, []byte("#!/bin/sh\necho Version 7.0.2\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", t.TempDir())
	t.Setenv("CODEMODE_TSC", chosen)
	got, err := Find(root)
	if err != nil || got != chosen {
		t.Fatalf("Find = %q, %v; want $CODEMODE_TSC's %s, not the planted %s", got, err, chosen, planted)
	}
}
