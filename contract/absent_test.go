package contract_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/contract"
)

type noteMeta struct {
	Extra any    `json:"extra"`
	Label string `json:"label"`
}

type noteIn struct {
	Extra any             `json:"extra"`
	Raw   json.RawMessage `json:"raw"`
	Err   error           `json:"err"`
	Maybe *any            `json:"maybe"`
	Meta  noteMeta        `json:"meta"`
	Count int             `json:"count"`
}

// TestTypedToolInputMayLeaveOutAnUnknownMember: a member declared
// unknown (an interface, json.RawMessage) admits undefined in TypeScript,
// which JSON.stringify leaves out; encoding/json leaves the field nil
// then, as null does. So the input check accepts it absent, while the
// declaration (shared with outputs, which always hold it) and the output
// check still say it is there.
func TestTypedToolInputMayLeaveOutAnUnknownMember(t *testing.T) {
	var got noteIn
	tool, err := contract.NewTool("note", "Takes a note.", func(ctx context.Context, in noteIn) (noteMeta, error) {
		got = in
		return in.Meta, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		label, input string
		want         string // a line prefix; "" for success
	}{
		{"every member", `{"extra":1,"raw":[2],"err":null,"maybe":"m","meta":{"extra":{"a":1},"label":"l"},"count":3}`, ""},
		{"unknown members absent", `{"meta":{"label":"l"},"count":3}`, ""},
		{"unknown members null", `{"extra":null,"raw":null,"err":null,"maybe":null,"meta":{"extra":null,"label":"l"},"count":3}`, ""},
		{"an integer absent", `{"meta":{"label":"l"}}`, "/: missing property 'count'"},
		{"a nested string absent", `{"meta":{},"count":3}`, "/meta: missing property 'label'"},
	} {
		t.Run(tc.label, func(t *testing.T) {
			got = noteIn{}
			out, err := tool.Call(context.Background(), json.RawMessage(tc.input))
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Call(%s) = %v", tc.input, err)
				}
				if got.Count != 3 || got.Meta.Label != "l" {
					t.Errorf("the handler got %+v", got)
				}
				if !strings.HasPrefix(string(out), `{"extra":`) {
					t.Errorf("out = %s, want the extra member present", out)
				}
				return
			}
			var tv *contract.ValidationError
			if !errors.As(err, &tv) || !hasLinePrefix(tv.Lines, tc.want) {
				t.Errorf("Call(%s) = %v, want a line starting %q", tc.input, err, tc.want)
			}
		})
	}
	// What the program is told, and what an output must hold, is unchanged.
	c, err := contract.New(tool)
	if err != nil {
		t.Fatal(err)
	}
	decls := c.TypeDefinitions()
	for _, want := range []string{"    extra: unknown;\n    label: string;\n", "    extra: unknown;\n    raw: unknown;\n"} {
		if !strings.Contains(decls, want) {
			t.Errorf("the declarations lack %q:\n%s", want, decls)
		}
	}
	var tv *contract.ValidationError
	if err := tool.CheckOutput(json.RawMessage(`{"label":"l"}`)); !errors.As(err, &tv) || !hasLinePrefix(tv.Lines, "/: missing property 'extra'") {
		t.Errorf("CheckOutput without extra = %v, want it missing", err)
	}
}
