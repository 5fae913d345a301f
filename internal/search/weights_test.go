package search

import (
	"slices"
	"strings"
	"testing"
)

func TestWeightNamesMatchDefaults(t *testing.T) {
	names, values := WeightNames(), DefaultWeights()
	if len(names) != len(values) {
		t.Fatalf("%d names, %d values", len(names), len(values))
	}
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			t.Errorf("%s named twice", n)
		}
		seen[n] = true
	}
	w, err := weightsOf(values)
	if err != nil {
		t.Fatal(err)
	}
	if w != defaultWeights() {
		t.Errorf("weightsOf(DefaultWeights()) = %+v, want %+v", w, defaultWeights())
	}
}

func TestBuildWeight(t *testing.T) {
	for _, tc := range []struct {
		name string
		want bool
	}{
		{"b", true},
		{"field.name", true},
		{"k1", false},
		{"objectAgrees", false},
		{"nonesuch", false},
	} {
		if got := BuildWeight(tc.name); got != tc.want {
			t.Errorf("BuildWeight(%q) = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestReweighted(t *testing.T) {
	docs := []Document{
		NewDocument(Tool{Namespace: "gh", Name: "create_release", Description: "Create a release\n\nPOST /repos/{owner}/{repo}/releases"}),
		NewDocument(Tool{Namespace: "gh", Name: "generate_release_notes", Description: "Generate release notes content for a release\n\nPOST /repos/{owner}/{repo}/releases/generate-notes"}),
		NewDocument(Tool{Namespace: "gh", Name: "list_releases", Description: "List releases\n\nGET /repos/{owner}/{repo}/releases"}),
	}
	ix := New(docs)
	named := func(name string, v float64) []float64 {
		values := DefaultWeights()
		values[slices.Index(WeightNames(), name)] = v
		return values
	}
	for _, tc := range []struct {
		name   string
		values []float64
		err    string // a substring of the error, "" for none
		same   bool   // the same hits and scores as ix's
	}{
		{"defaults", DefaultWeights(), "", true},
		{"search-time weight", named("objectAgrees", 0), "", false},
		{"build-time weight", named("field.name", 1), "build time", false},
		{"too few", DefaultWeights()[1:], "values, want", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rx, err := ix.Reweighted(tc.values)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want one with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want, _ := ix.Search("publish a new release with notes", 0)
			got, _ := rx.Search("publish a new release with notes", 0)
			if slices.Equal(got, want) != tc.same {
				t.Errorf("hits %v, defaults' %v; want the same: %v", got, want, tc.same)
			}
		})
	}
}

func TestNewWeightedDefaultsIsNew(t *testing.T) {
	docs := []Document{
		NewDocument(Tool{Namespace: "gh", Name: "create_release", Description: "Create a release"}),
		NewDocument(Tool{Namespace: "gh", Name: "list_releases", Description: "List releases"}),
	}
	ix, err := NewWeighted(docs, DefaultWeights())
	if err != nil {
		t.Fatal(err)
	}
	want, _ := New(docs).Search("list the releases", 0)
	if got, _ := ix.Search("list the releases", 0); !slices.Equal(got, want) {
		t.Errorf("NewWeighted(defaults) hits %v, New's %v", got, want)
	}
}
