package contract_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/internal/typegen"
)

var updateDigest = flag.Bool("update-digest", false, "rewrite testdata/digest.golden")

// echo is a handler that answers its input.
func echo(_ context.Context, in json.RawMessage) (json.RawMessage, error) { return in, nil }

// catalogueTool is an MCP-shaped foreign tool (the shape of the reference
// GitHub server's create_pull_request).
func catalogueTool(t testing.TB, i int) *contract.Tool {
	t.Helper()
	tool, err := contract.NewForeignTool(fmt.Sprintf("create_pull_request_%d", i), "Create a new pull request in a GitHub repository.",
		json.RawMessage(`{"type":"object","properties":{"owner":{"type":"string","description":"Repository owner"},"repo":{"type":"string","description":"Repository name"},"title":{"type":"string"},"body":{"type":"string"},"head":{"type":"string"},"base":{"type":"string"},"draft":{"type":"boolean"}},"required":["owner","repo","title","head","base"]}`),
		json.RawMessage(`{"type":"object","properties":{"number":{"type":"integer"},"url":{"type":"string"}}}`), echo)
	if err != nil {
		t.Fatal(err)
	}
	return tool
}

// TestForeignSchemaThatDoesNotCompileDegradesOnFirstUse: a foreign tool's
// schema that is JSON but does not compile (an external $ref) no longer
// fails or warns when the tool is built; the first validation finds it, the
// value passes unvalidated, and Degraded names the fault, the same from
// every goroutine.
func TestForeignSchemaThatDoesNotCompileDegradesOnFirstUse(t *testing.T) {
	bad, err := contract.NewForeignTool("fetch_remote", "Refers outside its schema.",
		json.RawMessage(`{"type":"object","properties":{"x":{"$ref":"https://example.com/x.json"}}}`), nil, echo)
	if err != nil {
		t.Fatal(err)
	}
	good := catalogueTool(t, 1)
	c, err := contract.NewNamespaced(contract.Namespace{Name: "github", Tools: []*contract.Tool{bad, good}})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Go(func() {
			if _, err := c.Tool("github", "fetch_remote").Call(context.Background(), json.RawMessage(`{"x":1}`)); err != nil {
				errs[i] = err
				return
			}
			errs[i] = bad.Degraded()
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err == nil || !strings.Contains(err.Error(), "fetch_remote") || !strings.Contains(err.Error(), "input schema") {
			t.Fatalf("goroutine %d: %v, want the degraded input schema named", i, err)
		}
	}
	if _, err := c.Tool("github", "fetch_remote").Call(context.Background(), json.RawMessage(`{"x"`)); err == nil {
		t.Fatal("a degraded tool accepted input that is not JSON")
	}
	if err := good.Degraded(); err != nil {
		t.Fatalf("good tool degraded: %v", err)
	}
	_, err = good.Call(context.Background(), json.RawMessage(`{"owner":"o","repo":"r","title":"t","head":"h"}`))
	var ve *contract.ValidationError
	if !asValidation(err, &ve) || !strings.Contains(strings.Join(ve.Lines, "\n"), "base") {
		t.Fatalf("missing base: %v, want a validation error naming it", err)
	}
}

func asValidation(err error, target **contract.ValidationError) bool {
	v, ok := err.(*contract.ValidationError)
	*target = v
	return ok
}

// TestForeignSchemaThatIsNotJSONDegradesAtOnce: text that is not JSON is
// known when the tool is built: Degraded says so before any call, and the
// input is declared an open object.
func TestForeignSchemaThatIsNotJSONDegradesAtOnce(t *testing.T) {
	bad, err := contract.NewForeignTool("broken", "Its schema is cut short.", json.RawMessage(`{"type":`), nil, echo)
	if err != nil {
		t.Fatal(err)
	}
	if err := bad.Degraded(); err == nil || !strings.Contains(err.Error(), "not JSON") {
		t.Fatalf("Degraded: %v", err)
	}
	c, err := contract.New(bad)
	if err != nil {
		t.Fatal(err)
	}
	if d := c.TypeDefinitions(); !strings.Contains(d, "broken(input?: Record<string, unknown>)") {
		t.Fatalf("declarations:\n%s", d)
	}
}

// TestStrictSchemaErrorsStillFailNew: printing is deferred, but a strict
// tool the printer cannot express still fails New, naming the pointer.
func TestStrictSchemaErrorsStillFailNew(t *testing.T) {
	raw, err := contract.NewRawTool("lookup", "Look up a key.", json.RawMessage(`{"type":"object","additionalProperties":true}`), json.RawMessage(`{"type":"string"}`), echo)
	if err != nil {
		t.Fatal(err)
	}
	_, err = contract.New(catalogueTool(t, 1), raw)
	var se *typegen.SchemaError
	if err == nil || !errorsAs(err, &se) || !strings.Contains(se.Pointer, "lookup") {
		t.Fatalf("New: %v, want a schema error naming lookup", err)
	}
}

func errorsAs(err error, se **typegen.SchemaError) bool {
	for err != nil {
		if v, ok := err.(*typegen.SchemaError); ok {
			*se = v
			return true
		}
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return false
		}
		err = u.Unwrap()
	}
	return false
}

