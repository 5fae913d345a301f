package typegen

import (
	"encoding/json"
	"errors"
	"testing"
)

// FuzzType feeds arbitrary bytes to Type: it must never panic, every error
// must be a *SchemaError, and a success must be non-empty and repeatable.
func FuzzType(f *testing.F) {
	for _, tc := range typeCases {
		f.Add([]byte(tc.schema))
	}
	for _, tc := range typeErrorCases {
		if len(tc.schema) < 512 {
			f.Add([]byte(tc.schema))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := Type(json.RawMessage(data))
		if err != nil {
			var se *SchemaError
			if !errors.As(err, &se) {
				t.Fatalf("error %v (%T) is not a *SchemaError", err, err)
			}
			if se.Pointer == "" || se.Message == "" {
				t.Fatalf("incomplete error %#v", se)
			}
			return
		}
		if got == "" {
			t.Fatalf("Type(%q) succeeded with empty output", data)
		}
		again, err := Type(json.RawMessage(data))
		if err != nil || again != got {
			t.Fatalf("Type(%q) is not repeatable: %q then %q, %v", data, got, again, err)
		}
	})
}
