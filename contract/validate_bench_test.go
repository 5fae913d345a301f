package contract

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

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

type benchItem struct {
	ID    int       `json:"id"`
	Name  string    `json:"name"`
	Tags  []string  `json:"tags"`
	Score float64   `json:"score"`
	At    time.Time `json:"at"`
}

type benchInput struct {
	Query string      `json:"query"`
	Items []benchItem `json:"items"`
}

// BenchmarkCheckTypedInput: a typed tool's CheckInput (the schema, then
// decoding into the Go type) beside its schema alone, for an input of 1
// and of 50 items (about 100 bytes each).
func BenchmarkCheckTypedInput(b *testing.B) {
	tool, err := NewTool("t", "T.", func(ctx context.Context, in benchInput) (int, error) { return 0, nil })
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{1, 50} {
		items := make([]string, n)
		for i := range items {
			items[i] = fmt.Sprintf(`{"id":%d,"name":"item-%d","tags":["a","b"],"score":1.5,"at":"2026-01-02T15:04:05Z"}`, i, i)
		}
		input := json.RawMessage(`{"query":"q","items":[` + strings.Join(items, ",") + `]}`)
		b.Run(fmt.Sprintf("schema-%d", n), func(b *testing.B) {
			for b.Loop() {
				if err := tool.accepts.Validate(input); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("check-input-%d", n), func(b *testing.B) {
			for b.Loop() {
				if err := tool.CheckInput(input); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCheckPlainInput: CheckInput of a typed tool whose input type
// decodes whatever its schema accepts (strings, float64s, slices): the
// schema alone, the handler decoding the input once (see mayRefuse).
func BenchmarkCheckPlainInput(b *testing.B) {
	type item struct {
		Name  string   `json:"name"`
		Tags  []string `json:"tags"`
		Score float64  `json:"score"`
	}
	type input struct {
		Query string `json:"query"`
		Items []item `json:"items"`
	}
	tool, err := NewTool("t", "T.", func(ctx context.Context, in input) (int, error) { return 0, nil })
	if err != nil {
		b.Fatal(err)
	}
	raw := json.RawMessage(`{"query":"q","items":[{"name":"item-1","tags":["a","b"],"score":1.5}]}`)
	for b.Loop() {
		if err := tool.CheckInput(raw); err != nil {
			b.Fatal(err)
		}
	}
}
