package typegen

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// namedSurface is the lenient-named golden's surface: a petstore whose
// components refer to each other, cycles included, and one unused.
func namedSurface(t *testing.T) Namespace {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "lenient-named.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s Surface
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	ns := s.Namespaces[0]
	// A long description, as OpenAPI operations have: summary, paragraphs,
	// then method and path.
	ns.Tools[1].Description = "Adds a pet.\n\n" + strings.Repeat("The store keeps every pet it is given. ", 12) + "\n\nPOST /pets"
	return ns
}

// TestDescriberMatchesGoldens renders one method or one named type at
// several bounds: each step of Describer.Tool appears in one golden.
func TestDescriberMatchesGoldens(t *testing.T) {
	d, err := NewDescriber(namedSurface(t))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		golden   string
		tool     string // or
		typ      string
		maxChars int
		// shown and hidden are named types that must be declared, and
		// listed as not shown.
		shown, hidden []string
	}{
		{golden: "getPet-full", tool: "getPet", shown: []string{"Pet", "Tag", "Owner", "Address"}},
		{golden: "getPet-compact", tool: "getPet", maxChars: 500, shown: []string{"Pet", "Tag", "Owner", "Address"}},
		{golden: "addPet-short", tool: "addPet", maxChars: 700, shown: []string{"Pet", "Tree", "Loop", "Self", "Tag"}, hidden: []string{"Owner", "Loop2", "Address"}},
		{golden: "addPet-method-only", tool: "addPet", maxChars: 100, hidden: []string{"Pet", "Tree", "Loop", "Self", "Tag", "Owner", "Loop2", "Address"}},
		{golden: "type-Owner", typ: "Owner", shown: []string{"Owner", "Pet", "Address", "Tag"}},
		{golden: "type-Owner-small", typ: "Owner", maxChars: 150, shown: []string{"Owner"}, hidden: []string{"Pet", "Address", "Tag"}},
	}
	for _, tc := range cases {
		t.Run(tc.golden, func(t *testing.T) {
			var got string
			var err error
			if tc.tool != "" {
				got, err = d.Tool(tc.tool, tc.maxChars)
			} else {
				got, err = d.Type(tc.typ, tc.maxChars)
			}
			if err != nil {
				t.Fatal(err)
			}
			limit := tc.maxChars
			if limit == 0 {
				limit = DefaultDescribeChars
			}
			if len(got) > limit && !strings.HasSuffix(tc.golden, "method-only") && !strings.HasSuffix(tc.golden, "small") {
				t.Errorf("%d characters, over the bound %d:\n%s", len(got), limit, got)
			}
			notShown := ""
			if i := strings.Index(got, "// Not shown: "); i >= 0 {
				notShown = got[i:]
			}
			for _, name := range tc.shown {
				if !strings.Contains(got, "interface "+name+" ") && !strings.Contains(got, "type "+name+" = ") {
					t.Errorf("%s is not declared:\n%s", name, got)
				}
			}
			for _, name := range tc.hidden {
				if !strings.Contains(notShown, "PetstoreTypes."+name) {
					t.Errorf("%s is not listed as not shown:\n%s", name, got)
				}
			}
			if strings.Contains(got, "Unused") {
				t.Errorf("the unreached Unused is printed:\n%s", got)
			}
			golden := filepath.Join("testdata", "describe", tc.golden+".d.ts")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./typegen -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("differs from %s (run go test ./typegen -update to accept)\n--- got ---\n%s\n--- want ---\n%s", golden, got, want)
			}
		})
	}
}

func TestDescriberErrors(t *testing.T) {
	d, err := NewDescriber(namedSurface(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Tool("nope", 0); err == nil || !strings.Contains(err.Error(), "no tool nope in namespace petstore") {
		t.Errorf("unknown tool: %v", err)
	}
	if _, err := d.Type("Nope", 0); err == nil || !strings.Contains(err.Error(), "no named type Nope") {
		t.Errorf("unknown type: %v", err)
	}
	if _, err := NewDescriber(Namespace{Name: "a-b"}); err == nil {
		t.Error("a namespace name that is no identifier was accepted")
	}
	plain, err := NewDescriber(Namespace{Name: "plain", Tools: []ToolDecl{{Name: "f", Description: "F.", InputSchema: json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`), OutputSchema: json.RawMessage(`{"type":"string"}`)}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := plain.Type("X", 0); err == nil {
		t.Error("a type of a namespace without definitions was found")
	}
	if got, err := plain.Tool("f", 0); err != nil || !strings.Contains(got, "f(input: Record<string, never>): Promise<string>;") {
		t.Errorf("strict tool: %q, %v", got, err)
	}
}

// TestDescribedMethodCompilesWithTypeScript: a describe that shows every
// type it reaches is self-contained, and the real compiler accepts a call
// written against it.
func TestDescribedMethodCompilesWithTypeScript(t *testing.T) {
	tsc := findTSC(t)
	d, err := NewDescriber(namedSurface(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, max := range []int{0, 500} {
		text, err := d.Tool("getPet", max)
		if err != nil {
			t.Fatal(err)
		}
		compileWithTSC(t, tsc, text, `declare const api: PetstoreTools;
async function f(): Promise<string | undefined> {
  const pet = await api.getPet({ petId: 1 });
  return pet.owner?.address?.city ?? pet.parent?.name;
}
`)
	}
}
