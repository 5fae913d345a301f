package contract_test

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/codemode-go/codemode/contract"
)

var update = flag.Bool("update", false, "rewrite the contract/testdata/*.d.ts goldens")

// weatherContract is the input-bearing weather contract built from Go
// types: a program input with a const "type" and a location, and a
// getWeather tool whose fields carry jsonschema descriptions.
func weatherContract(t *testing.T) *contract.Contract {
	t.Helper()
	input, err := contract.SchemaFor[WeatherRequested]()
	if err != nil {
		t.Fatal(err)
	}
	getWeather, err := contract.NewTool("getWeather", "Current weather for a city.\nTemperatures are rounded to one decimal.",
		func(ctx context.Context, in WeatherInput) (WeatherReport, error) {
			return WeatherReport{Location: in.Location}, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	area, err := contract.NewTool("area", "Area of a shape in square metres.", func(ctx context.Context, in Shape) (Area, error) {
		return Area{}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	c, err := withInput(input, getWeather, area)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestTypeDefinitionsMatchGolden(t *testing.T) {
	got := weatherContract(t).TypeDefinitions()
	golden := filepath.Join("testdata", "weather.d.ts")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./contract -run TestTypeDefinitionsMatchGolden -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("TypeDefinitions differs from %s (run go test ./contract -run TestTypeDefinitionsMatchGolden -update to accept)\n--- got ---\n%s\n--- want ---\n%s", golden, got, want)
	}
}
