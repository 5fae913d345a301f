package contract_test

import (
	"context"
	"encoding/json"
	"math/big"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/invopop/jsonschema"

	"github.com/codemode-go/codemode/contract"
)

// outputDecl returns the declared output type of a tool returning T, and a
// tool per value that returns it.
func outputDecl[T any](t *testing.T, values ...T) (string, []*contract.Tool) {
	t.Helper()
	var tools []*contract.Tool
	for _, v := range values {
		tool, err := contract.NewTool("get", "Get it.", func(ctx context.Context, in struct{}) (T, error) { return v, nil })
		if err != nil {
			t.Fatal(err)
		}
		tools = append(tools, tool)
	}
	c, err := contract.New(tools[0])
	if err != nil {
		t.Fatal(err)
	}
	d, err := c.NamespaceDeclarations(contract.DefaultNamespace)
	if err != nil {
		t.Fatal(err)
	}
	_, out, ok := strings.Cut(d, "): Promise<")
	if !ok {
		t.Fatalf("no method in %s", d)
	}
	out, _, _ = strings.Cut(out, ">;\n}\n\ndeclare const")
	out = strings.ReplaceAll(out, "\n  ", "\n") // printed one level in
	if types, _, ok := strings.Cut(d, "interface Tools"); ok && strings.Contains(types, "declare namespace") {
		out = types + out
	}
	return out, tools
}

// reflectCase is one Go type: its declared output type, and the JSON its
// values are sent as.
type reflectCase struct {
	label string
	run   func(t *testing.T) (decl string, sent []string)
}

func caseOf[T any](label string, values ...T) reflectCase {
	return reflectCase{label, func(t *testing.T) (string, []string) {
		decl, tools := outputDecl(t, values...)
		var sent []string
		for _, tool := range tools {
			out, err := tool.Call(context.Background(), json.RawMessage(`{}`))
			if err != nil {
				t.Fatalf("a value Go made fails: %v", err)
			}
			sent = append(sent, string(out))
		}
		return decl, sent
	}}
}

type (
	withNils struct {
		Tags  []string       `json:"tags"`
		Score map[string]int `json:"score"`
		Raw   []byte         `json:"raw"`
		Grid  [][]int        `json:"grid"`
	}
	withPointers struct {
		Nick  *string  `json:"nick"`
		Age   *int     `json:"age,omitempty"`
		Since *float64 `json:"since,omitzero"`
	}
	timestamp struct{ time.Time }
	withTimes struct {
		At      time.Time  `json:"at"`
		Stamp   timestamp  `json:"stamp"`
		Maybe   time.Time  `json:"maybe,omitzero"`
		Always  time.Time  `json:"always,omitempty"`
		Pointer *timestamp `json:"pointer,omitempty"`
	}
	withNumbers struct {
		Big    *big.Int    `json:"big"`
		Number json.Number `json:"number"`
		Small  int8        `json:"small"`
		Text   int         `json:"text,string"`
		Flag   bool        `json:"flag,string"`
		Rat    *big.Rat    `json:"rat,omitempty"`
	}
	Base struct {
		ID   int    `json:"id"`
		Kind string `json:"kind"`
	}
	extra struct {
		Note string `json:"note"`
	}
	withEmbedded struct {
		Base
		*extra
		Kind int `json:"kind"` // shallower: wins over Base.Kind
	}
	withAnything struct {
		Any   any                `json:"any"`
		Raw   json.RawMessage    `json:"raw"`
		Meta  map[string]any     `json:"meta,omitempty"`
		ByID  map[int]string     `json:"byId"`
		Addr  netip.Addr         `json:"addr"`
		Err   error              `json:"err"`
		Lists map[string][]int   `json:"lists"`
		Pairs [2]map[string]bool `json:"pairs"`
	}
	tree struct {
		Name     string  `json:"name"`
		Children []*tree `json:"children"`
	}
	xString struct {
		X string
	}
	xInt struct {
		X int
	}
	ambiguous struct {
		xString
		xInt
		Link url.URL `json:"link"`
	}
)

