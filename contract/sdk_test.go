package contract_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/contract"
)

// TestContractRefusesSDKNames: step, search, describe and run are the
// SDK's in the codemode namespace, under every constructor, and the error
// says why; other namespaces may use them.
func TestContractRefusesSDKNames(t *testing.T) {
	for _, name := range []string{"step", "search", "describe", "run"} {
		t.Run(name, func(t *testing.T) {
			builds := map[string]func() (*contract.Contract, error){
				"New": func() (*contract.Contract, error) { return contract.New(rawTool(t, name)) },
				"WithInput": func() (*contract.Contract, error) {
					return withInput(weatherInputSchema(t), rawTool(t, name))
				},
				"NewNamespaced": func() (*contract.Contract, error) {
					return contract.NewNamespaced(contract.Namespace{Name: "codemode", Tools: []*contract.Tool{rawTool(t, name)}})
				},
			}
			for how, build := range builds {
				_, err := build()
				if !errors.Is(err, contract.ErrInvalidToolName) || !strings.Contains(err.Error(), "codemode."+name) || !strings.Contains(err.Error(), "code mode's SDK") {
					t.Errorf("%s: err = %v, want ErrInvalidToolName naming codemode.%s and the SDK", how, err, name)
				}
			}
			if _, err := contract.NewNamespaced(contract.Namespace{Name: "github", Tools: []*contract.Tool{rawTool(t, name)}}); err != nil {
				t.Errorf("github.%s: %v", name, err)
			}
		})
	}
}

// TestEveryContractDeclaresTheSDK: the codemode namespace holds the SDK
// whether or not the contract has tools there; the tools are unchanged.
func TestEveryContractDeclaresTheSDK(t *testing.T) {
	c, err := contract.NewNamespaced(contract.Namespace{Name: "memory", Tools: []*contract.Tool{rawTool(t, "search")}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"interface MemoryTools {",
		"  step<T>(name: string, fn: () => T | Promise<T>): Promise<T>;",
		"  search(query: string): Promise<SearchOutput>;",
		"  describe(target: string): Promise<DescribeOutput>;",
		"type SearchOutput = {",
		`  kind: "connector" | "method" | "snippet";`,
		"  readonly codemode: Tools;",
	} {
		if !strings.Contains(c.TypeDefinitions(), want) {
			t.Errorf("declarations lack %q:\n%s", want, c.TypeDefinitions())
		}
	}
	if strings.Contains(c.TypeDefinitions(), "run(name") {
		t.Error("run is declared, but only a runner that keeps saved programs has it")
	}
	if !strings.Contains(c.CheckerDeclarations().NoPrototype, "interface Tools {") {
		t.Error("the checker's declarations do not cover the SDK's namespace")
	}
	if len(c.Tools()) != 1 || c.Tool("memory", "search") == nil || c.Tool("codemode", "step") != nil {
		t.Error("the SDK changed the tools")
	}
}

// TestPolicy: a policy travels with a copy of the tool, is declared in its
// JSDoc, and a policy no runner can honour is refused.
func TestPolicy(t *testing.T) {
	plain := rawTool(t, "pay")
	reverted := 0
	pay, err := plain.WithPolicy(contract.Policy{RequiresApproval: true, Revert: func(context.Context, json.RawMessage, json.RawMessage) error { reverted++; return nil }})
	if err != nil {
		t.Fatal(err)
	}
	if plain.Policy().RequiresApproval || !pay.Policy().RequiresApproval {
		t.Fatal("WithPolicy changed the original tool, or the copy has no policy")
	}
	if err := pay.Policy().Revert(context.Background(), nil, nil); err != nil || reverted != 1 {
		t.Fatal("Revert")
	}
	byAmount, err := plain.WithPolicy(contract.Policy{ApprovalFor: func(in json.RawMessage) bool { return strings.Contains(string(in), "large") }})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		tool  *contract.Tool
		input string
		want  bool
	}{
		{plain, `{}`, false},
		{pay, `{}`, true},
		{byAmount, `{"size":"small"}`, false},
		{byAmount, `{"size":"large"}`, true},
	} {
		if got := tc.tool.Policy().NeedsApproval(json.RawMessage(tc.input)); got != tc.want {
			t.Errorf("NeedsApproval(%s) = %v, want %v", tc.input, got, tc.want)
		}
	}
	for name, tool := range map[string]*contract.Tool{"always": pay, "by input": byAmount} {
		c, err := contract.NewNamespaced(contract.Namespace{Name: "bank", Tools: []*contract.Tool{tool}})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(c.TypeDefinitions(), "@requiresApproval") {
			t.Errorf("%s: the declaration does not say the tool needs approval:\n%s", name, c.TypeDefinitions())
		}
	}
	for _, p := range []contract.Policy{
		{Replay: contract.ReplayReexecute, RequiresApproval: true},
		{Replay: contract.ReplayReexecute, ApprovalFor: func(json.RawMessage) bool { return false }},
		{Replay: "sometimes"},
	} {
		if _, err := plain.WithPolicy(p); err == nil || !strings.Contains(err.Error(), "tool pay") {
			t.Errorf("WithPolicy(%+v) = %v, want an error naming the tool", p, err)
		}
	}
}

// TestTypedRevert decodes the recorded input and output into the typed
// function's arguments.
func TestTypedRevert(t *testing.T) {
	type in struct{ ID string }
	type out struct{ Receipt int }
	var got string
	revert := contract.TypedRevert(func(_ context.Context, i in, o out) error {
		got = i.ID + "/" + string(rune('0'+o.Receipt))
		return nil
	})
	if err := revert(context.Background(), json.RawMessage(`{"ID":"a"}`), json.RawMessage(`{"Receipt":7}`)); err != nil || got != "a/7" {
		t.Fatalf("got %q, %v", got, err)
	}
	if err := revert(context.Background(), json.RawMessage(`[]`), nil); err == nil || !strings.Contains(err.Error(), "recorded input") {
		t.Fatalf("bad input: %v", err)
	}
}

// TestUpstreamTravelsWithCopies: a tool's upstream name is on the copy
// WithUpstream returns, kept by WithPolicy and WithAnnotations after it,
// left out of the declarations, and absent from a tool that was not given
// one.
func TestUpstreamTravelsWithCopies(t *testing.T) {
	plain := rawTool(t, "get_file")
	get := plain.WithUpstream("MCP tool get-file")
	if plain.Upstream() != "" || get.Upstream() != "MCP tool get-file" {
		t.Fatalf("Upstream: original %q, copy %q", plain.Upstream(), get.Upstream())
	}
	yes := true
	governed, err := get.WithAnnotations(contract.Annotations{ReadOnly: &yes}).WithPolicy(contract.Policy{RequiresApproval: true})
	if err != nil {
		t.Fatal(err)
	}
	if governed.Upstream() != "MCP tool get-file" {
		t.Fatalf("Upstream after WithAnnotations and WithPolicy: %q", governed.Upstream())
	}
	if governed.WithUpstream("").Upstream() != "" {
		t.Fatal("WithUpstream(\"\") kept the upstream name")
	}
	c, err := contract.New(governed)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(c.TypeDefinitions(), "get-file") {
		t.Errorf("the declarations name the upstream tool:\n%s", c.TypeDefinitions())
	}
}
