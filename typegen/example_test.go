package typegen_test

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/codemode-go/codemode/typegen"
)

func ExampleType() {
	t, err := typegen.Type(json.RawMessage(`{
		"type": "object",
		"properties": {
			"location": {"type": "string", "description": "City name."},
			"days": {"type": "integer", "minimum": 1}
		},
		"required": ["location"],
		"additionalProperties": false
	}`))
	if err != nil {
		panic(err)
	}
	fmt.Println(t)
	// Output:
	// {
	//   /** City name. */
	//   location: string;
	//   days?: number;
	// }
}

func ExampleType_error() {
	_, err := typegen.Type(json.RawMessage(`{"type": "object", "properties": {}}`))
	var se *typegen.SchemaError
	if errors.As(err, &se) {
		fmt.Println(se.Pointer, se.Keyword)
	}
	fmt.Println(err)
	// Output:
	// # additionalProperties
	// typegen: #: keyword "additionalProperties": missing; strict declarations need closed objects with additionalProperties: false
}
