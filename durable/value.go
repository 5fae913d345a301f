package durable

import (
	"encoding/json"

	"github.com/codemode-go/codemode/client"
)

// outcomeValue is the program's value as JSON (client.Outcome.Value), or
// nil for undefined.
func outcomeValue(out *client.Outcome) json.RawMessage { return out.Value }
