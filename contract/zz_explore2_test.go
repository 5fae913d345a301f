package contract

import (
	"context"
	"fmt"
	"testing"
	"encoding/json"

	"github.com/invopop/jsonschema"
)

type Shape struct {
	Kind   string  `json:"kind"`
	Radius float64 `json:"radius,omitempty"`
	Side   float64 `json:"side,omitempty"`
}

func (Shape) JSONSchema() *jsonschema.Schema {
	circle := jsonschema.NewProperties()
	circle.Set("kind", &jsonschema.Schema{Type: "string", Const: "circle"})
	circle.Set("radius", &jsonschema.Schema{Type: "number"})
	square := jsonschema.NewProperties()
	square.Set("kind", &jsonschema.Schema{Type: "string", Const: "square"})
	square.Set("side", &jsonschema.Schema{Type: "number"})
	f := jsonschema.FalseSchema
	return &jsonschema.Schema{OneOf: []*jsonschema.Schema{
		{Type: "object", Properties: circle, Required: []string{"kind", "radius"}, AdditionalProperties: f},
		{Type: "object", Properties: square, Required: []string{"kind", "side"}, AdditionalProperties: f},
	}}
}

type Holder struct {
	S Shape `json:"s"`
}

func TestExplore2(t *testing.T) {
	s, err := SchemaFor[Shape]()
	fmt.Println(string(s.JSON()), err)
	s, err = SchemaFor[Holder]()
	fmt.Println(string(s.JSON()), err)
	tool, err := NewTool("area", "Area of a shape.", func(ctx context.Context, in Shape) (float64, error) { return 1, nil })
	c, err := New(tool)
	fmt.Println(c.TypeDefinitions()[:300], err)
	out, err := tool.Call(context.Background(), json.RawMessage(`{"kind":"circle","radius":2}`))
	fmt.Println(string(out), err)
	s, err = SchemaFor[int]()
	fmt.Println(string(s.JSON()), err)
	s, err = SchemaFor[[]string]()
	fmt.Println(string(s.JSON()), err)
	s, err = SchemaFor[*WR]()
	fmt.Println(string(s.JSON()), err)
	s, err = SchemaFor[any]()
	fmt.Println(string(s.JSON()), err)
	s, err = SchemaFor[struct{}]()
	fmt.Println(string(s.JSON()), err)
}
