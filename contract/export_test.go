package contract

import "encoding/json"

// What the tests read that the package keeps to itself.

// Digest is the contract's catalogue digest (surfaceDigest).
func (c *Contract) Digest() string { return c.digest() }

// JSON is the schema text.
func (s *Schema) JSON() json.RawMessage { return s.raw }

// InputSchema is the schema the tool's input must satisfy.
func (t *Tool) InputSchema() *Schema { return t.input }

// OutputSchema is the schema the tool's output must satisfy.
func (t *Tool) OutputSchema() *Schema { return t.output }
