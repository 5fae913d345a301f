package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/internal/discovery"
	"github.com/codemode-go/codemode/internal/search"
)

// Fitting the ranking's weights (-fit).
//
// The three large APIs' documents are loaded and indexed once; a weight
// vector read only at search time (search.BuildWeight false) is tried by
// re-weighting the built index (search.Index.Reweighted), so a candidate
// costs one search per query. The objective is the mean over queries of
// (hit at 1 + hit in the first 5 + reciprocal rank)/3: recall@1 and
// recall@5, which are what the goal counts, with the reciprocal rank to
// tell apart vectors that move a query within or beyond the first five.
//
// The search is coordinate ascent (fitAscend): from the defaults, each
// free weight in turn is multiplied by each of fitSteps, and the best
// change that raises the objective by at least fitMinGain is kept; passes
// repeat until one changes nothing (at most fitPasses).
//
// Overfitting is guarded by leave-one-API-out validation: for each API,
// fit on the other two APIs' queries, then measure on its own; the folds'
// recall@1 and recall@5 with the default weights and with the fitted ones
// say whether fitting generalises to an API it has not seen. Last, the
// weights are fitted on all three APIs: the vector to adopt as the
// defaults when the validation says so.

// fitSteps are the multipliers tried on each weight: 0 turns a part off
// (for good: a zero stays zero), the others move it by a half, a quarter
// or a third down or up, or double it.
func fitSteps() []float64 { return []float64{0, 0.5, 0.75, 1.33, 2} }

const (
	// fitPasses is the most passes over the weights.
	fitPasses = 4
	// fitMinGain is the least gain in objective a change must bring.
	fitMinGain = 1e-4
)

// fitAPI is one API's documents, its index and its queries.
type fitAPI struct {
	name  string
	index *search.Index // built with the default weights
	tasks []fitTask
}

// fitTask is a query and the documents any of which answers it.
type fitTask struct {
	query string
	want  []int
}

// fitScore counts ranks: queries, answered first, answered in the first
// five, and the sum of the reciprocal ranks (0 when not found).
type fitScore struct {
	n, at1, at5 int
	rr          float64
}

// add counts one query whose answer is at rank (0-based; -1: not found).
func (s *fitScore) add(rank int) {
	s.n++
	if rank < 0 {
		return
	}
	if rank == 0 {
		s.at1++
	}
	if rank < 5 {
		s.at5++
	}
	s.rr += 1 / float64(rank+1)
}

// plus is s and t counted together.
func (s fitScore) plus(t fitScore) fitScore {
	return fitScore{s.n + t.n, s.at1 + t.at1, s.at5 + t.at5, s.rr + t.rr}
}

// objective is the mean over queries of (hit at 1 + hit in the first 5 +
// reciprocal rank)/3; 0 without queries.
func (s fitScore) objective() float64 {
	if s.n == 0 {
		return 0
	}
	return (float64(s.at1) + float64(s.at5) + s.rr) / 3 / float64(s.n)
}

// recall is recall@1 and recall@5.
func (s fitScore) recall() (float64, float64) {
	if s.n == 0 {
		return 0, 0
	}
	return float64(s.at1) / float64(s.n), float64(s.at5) / float64(s.n)
}

// loadFitAPIs loads and indexes each large API and reads its query sets of
// the given kinds.
func loadFitAPIs(ctx context.Context, kinds []string) ([]*fitAPI, error) {
	var apis []*fitAPI
	for _, api := range largeAPIs() {
		path, err := toolsFile(api.file)
		if err != nil {
			return nil, fmt.Errorf("fitting needs every large API: %w", err)
		}
		ns, err := loadNamespace(ctx, path, api.name)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", api.name, err)
		}
		k, err := contract.NewNamespaced(ns)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", api.name, err)
		}
		docs, paths := discovery.New(k).ToolDocuments()
		a := &fitAPI{name: api.name, index: search.New(docs)}
		for _, kind := range kinds {
			tasks, err := querySet(api.name, kind)
			if err != nil {
				return nil, err
			}
			for _, t := range tasks {
				ft := fitTask{query: t.query}
				for _, w := range strings.Fields(t.want) {
					if i := slices.Index(paths, w); i >= 0 {
						ft.want = append(ft.want, i)
					}
				}
				a.tasks = append(a.tasks, ft)
			}
		}
		apis = append(apis, a)
	}
	return apis, nil
}

// score ranks every query of a with the weights values.
func (a *fitAPI) score(values []float64) (fitScore, error) {
	ix, err := a.index.Reweighted(values)
	if err != nil {
		return fitScore{}, fmt.Errorf("%s: %w", a.name, err)
	}
	var s fitScore
	for _, t := range a.tasks {
		hits, _ := ix.Search(t.query, discovery.MaxResults)
		s.add(slices.IndexFunc(hits, func(h search.Hit) bool { return slices.Contains(t.want, h.Doc) }))
	}
	return s, nil
}

