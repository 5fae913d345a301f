package mcpserver

import (
	"encoding/json"
	"fmt"
)

// objectSchema is raw as an MCP tool's input schema, which must describe
// an object (MCP's Tool.inputSchema; the go-sdk panics on another): empty
// means any object; a schema that does not say its type but names
// properties gets "type": "object"; a schema of another type, or one that
// is not a JSON object, is an error naming what it is.
func objectSchema(raw json.RawMessage) (json.RawMessage, error) {
	if len(raw) == 0 {
		return json.RawMessage(`{"type":"object"}`), nil
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, fmt.Errorf("the input schema is not a JSON object")
	}
	switch t := m["type"].(type) {
	case nil:
		m["type"] = "object"
		return json.Marshal(m)
	case string:
		if t == "object" {
			return raw, nil
		}
	}
	return nil, fmt.Errorf("the input schema's type is %v, and an MCP tool takes an object", m["type"])
}
