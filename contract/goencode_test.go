package contract_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/contract"
)

type encStats struct {
	ByCode map[string][]float64 `json:"byCode"`
	Ratio  float64              `json:"ratio"`
	Shape  any                  `json:"shape"`
	Node   *encNode             `json:"node,omitempty"`
}

type encNode struct {
	Next *encNode `json:"next"`
}

type brokenMarshaler struct{}

func (brokenMarshaler) MarshalJSON() ([]byte, error) { return nil, errors.New("boom") }

// statsTool is a typed tool that returns s.
func statsTool(s encStats) (*contract.Tool, error) {
	return contract.NewTool("stats", "Stats.", func(context.Context, struct{}) (encStats, error) { return s, nil })
}

func TestTypedToolReportsOutputEncodingCannotWrite(t *testing.T) {
	const fault = " cannot be encoded as JSON "
	const blame = "; the tool's code must change, no change to the call avoids it"
	cycle := &encNode{}
	cycle.Next = cycle
	tests := []struct {
		name string
		tool func() (*contract.Tool, error)
		want string
	}{
		{"a NaN field", func() (*contract.Tool, error) { return statsTool(encStats{Ratio: math.NaN()}) },
			"/ratio: the tool's Go value contract_test.encStats.Ratio (float64)" + fault + "(json: unsupported value: NaN)" + blame},
		{"an infinity in a map's slice", func() (*contract.Tool, error) {
			return statsTool(encStats{ByCode: map[string][]float64{"a": {1}, "b": {2, math.Inf(1)}}})
		}, `/byCode/b/1: the tool's Go value contract_test.encStats.ByCode["b"][1] (float64)` + fault + "(json: unsupported value: +Inf)" + blame},
		{"a channel in an interface", func() (*contract.Tool, error) { return statsTool(encStats{Shape: make(chan int)}) },
			"/shape: the tool's Go value contract_test.encStats.Shape (chan int)" + fault + "(json: unsupported type: chan int)" + blame},
		{"a failing MarshalJSON", func() (*contract.Tool, error) { return statsTool(encStats{Shape: brokenMarshaler{}}) },
			"/shape: the tool's Go value contract_test.encStats.Shape (contract_test.brokenMarshaler)" + fault +
				"(json: error calling MarshalJSON for type contract_test.brokenMarshaler: boom)" + blame},
		{"a cycle", func() (*contract.Tool, error) { return statsTool(encStats{Node: cycle}) },
			"/node: the tool's Go value contract_test.encStats.Node (*contract_test.encNode)" + fault +
				"(json: unsupported value: encountered a cycle via *contract_test.encNode)" + blame},
		{"a NaN root", func() (*contract.Tool, error) {
			return contract.NewTool("ratio", "Ratio.", func(context.Context, struct{}) (float64, error) { return math.NaN(), nil })
		}, "/: the tool's Go value float64" + fault + "(json: unsupported value: NaN)" + blame},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tool, err := tc.tool()
			if err != nil {
				t.Fatal(err)
			}
			out, err := tool.Call(context.Background(), json.RawMessage(`{}`))
			var tv *contract.ValidationError
			if !errors.As(err, &tv) {
				t.Fatalf("Call = %s, %v; want a *ValidationError", out, err)
			}
			if tv.Tool != tool.Name() || tv.Phase != "output" {
				t.Errorf("Tool, Phase = %q, %q; want %s, output", tv.Tool, tv.Phase, tool.Name())
			}
			if len(tv.Lines) != 1 || tv.Lines[0] != tc.want {
				t.Errorf("Lines = %q\nwant [%q]", tv.Lines, tc.want)
			}
		})
	}
}

// TestOutputEncodingSearchIsBounded: the search for a NaN at the end of a
// million numbers stops at its budget and names the slice, allocating
// little beside the value (it made a spot, with its paths formatted, for
// every item first, and encoded each item alone: 485 MB and 0.9 s).
func TestOutputEncodingSearchIsBounded(t *testing.T) {
	values := make([]float64, 1<<20)
	values[len(values)-1] = math.NaN()
	tool, err := contract.NewTool("values", "Values.", func(context.Context, struct{}) ([]float64, error) { return values, nil })
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = tool.Call(context.Background(), json.RawMessage(`{}`))
	runtime.ReadMemStats(&after)
	var tv *contract.ValidationError
	if !errors.As(err, &tv) || len(tv.Lines) != 1 || !strings.HasPrefix(tv.Lines[0], "/: the tool's Go value []float64 cannot be encoded") {
		t.Fatalf("Call = %v; want a ValidationError at /", err)
	}
	if mb := (after.TotalAlloc - before.TotalAlloc) >> 20; mb > 64 {
		t.Errorf("the call allocated %d MB", mb)
	}
}

type labelled struct {
	Items  []*encNode          `json:"items"`
	Labels map[string]*encNode `json:"labels"`
	Status string              `json:"status" jsonschema:"enum=pending,enum=shipped"`
}

// labelledTool is a typed tool that returns out.
func labelledTool[Out any](out Out, opts ...contract.ToolOption) func() (*contract.Tool, error) {
	return func() (*contract.Tool, error) {
		return contract.NewTool("labels", "Labels.", func(context.Context, struct{}) (Out, error) { return out, nil }, opts...)
	}
}

// A typed tool's output that breaks its own type's schema (a nil pointer
// as a slice element or map value, declared T; a nil pointer field under
// StrictSchemas) is the tool's bug as surely as a NaN is, and says so
// alike: before, the line was the schema's alone ("/labels/a: got null,
// want object"), which reads as a fault of the call.
func TestTypedToolBlamesItselfForOutputItsSchemaRefuses(t *testing.T) {
	const blame = "; the tool's Go value breaks its own type's schema: the tool's code must change, no change to the call avoids it"
	const nilBlame = "; the tool's Go value here is a nil pointer, which its type's schema does not accept: the tool's code must change, no change to the call avoids it"
	type strictOut struct {
		Node *struct {
			N int `json:"n"`
		} `json:"node"`
	}
	for _, tc := range []struct {
		name string
		tool func() (*contract.Tool, error)
		want []string
	}{
		{"a value outside its tag's enum", labelledTool(labelled{Status: "lost"}),
			[]string{"/status: value must be one of 'pending', 'shipped'" + blame}},
		{"a nil slice element", labelledTool(labelled{Items: []*encNode{{}, nil}, Status: "pending"}),
			[]string{"/items/1: got null, want object" + nilBlame}},
		{"nil map values", labelledTool(labelled{Labels: map[string]*encNode{"a": nil, "b": {}, "c": nil}, Status: "shipped"}),
			[]string{"/labels/a: got null, want object" + nilBlame, "/labels/c: got null, want object" + nilBlame}},
		{"a nil field under StrictSchemas", labelledTool(strictOut{}, contract.StrictSchemas()),
			[]string{"/node: got null, want object" + nilBlame}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tool, err := tc.tool()
			if err != nil {
				t.Fatal(err)
			}
			out, err := tool.Call(context.Background(), json.RawMessage(`{}`))
			var tv *contract.ValidationError
			if !errors.As(err, &tv) || tv.Phase != "output" {
				t.Fatalf("Call = %s, %v; want an output *ValidationError", out, err)
			}
			if !slices.Equal(tv.Lines, tc.want) {
				t.Errorf("Lines = %q\nwant %q", tv.Lines, tc.want)
			}
		})
	}
}