// TestDeclarationsPrintedOnceForAllCallers: concurrent first calls of
// TypeDefinitions and CheckerDeclarations see one printing.
func TestDeclarationsPrintedOnceForAllCallers(t *testing.T) {
	var tools []*contract.Tool
	for i := range 50 {
		tools = append(tools, catalogueTool(t, i))
	}
	c, err := contract.NewNamespaced(contract.Namespace{Name: "github", Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, 8)
	var wg sync.WaitGroup
	for i := range out {
		wg.Go(func() {
			out[i] = c.TypeDefinitions()
			_ = c.CheckerDeclarations()
		})
	}
	wg.Wait()
	for i := range out {
		if out[i] != out[0] || !strings.Contains(out[i], "create_pull_request_49(input: {") {
			t.Fatalf("caller %d saw different or incomplete declarations", i)
		}
	}
}

// TestDigest: the digest is stable for one catalogue (pinned by a golden
// file, so a change to what it hashes is seen in review), ignores schema
// whitespace and handlers, and changes with anything an agent can see.
func TestDigest(t *testing.T) {
	schema := `{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}`
	build := func(t *testing.T, mod func(ns *contract.Namespace)) *contract.Contract {
		t.Helper()
		a, err := contract.NewForeignTool("search", "Search the index.", json.RawMessage(schema), nil, echo)
		if err != nil {
			t.Fatal(err)
		}
		b, err := contract.NewForeignTool("fetch", "Fetch one document.", json.RawMessage(`{"type":"object"}`), nil, echo)
		if err != nil {
			t.Fatal(err)
		}
		ns := contract.Namespace{Name: "docs", Tools: []*contract.Tool{a, b}}
		if mod != nil {
			mod(&ns)
		}
		c, err := contract.NewNamespaced(ns)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	base := build(t, nil).Digest()
	golden := filepath.Join("testdata", "digest.golden")
	if *updateDigest {
		if err := os.WriteFile(golden, []byte(base+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if base != strings.TrimSpace(string(want)) {
		t.Fatalf("digest %s, golden %s (run with -update-digest after changing what is hashed)", base, want)
	}
	if !strings.HasPrefix(base, "sha256:") || len(base) != len("sha256:")+64 {
		t.Fatalf("digest %q is not sha256: and 64 hex digits", base)
	}
	foreign := func(name, desc, in string) *contract.Tool {
		tool, err := contract.NewForeignTool(name, desc, json.RawMessage(in), nil, echo)
		if err != nil {
			t.Fatal(err)
		}
		return tool
	}
	yes := true
	for _, tc := range []struct {
		name string
		mod  func(ns *contract.Namespace)
		same bool
	}{
		{"schema whitespace", func(ns *contract.Namespace) {
			ns.Tools[0] = foreign("search", "Search the index.", strings.ReplaceAll(schema, ",", ",\n  "))
		}, true},
		{"another handler", func(ns *contract.Namespace) {
			tool, _ := contract.NewForeignTool("search", "Search the index.", json.RawMessage(schema), nil,
				func(context.Context, json.RawMessage) (json.RawMessage, error) { return json.RawMessage(`1`), nil })
			ns.Tools[0] = tool
		}, true},
		{"description", func(ns *contract.Namespace) { ns.Tools[0] = foreign("search", "Search the whole index.", schema) }, false},
		{"schema", func(ns *contract.Namespace) {
			ns.Tools[0] = foreign("search", "Search the index.", strings.Replace(schema, `"string"`, `"number"`, 1))
		}, false},
		{"tool name", func(ns *contract.Namespace) { ns.Tools[0] = foreign("find", "Search the index.", schema) }, false},
		{"tool order", func(ns *contract.Namespace) { ns.Tools[0], ns.Tools[1] = ns.Tools[1], ns.Tools[0] }, false},
		{"namespace", func(ns *contract.Namespace) { ns.Name = "documents" }, false},
		{"annotation", func(ns *contract.Namespace) {
			ns.Tools[0] = ns.Tools[0].WithAnnotations(contract.Annotations{ReadOnly: &yes})
		}, false},
		{"one tool more", func(ns *contract.Namespace) { ns.Tools = append(ns.Tools, foreign("drop", "Drop the index.", `{}`)) }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := build(t, tc.mod).Digest()
			if (got == base) != tc.same {
				t.Fatalf("digest %s, base %s, want same=%v", got, base, tc.same)
			}
		})
	}
}