// scoreAll is the APIs' scores counted together.
func scoreAll(apis []*fitAPI, values []float64) (fitScore, error) {
	var sum fitScore
	for _, a := range apis {
		s, err := a.score(values)
		if err != nil {
			return fitScore{}, err
		}
		sum = sum.plus(s)
	}
	return sum, nil
}

// fitAscend is coordinate ascent on eval from start over the weights at
// the indices free: each pass tries each free weight times each of
// fitSteps and keeps the best change that gains at least fitMinGain, until
// a pass changes nothing or fitPasses are done, printing each pass's value
// to progress (when not nil). It returns the best vector and its value.
func fitAscend(start []float64, free []int, eval func([]float64) (float64, error), progress io.Writer) ([]float64, float64, error) {
	best := slices.Clone(start)
	value, err := eval(best)
	if err != nil {
		return nil, 0, err
	}
	for range fitPasses {
		changed := false
		for _, i := range free {
			orig := best[i]
			keep, at := orig, value
			for _, m := range fitSteps() {
				if best[i] = orig * m; best[i] == orig {
					continue
				}
				v, err := eval(best)
				if err != nil {
					return nil, 0, err
				}
				if v >= at+fitMinGain {
					keep, at = best[i], v
				}
			}
			best[i] = keep
			if keep != orig {
				value, changed = at, true
			}
		}
		if progress != nil {
			fmt.Fprintf(progress, "pass: objective %.4f\n", value)
		}
		if !changed {
			break
		}
	}
	return best, value, nil
}

// searchWeights are the indices of the weights read at search time.
func searchWeights() []int {
	var free []int
	for i, name := range search.WeightNames() {
		if !search.BuildWeight(name) {
			free = append(free, i)
		}
	}
	return free
}

// fitWeights runs the leave-one-API-out validation and the fit on all
// APIs, printing the folds' figures and the fitted weights to w and the
// passes' progress to progress.
func fitWeights(ctx context.Context, w, progress io.Writer, kinds []string) error {
	apis, err := loadFitAPIs(ctx, kinds)
	if err != nil {
		return err
	}
	for _, a := range apis {
		t0 := time.Now()
		s, err := a.score(search.DefaultWeights())
		if err != nil {
			return err
		}
		r1, r5 := s.recall()
		fmt.Fprintf(progress, "%s: %d queries, default weights %.3f/%.3f (%d/%d), scored in %v\n", a.name, s.n, r1, r5, s.at1, s.at5, time.Since(t0).Round(time.Millisecond))
	}
	defaults := search.DefaultWeights()
	free := searchWeights()
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "held-out api\tqueries\tdefault r@1\tdefault r@5\tfitted r@1\tfitted r@5\tfit-set objective\t\n")
	var mean [4]float64 // the folds' default and fitted recall@1 and @5, averaged
	var changes []string
	for h, held := range apis {
		rest := slices.Delete(slices.Clone(apis), h, h+1)
		fitted, obj, err := fitAscend(defaults, free, func(v []float64) (float64, error) {
			s, err := scoreAll(rest, v)
			return s.objective(), err
		}, progress)
		if err != nil {
			return err
		}
		d, err := held.score(defaults)
		if err != nil {
			return err
		}
		f, err := held.score(fitted)
		if err != nil {
			return err
		}
		d1, d5 := d.recall()
		f1, f5 := f.recall()
		for k, r := range [4]float64{d1, d5, f1, f5} {
			mean[k] += r / float64(len(apis))
		}
		fmt.Fprintf(tw, "%s\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t%.4f\t\n", held.name, d.n, d1, d5, f1, f5, obj)
		changes = append(changes, "fold "+held.name+": "+weightChanges(defaults, fitted))
	}
	fmt.Fprintf(tw, "mean of folds\t\t%.3f\t%.3f\t%.3f\t%.3f\t\t\n", mean[0], mean[1], mean[2], mean[3])
	tw.Flush()
	for _, c := range changes {
		fmt.Fprintln(w, c)
	}
	fitted, obj, err := fitAscend(defaults, free, func(v []float64) (float64, error) {
		s, err := scoreAll(apis, v)
		return s.objective(), err
	}, progress)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "all three APIs: objective %.4f; %s\n", obj, weightChanges(defaults, fitted))
	for _, a := range apis {
		d, err := a.score(defaults)
		if err != nil {
			return err
		}
		f, err := a.score(fitted)
		if err != nil {
			return err
		}
		d1, d5 := d.recall()
		f1, f5 := f.recall()
		fmt.Fprintf(w, "%s (%d queries, fitted on): default %.3f/%.3f, fitted %.3f/%.3f\n", a.name, d.n, d1, d5, f1, f5)
	}
	return nil
}

// weightChanges lists the weights of fitted that differ from defaults.
func weightChanges(defaults, fitted []float64) string {
	var changes []string
	for i, name := range search.WeightNames() {
		if fitted[i] != defaults[i] {
			changes = append(changes, fmt.Sprintf("%s %g→%g", name, defaults[i], fitted[i]))
		}
	}
	if changes == nil {
		return "no change"
	}
	return strings.Join(changes, ", ")
}
