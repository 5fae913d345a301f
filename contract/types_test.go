package contract_test

import (
	"encoding/json"
	"testing"

	"github.com/invopop/jsonschema"

	"github.com/codemode-go/codemode/contract"
)

// WeatherRequested is program input whose "type" is a const, declared with
// the JSONSchemaExtend recipe of the package documentation.
type WeatherRequested struct {
	Type     string `json:"type" jsonschema:"description=Always weather.requested."`
	Location string `json:"location" jsonschema:"description=City the weather was requested for."`
}

func (WeatherRequested) JSONSchemaExtend(s *jsonschema.Schema) {
	p, _ := s.Properties.Get("type")
	p.Const = "weather.requested"
	p.Type = "string"
}

// WeatherInput is the getWeather tool's input.
type WeatherInput struct {
	Location string `json:"location" jsonschema:"description=City name."`
	Units    string `json:"units,omitempty" jsonschema:"enum=celsius,enum=fahrenheit,description=Temperature units; celsius when omitted."`
}

// WeatherReport is the getWeather tool's output.
type WeatherReport struct {
	Location     string   `json:"location"`
	Temperature  float64  `json:"temperature" jsonschema:"description=Temperature in the requested units."`
	Conditions   string   `json:"conditions" jsonschema:"description=Short summary such as sunny or light rain."`
	Alerts       []string `json:"alerts,omitempty"`
	ObservedHour int      `json:"observedHour" jsonschema:"minimum=0,maximum=23"`
}

// Shape is a discriminated union declared through a JSONSchema method: two
// closed object branches sharing the required string const "kind".
type Shape struct {
	Kind   string  `json:"kind"`
	Radius float64 `json:"radius,omitempty"`
	Side   float64 `json:"side,omitempty"`
}

func (Shape) JSONSchema() *jsonschema.Schema {
	circle := jsonschema.NewProperties()
	circle.Set("kind", &jsonschema.Schema{Type: "string", Const: "circle"})
	circle.Set("radius", &jsonschema.Schema{Type: "number", Description: "Radius in metres."})
	square := jsonschema.NewProperties()
	square.Set("kind", &jsonschema.Schema{Type: "string", Const: "square"})
	square.Set("side", &jsonschema.Schema{Type: "number"})
	return &jsonschema.Schema{OneOf: []*jsonschema.Schema{
		{Type: "object", Properties: circle, Required: []string{"kind", "radius"}, AdditionalProperties: jsonschema.FalseSchema},
		{Type: "object", Properties: square, Required: []string{"kind", "side"}, AdditionalProperties: jsonschema.FalseSchema},
	}}
}

// UnmarshalJSON decodes either branch, rejecting an unknown kind.
func (s *Shape) UnmarshalJSON(data []byte) error {
	type plain Shape
	var p plain
	if err := json.Unmarshal(data, &p); err != nil {
		return err
	}
	switch p.Kind {
	case "circle", "square":
		*s = Shape(p)
		return nil
	}
	return &json.UnsupportedValueError{Str: "shape kind " + p.Kind}
}

// Area is a tool output.
type Area struct {
	Area float64 `json:"area"`
}

// decode unmarshals JSON text into a generic value, failing the test on error.
func decode(t *testing.T, raw []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("decoding %s: %v", raw, err)
	}
	return m
}

// mustSchema compiles raw JSON Schema text, failing the test on error.
func mustSchema(t *testing.T, raw string) *contract.Schema {
	t.Helper()
	s, err := contract.NewSchema(json.RawMessage(raw))
	if err != nil {
		t.Fatalf("NewSchema(%s): %v", raw, err)
	}
	return s
}
