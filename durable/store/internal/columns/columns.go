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
