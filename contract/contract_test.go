package contract_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/invopop/jsonschema"

	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/internal/typegen"
)

func getWeatherTool(t *testing.T) *contract.Tool {
	t.Helper()
	tool, err := contract.NewTool("getWeather", "Current weather for a city.", func(ctx context.Context, in WeatherInput) (WeatherReport, error) {
		return WeatherReport{Location: in.Location, Temperature: 18, Conditions: "cloudy", ObservedHour: 9}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return tool
}

func rawTool(t *testing.T, name string) *contract.Tool {
	t.Helper()
	tool, err := contract.NewRawTool(name, "The "+name+" tool.",
		json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`),
		json.RawMessage(`{"type":"string"}`),
		func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) {
			return json.RawMessage(`"ok"`), nil
		})
	if err != nil {
		t.Fatal(err)
	}
	return tool
}

func weatherInputSchema(t *testing.T) *contract.Schema {
	t.Helper()
	s, err := contract.SchemaFor[WeatherRequested]()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestNewRejectsDuplicateToolNames(t *testing.T) {
	a, b, c := rawTool(t, "alpha"), rawTool(t, "beta"), rawTool(t, "alpha")
	for _, tc := range []struct {
		label string
		tools []*contract.Tool
	}{
		{"two tools with one name", []*contract.Tool{a, c}},
		{"the same tool twice", []*contract.Tool{a, a}},
		{"duplicate after another", []*contract.Tool{a, b, c}},
		{"typed and raw", []*contract.Tool{getWeatherTool(t), rawTool(t, "getWeather")}},
	} {
		t.Run(tc.label, func(t *testing.T) {
			name := tc.tools[len(tc.tools)-1].Name()
			if _, err := contract.New(tc.tools...); err == nil || !strings.Contains(err.Error(), "two tools are named "+name) {
				t.Errorf("New: err = %v, want a duplicate-name error naming %s", err, name)
			}
			if _, err := withInput(weatherInputSchema(t), tc.tools...); err == nil || !strings.Contains(err.Error(), "two tools are named "+name) {
				t.Errorf("withInput: err = %v, want a duplicate-name error naming %s", err, name)
			}
		})
	}
}

func TestNewRejectsNilTools(t *testing.T) {
	if _, err := contract.New(rawTool(t, "alpha"), nil); err == nil || !strings.Contains(err.Error(), "tool 1 is nil") {
		t.Errorf("New(tool, nil): err = %v, want tool 1 named as nil", err)
	}
	if _, err := withInput(weatherInputSchema(t), nil); err == nil || !strings.Contains(err.Error(), "tool 0 is nil") {
		t.Errorf("withInput(schema, nil): err = %v, want tool 0 named as nil", err)
	}
}

func TestWithInputRejectsNilSchema(t *testing.T) {
	for _, tools := range [][]*contract.Tool{nil, {rawTool(t, "alpha")}} {
		inputless, err := contract.New(tools...)
		if err != nil {
			t.Fatal(err)
		}
		c, err := inputless.WithInput(nil)
		if err == nil || c != nil {
			t.Errorf("WithInput(nil) on %d tools = %v, %v; want an error", len(tools), c, err)
			continue
		}
		if !strings.Contains(err.Error(), "New and NewNamespaced build an inputless contract") {
			t.Errorf("err = %v, want it to point at New", err)
		}
	}
}

// withInput builds an input-bearing contract of tools in the codemode
// namespace: New, then WithInput.
func withInput(in *contract.Schema, tools ...*contract.Tool) (*contract.Contract, error) {
	c, err := contract.New(tools...)
	if err != nil {
		return nil, err
	}
	return c.WithInput(in)
}

// WithInput returns a copy: the contract it was called on stays inputless.
func TestWithInputLeavesTheContractUnchanged(t *testing.T) {
	inputless, err := contract.NewNamespaced(contract.Namespace{Name: "svc", Tools: []*contract.Tool{rawTool(t, "alpha")}, Instructions: "A service."})
	if err != nil {
		t.Fatal(err)
	}
	bearing, err := inputless.WithInput(weatherInputSchema(t))
	if err != nil {
		t.Fatal(err)
	}
	if inputless.HasInput() || !bearing.HasInput() {
		t.Fatalf("HasInput: %v on the original, %v on the copy; want false, true", inputless.HasInput(), bearing.HasInput())
	}
	if strings.Contains(inputless.TypeDefinitions(), "readonly input:") || !strings.Contains(bearing.TypeDefinitions(), "readonly input:") {
		t.Fatalf("declarations: the original's or the copy's input is wrong:\n%s\n---\n%s", inputless.TypeDefinitions(), bearing.TypeDefinitions())
	}
	ns := bearing.Namespaces()
	if len(ns) != 1 || ns[0].Name != "svc" || ns[0].Instructions != "A service." || bearing.Tool("svc", "alpha") == nil {
		t.Fatalf("the copy's namespaces: %+v", ns)
	}
}

// openExtended declares an open object through JSONSchemaExtend, which the
// strict declarations cannot print.
type openExtended struct {
	Name string `json:"name"`
}

func (openExtended) JSONSchemaExtend(s *jsonschema.Schema) {
	s.AdditionalProperties = jsonschema.TrueSchema
}

func TestNewReportsUnprintableSchemas(t *testing.T) {
	type wrapsOpen struct {
		Inner openExtended `json:"inner"`
	}
	for _, tc := range []struct {
		label   string
		build   func() (*contract.Contract, error)
		pointer string
		keyword string
	}{
		{"extended Go type in tool output", func() (*contract.Contract, error) {
			tool, err := contract.NewTool("wrapped", "Wrap things.", func(ctx context.Context, in struct{}) (wrapsOpen, error) { return wrapsOpen{}, nil })
			if err != nil {
				return nil, err
			}
			return contract.New(rawTool(t, "first"), tool)
		}, "codemode.wrapped.output#/$defs/github.com.codemode-go.codemode.contract_test.openExtended", "additionalProperties"},
		{"extended Go type in program input", func() (*contract.Contract, error) {
			s, err := contract.SchemaFor[wrapsOpen]()
			if err != nil {
				return nil, err
			}
			return withInput(s)
		}, "input#/$defs/github.com.codemode-go.codemode.contract_test.openExtended", "additionalProperties"},
		{"open raw schema", func() (*contract.Contract, error) {
			tool, err := contract.NewRawTool("open", "Open object.", json.RawMessage(`{"type":"object"}`), json.RawMessage(`{"type":"string"}`),
				func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) { return nil, nil })
			if err != nil {
				return nil, err
			}
			return contract.New(tool)
		}, "codemode.open.input#", "additionalProperties"},
		{"raw $ref past the root $defs", func() (*contract.Contract, error) {
			tool, err := contract.NewRawTool("refd", "Uses $ref.", json.RawMessage(`{"$ref":"#/$defs/a/items","$defs":{"a":{"type":"array","items":{"type":"string"}}}}`), json.RawMessage(`{"type":"string"}`),
				func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) { return nil, nil })
			if err != nil {
				return nil, err
			}
			return contract.New(tool)
		}, "codemode.refd.input#", "$ref"},
	} {
		t.Run(tc.label, func(t *testing.T) {
			c, err := tc.build()
			if err == nil {
				t.Fatalf("contract built; declarations:\n%s", c.TypeDefinitions())
			}
			var se *typegen.SchemaError
			if !errors.As(err, &se) {
				t.Fatalf("err = %v, want a wrapped *typegen.SchemaError", err)
			}
			if se.Pointer != tc.pointer || se.Keyword != tc.keyword {
				t.Errorf("Pointer, Keyword = %q, %q; want %q, %q (%v)", se.Pointer, se.Keyword, tc.pointer, tc.keyword, err)
			}
			for _, part := range []string{tc.pointer, `"` + tc.keyword + `"`} {
				if !strings.Contains(err.Error(), part) {
					t.Errorf("err = %v, want it to name %s", err, part)
				}
			}
		})
	}
}

func TestTypeDefinitionsPrintConstAsLiteral(t *testing.T) {
	type withConst struct {
		Event WeatherRequested `json:"event"`
	}
	tool, err := contract.NewTool("handle", "Handle an event.", func(ctx context.Context, in withConst) (WeatherRequested, error) {
		return WeatherRequested{Type: "weather.requested", Location: "Oslo"}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	c, err := withInput(weatherInputSchema(t), tool)
	if err != nil {
		t.Fatal(err)
	}
	decls := c.TypeDefinitions()
	for _, want := range []string{
		"    readonly type: \"weather.requested\";\n",  // program input: readonly
		"    event: CodemodeTypes.WeatherRequested;\n", // tool input, nested: a named type
		"    type: \"weather.requested\";\n",           // tool output
	} {
		if !strings.Contains(decls, want) {
			t.Errorf("declarations lack %q:\n%s", want, decls)
		}
	}
	if strings.Contains(decls, "type: string") {
		t.Errorf("a const printed as string:\n%s", decls)
	}
	out, err := tool.Call(context.Background(), json.RawMessage(`{"event":{"type":"weather.requested","location":"Oslo"}}`))
	if err != nil || string(out) != `{"type":"weather.requested","location":"Oslo"}` {
		t.Errorf("Call = %s, %v", out, err)
	}
	if _, err := tool.Call(context.Background(), json.RawMessage(`{"event":{"type":"other","location":"Oslo"}}`)); err == nil {
		t.Error("Call accepted a value other than the const")
	}
}

func TestTypeDefinitionsPrintDiscriminatedUnion(t *testing.T) {
	tool, err := contract.NewTool("area", "Area of a shape.", func(ctx context.Context, in Shape) (Area, error) { return Area{}, nil })
	if err != nil {
		t.Fatal(err)
	}
	c, err := contract.New(tool)
	if err != nil {
		t.Fatal(err)
	}
	want := `interface Tools {
  /** Area of a shape. */
  area(input: {
    kind: "circle";
    /** Radius in metres. */
    radius: number;
  } | {
    kind: "square";
    side: number;
  }): Promise<{
    area: number;
  }>;
`
	if got := c.TypeDefinitions(); !strings.HasPrefix(got, want) {
		t.Errorf("declarations start\n%s\nwant\n%s", got[:min(len(got), len(want)+40)], want)
	}
}

// untagged is a union whose branches share no const: typegen refuses it.
type untagged struct{}

func (untagged) JSONSchema() *jsonschema.Schema {
	a := jsonschema.NewProperties()
	a.Set("a", &jsonschema.Schema{Type: "string"})
	b := jsonschema.NewProperties()
	b.Set("b", &jsonschema.Schema{Type: "number"})
	return &jsonschema.Schema{OneOf: []*jsonschema.Schema{
		{Type: "object", Properties: a, Required: []string{"a"}, AdditionalProperties: jsonschema.FalseSchema},
		{Type: "object", Properties: b, Required: []string{"b"}, AdditionalProperties: jsonschema.FalseSchema},
	}}
}

func TestNewToolRejectsUndiscriminatedUnion(t *testing.T) {
	_, err := contract.NewTool("either", "Either.", func(ctx context.Context, in untagged) (string, error) { return "", nil })
	var se *typegen.SchemaError
	if !errors.As(err, &se) || se.Pointer != "codemode.either.input#" || se.Keyword != "oneOf" {
		t.Errorf("NewTool: err = %v, want a oneOf SchemaError at the tool input's root", err)
	}
}

func TestContractAccessors(t *testing.T) {
	weather, alpha, beta := getWeatherTool(t), rawTool(t, "alpha"), rawTool(t, "beta")
	in := weatherInputSchema(t)
	inputless, err := contract.New(weather, alpha, beta)
	if err != nil {
		t.Fatal(err)
	}
	bearing, err := withInput(in, beta, weather)
	if err != nil {
		t.Fatal(err)
	}
	empty, err := contract.New()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		label string
		c     *contract.Contract
		input *contract.Schema
		tools []*contract.Tool
	}{
		{"inputless", inputless, nil, []*contract.Tool{weather, alpha, beta}},
		{"input-bearing", bearing, in, []*contract.Tool{beta, weather}},
		{"empty", empty, nil, nil},
	} {
		t.Run(tc.label, func(t *testing.T) {
			if tc.c.HasInput() != (tc.input != nil) {
				t.Errorf("HasInput = %v", tc.c.HasInput())
			}
			if got := tc.c.Tools(); !reflect.DeepEqual(got, tc.tools) {
				t.Errorf("Tools() = %v, want %v in declaration order", got, tc.tools)
			}
			names := make([]string, len(tc.tools))
			for i, tool := range tc.tools {
				names[i] = tool.Name()
				if got := tc.c.Tool(contract.DefaultNamespace, tool.Name()); got != tool {
					t.Errorf("Tool(codemode, %s) = %v", tool.Name(), got)
				}
				if got := tc.c.Tool("other", tool.Name()); got != nil {
					t.Errorf("Tool(other, %s) = %v, want nil", tool.Name(), got)
				}
			}
			if got := tc.c.Tool(contract.DefaultNamespace, "missing"); got != nil {
				t.Errorf("Tool(codemode, missing) = %v, want nil", got)
			}
			var got []string
			for _, ns := range tc.c.Namespaces() {
				for _, tl := range ns.Tools {
					got = append(got, ns.Name+"."+tl.Name())
				}
			}
			want := []string{}
			for _, n := range names {
				want = append(want, "codemode."+n)
			}
			if !reflect.DeepEqual(got, want) && !(len(got) == 0 && len(want) == 0) {
				t.Errorf("Namespaces() tools = %v, want %v", got, want)
			}
			decls := tc.c.TypeDefinitions()
			if !strings.HasSuffix(decls, "type AgentProgram = (scope: AgentProgramScope) => unknown;\n") {
				t.Errorf("declarations do not end with AgentProgram:\n%s", decls)
			}
			if strings.Contains(decls, "readonly input:") != tc.c.HasInput() {
				t.Errorf("input property present = %v, want %v:\n%s", !tc.c.HasInput(), tc.c.HasInput(), decls)
			}
			for _, name := range names {
				if !strings.Contains(decls, "\n  "+name+"(input: ") {
					t.Errorf("declarations lack tool %s:\n%s", name, decls)
				}
			}
		})
	}
	if !strings.HasPrefix(empty.TypeDefinitions(), "interface Tools {\n  /**\n   * Searches the tools") {
		t.Errorf("empty contract declarations:\n%s", empty.TypeDefinitions())
	}
}

func TestValidateInputRejectsInputlessContracts(t *testing.T) {
	c, err := contract.New(getWeatherTool(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, value := range []any{nil, map[string]any{}, json.RawMessage(`{}`), WeatherRequested{Type: "weather.requested", Location: "Paris"}} {
		raw, err := c.ValidateInput(value)
		if err == nil || raw != nil {
			t.Errorf("ValidateInput(%v) = %s, %v; want an error", value, raw, err)
			continue
		}
		var iv *contract.ValidationError
		if errors.As(err, &iv) {
			t.Errorf("ValidateInput(%v) = %v; an inputless contract is a usage error, not a *ValidationError", value, err)
		}
		if !strings.Contains(err.Error(), "inputless") {
			t.Errorf("ValidateInput(%v) = %v, want it to say the contract is inputless", value, err)
		}
	}
}

func TestValidateInputReportsViolations(t *testing.T) {
	c, err := withInput(weatherInputSchema(t))
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan int)
	for _, tc := range []struct {
		label string
		value any
		want  string // a line prefix
	}{
		{"missing location", map[string]any{"type": "weather.requested"}, "/: missing property 'location'"},
		{"location not a string", map[string]any{"type": "weather.requested", "location": 12}, "/location: "},
		{"location null", json.RawMessage(`{"type":"weather.requested","location":null}`), "/location: "},
		{"wrong const", WeatherRequested{Type: "weather.cancelled", Location: "Paris"}, "/type: "},
		{"extra property", json.RawMessage(`{"type":"weather.requested","location":"Paris","units":"c"}`), "/: additional properties 'units' not allowed"},
		{"nil", nil, "/: "},
		{"string", "Paris", "/: "},
		{"not JSON", json.RawMessage(`{"type":`), "/: contract: value is not JSON"},
		{"empty RawMessage", json.RawMessage(nil), "/: contract: value is not JSON"},
		{"number beyond a double", json.RawMessage(`{"type":"weather.requested","location":1e400}`), "/location: 1e400 is beyond the range of a double"},
		{"channel", ch, "/: not encodable as JSON: json: unsupported type: chan int"},
		{"+Inf", math.Inf(1), "/: not encodable as JSON: json: unsupported value: +Inf"},
		{"NaN inside", map[string]any{"type": "weather.requested", "location": math.NaN()}, "/: not encodable as JSON"},
		{"function", func() {}, "/: not encodable as JSON"},
		{"failing marshaler", failingMarshaler{}, "/: not encodable as JSON"},
	} {
		t.Run(tc.label, func(t *testing.T) {
			raw, err := c.ValidateInput(tc.value)
			var iv *contract.ValidationError
			if !errors.As(err, &iv) {
				t.Fatalf("ValidateInput = %s, %v; want a *ValidationError", raw, err)
			}
			if raw != nil {
				t.Errorf("raw = %s, want nil", raw)
			}
			if !hasLinePrefix(iv.Lines, tc.want) {
				t.Errorf("Lines = %q, want one starting %q", iv.Lines, tc.want)
			}
			if want := "program input validation failed:\n  " + strings.Join(iv.Lines, "\n  "); iv.Error() != want {
				t.Errorf("Error() = %q, want %q", iv.Error(), want)
			}
		})
	}
}

type failingMarshaler struct{}

func (failingMarshaler) MarshalJSON() ([]byte, error) { return nil, errors.New("cannot encode") }

func TestValidateInputReturnsJSON(t *testing.T) {
	c, err := withInput(weatherInputSchema(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Run("RawMessage passes through byte for byte", func(t *testing.T) {
		in := json.RawMessage("\n { \"location\" : \"Z\\u00fcrich\",\t\"type\":\"weather.requested\" } \n")
		raw, err := c.ValidateInput(in)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(raw, in) {
			t.Errorf("ValidateInput returned %q, want %q unchanged", raw, in)
		}
	})
	for _, tc := range []struct {
		label string
		value any
		want  string
	}{
		{"struct", WeatherRequested{Type: "weather.requested", Location: "Paris"}, `{"type":"weather.requested","location":"Paris"}`},
		{"pointer", &WeatherRequested{Type: "weather.requested", Location: "Paris"}, `{"type":"weather.requested","location":"Paris"}`},
		{"map", map[string]any{"location": "Paris", "type": "weather.requested"}, `{"location":"Paris","type":"weather.requested"}`},
		{"map of strings", map[string]string{"type": "weather.requested", "location": "<Paris>"}, `{"location":"\u003cParis\u003e","type":"weather.requested"}`},
	} {
		t.Run(tc.label, func(t *testing.T) {
			raw, err := c.ValidateInput(tc.value)
			if err != nil {
				t.Fatal(err)
			}
			if string(raw) != tc.want {
				t.Errorf("ValidateInput = %s, want %s", raw, tc.want)
			}
		})
	}
}
