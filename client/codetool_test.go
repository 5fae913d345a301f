package client_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/quickjs"
)

// TestToolAnswersWithTheOutcome: a plain client's code tool (real QuickJS)
// describes the contract's namespaces with their hints and declarations,
// and answers a call with the outcome as JSON: the value on success, the
// error when the program fails, an ArgumentsError for bad arguments.
func TestToolAnswersWithTheOutcome(t *testing.T) {
	ctx := context.Background()
	add, err := contract.NewTool("add", "Add two numbers.", func(ctx context.Context, in Sum) (Total, error) {
		return Total{Sum: in.A + in.B}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	c, err := contract.NewNamespaced(contract.Namespace{Name: "calc", Tools: []*contract.Tool{add}})
	if err != nil {
		t.Fatal(err)
	}
	rt, err := client.NewRuntime(ctx, quickjs.New(quickjs.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	cl := client.New(rt, c)
	if _, err := cl.Tool(codetool.Options{ConnectorHints: map[string]string{"codemode": "x"}}); err == nil || !strings.Contains(err.Error(), "codemode") {
		t.Fatalf("hint for a namespace the contract lacks: %v", err)
	}
	tool, err := cl.Tool(codetool.Options{ConnectorHints: map[string]string{"calc": "arithmetic"}})
	if err != nil {
		t.Fatal(err)
	}
	if tool.Name != "code" || !strings.Contains(tool.Description, "- calc: arithmetic") || !strings.Contains(tool.Description, "add(input: {") || string(tool.InputSchema) != codetool.InputSchema {
		t.Fatalf("descriptor %+v", tool.Descriptor)
	}
	for _, tc := range []struct{ args, want string }{
		{`{"code": "(await calc.add({a: 2, b: 3})).sum"}`, `{"kind":"success","value":5}`},
		{`{"code": "throw new RangeError(\"too big\")"}`, `{"kind":"program-failed","error":{"name":"RangeError","message":"too big"`},
	} {
		out, err := tool.Call(ctx, json.RawMessage(tc.args))
		if err != nil || !strings.HasPrefix(string(out), tc.want) {
			t.Fatalf("Call(%s): %s, %v, want %s…", tc.args, out, err, tc.want)
		}
	}
	var ae *codetool.ArgumentsError
	if _, err := tool.Call(ctx, json.RawMessage(`{"code": ""}`)); !asArgs(err, &ae) {
		t.Fatalf("empty code: %v", err)
	}
}

func asArgs(err error, target **codetool.ArgumentsError) bool {
	v, ok := err.(*codetool.ArgumentsError)
	*target = v
	return ok
}
