package contract_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/codemode-go/codemode/contract"
)

type counterIn struct {
	Value int `json:"value" jsonschema:"minimum=0"`
}

type counterOut struct {
	Total int `json:"total"`
}

func TestToolCallRejectsBadInputWithoutRunningTheHandler(t *testing.T) {
	var calls atomic.Int32
	typed, err := contract.NewTool("add", "Add to the total.", func(ctx context.Context, in counterIn) (counterOut, error) {
		calls.Add(1)
		return counterOut{Total: in.Value}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := contract.NewRawTool("add", "Add to the total.",
		json.RawMessage(`{"type":"object","properties":{"value":{"type":"integer","minimum":0}},"required":["value"],"additionalProperties":false}`),
		json.RawMessage(`{"type":"object"}`),
		func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) {
			calls.Add(1)
			return json.RawMessage(`{}`), nil
		})
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range []*contract.Tool{typed, raw} {
		for _, tc := range []struct {
			label, input string
			want         string // a line prefix
		}{
			{"wrong type", `{"value":"3"}`, "/value: "},
			{"below minimum", `{"value":-1}`, "/value: minimum"},
			{"fraction", `{"value":1.5}`, "/value: "},
			{"missing", `{}`, "/: missing property 'value'"},
			{"extra property", `{"value":1,"other":2}`, "/: additional properties 'other' not allowed"},
			{"not an object", `[1]`, "/: "},
			{"null", `null`, "/: "},
			{"not JSON", `{"value":`, "/: contract: value is not JSON"},
			{"empty", ``, "/: contract: value is not JSON"},
		} {
			name := "typed"
			if tool == raw {
				name = "raw"
			}
			t.Run(name+"/"+tc.label, func(t *testing.T) {
				calls.Store(0)
				out, err := tool.Call(context.Background(), json.RawMessage(tc.input))
				var tv *contract.ValidationError
				if !errors.As(err, &tv) {
					t.Fatalf("Call(%s) = %s, %v; want a *ValidationError", tc.input, out, err)
				}
				if tv.Tool != "add" || tv.Phase != "input" {
					t.Errorf("Tool, Phase = %q, %q; want add, input", tv.Tool, tv.Phase)
				}
				if !hasLinePrefix(tv.Lines, tc.want) {
					t.Errorf("Lines = %q, want one starting %q", tv.Lines, tc.want)
				}
				if n := calls.Load(); n != 0 {
					t.Errorf("the handler ran %d times on bad input", n)
				}
				if out != nil {
					t.Errorf("out = %s, want nil", out)
				}
				if err := tool.CheckInput(json.RawMessage(tc.input)); !errors.As(err, &tv) || tv.Phase != "input" {
					t.Errorf("CheckInput(%s) = %v, want the same input failure", tc.input, err)
				}
			})
		}
	}
}

func hasLinePrefix(lines []string, prefix string) bool {
	for _, l := range lines {
		if strings.HasPrefix(l, prefix) {
			return true
		}
	}
	return false
}

type customError struct{ code int }

func (e *customError) Error() string { return fmt.Sprintf("custom %d", e.code) }

func TestToolCallPassesHandlerErrorsThrough(t *testing.T) {
	sentinel := errors.New("weather service unavailable")
	wrapped := fmt.Errorf("upstream: %w", sentinel)
	custom := &customError{code: 503}
	for _, handlerErr := range []error{sentinel, wrapped, custom, context.Canceled} {
		typed, err := contract.NewTool("getWeather", "Current weather.", func(ctx context.Context, in WeatherInput) (WeatherReport, error) {
			return WeatherReport{}, handlerErr
		})
		if err != nil {
			t.Fatal(err)
		}
		raw, err := contract.NewRawTool("getWeather", "Current weather.", json.RawMessage(`{}`), json.RawMessage(`{}`),
			func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) {
				return json.RawMessage(`{"ignored":true}`), handlerErr
			})
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range []*contract.Tool{typed, raw} {
			t.Run(handlerErr.Error(), func(t *testing.T) {
				out, err := tool.Call(context.Background(), json.RawMessage(`{"location":"Paris"}`))
				if err != handlerErr {
					t.Errorf("Call err = %#v, want the handler's error unchanged (%#v)", err, handlerErr)
				}
				if !errors.Is(err, handlerErr) {
					t.Errorf("errors.Is(%v, %v) = false", err, handlerErr)
				}
				var tv *contract.ValidationError
				if errors.As(err, &tv) {
					t.Errorf("a handler error became a *ValidationError: %v", err)
				}
				if out != nil {
					t.Errorf("out = %s, want nil with an error", out)
				}
			})
		}
	}
	t.Run("errors.As finds a custom type", func(t *testing.T) {
		tool, err := contract.NewTool("getWeather", "Current weather.", func(ctx context.Context, in WeatherInput) (WeatherReport, error) {
			return WeatherReport{}, fmt.Errorf("lookup: %w", custom)
		})
		if err != nil {
			t.Fatal(err)
		}
		_, err = tool.Call(context.Background(), json.RawMessage(`{"location":"Paris"}`))
		var ce *customError
		if !errors.As(err, &ce) || ce.code != 503 {
			t.Errorf("errors.As(%v) did not find the *customError", err)
		}
	})
}

