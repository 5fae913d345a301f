package mcptest

import (
	"os"
	"path/filepath"
	"testing"
)

// Command returns the path of the installed server binary bin (for example
// "mcp-server-memory"), found by walking up from the working directory to
// .tools/node_modules/.bin. When it is missing the test is skipped, or fails
// when CODEMODE_REQUIRE_MCP_SERVERS is set (as scripts/test sets it).
func Command(t testing.TB, bin string) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		p := filepath.Join(dir, ".tools", "node_modules", ".bin", bin)
		if _, err := os.Stat(p); err == nil {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	msg := bin + " is not installed; run ./scripts/test, which installs the MCP servers into .tools/"
	if os.Getenv("CODEMODE_REQUIRE_MCP_SERVERS") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}
