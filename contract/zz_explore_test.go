package contract

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/invopop/jsonschema"
)

type WR struct {
	Type     string `json:"type"`
	Location string `json:"location" jsonschema:"description=City name."`
	Units    string `json:"units,omitempty"`
}

func (WR) JSONSchemaExtend(s *jsonschema.Schema) {
	p, _ := s.Properties.Get("type")
	p.Const = "weather.requested"
	p.Type = "string"
}

type MapIn struct {
	Tags map[string]string `json:"tags"`
}

type Nested struct {
	Inner struct {
		A int `json:"a"`
	} `json:"inner"`
	P *WR `json:"p,omitempty"`
}

func TestExplore(t *testing.T) {
	s, err := SchemaFor[WR]()
	fmt.Println(string(s.JSON()), err)
	s, err = SchemaFor[Nested]()
	fmt.Println(string(s.JSON()), err)
	s, err = SchemaFor[MapIn]()
	fmt.Println(string(s.JSON()), err)
	tool, err := NewTool("m", "d", func(ctx context.Context, in MapIn) (WR, error) { return WR{}, nil })
	fmt.Println(err)
	_, err = New(tool)
	fmt.Println("New map:", err)
	c, err := NewWithInput(mustS(SchemaFor[WR]()))
	fmt.Println(c.TypeDefinitions(), err)
	_, err = c.ValidateInput(make(chan int))
	fmt.Printf("%#v\n", err)
	_, err = c.ValidateInput(math.Inf(1))
	fmt.Printf("%#v\n", err)
	_, err = c.ValidateInput(map[string]any{"type": "x"})
	fmt.Printf("%v\n", err)
	for _, raw := range []string{`{"type": 12}`, `nope`, `{"$ref": "https://example.com/s.json"}`, `{"$ref": "http://10.255.255.1/x.json"}`, `{"$ref":"file:///etc/passwd"}`, `{"$ref":"other.json"}`} {
		start := time.Now()
		_, err := NewSchema(json.RawMessage(raw))
		fmt.Println(raw, "=>", err, time.Since(start))
	}
}

func mustS(s *Schema, err error) *Schema {
	if err != nil {
		panic(err)
	}
	return s
}
