// Package columns holds what the SQLite and PostgreSQL stores share in
// reading an execution's row: its JSON text columns.
package columns

import (
	"encoding/json"
	"fmt"

	"github.com/codemode-go/codemode/durable/store"
)

// Decode fills e's Logs, Connectors and Clock from their JSON text columns
// and leaves empty ones (and an empty Seed) nil, as a store reports them.
// It returns an error naming the column and the execution when one is not
// JSON of its shape.
func Decode(e *store.Execution, logs, connectors, clock string) error {
	if err := json.Unmarshal([]byte(logs), &e.Logs); err != nil {
		return fmt.Errorf("decoding the logs of %s: %w", e.ID, err)
	}
	if err := json.Unmarshal([]byte(connectors), &e.Connectors); err != nil {
		return fmt.Errorf("decoding the connectors of %s: %w", e.ID, err)
	}
	if err := json.Unmarshal([]byte(clock), &e.Clock); err != nil {
		return fmt.Errorf("decoding the clock of %s: %w", e.ID, err)
	}
	if len(e.Logs) == 0 {
		e.Logs = nil
	}
	if len(e.Connectors) == 0 {
		e.Connectors = nil
	}
	if len(e.Clock) == 0 {
		e.Clock = nil
	}
	if len(e.Seed) == 0 {
		e.Seed = nil
	}
	return nil
}

// EncodeConfiguration is the text of an execution's configuration column:
// Execution.Configuration as a JSON object ("{}" for none).
func EncodeConfiguration(e *store.Execution) (string, error) {
	m := e.Configuration
	if m == nil {
		m = map[string]string{}
	}
	b, err := json.Marshal(m)
	if err != nil {
		return "", fmt.Errorf("encoding the configuration of %s: %w", e.ID, err)
	}
	return string(b), nil
}

// DecodeConfiguration fills e.Configuration from its column's text,
// leaving it nil for an empty object.
func DecodeConfiguration(e *store.Execution, text string) error {
	if err := json.Unmarshal([]byte(text), &e.Configuration); err != nil {
		return fmt.Errorf("decoding the configuration of %s: %w", e.ID, err)
	}
	if len(e.Configuration) == 0 {
		e.Configuration = nil
	}
	return nil
}