func TestToolCallRejectsBadOutput(t *testing.T) {
	var calls atomic.Int32
	for _, tc := range []struct {
		label string
		tool  func() (*contract.Tool, error)
		want  string
	}{
		{"typed: out of range", func() (*contract.Tool, error) {
			return contract.NewTool("getWeather", "Current weather.", func(ctx context.Context, in WeatherInput) (WeatherReport, error) {
				calls.Add(1)
				return WeatherReport{Location: in.Location, ObservedHour: 24}, nil
			})
		}, "/observedHour: maximum"},
		{"typed: nil element", func() (*contract.Tool, error) {
			return contract.NewTool("list", "List things.", func(ctx context.Context, in WeatherInput) ([]*WeatherReport, error) {
				calls.Add(1)
				return []*WeatherReport{{Location: "Oslo"}, nil}, nil
			})
		}, "/1: got null, want object"},
		{"raw: wrong type", func() (*contract.Tool, error) {
			return contract.NewRawTool("getWeather", "Current weather.", json.RawMessage(`{}`),
				json.RawMessage(`{"type":"object","properties":{"temperature":{"type":"number"}},"required":["temperature"]}`),
				func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) {
					calls.Add(1)
					return json.RawMessage(`{"temperature":"warm"}`), nil
				})
		}, "/temperature: "},
		{"raw: missing", func() (*contract.Tool, error) {
			return contract.NewRawTool("getWeather", "Current weather.", json.RawMessage(`{}`),
				json.RawMessage(`{"type":"object","required":["temperature"]}`),
				func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) {
					calls.Add(1)
					return json.RawMessage(`{}`), nil
				})
		}, "/: missing property 'temperature'"},
		{"raw: not JSON", func() (*contract.Tool, error) {
			return contract.NewRawTool("getWeather", "Current weather.", json.RawMessage(`{}`), json.RawMessage(`{}`),
				func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) {
					calls.Add(1)
					return json.RawMessage(`{"temperature":`), nil
				})
		}, "/: contract: value is not JSON"},
		{"typed: json.Number beyond a double", func() (*contract.Tool, error) {
			return contract.NewTool("count", "Count things.", func(ctx context.Context, in WeatherInput) (map[string]json.Number, error) {
				calls.Add(1)
				return map[string]json.Number{"n": "-1e400"}, nil
			})
		}, "/n: -1e400 is beyond the range of a double (about ±1.8e308); a program would read it as -Infinity"},
		{"raw: integer beyond a double", func() (*contract.Tool, error) {
			return numberTool(&calls, `{"type":"object","properties":{"items":{"type":"array","items":{"type":"integer"}}}}`, `{"items":[1,2,1e999]}`)
		}, "/items/2: 1e999 is beyond the range of a double"},
		{"raw: number beyond a double", func() (*contract.Tool, error) {
			return numberTool(&calls, `{"type":"number"}`, "17976931348623159"+strings.Repeat("0", 292)) // 309 digits, past the largest double
		}, "/: 1797693134862315900000000000000000000000… is beyond the range of a double"},
		{"raw: any value, number beyond a double", func() (*contract.Tool, error) {
			return numberTool(&calls, `{}`, `{"a":{"b~c":-1E+309}}`)
		}, "/a/b~0c: -1E+309 is beyond the range of a double"},
		{"foreign without an output schema", func() (*contract.Tool, error) {
			return contract.NewForeignTool("getWeather", "Current weather.", nil, nil, numberHandler(&calls, `{"temperature":1e400}`))
		}, "/temperature: 1e400 is beyond the range of a double"},
		{"foreign with a degraded output schema", func() (*contract.Tool, error) {
			return contract.NewForeignTool("getWeather", "Current weather.", nil, json.RawMessage(`{"$ref":"https://example.com/s.json"}`), numberHandler(&calls, `[1e400]`))
		}, "/0: 1e400 is beyond the range of a double"},
		{"raw: nil output", func() (*contract.Tool, error) {
			return contract.NewRawTool("getWeather", "Current weather.", json.RawMessage(`{}`), json.RawMessage(`{}`),
				func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) {
					calls.Add(1)
					return nil, nil
				})
		}, "/: contract: value is not JSON"},
	} {
		t.Run(tc.label, func(t *testing.T) {
			tool, err := tc.tool()
			if err != nil {
				t.Fatal(err)
			}
			calls.Store(0)
			out, err := tool.Call(context.Background(), json.RawMessage(`{"location":"Paris"}`))
			var tv *contract.ValidationError
			if !errors.As(err, &tv) {
				t.Fatalf("Call = %s, %v; want a *ValidationError", out, err)
			}
			if tv.Phase != "output" || tv.Tool != tool.Name() {
				t.Errorf("Tool, Phase = %q, %q; want %s, output", tv.Tool, tv.Phase, tool.Name())
			}
			if !hasLinePrefix(tv.Lines, tc.want) {
				t.Errorf("Lines = %q, want one starting %q", tv.Lines, tc.want)
			}
			if n := calls.Load(); n != 1 {
				t.Errorf("the handler ran %d times, want 1", n)
			}
			if out != nil {
				t.Errorf("out = %s, want nil", out)
			}
			wantText := tool.Name() + " output validation failed:\n  " + strings.Join(tv.Lines, "\n  ")
			if err.Error() != wantText {
				t.Errorf("Error() = %q, want %q", err.Error(), wantText)
			}
		})
	}
}

