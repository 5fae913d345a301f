package durable

import (
	"bytes"
	"encoding/json"

	"github.com/codemode-go/codemode/client"
)

// outcomeValue is the program's value as JSON, or nil for undefined.
func outcomeValue(out *client.Outcome) json.RawMessage {
	// Until client.Outcome.Value lands: the last text content item is the
	// value (client.RunCode appends it), JSON when it parses, else a string.
	if len(out.Content) == 0 {
		return nil
	}
	t := out.Content[len(out.Content)-1].Text
	var buf bytes.Buffer
	if json.Compact(&buf, []byte(t)) == nil {
		return buf.Bytes()
	}
	b, _ := json.Marshal(t)
	return b
}
