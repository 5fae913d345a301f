package storetest

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/codemode-go/codemode/durable/store"
)

// testSnippets: save, replace, read, list by name, per runtime, delete.
func testSnippets(t *testing.T, s store.Store) {
	ctx := context.Background()
	if list, err := s.Snippets(ctx, rt); err != nil || len(list) != 0 {
		t.Fatalf("Snippets of an empty store = %v, %v", list, err)
	}
	if _, ok, err := s.Snippet(ctx, rt, "none"); ok || err != nil {
		t.Fatalf("Snippet of a missing name = %v, %v", ok, err)
	}
	first := &store.Snippet{Name: "list-open-prs", Description: "List open pull requests.", Code: "async ({ github }) => github.list({})",
		SavedAt: 10, InputSchema: json.RawMessage(`{"type":"object"}`), Connectors: []string{"github", "stripe"}}
	other := &store.Snippet{Name: "a.first", Code: "1\x00 — ünïcode", SavedAt: 11}
	for _, sn := range []*store.Snippet{first, other} {
		if err := s.SaveSnippet(ctx, rt, sn); err != nil {
			t.Fatalf("SaveSnippet(%s): %v", sn.Name, err)
		}
	}
	if err := s.SaveSnippet(ctx, "other-runtime", &store.Snippet{Name: "list-open-prs", Code: "2", SavedAt: 1}); err != nil {
		t.Fatal(err)
	}
	got, ok, err := s.Snippet(ctx, rt, "list-open-prs")
	if err != nil || !ok || got.Description != first.Description || got.Code != first.Code || got.SavedAt != 10 ||
		string(got.InputSchema) != `{"type":"object"}` || !slices.Equal(got.Connectors, first.Connectors) {
		t.Fatalf("Snippet = %+v, %v, %v", got, ok, err)
	}
	// Saving the same name replaces it.
	replaced := &store.Snippet{Name: "list-open-prs", Description: "New.", Code: "3", SavedAt: 12}
	if err := s.SaveSnippet(ctx, rt, replaced); err != nil {
		t.Fatal(err)
	}
	list, err := s.Snippets(ctx, rt)
	if err != nil || len(list) != 2 || list[0].Name != "a.first" || list[1].Name != "list-open-prs" {
		t.Fatalf("Snippets = %+v, %v; want a.first then list-open-prs", list, err)
	}
	if list[0].Code != other.Code || list[0].InputSchema != nil || list[0].Connectors != nil {
		t.Errorf("a.first read back as %+v", list[0])
	}
	if l := list[1]; l.Description != "New." || l.Code != "3" || l.SavedAt != 12 || l.InputSchema != nil || l.Connectors != nil {
		t.Errorf("the replaced snippet read back as %+v", l)
	}
	if ok, err := s.DeleteSnippet(ctx, rt, "list-open-prs"); !ok || err != nil {
		t.Fatalf("DeleteSnippet = %v, %v", ok, err)
	}
	if ok, err := s.DeleteSnippet(ctx, rt, "list-open-prs"); ok || err != nil {
		t.Fatalf("second DeleteSnippet = %v, %v", ok, err)
	}
	if got, ok, err := s.Snippet(ctx, "other-runtime", "list-open-prs"); !ok || err != nil || got.Code != "2" {
		t.Fatalf("the other runtime's snippet: %+v, %v, %v", got, ok, err)
	}
}