// numberTool is a raw tool of output schema outputSchema whose handler
// returns output, counting its calls.
func numberTool(calls *atomic.Int32, outputSchema, output string) (*contract.Tool, error) {
	return contract.NewRawTool("getWeather", "Current weather.", json.RawMessage(`{}`), json.RawMessage(outputSchema), numberHandler(calls, output))
}

func numberHandler(calls *atomic.Int32, output string) contract.Handler {
	return func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) {
		calls.Add(1)
		return json.RawMessage(output), nil
	}
}

func TestTypedToolReceivesDecodedInput(t *testing.T) {
	type query struct {
		City     string   `json:"city"`
		Days     int      `json:"days"`
		Hourly   bool     `json:"hourly,omitempty"`
		Fields   []string `json:"fields"`
		Location struct {
			Lat float64 `json:"lat"`
			Lon float64 `json:"lon"`
		} `json:"location"`
		Optional *string `json:"optional,omitempty"`
	}
	var got query
	tool, err := contract.NewTool("forecast", "Forecast.", func(ctx context.Context, in query) (WeatherReport, error) {
		got = in
		return WeatherReport{Location: in.City, Temperature: 21.5, Conditions: "sunny", ObservedHour: 13}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	out, err := tool.Call(context.Background(), json.RawMessage(`{"city":"Paris","days":3,"fields":["temp","wind"],"location":{"lat":48.85,"lon":2.35}}`))
	if err != nil {
		t.Fatal(err)
	}
	var want query
	want.City, want.Days, want.Fields = "Paris", 3, []string{"temp", "wind"}
	want.Location.Lat, want.Location.Lon = 48.85, 2.35
	if !reflect.DeepEqual(got, want) {
		t.Errorf("handler got %+v, want %+v", got, want)
	}
	if string(out) != `{"location":"Paris","temperature":21.5,"conditions":"sunny","observedHour":13}` {
		t.Errorf("out = %s", out)
	}
}

func TestTypedToolDecodesUnionInput(t *testing.T) {
	var got Shape
	tool, err := contract.NewTool("area", "Area of a shape.", func(ctx context.Context, in Shape) (Area, error) {
		got = in
		switch in.Kind {
		case "circle":
			return Area{Area: math.Pi * in.Radius * in.Radius}, nil
		default:
			return Area{Area: in.Side * in.Side}, nil
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	out, err := tool.Call(context.Background(), json.RawMessage(`{"kind":"square","side":3}`))
	if err != nil {
		t.Fatal(err)
	}
	if got != (Shape{Kind: "square", Side: 3}) || string(out) != `{"area":9}` {
		t.Errorf("handler got %+v, out %s", got, out)
	}
	_, err = tool.Call(context.Background(), json.RawMessage(`{"kind":"circle","side":3}`))
	var tv *contract.ValidationError
	if !errors.As(err, &tv) || tv.Phase != "input" {
		t.Errorf("a circle with a side: err = %v, want an input failure", err)
	}
}

func TestToolCallPassesTheContext(t *testing.T) {
	type key struct{}
	tool, err := contract.NewTool("whoami", "Who is calling.", func(ctx context.Context, in struct{}) (string, error) {
		v, _ := ctx.Value(key{}).(string)
		return v, ctx.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.WithValue(context.Background(), key{}, "agent-7")
	out, err := tool.Call(ctx, json.RawMessage(`{}`))
	if err != nil || string(out) != `"agent-7"` {
		t.Errorf("Call = %s, %v; want \"agent-7\"", out, err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := tool.Call(cancelled, json.RawMessage(`{}`)); !errors.Is(err, context.Canceled) {
		t.Errorf("Call with a cancelled context = %v, want context.Canceled", err)
	}
}

func TestToolHandleSkipsTheInputCheck(t *testing.T) {
	var got json.RawMessage
	tool, err := contract.NewRawTool("echo", "Echo.", json.RawMessage(`{"type":"string"}`), json.RawMessage(`{}`),
		func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) {
			got = in
			return json.RawMessage(`1`), nil
		})
	if err != nil {
		t.Fatal(err)
	}
	if err := tool.CheckInput(json.RawMessage(`"ok"`)); err != nil {
		t.Errorf("CheckInput = %v", err)
	}
	// Handle trusts its caller to have run CheckInput.
	out, err := tool.Handle(context.Background(), json.RawMessage(`12`))
	if err != nil || string(out) != "1" || string(got) != "12" {
		t.Errorf("Handle = %s, %v; handler got %s", out, err, got)
	}
}

func TestRawToolPassesInputAndOutputBytes(t *testing.T) {
	in := json.RawMessage("{ \"b\" : 1,\n\"a\":[ 2 ] }")
	reply := json.RawMessage(" [3, 1.50, \"\\u0041\"] ")
	var got json.RawMessage
	tool, err := contract.NewRawTool("echo", "Echo.", json.RawMessage(`{"type":"object"}`), json.RawMessage(`{"type":"array"}`),
		func(ctx context.Context, input json.RawMessage) (json.RawMessage, error) {
			got = input
			return reply, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	out, err := tool.Call(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(in) || string(out) != string(reply) {
		t.Errorf("handler got %q and Call returned %q; want the bytes unchanged", got, out)
	}
}

func TestToolCallIsSafeForConcurrentUse(t *testing.T) {
	var total atomic.Int64
	tool, err := contract.NewTool("add", "Add to the total.", func(ctx context.Context, in counterIn) (counterOut, error) {
		return counterOut{Total: int(total.Add(int64(in.Value)))}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 32 {
		wg.Go(func() {
			for range 20 {
				if _, err := tool.Call(context.Background(), json.RawMessage(fmt.Sprintf(`{"value":%d}`, i))); err != nil {
					t.Error(err)
				}
				if _, err := tool.Call(context.Background(), json.RawMessage(`{"value":-1}`)); err == nil {
					t.Error("bad input accepted")
				}
			}
		})
	}
	wg.Wait()
	if got, want := total.Load(), int64(20*31*32/2); got != want {
		t.Errorf("total = %d, want %d", got, want)
	}
}

// TestValidationErrorFormat: a tool's, the program input's and a bare
// schema's failures read as they did as three types.
func TestValidationErrorFormat(t *testing.T) {
	lines := []string{"/location: got number, want string", "/: missing property 'units'"}
	for _, tc := range []struct {
		tool, phase, want string
	}{
		{"getWeather", "input", "getWeather input validation failed:\n  /location: got number, want string\n  /: missing property 'units'"},
		{"getWeather", "output", "getWeather output validation failed:\n  /location: got number, want string\n  /: missing property 'units'"},
		{"", "input", "program input validation failed:\n  /location: got number, want string\n  /: missing property 'units'"},
		{"", "", "/location: got number, want string\n/: missing property 'units'"},
	} {
		e := &contract.ValidationError{Tool: tc.tool, Phase: tc.phase, Lines: lines}
		if e.Error() != tc.want {
			t.Errorf("%q %q: Error() = %q, want %q", tc.tool, tc.phase, e.Error(), tc.want)
		}
	}
}

type chanOut struct {
	Updates chan string `json:"updates"`
}

// TestNewToolChecksTheNameBeforeTheSchemas: an invalid name or an empty
// description is reported as such, even when a type has no exact
// declaration; that error names the Go type and what to do (a new user's
// trial got the schema error for a name with a hyphen).
func TestNewToolChecksTheNameBeforeTheSchemas(t *testing.T) {
	fn := func(ctx context.Context, in counterIn) (chanOut, error) { return chanOut{}, nil }
	for _, tc := range []struct{ name, description, want string }{
		{"get-weather", "Weather.", "not a JavaScript identifier"},
		{"delete", "Weather.", "reserved"},
		{"x", " ", "the description is empty"},
		{"x", "Weather.", "tool x output: schema of contract_test.chanOut: contract_test.chanOut.Updates (chan string): encoding/json cannot encode a chan"},
	} {
		_, err := contract.NewTool(tc.name, tc.description, fn)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewTool(%q, %q) = %v, want %q", tc.name, tc.description, err, tc.want)
		}
		_, err = contract.NewRawTool(tc.name, tc.description, json.RawMessage(`{`), json.RawMessage(`{`), nil)
		if tc.name != "x" && !errors.Is(err, contract.ErrInvalidToolName) {
			t.Errorf("NewRawTool(%q) with bad schemas = %v, want ErrInvalidToolName", tc.name, err)
		}
	}
}

// TestNilPointerOutputIsNull: a handler whose output is a pointer may
// answer nil ("not found"): the tool is declared T | null and the program
// receives null.
func TestNilPointerOutputIsNull(t *testing.T) {
	find, err := contract.NewTool("find", "Find a thing.", func(ctx context.Context, in WeatherInput) (*WeatherReport, error) { return nil, nil })
	if err != nil {
		t.Fatal(err)
	}
	out, err := find.Call(context.Background(), json.RawMessage(`{"location":"Paris"}`))
	if err != nil || string(out) != "null" {
		t.Fatalf("Call = %s, %v; want null", out, err)
	}
	c, err := contract.New(find)
	if err != nil {
		t.Fatal(err)
	}
	if d := c.TypeDefinitions(); !strings.Contains(d, "}): Promise<{") || !strings.Contains(d, "} | null>;") {
		t.Errorf("the output is not declared T | null:\n%s", d)
	}
}