func TestNewToolDeclaresWhatGoSends(t *testing.T) {
	nick, one := "n", 1
	for _, tc := range []struct {
		reflectCase
		decl string
		sent []string
	}{
		{caseOf[map[string]int]("map", nil, map[string]int{"a": 1}), `Record<string, number>`, []string{`{}`, `{"a":1}`}},
		{caseOf[any]("any", nil, 1, map[string]any{"a": []any{nil}}), `unknown`, []string{`null`, `1`, `{"a":[null]}`}},
		{caseOf("nil slices, maps and bytes", withNils{}, withNils{Tags: []string{"x"}, Grid: [][]int{nil, {1}}}),
			"{\n  tags: string[];\n  score: Record<string, number>;\n  /** @contentEncoding base64 */\n  raw: string;\n  grid: number[][];\n}",
			[]string{`{"tags":[],"score":{},"raw":"","grid":[]}`, `{"tags":["x"],"score":{},"raw":"","grid":[[],[1]]}`}},
		{caseOf[[]string]("nil slice output", nil), `string[]`, []string{`[]`}},
		{caseOf("pointers", withPointers{}, withPointers{Nick: &nick, Age: &one}),
			"{\n  nick: string | null;\n  age?: number;\n  since?: number;\n}",
			[]string{`{"nick":null}`, `{"nick":"n","age":1}`}},
		{caseOf("times", withTimes{}),
			"{\n  /** @format date-time */\n  at: string;\n  /** @format date-time */\n  stamp: string;\n  /** @format date-time */\n  maybe?: string;\n  /** @format date-time */\n  always: string;\n  /** @format date-time */\n  pointer?: string;\n}",
			[]string{`{"at":"0001-01-01T00:00:00Z","stamp":"0001-01-01T00:00:00Z","always":"0001-01-01T00:00:00Z"}`}},
		{caseOf("numbers", withNumbers{}, withNumbers{Big: big.NewInt(-12), Number: "1.5e3", Small: -128, Text: 7, Flag: true, Rat: big.NewRat(1, 3)}),
			"{\n  big: number | null;\n  number: number;\n  /**\n   * @minimum -128\n   * @maximum 127\n   */\n  small: number;\n  /** @pattern ^(0|-?[1-9][0-9]*)$ */\n  text: string;\n  flag: \"true\" | \"false\";\n  rat?: string;\n}",
			[]string{`{"big":null,"number":0,"small":0,"text":"0","flag":"false"}`, `{"big":-12,"number":1.5e3,"small":-128,"text":"7","flag":"true","rat":"1/3"}`}},
		{caseOf("embedded", withEmbedded{}, withEmbedded{Base: Base{ID: 1}, extra: &extra{Note: "x"}, Kind: 2}),
			"{\n  id: number;\n  note?: string;\n  kind: number;\n}",
			[]string{`{"id":0,"kind":0}`, `{"id":1,"note":"x","kind":2}`}},
		{caseOf("anything", withAnything{}, withAnything{Any: withNils{}, Raw: json.RawMessage(`[1]`), ByID: map[int]string{-3: "a"}, Addr: netip.MustParseAddr("::1"), Lists: map[string][]int{"a": nil}}),
			"{\n  any: unknown;\n  raw: unknown;\n  meta?: Record<string, unknown>;\n  byId: Record<string, string>;\n  addr: string;\n  err: unknown;\n  lists: Record<string, number[]>;\n  /**\n   * @minItems 2\n   * @maxItems 2\n   */\n  pairs: Record<string, boolean>[];\n}",
			[]string{`{"any":null,"raw":null,"byId":{},"addr":"","err":null,"lists":{},"pairs":[{},{}]}`,
				`{"any":{"tags":null,"score":null,"raw":null,"grid":null},"raw":[1],"byId":{"-3":"a"},"addr":"::1","err":null,"lists":{"a":[]},"pairs":[{},{}]}`}},
		{caseOf("ambiguous embedded names, and a struct without JSON methods", ambiguous{Link: url.URL{Scheme: "https", Host: "x"}}),
			"declare namespace CodemodeTypes {\n  interface URL {\n    Scheme: string;\n    Opaque: string;\n    User: CodemodeTypes.Userinfo | null;\n    Host: string;\n    Path: string;\n    Fragment: string;\n    RawQuery: string;\n    RawPath: string;\n    RawFragment: string;\n    ForceQuery: boolean;\n    OmitHost: boolean;\n  }\n\n  type Userinfo = Record<string, never>;\n}\n\n{\n  link: CodemodeTypes.URL;\n}",
			[]string{`{"link":{"Scheme":"https","Opaque":"","User":null,"Host":"x","Path":"","Fragment":"","RawQuery":"","RawPath":"","RawFragment":"","ForceQuery":false,"OmitHost":false}}`}},
		{caseOf("recursive tree", tree{}, tree{Name: "a", Children: []*tree{{Name: "b"}}}),
			"declare namespace CodemodeTypes {\n  interface tree {\n    name: string;\n    children: CodemodeTypes.tree[];\n  }\n}\n\nCodemodeTypes.tree",
			[]string{`{"name":"","children":[]}`, `{"name":"a","children":[{"name":"b","children":[]}]}`}},
	} {
		t.Run(tc.label, func(t *testing.T) {
			decl, sent := tc.run(t)
			if decl != tc.decl {
				t.Errorf("declared\n%s\nwant\n%s", decl, tc.decl)
			}
			for i, want := range tc.sent {
				if sent[i] != want {
					t.Errorf("value %d sent as %s, want %s", i, sent[i], want)
				}
			}
		})
	}
}

