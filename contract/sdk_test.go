package contract_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/contract"
)

// TestContractRefusesDurableSDKNames: step, search, describe and run are
// the durable SDK's in the codemode namespace, under every constructor, and
// the error says why; other namespaces may use them.
func TestContractRefusesDurableSDKNames(t *testing.T) {
	for _, name := range []string{"step", "search", "describe", "run"} {
		t.Run(name, func(t *testing.T) {
			builds := map[string]func() (*contract.Contract, error){
				"New": func() (*contract.Contract, error) { return contract.New(rawTool(t, name)) },
				"NewWithInput": func() (*contract.Contract, error) {
					return contract.NewWithInput(weatherInputSchema(t), rawTool(t, name))
				},
				"NewNamespaced": func() (*contract.Contract, error) {
					return contract.NewNamespaced(contract.Namespace{Name: "codemode", Tools: []*contract.Tool{rawTool(t, name)}})
				},
			}
			for how, build := range builds {
				_, err := build()
				if !errors.Is(err, contract.ErrInvalidToolName) || !strings.Contains(err.Error(), "codemode."+name) || !strings.Contains(err.Error(), "durable runtime's SDK") {
					t.Errorf("%s: err = %v, want ErrInvalidToolName naming codemode.%s and the durable SDK", how, err, name)
				}
			}
			if _, err := contract.NewNamespaced(contract.Namespace{Name: "github", Tools: []*contract.Tool{rawTool(t, name)}}); err != nil {
				t.Errorf("github.%s: %v", name, err)
			}
		})
	}
}

func TestWithDurableSDKDeclaresTheSDK(t *testing.T) {
	c, err := contract.NewNamespaced(contract.Namespace{Name: "memory", Tools: []*contract.Tool{rawTool(t, "search")}})
	if err != nil {
		t.Fatal(err)
	}
	d, err := c.WithDurableSDK()
	if err != nil {
		t.Fatal(err)
	}
	if c.HasDurableSDK() || !d.HasDurableSDK() {
		t.Fatal("HasDurableSDK")
	}
	if strings.Contains(c.TypeDefinitions(), "step<T>") {
		t.Fatal("WithDurableSDK changed the original contract's declarations")
	}
	for _, want := range []string{
		"interface MemoryTools {",
		"  step<T>(name: string, fn: () => T | Promise<T>): Promise<T>;",
		"  search(query: string): Promise<SearchOutput>;",
		"  describe(target: string): Promise<DescribeOutput>;",
		"  run(name: string, input?: unknown): Promise<unknown>;",
		"type SearchOutput = {",
		`  kind: "connector" | "method" | "snippet";`,
		"  readonly codemode: Tools;",
	} {
		if !strings.Contains(d.TypeDefinitions(), want) {
			t.Errorf("declarations lack %q:\n%s", want, d.TypeDefinitions())
		}
	}
	if !strings.Contains(d.CheckerDeclarations().NoPrototype, "interface Tools {") {
		t.Error("the checker's declarations do not cover the SDK's namespace")
	}
	if len(d.Tools()) != 1 || d.Tool("memory", "search") == nil || d.Tool("codemode", "step") != nil || len(d.Namespaces()) != 1 {
		t.Error("WithDurableSDK changed the tools")
	}
}

func TestToolAnnotationsAppearInDeclarations(t *testing.T) {
	yes, no := true, false
	plain := rawTool(t, "remove")
	annotated := plain.WithAnnotations(contract.Annotations{Title: "Remove", Destructive: &yes, Idempotent: &yes, OpenWorld: &no})
	yes = false // the tool keeps its own copy
	if plain.Annotations() != (contract.Annotations{}) {
		t.Fatal("WithAnnotations changed the original tool")
	}
	a := annotated.Annotations()
	if a.Title != "Remove" || !*a.Destructive || !*a.Idempotent || *a.OpenWorld || a.ReadOnly != nil {
		t.Fatalf("Annotations() = %+v", a)
	}
	c, err := contract.New(annotated)
	if err != nil {
		t.Fatal(err)
	}
	want := "  /**\n   * The remove tool.\n   * @destructive\n   * @idempotent\n   * @openWorld false\n   */\n  remove(input: Record<string, never>)"
	if !strings.Contains(c.TypeDefinitions(), want) {
		t.Fatalf("declarations lack %q:\n%s", want, c.TypeDefinitions())
	}
}
