package typegen_test

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/codemode-go/codemode/internal/typegen"
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
	//   /** @minimum 1 */
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
	// typegen: #: keyword "additionalProperties": missing; strict declarations need closed objects with additionalProperties: false, or a map's value schema
}

func ExampleLenientType() {
	// A tool schema as an MCP server might advertise it: open objects,
	// $defs and $ref, anyOf with null, and an enum.
	fmt.Println(typegen.LenientType(json.RawMessage(`{
		"$schema": "https://json-schema.org/draft/2020-12/schema",
		"type": "object",
		"properties": {
			"path": {"type": "string", "description": "File path."},
			"head": {"anyOf": [{"type": "number"}, {"type": "null"}]},
			"encoding": {"$ref": "#/$defs/Encoding"}
		},
		"required": ["path"],
		"$defs": {"Encoding": {"enum": ["utf-8", "base64"]}}
	}`)))
	fmt.Println(typegen.LenientType(json.RawMessage(`{"type": "string", "not": {"const": ""}}`)))
	fmt.Println(typegen.LenientType(json.RawMessage(`{"$ref": "https://example.com/remote.json"}`)))
	// Output:
	// {
	//   /** File path. */
	//   path: string;
	//   head?: number | null;
	//   encoding?: "utf-8" | "base64";
	//   [key: string]: unknown;
	// }
	// string
	// unknown
}
