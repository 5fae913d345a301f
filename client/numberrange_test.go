package client_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/quickjs"
)

// TestToolOutputsAProgramCannotReadFailTheCall: an output with a number
// beyond the range of a double (which JSON.parse would make ±Infinity), or
// that is not JSON, rejects the call with a ToolValidationError naming the
// tool and the number's JSON pointer: against an integer schema (which the
// validator reads exactly and would pass), without an output schema, and
// from a Runtime's own CallTool, which no schema checks.
func TestToolOutputsAProgramCannotReadFailTheCall(t *testing.T) {
	ctx := context.Background()
	rt := quickjsRuntime(t, quickjs.Options{InProcess: true})

	type counted struct {
		N int `json:"n"`
	}
	count, err := contract.NewTool("count", "Counts.", func(ctx context.Context, in struct{}) (counted, error) {
		return counted{}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	foreign, err := contract.NewForeignTool("lookup", "Looks up.", nil, nil, func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) {
		return json.RawMessage(`{"a":[-1e999]}`), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	c, err := contract.New(count, foreign)
	if err != nil {
		t.Fatal(err)
	}
	cl := client.New(rt, c)
	// forge answers every call with output, past the handler.
	forge := func(output string) client.Middleware {
		return func(client.ToolCaller) client.ToolCaller {
			return func(context.Context, client.ToolCall) (json.RawMessage, error) { return json.RawMessage(output), nil }
		}
	}
	program := func(tool string) string {
		return `export default async function ({ codemode }) {
  try {
    return JSON.stringify(await codemode.` + tool + `({}));
  } catch (e) {
    return e.name + ": " + e.message;
  }
}`
	}
	raw := func(output string) (*client.Outcome, error) {
		return rt.Execute(ctx, client.ExecuteRequest{
			Source:     program("echo"),
			Filename:   "agent.js",
			Namespaces: map[string][]string{"codemode": {"echo"}},
			CallTool: func(context.Context, client.ToolCall) (json.RawMessage, error) {
				return json.RawMessage(output), nil
			},
		})
	}
	tests := []struct {
		name string
		run  func() (*client.Outcome, error)
		want string // the start of the value
	}{
		{"integer schema", func() (*client.Outcome, error) {
			return cl.Run(ctx, program("count"), client.RunOptions{Middleware: forge(`{"n":1e400}`)})
		}, "ToolValidationError: codemode.count output validation failed:\n  /n: 1e400 is beyond the range of a double (about ±1.8e308); a program would read it as Infinity"},
		{"no output schema", func() (*client.Outcome, error) {
			return cl.Run(ctx, program("lookup"), client.RunOptions{})
		}, "ToolValidationError: codemode.lookup output validation failed:\n  /a/0: -1e999 is beyond the range of a double (about ±1.8e308); a program would read it as -Infinity"},
		{"within range", func() (*client.Outcome, error) {
			return cl.Run(ctx, program("count"), client.RunOptions{Middleware: forge(`{"n":1e300}`)})
		}, `{"n":1e+300}`},
		{"a Runtime's CallTool, number beyond a double", func() (*client.Outcome, error) {
			return raw(`{"x":[1,1E+309]}`)
		}, "ToolValidationError: codemode.echo output validation failed:\n  /x/1: 1E+309 is beyond the range of a double"},
		{"a Runtime's CallTool, not JSON", func() (*client.Outcome, error) {
			return raw(`{"x":`)
		}, "ToolValidationError: codemode.echo output validation failed:\n  /: contract: value is not JSON: unexpected end of JSON input"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := tt.run()
			if err != nil {
				t.Fatal(err)
			}
			var got string
			if out.Kind != client.Success || json.Unmarshal(out.Value, &got) != nil {
				t.Fatalf("outcome %s %s (%+v), want a string value", out.Kind, out.Value, out.Error)
			}
			if !strings.HasPrefix(got, tt.want) {
				t.Errorf("the program saw %q, want %q…", got, tt.want)
			}
		})
	}
}
