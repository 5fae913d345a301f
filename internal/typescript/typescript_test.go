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
