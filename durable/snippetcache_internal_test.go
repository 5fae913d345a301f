package durable

import (
	"fmt"
	"strings"
	"testing"
)

// TestCompiledSnippetsKeepTheRecentOnes: the cache answers what it was
// given, evicts the least recently used past maxCompiledSnippets, and
// keeps nothing too large.
func TestCompiledSnippetsKeepTheRecentOnes(t *testing.T) {
	var c compiledSnippets
	for i := range maxCompiledSnippets {
		c.put(fmt.Sprint("k", i), fmt.Sprint("js", i))
	}
	if js, ok := c.get("k0"); !ok || js != "js0" {
		t.Fatalf("k0: %q, %v", js, ok)
	}
	c.put("new", "js-new") // evicts k1, the least recently used now
	if _, ok := c.get("k1"); ok {
		t.Fatal("k1 was kept past the bound")
	}
	for _, k := range []string{"k0", "k2", "new"} {
		if _, ok := c.get(k); !ok {
			t.Fatalf("%s was evicted", k)
		}
	}
	c.put("big", strings.Repeat("x", maxCompiledSnippetBytes))
	if _, ok := c.get("big"); ok {
		t.Fatal("a snippet past maxCompiledSnippetBytes was kept")
	}
	if len(c.order) != maxCompiledSnippets || len(c.byKey) != maxCompiledSnippets {
		t.Fatalf("%d in order, %d in the map", len(c.order), len(c.byKey))
	}
}
