package main

import (
	"math"
	"slices"
	"testing"

	"github.com/codemode-go/codemode/internal/search"
)

func TestFitScore(t *testing.T) {
	for _, tc := range []struct {
		name          string
		ranks         []int
		at1, at5      int
		rr, objective float64
	}{
		{"none", nil, 0, 0, 0, 0},
		{"first", []int{0}, 1, 1, 1, 1},
		{"missed", []int{-1}, 0, 0, 0, 0},
		{"second and sixth", []int{1, 5}, 0, 1, 0.5 + 1.0/6, (1 + 0.5 + 1.0/6) / 3 / 2},
		{"first, fifth, absent", []int{0, 4, -1}, 1, 2, 1.2, (1 + 2 + 1.2) / 3 / 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s fitScore
			for _, r := range tc.ranks {
				s.add(r)
			}
			if s.n != len(tc.ranks) || s.at1 != tc.at1 || s.at5 != tc.at5 || math.Abs(s.rr-tc.rr) > 1e-12 {
				t.Errorf("score %+v, want n %d at1 %d at5 %d rr %g", s, len(tc.ranks), tc.at1, tc.at5, tc.rr)
			}
			if got := s.objective(); math.Abs(got-tc.objective) > 1e-12 {
				t.Errorf("objective %g, want %g", got, tc.objective)
			}
			if sum := s.plus(s); sum.n != 2*s.n || sum.at1 != 2*s.at1 || sum.at5 != 2*s.at5 {
				t.Errorf("plus itself %+v, want twice %+v", sum, s)
			}
		})
	}
}

// synthetic is an API's score whose objective is v.
func synthetic(v float64) fitScore { return fitScore{n: 1, rr: 3 * v} }

func TestFitAscend(t *testing.T) {
	// One API's peak at (2, 0.5, 3); another's at (1, 0.5, 3).
	peak := func(x0 float64) func(v []float64) float64 {
		return func(v []float64) float64 { return -(v[0]-x0)*(v[0]-x0) - (v[1]-0.5)*(v[1]-0.5) - (v[2]-3)*(v[2]-3) }
	}
	one := func(v []float64) ([]fitScore, error) { return []fitScore{synthetic(peak(2)(v))}, nil }
	two := func(v []float64) ([]fitScore, error) {
		return []fitScore{synthetic(peak(2)(v)), synthetic(peak(1)(v))}, nil
	}
	for _, tc := range []struct {
		name        string
		eval        func([]float64) ([]fitScore, error)
		every       bool
		start, want []float64
		free        []int
	}{
		{"reaches the peak by steps", one, false, []float64{1, 1, 1}, []float64{2, 0.5, 1}, []int{0, 1}},
		{"fixed weights stay", one, false, []float64{1, 1, 1}, []float64{1, 1, 1}, nil},
		{"at the peak already", one, false, []float64{2, 0.5, 1}, []float64{2, 0.5, 1}, []int{0, 1}},
		{"a zero is tried at fitRevive's multiples", one, false, []float64{0, 1, 1}, []float64{2, 0.5, 1}, []int{0, 1}},
		{"two APIs pooled", two, false, []float64{1, 1, 1}, []float64{1.33, 0.5, 1}, []int{0, 1}},
		{"two APIs, lowering neither", two, true, []float64{1, 1, 1}, []float64{1, 0.5, 1}, []int{0, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, value, err := fitAscend(tc.start, tc.free, fitOptions{minGain: 1e-4, passes: 4, every: tc.every}, tc.eval, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("fitted %v, want %v", got, tc.want)
			}
			if s, _ := tc.eval(tc.want); math.Abs(value-pooled(s).objective()) > 1e-12 {
				t.Errorf("value %g, want %g", value, pooled(s).objective())
			}
		})
	}
}

func TestWeightChanges(t *testing.T) {
	d := search.DefaultWeights()
	for _, tc := range []struct {
		name   string
		fitted func([]float64)
		want   string
	}{
		{"none", func([]float64) {}, "no change"},
		{"k1", func(v []float64) { v[0] *= 2 }, "k1 1.2→2.4"},
	} {
		f := slices.Clone(d)
		tc.fitted(f)
		if got := weightChanges(d, f); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
