package typegen

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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

// findTSC returns the TypeScript 7 compiler installed by
// `npm install --prefix .tools typescript@7.0.2` at the module root. Without
// it the test skips, unless CODEMODE_REQUIRE_TSC is set (as in CI).
func findTSC(t *testing.T) string {
	t.Helper()
	tsc := filepath.Join(moduleRoot(t), ".tools", "node_modules", ".bin", "tsc")
	if _, err := os.Stat(tsc); err != nil {
		if os.Getenv("CODEMODE_REQUIRE_TSC") != "" {
			t.Fatalf("TypeScript compiler not found at %s and CODEMODE_REQUIRE_TSC is set: %v", tsc, err)
		}
		t.Skipf("TypeScript compiler not found at %s (install with: npm install --prefix .tools typescript@7.0.2)", tsc)
	}
	return tsc
}

// compileWithTSC type-checks surface.d.ts beside check.ts with the strict
// options the typecheck package uses, failing the test with the compiler's
// output on errors.
func compileWithTSC(t *testing.T, tsc, surface, check string) {
	t.Helper()
	if out, ok := tscErrors(t, tsc, surface, check); !ok {
		t.Fatalf("tsc failed:\n%s\n--- surface.d.ts ---\n%s\n--- check.ts ---\n%s", out, numbered(surface), numbered(check))
	}
}

// tscErrors type-checks surface.d.ts beside check.ts as compileWithTSC
// does and returns the compiler's output and whether it passed.
func tscErrors(t *testing.T, tsc, surface, check string) (string, bool) {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"surface.d.ts":  surface,
		"check.ts":      check,
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
		return string(out), false
	}
	return string(out), true
}

// numbered prefixes each line with its number, to read compiler errors.
func numbered(text string) string {
	var b strings.Builder
	for i, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		fmt.Fprintf(&b, "%4d  %s\n", i+1, line)
	}
	return b.String()
}

// TestGoldensCompileWithTypeScript checks every golden with the real
// TypeScript 7 compiler.
func TestGoldensCompileWithTypeScript(t *testing.T) {
	tsc := findTSC(t)
	for _, input := range goldenInputs(t) {
		golden := goldenPath(input)
		t.Run(strings.TrimSuffix(filepath.Base(golden), ".d.ts"), func(t *testing.T) {
			surface, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			compileWithTSC(t, tsc, string(surface), checkProgram)
		})
	}
}

// TestLenientTypesAcceptSamplesWithTypeScript proves the superset promise on
// the lenientCases table: every printed type compiles, and every sample
// (which a JSON Schema validator accepts) is assignable to it.
func TestLenientTypesAcceptSamplesWithTypeScript(t *testing.T) {
	tsc := findTSC(t)
	var b strings.Builder
	for i, tc := range lenientCases {
		fmt.Fprintf(&b, "// %s\ntype L%d = %s;\n", tc.name, i, LenientType(json.RawMessage(tc.schema)))
		for j, s := range tc.samples {
			fmt.Fprintf(&b, "const l%d_%d: L%d = %s;\n", i, j, i, s)
		}
	}
	compileWithTSC(t, tsc, "", b.String())
}

// TestLenientGoldensAcceptSamplesWithTypeScript proves the superset promise
// on the lenient goldens: each sample in testdata/samples (which a JSON
// Schema validator accepts) is assignable to the parameter or the awaited
// result of its tool's method, as the golden declares it.
func TestLenientGoldensAcceptSamplesWithTypeScript(t *testing.T) {
	tsc := findTSC(t)
	for _, g := range lenientGoldenSamples(t) {
		t.Run(g.golden, func(t *testing.T) {
			surface, err := os.ReadFile(filepath.Join("testdata", g.golden+".d.ts"))
			if err != nil {
				t.Fatal(err)
			}
			keys := make([]string, 0, len(g.samples))
			for key := range g.samples {
				keys = append(keys, key)
			}
			slices.Sort(keys)
			var b strings.Builder
			for i, key := range keys {
				parts := strings.Split(key, ".")
				ns, tool, phase := parts[0], parts[1], parts[2]
				method := fmt.Sprintf("%s[%q]", interfaceName(ns), tool)
				typ := "Parameters<" + method + ">[0]"
				if phase == "output" {
					typ = "Awaited<ReturnType<" + method + ">>"
				}
				for j, s := range g.samples[key] {
					fmt.Fprintf(&b, "// %s\nconst s%d_%d: %s = %s;\n", key, i, j, typ, s)
				}
			}
			compileWithTSC(t, tsc, string(surface), b.String())
		})
	}
}
