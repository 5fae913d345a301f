package typegen

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// goldenSamples is one testdata/samples/<golden>.json file: for each lenient
// tool's schema, named "namespace.tool.input" or "namespace.tool.output",
// JSON values that the schema accepts.
type goldenSamples struct {
	golden  string // the golden's base name, e.g. "lenient-memory"
	surface Surface
	samples map[string][]json.RawMessage
}

// lenientGoldenSamples loads every samples file with its golden surface and
// checks that each lenient tool schema of that surface has samples (except
// an absent output schema, which prints unknown).
func lenientGoldenSamples(t *testing.T) []goldenSamples {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "samples", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 3 {
		t.Fatalf("found %d sample files in testdata/samples, want at least 3", len(files))
	}
	var all []goldenSamples
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".json")
		g := goldenSamples{golden: name}
		readJSON(t, file, &g.samples)
		readJSON(t, filepath.Join("testdata", name+".json"), &g.surface)
		want := make(map[string]bool)
		for _, ns := range g.surface.Namespaces {
			for _, tool := range ns.Tools {
				if !tool.Lenient {
					continue
				}
				want[ns.Name+"."+tool.Name+".input"] = true
				if !absentSchema(tool.OutputSchema) {
					want[ns.Name+"."+tool.Name+".output"] = true
				}
			}
		}
		for key := range want {
			if len(g.samples[key]) == 0 {
				t.Errorf("%s: no samples for %s", file, key)
			}
		}
		for key := range g.samples {
			if !want[key] {
				t.Errorf("%s: samples for %s, which is not a lenient tool schema of %s.json", file, key, name)
			}
		}
		all = append(all, g)
	}
	return all
}

func readJSON(t *testing.T, file string, v any) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("decoding %s: %v", file, err)
	}
}

// schemaFor returns the schema a samples key names.
func (g goldenSamples) schemaFor(t *testing.T, key string) json.RawMessage {
	t.Helper()
	for _, ns := range g.surface.Namespaces {
		for _, tool := range ns.Tools {
			switch key {
			case ns.Name + "." + tool.Name + ".input":
				return tool.InputSchema
			case ns.Name + "." + tool.Name + ".output":
				return tool.OutputSchema
			}
		}
	}
	t.Fatalf("%s: no schema for %s", g.golden, key)
	return nil
}

// TestLenientGoldenSamplesMatchTheirSchemas keeps the golden samples honest:
// a real JSON Schema validator must accept each.
func TestLenientGoldenSamplesMatchTheirSchemas(t *testing.T) {
	for _, g := range lenientGoldenSamples(t) {
		for key, samples := range g.samples {
			t.Run(g.golden+"/"+key, func(t *testing.T) {
				sch := compileValidator(t, string(g.schemaFor(t, key)))
				for _, s := range samples {
					validateSample(t, sch, string(s))
				}
			})
		}
	}
}
