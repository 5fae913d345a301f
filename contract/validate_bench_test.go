package contract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/codemode-go/codemode/internal/ijson"
)

// largeResult is about 1 MB of tool result: items of about 200 bytes, and
// its schema (every item a closed object of typed fields).
func largeResult(b *testing.B) (*Schema, []byte) {
	b.Helper()
	schema, err := NewSchema(json.RawMessage(`{"type":"object","properties":{"items":{"type":"array","items":{"type":"object","properties":{` +
		`"id":{"type":"integer"},"name":{"type":"string"},"group":{"type":"string"},"score":{"type":"number"},` +
		`"active":{"type":"boolean"},"tags":{"type":"array","items":{"type":"string"}},"note":{"type":"string"}},` +
		`"required":["id","name","group","score","active","tags","note"],"additionalProperties":false}}},` +
		`"required":["items"],"additionalProperties":false}`))
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	buf.WriteString(`{"items":[`)
	for i := 0; buf.Len() < 1<<20; i++ {
		if i > 0 {
			buf.WriteByte(',')
		}
		fmt.Fprintf(&buf, `{"id":%d,"name":"item-%05d","group":"g%02d","score":%g,"active":%t,"tags":["alpha","beta","t%d"],"note":"Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore."}`,
			i, i, (i*7)%23, float64((i*37)%1000)/10, i%3 != 0, i%5)
	}
	buf.WriteString(`]}`)
	return schema, buf.Bytes()
}

// BenchmarkValidateLarge: Schema.Validate of a 1 MB value, and its two
// parts (decoding into the validator's value form; validating that value);
// json.Valid and ijson.Check, the check of a value against a schema that
// accepts every value.
func BenchmarkValidateLarge(b *testing.B) {
	schema, value := largeResult(b)
	b.Run("validate", func(b *testing.B) {
		b.SetBytes(int64(len(value)))
		for b.Loop() {
			if err := schema.Validate(value); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decode-encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(value)))
		for b.Loop() {
			if _, err := jsonschema.UnmarshalJSON(bytes.NewReader(value)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decode-own", func(b *testing.B) {
		b.SetBytes(int64(len(value)))
		for b.Loop() {
			if _, err := decodeJSON(value); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("json-valid", func(b *testing.B) {
		b.SetBytes(int64(len(value)))
		for b.Loop() {
			if !json.Valid(value) {
				b.Fatal("invalid")
			}
		}
	})
	b.Run("ijson-check", func(b *testing.B) {
		b.SetBytes(int64(len(value)))
		for b.Loop() {
			if err := ijson.Check(value); err != nil {
				b.Fatal(err)
			}
		}
	})
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(value))
	if err != nil {
		b.Fatal(err)
	}
	compiled, err := schema.compiled()
	if err != nil {
		b.Fatal(err)
	}
	b.Run("validate-decoded", func(b *testing.B) {
		b.SetBytes(int64(len(value)))
		for b.Loop() {
			if err := compiled.Validate(inst); err != nil {
				b.Fatal(err)
			}
		}
	})
}
