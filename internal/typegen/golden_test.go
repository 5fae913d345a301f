package typegen

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.d.ts goldens from testdata/*.json")

// goldenInputs lists testdata/*.json; each holds one Surface.
func goldenInputs(t *testing.T) []string {
	t.Helper()
	inputs, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(inputs) < 6 {
		t.Fatalf("found %d golden inputs in testdata, want at least 6", len(inputs))
	}
	return inputs
}

func goldenPath(input string) string {
	return strings.TrimSuffix(input, ".json") + ".d.ts"
}

func TestDeclarationsMatchGoldens(t *testing.T) {
	for _, input := range goldenInputs(t) {
		name := strings.TrimSuffix(filepath.Base(input), ".json")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(input)
			if err != nil {
				t.Fatal(err)
			}
			var s Surface
			if err := json.Unmarshal(data, &s); err != nil {
				t.Fatalf("decoding %s: %v", input, err)
			}
			got, err := Declarations(s)
			if err != nil {
				t.Fatalf("Declarations: %v", err)
			}
			golden := goldenPath(input)
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./typegen -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("Declarations differs from %s (run go test ./typegen -update to accept)\n--- got ---\n%s\n--- want ---\n%s", golden, got, want)
			}
		})
	}
}
