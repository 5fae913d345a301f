package openapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codemode-go/codemode/connector/openapi"
)

// writeDoc writes an OpenAPI 3.0 document with the given component schemas.
func writeDoc(t *testing.T, schemas map[string]any) string {
	t.Helper()
	doc := map[string]any{
		"openapi": "3.0.3", "info": map[string]any{"title": "t", "version": "1"},
		"paths": map[string]any{}, "components": map[string]any{"schemas": schemas},
	}
	raw, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "api.json")
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// chain is n schemas S0 → S1 → … each only a $ref to the next, ending in
// a string.
func chain(n int) map[string]any {
	s := map[string]any{fmt.Sprintf("S%d", n): map[string]any{"type": "string"}}
	for i := range n {
		s[fmt.Sprintf("S%d", i)] = map[string]any{"$ref": fmt.Sprintf("#/components/schemas/S%d", i+1)}
	}
	return s
}

// spelledChain is n schemas named by name (a format of the index), each
// ref(the next's index), the last a string.
func spelledChain(n int, name string, ref func(int) map[string]any) map[string]any {
	s := map[string]any{fmt.Sprintf(name, n): map[string]any{"type": "string"}}
	for i := range n {
		s[fmt.Sprintf(name, i)] = ref(i + 1)
	}
	return s
}

// TestHostileDocumentShapesAreRefused: a long chain of $ref-only schemas
// (quadratic in kin-openapi's resolver: 20,000 took 331 s) and a document
// with more than MaxComponents components are refused at once, naming the
// limit; a short chain and a cycle load.
func TestHostileDocumentShapesAreRefused(t *testing.T) {
	opts := openapi.Options{Name: "api", BaseURL: "http://127.0.0.1:9"}
	ctx := context.Background()
	if _, _, err := openapi.Load(ctx, writeDoc(t, chain(10)), opts); err != nil {
		t.Fatalf("a chain of 10: %v", err)
	}
	cycle := map[string]any{"A": map[string]any{"$ref": "#/components/schemas/B"}, "B": map[string]any{"$ref": "#/components/schemas/A"}}
	if _, _, err := openapi.Load(ctx, writeDoc(t, cycle), opts); err != nil && strings.Contains(err.Error(), "chain") {
		t.Fatalf("a cycle: %v", err)
	}
	start := time.Now()
	_, _, err := openapi.Load(ctx, writeDoc(t, chain(20000)), opts)
	const want = "schema #/components/schemas/S0 starts a chain of 20000 schemas that are each a $ref to the next, more than 64"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("a chain of 20,000: %v, want %q", err, want)
	}
	t.Logf("refused in %s: %v", time.Since(start), err)
	// However the references are spelled, as the resolver reads them:
	// percent-encoded, escaped, or with siblings it ignores.
	for _, spell := range []struct {
		name    string
		schemas map[string]any
	}{
		{"percent-encoded", spelledChain(2000, "S%d", func(i int) map[string]any {
			return map[string]any{"$ref": fmt.Sprintf("#/components/schemas/%%53%d", i)}
		})},
		{"escaped", spelledChain(2000, "S/%d", func(i int) map[string]any {
			return map[string]any{"$ref": fmt.Sprintf("#/components/schemas/S~1%d", i)}
		})},
		{"with a sibling", spelledChain(2000, "S%d", func(i int) map[string]any {
			return map[string]any{"$ref": fmt.Sprintf("#/components/schemas/S%d", i), "description": "next"}
		})},
	} {
		_, _, err := openapi.Load(ctx, writeDoc(t, spell.schemas), opts)
		if err == nil || !strings.Contains(err.Error(), "starts a chain of 2000 schemas") {
			t.Errorf("a chain of 2,000 %s: %v", spell.name, err)
		}
	}
	many := map[string]any{}
	for i := range 50_000 + 1 {
		many[fmt.Sprintf("C%d", i)] = map[string]any{"type": "string"}
	}
	if _, _, err := openapi.Load(ctx, writeDoc(t, many), opts); err == nil || !strings.Contains(err.Error(), "components, more than") {
		t.Fatalf("%d components: %v", 50_000+1, err)
	}
}