func TestStrictSchemasRefuseOpenTypes(t *testing.T) {
	type (
		tagged struct {
			Tags map[string]string `json:"tags"`
		}
		free struct {
			Inner struct {
				Anything any `json:"anything"`
			} `json:"inner"`
		}
		raw struct {
			Items []json.RawMessage `json:"items"`
		}
	)
	for _, tc := range []struct {
		label string
		err   func() error
		want  string
	}{
		{"map", func() error {
			_, err := contract.NewTool("tagged", "Tag.", func(ctx context.Context, in tagged) (string, error) { return "", nil }, contract.StrictSchemas())
			return err
		}, "tool tagged input: schema of contract_test.tagged: contract_test.tagged.Tags (map[string]string): a map is an open object"},
		{"interface", func() error {
			_, err := contract.NewTool("store", "Store.", func(ctx context.Context, in struct{}) (free, error) { return free{}, nil }, contract.StrictSchemas())
			return err
		}, "contract_test.free.Inner.Anything (interface {}): an interface holds any JSON value"},
		{"raw message", func() error {
			_, err := contract.NewTool("raw", "Raw.", func(ctx context.Context, in struct{}) (raw, error) { return raw{}, nil }, contract.StrictSchemas())
			return err
		}, "contract_test.raw.Items[] (json.RawMessage): the type writes its own JSON"},
	} {
		t.Run(tc.label, func(t *testing.T) {
			if err := tc.err(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
	t.Run("pointers stay required and not null", func(t *testing.T) {
		tool, err := contract.NewTool("p", "Pointers.", func(ctx context.Context, in struct{}) (withPointers, error) { return withPointers{}, nil }, contract.StrictSchemas())
		if err != nil {
			t.Fatal(err)
		}
		if s := string(tool.OutputSchema().JSON()); strings.Contains(s, "null") || !strings.Contains(s, `"required":["nick"]`) {
			t.Errorf("schema = %s, want nick required and no null", s)
		}
		if _, err := tool.Call(context.Background(), json.RawMessage(`{}`)); err == nil || !strings.Contains(err.Error(), "/nick: got null, want string") {
			t.Errorf("Call = %v, want today's precise error for the nil pointer", err)
		}
	})
}

func TestNewToolDecodesWhatTheProgramSends(t *testing.T) {
	var got withNils
	tool, err := contract.NewTool("put", "Put it.", func(ctx context.Context, in withNils) (withNils, error) { got = in; return in, nil })
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tool.Call(context.Background(), json.RawMessage(`{"tags":null,"score":{},"raw":"","grid":[]}`)); err == nil || !strings.Contains(err.Error(), "/tags: got null, want array") {
		t.Errorf("null for a slice: %v, want a validation error", err)
	}
	out, err := tool.Call(context.Background(), json.RawMessage(`{"tags":["a"],"score":{"x":1},"raw":"aGk=","grid":[[1]]}`))
	if err != nil {
		t.Fatal(err)
	}
	if string(got.Raw) != "hi" || got.Score["x"] != 1 || string(out) != `{"tags":["a"],"score":{"x":1},"raw":"aGk=","grid":[[1]]}` {
		t.Errorf("decoded %+v, sent back %s", got, out)
	}
}

func TestProgramInputTakesRecursiveTypes(t *testing.T) {
	s, err := contract.SchemaFor[*Category]()
	if err != nil {
		t.Fatal(err)
	}
	c, err := withInput(s)
	if err != nil {
		t.Fatal(err)
	}
	decls := c.TypeDefinitions()
	for _, want := range []string{"declare namespace InputTypes {\n  interface Category {\n    name: string;\n    children: InputTypes.Category[];\n  }\n}\n", "  readonly input: InputTypes.Category;\n"} {
		if !strings.Contains(decls, want) {
			t.Errorf("declarations lack %q:\n%s", want, decls)
		}
	}
	// Program input follows the rule of tool values: nil slices are [].
	raw, err := c.ValidateInput(&Category{Name: "a", Children: []*Category{{Name: "b"}}})
	if err != nil || string(raw) != `{"name":"a","children":[{"name":"b","children":[]}]}` {
		t.Errorf("ValidateInput = %s, %v", raw, err)
	}
	if _, err := c.ValidateInput(json.RawMessage(`{"name":"a","children":[{"name":"b"}]}`)); err == nil || !strings.Contains(err.Error(), "/children/0: missing property 'children'") {
		t.Errorf("ValidateInput of a missing nested property: %v", err)
	}
}

type nilSchema struct{}

func (nilSchema) JSONSchema() *jsonschema.Schema { return nil }

type panickyExtend struct {
	A int `json:"a"`
}

func (panickyExtend) JSONSchemaExtend(*jsonschema.Schema) { panic("boom") }

func TestSchemaMethodsFailingAreErrors(t *testing.T) {
	if _, err := contract.SchemaFor[struct {
		N nilSchema `json:"n"`
	}](); err == nil || !strings.Contains(err.Error(), ".N (contract_test.nilSchema): JSONSchema returns nil") {
		t.Errorf("nil JSONSchema: %v", err)
	}
	if _, err := contract.SchemaFor[[]panickyExtend](); err == nil || !strings.Contains(err.Error(), "a schema method panicked: boom") {
		t.Errorf("panicking JSONSchemaExtend: %v", err)
	}
}
