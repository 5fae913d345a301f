package main

import (
	"slices"
	"testing"
)

func TestExcludedLeavesOutTheMeasuredAPIs(t *testing.T) {
	for _, c := range []struct {
		rel  string
		want bool
	}{
		{"github.com/api.github.com.json", true},
		{"github.com/ghes-3.8.json", true},
		{"stripe.com.json", true},
		{"kubernetes.io.json", true},
		{"gitea.io.json", false},
		{"adyen.com/DisputeService-v30.json", false},
		{"rubrikinc.github.io.json", false},
	} {
		if got := excluded(c.rel); got != c.want {
			t.Errorf("excluded(%q) = %v, want %v", c.rel, got, c.want)
		}
	}
}

func TestProviderIsTheFirstPathComponent(t *testing.T) {
	for _, c := range []struct{ rel, want string }{
		{"adyen.com/DisputeService-v30.json", "adyen.com"},
		{"squareup.com.json", "squareup.com"},
		{"amazonaws.com/s3.json", "amazonaws.com"},
	} {
		if got := provider(c.rel); got != c.want {
			t.Errorf("provider(%q) = %q, want %q", c.rel, got, c.want)
		}
	}
}

func TestFirstWordsDropsMarkupAndStopsAtTheLimit(t *testing.T) {
	for _, c := range []struct {
		text string
		want []string
	}{
		{"<p>Accept a <b>dispute</b></p> see https://example.com/docs", []string{"accept", "disput", "see"}},
		{"Create a chargeback", []string{"creat", "chargeback"}},
	} {
		if got := firstWords(c.text); !slices.Equal(got, c.want) {
			t.Errorf("firstWords(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}
