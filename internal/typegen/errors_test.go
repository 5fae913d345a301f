package typegen

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// errorsSurface is a namespace "github" with a tool declaring each of errs.
func errorsSurface(errs ...[]ErrorDecl) Surface {
	ns := Namespace{Name: "github"}
	for i, e := range errs {
		ns.Tools = append(ns.Tools, ToolDecl{
			Name:         "tool" + string(rune('a'+i)),
			Description:  "A tool.",
			InputSchema:  json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`),
			OutputSchema: json.RawMessage(`{"type":"null"}`),
			Errors:       e,
		})
	}
	return Surface{Namespaces: []Namespace{ns}}
}

func TestDeclaredErrorsRefused(t *testing.T) {
	props := func(s string) json.RawMessage { return json.RawMessage(s) }
	notFound := ErrorDecl{Name: "NotFoundError", Description: "Not there."}
	cases := []struct {
		name string
		errs [][]ErrorDecl
		want string // in the error text
	}{
		{"not ending in Error", [][]ErrorDecl{{{Name: "NotFound", Description: "x"}}}, "ending in Error"},
		{"not an identifier", [][]ErrorDecl{{{Name: "Not-FoundError", Description: "x"}}}, "identifier"},
		{"empty", [][]ErrorDecl{{{Name: "", Description: "x"}}}, "identifier"},
		{"a zero-width joiner", [][]ErrorDecl{{{Name: "Not\u200dFoundError", Description: "x"}}}, "hides"},
		{"a combining grapheme joiner", [][]ErrorDecl{{{Name: "Not\u034fFoundError", Description: "x"}}}, "hides"},
		{"a variation selector", [][]ErrorDecl{{{Name: "NotFound\ufe0fError", Description: "x"}}}, "hides"},
		{"JavaScript's own", [][]ErrorDecl{{{Name: "TypeError", Description: "x"}}}, "JavaScript's or code mode's own"},
		{"code mode's own", [][]ErrorDecl{{{Name: "HTTPError", Description: "x"}}}, "JavaScript's or code mode's own"},
		{"the runner's timeout", [][]ErrorDecl{{{Name: "TimeoutError", Description: "x"}}}, "JavaScript's or code mode's own"},
		{"the remote host's draining", [][]ErrorDecl{{{Name: "RunnerDrainingError", Description: "x"}}}, "JavaScript's or code mode's own"},
		{"AggregateError", [][]ErrorDecl{{{Name: "AggregateError", Description: "x"}}}, "JavaScript's or code mode's own"},
		{"blank description", [][]ErrorDecl{{{Name: "NotFoundError", Description: " \n "}}}, "description"},
		{"property message", [][]ErrorDecl{{{Name: "NotFoundError", Description: "x", Properties: props(`{"type":"object","properties":{"message":{"type":"string"}}}`)}}}, `"message"`},
		{"property toString", [][]ErrorDecl{{{Name: "NotFoundError", Description: "x", Properties: props(`{"type":"object","properties":{"toString":{"type":"string"}}}`)}}}, `"toString"`},
		{"declared unlike", [][]ErrorDecl{{notFound}, {{Name: "NotFoundError", Description: "Gone."}}}, "another description or properties"},
		{"unlike properties", [][]ErrorDecl{{notFound}, {{Name: "NotFoundError", Description: "Not there.", Properties: props(`{"type":"object","properties":{"a":{"type":"string"}}}`)}}}, "another description or properties"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Declarations(errorsSurface(c.errs...))
			var se *SchemaError
			if !errors.As(err, &se) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Declarations: %v, want a *SchemaError containing %q", err, c.want)
			}
			if !strings.Contains(err.Error(), "github.tool") {
				t.Errorf("error %q does not name the tool", err)
			}
		})
	}
}

// TestDeclaredErrorSaysHowToTellItApart: a declared error is an interface,
// which a program cannot test with instanceof (a type error, and a
// ReferenceError where the program runs unchecked), so its JSDoc says how
// to tell it apart, in the declarations and in describe's answer alike.
func TestDeclaredErrorSaysHowToTellItApart(t *testing.T) {
	surface := errorsSurface([]ErrorDecl{{Name: "NotFoundError", Description: "Not there."}})
	full, err := Declarations(surface)
	if err != nil {
		t.Fatal(err)
	}
	described, err := NamespaceDeclarations(surface.Namespaces[0])
	if err != nil {
		t.Fatal(err)
	}
	const want = " * Not a class: tell it by `e instanceof Error && e.name === \"NotFoundError\"`, then read it as `e as NotFoundError`.\n */\ninterface NotFoundError extends Error {"
	for name, got := range map[string]string{"Declarations": full, "NamespaceDeclarations": described} {
		if !strings.Contains(got, want) {
			t.Errorf("%s does not say how to tell NotFoundError apart:\n%s", name, got)
		}
	}
}

// TestDeclaredErrorsOnceAlike: two tools may declare one error alike (its
// properties' JSON spaced differently); it is printed once, and both tools
// name it.
func TestDeclaredErrorsOnceAlike(t *testing.T) {
	a := ErrorDecl{Name: "NotFoundError", Description: "Not there.", Properties: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}}}`)}
	b := a
	b.Properties = json.RawMessage(`{ "type": "object", "properties": { "id": { "type": "string" } } }`)
	got, err := Declarations(errorsSurface([]ErrorDecl{a}, []ErrorDecl{b}))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(got, "interface NotFoundError extends Error"); n != 1 {
		t.Errorf("NotFoundError declared %d times, want once:\n%s", n, got)
	}
	if n := strings.Count(got, "@throws {NotFoundError} Not there."); n != 2 {
		t.Errorf("@throws tag printed %d times, want 2:\n%s", n, got)
	}
}

// TestDeclaredErrorsTypeCheck: a program that narrows a caught error by its
// name reads the declared properties, and one that reads a property the
// error does not declare is refused by the real TypeScript compiler.
func TestDeclaredErrorsTypeCheck(t *testing.T) {
	tsc := findTSC(t)
	surface, err := os.ReadFile(filepath.Join("testdata", "errors.d.ts"))
	if err != nil {
		t.Fatal(err)
	}
	good := `const p: AgentProgram = async ({ github }) => {
  try {
    await github.get_repo({ repo: "x" });
  } catch (e) {
    if (e instanceof Error && e.name === "NotFoundError") {
      const nf = e as NotFoundError;
      return nf.repo.toUpperCase() + (nf.suggestions ?? []).join(",");
    }
    if ((e as RateLimitError).name === "RateLimitError") return (e as RateLimitError).retryAfter * 1000;
    throw e;
  }
};
`
	compileWithTSC(t, tsc, string(surface), good)
	bad := `const p: AgentProgram = async ({ github }) => {
  try {
    await github.get_repo({ repo: "x" });
  } catch (e) {
    return (e as NotFoundError).retryAfter;
  }
};
`
	if out, ok := tscErrors(t, tsc, string(surface), bad); ok || !strings.Contains(out, "retryAfter") {
		t.Errorf("tsc accepted a property NotFoundError does not declare (ok %v):\n%s", ok, out)
	}
}

// TestDescribeShowsDeclaredErrors: describing one tool shows its @throws
// tags and the interfaces of its errors, and only its own.
func TestDescribeShowsDeclaredErrors(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "errors.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s Surface
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	d, err := NewDescriber(s.Namespaces[0])
	if err != nil {
		t.Fatal(err)
	}
	got, err := d.Tool("delete_repo", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"@throws {NotFoundError}", "@throws {ForbiddenError}", "interface NotFoundError extends Error", "readonly repo: string;", "interface ForbiddenError extends Error"} {
		if !strings.Contains(got, want) {
			t.Errorf("describe lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "RateLimitError") {
		t.Errorf("describe of delete_repo shows get_repo's error:\n%s", got)
	}
}

// FuzzDeclaredErrors: a declared error either prints (once, as an
// interface extending Error, its description unable to end the comment)
// or fails with a *SchemaError naming the spot.
func FuzzDeclaredErrors(f *testing.F) {
	f.Add("NotFoundError", "Not there.", []byte(`{"type":"object","properties":{"repo":{"type":"string"}}}`))
	f.Add("XError", "a */ b\n@readonly", []byte(`{"properties":{"message":{}}}`))
	f.Add("TimeoutError", "x", []byte(`[]`))
	f.Add("ÄError", "\u202e", []byte(`{"type":"object","additionalProperties":{"type":"number"}}`))
	f.Fuzz(func(t *testing.T, name, description string, props []byte) {
		s := errorsSurface([]ErrorDecl{{Name: name, Description: description, Properties: props}})
		got, err := Declarations(s)
		if err != nil {
			var se *SchemaError
			if !errors.As(err, &se) || se.Pointer == "" || se.Message == "" {
				t.Fatalf("error %v (%T) is not a complete *SchemaError", err, err)
			}
			return
		}
		if !isIdentifier(name) || !strings.HasSuffix(name, "Error") || reservedErrorName(name) {
			t.Fatalf("error name %q was declared", name)
		}
		if n := strings.Count(got, "\ninterface "+name+" extends Error {\n"); n != 1 {
			t.Fatalf("interface %s printed %d times:\n%s", name, n, got)
		}
		for _, line := range strings.Split(got, "\n") {
			if strings.Contains(line, "*/") && !strings.HasSuffix(strings.TrimSpace(line), "*/") {
				t.Fatalf("a comment ends inside a line: %q", line)
			}
		}
	})
}
