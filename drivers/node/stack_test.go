package node_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
)

// TestStacksShowTheProgramsFrames: an error's stack holds the program's
// frames, as on QuickJS: not V8's first line (the name and message, which
// the error carries apart) and not the runner's own frames, which showed
// as [stdin] (its tool call, its run) before (a new user's trial).
func TestStacksShowTheProgramsFrames(t *testing.T) {
	rt, err := client.NewRuntime(context.Background(), driver(t))
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	fail, err := contract.NewRawTool("fail", "Fails.", json.RawMessage(`{"type":"object","additionalProperties":false}`), json.RawMessage(`{"type":"object","additionalProperties":false}`),
		func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) {
			return nil, errors.New("no location given")
		})
	if err != nil {
		t.Fatal(err)
	}
	k, err := contract.New(fail)
	if err != nil {
		t.Fatal(err)
	}
	c := client.New(rt, k)
	for _, tc := range []struct{ name, src, frame string }{
		{"tool error", "export default async function ({ codemode }) {\n  await codemode.fail({});\n}\n", "at default (agent.ts:2:18)"},
		{"thrown error", "export default async function () {\n  function inner() { throw new TypeError(\"two\\nlines\"); }\n  inner();\n}\n", "at inner (agent.ts:2:28)"},
	} {
		out, err := c.Run(context.Background(), tc.src, client.RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if out.Kind != client.ProgramFailed {
			t.Fatalf("%s: %s", tc.name, out.Kind)
		}
		stack := out.Error.Stack
		if !strings.HasPrefix(stack, "    at ") || !strings.Contains(stack, tc.frame) || strings.Contains(stack, "[stdin]") || strings.Contains(stack, out.Error.Message) {
			t.Errorf("%s: stack %q, want the program's frames (%s) only", tc.name, stack, tc.frame)
		}
	}
}
