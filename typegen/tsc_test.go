package typegen

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// moduleRoot walks up from the working directory to the directory that
// holds go.mod.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's working directory")
		}
		dir = parent
	}
}

const checkProgram = `const p: AgentProgram = async (scope) => { };
`

const checkTSConfig = `{
  "compilerOptions": {
    "strict": true,
    "exactOptionalPropertyTypes": true,
    "noEmit": true,
    "target": "es2023",
    "lib": ["es2023"],
    "types": []
  },
  "files": ["surface.d.ts", "check.ts"]
}
`

// TestGoldensCompileWithTypeScript checks every golden with the real
// TypeScript 7 compiler installed by
// `npm install --prefix .tools typescript@7.0.2` at the module root.
// Without it the test skips, unless CODEMODE_REQUIRE_TSC is set (as in CI).
func TestGoldensCompileWithTypeScript(t *testing.T) {
	tsc := filepath.Join(moduleRoot(t), ".tools", "node_modules", ".bin", "tsc")
	if _, err := os.Stat(tsc); err != nil {
		if os.Getenv("CODEMODE_REQUIRE_TSC") != "" {
			t.Fatalf("TypeScript compiler not found at %s and CODEMODE_REQUIRE_TSC is set: %v", tsc, err)
		}
		t.Skipf("TypeScript compiler not found at %s (install with: npm install --prefix .tools typescript@7.0.2)", tsc)
	}
	for _, input := range goldenInputs(t) {
		golden := goldenPath(input)
		t.Run(strings.TrimSuffix(filepath.Base(golden), ".d.ts"), func(t *testing.T) {
			surface, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			files := map[string]string{
				"surface.d.ts":  string(surface),
				"check.ts":      checkProgram,
				"tsconfig.json": checkTSConfig,
			}
			for name, text := range files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			out, err := exec.Command(tsc, "-p", dir).CombinedOutput()
			if err != nil {
				var exit *exec.ExitError
				if !errors.As(err, &exit) {
					t.Fatalf("running %s: %v", tsc, err)
				}
				t.Fatalf("tsc -p %s failed (%v) on %s:\n%s", dir, err, golden, out)
			}
		})
	}
}
