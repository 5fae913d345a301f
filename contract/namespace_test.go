package contract_test

import (
	"strings"
	"testing"

	"github.com/codemode-go/codemode/contract"
)

func TestNamespacedContract(t *testing.T) {
	c, err := contract.NewNamespaced(
		contract.Namespace{Name: "memory", Tools: []*contract.Tool{rawTool(t, "search"), rawTool(t, "create")}},
		contract.Namespace{Name: "files", Tools: []*contract.Tool{rawTool(t, "search")}},
	)
	if err != nil {
		t.Fatal(err)
	}
	if c.Tool("memory", "create") == nil || c.Tool("files", "search") == nil || c.Tool("files", "create") != nil || c.Tool("codemode", "search") != nil {
		t.Fatal("tool lookup by namespace is wrong")
	}
	if got := c.Namespaces(); len(got) != 2 || got[0].Name != "memory" || got[1].Name != "files" || len(got[0].Tools) != 2 || got[0].Tools[1].Name() != "create" {
		t.Fatalf("namespaces %v", got)
	}
	if len(c.Tools()) != 3 || c.HasInput() {
		t.Fatal("tools or input wrong")
	}
	d := c.TypeDefinitions()
	for _, want := range []string{"interface MemoryTools {", "interface FilesTools {", "readonly memory: MemoryTools;", "readonly files: FilesTools;"} {
		if !strings.Contains(d, want) {
			t.Fatalf("declarations lack %q:\n%s", want, d)
		}
	}
	if !strings.Contains(d, "readonly codemode: Tools;") || !strings.Contains(d, "search(query: string): Promise<SearchOutput>;") {
		t.Fatalf("declarations lack the SDK's codemode namespace:\n%s", d)
	}
}

func TestNamespacedContractErrors(t *testing.T) {
	cases := []struct {
		name string
		ns   []contract.Namespace
		want string
	}{
		{"not an identifier", []contract.Namespace{{Name: "my-server"}}, `namespace "my-server": not a JavaScript identifier`},
		{"scope property", []contract.Namespace{{Name: "console"}}, `namespace "console": reserved`},
		{"reserved word", []contract.Namespace{{Name: "class"}}, `namespace "class": reserved`},
		{"duplicate namespace", []contract.Namespace{{Name: "a"}, {Name: "a"}}, "two namespaces are named a"},
		{"duplicate tool", []contract.Namespace{{Name: "a", Tools: []*contract.Tool{rawTool(t, "x"), rawTool(t, "x")}}}, "namespace a: two tools are named x"},
		{"nil tool", []contract.Namespace{{Name: "a", Tools: []*contract.Tool{nil}}}, "namespace a: tool 0 is nil"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := contract.NewNamespaced(c.ns...)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want %q", err, c.want)
			}
		})
	}
	inputless, err := contract.NewNamespaced()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := inputless.WithInput(nil); err == nil {
		t.Fatal("WithInput accepted a nil input schema")
	}
}
