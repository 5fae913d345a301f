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
// change that raises the objective by at least fitOptions.minGain is kept;
// passes repeat until one changes nothing (at most fitOptions.passes).
// With fitOptions.build the weights read at build time (b, the field
// weights) are fitted too, each candidate of theirs indexing the APIs
// anew (about 0.3 s). With fitOptions.every a change must also lower no
// fitted API's objective: a weight that helps one API's phrasing at
// another's cost is the overfitting the validation measures.
//
// Overfitting is guarded by leave-one-API-out validation: for each API,
// fit on the other two APIs' queries, then measure on its own; the folds'
// recall@1 and recall@5 with the default weights and with the fitted ones
// say whether fitting generalises to an API it has not seen. Last, the
// weights are fitted on all three APIs: the vector to adopt as the
// defaults when the validation says so.

// fitSteps are the multipliers tried on each weight: 0 turns a part off,
// the others move it by a half, a quarter or a third down or up, or double
// it. A weight at 0 is tried at fitRevive times each.
func fitSteps() []float64 { return []float64{0, 0.5, 0.75, 1.33, 2} }

// fitRevive is what fitSteps multiply for a weight at 0.
const fitRevive = 0.5

// fitOptions say how to fit.
type fitOptions struct {
	kinds   []string // the query sets
	minGain float64  // the least gain in objective a change must bring
	passes  int      // the most passes over the weights
	build   bool     // fit the weights read at build time too
	every   bool     // keep only changes that lower no API's objective
	only    []string // when not empty, the only weights fitted (by name)
}

// fitAPI is one API's documents, its indexes and its queries.
type fitAPI struct {
	name  string
	docs  []search.Document
	built map[string]*search.Index // by buildKey (at most two)
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
		a := &fitAPI{name: api.name, docs: docs, built: map[string]*search.Index{}}
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

// buildKey identifies the weights of values read at build time.
func buildKey(values []float64) string {
	var b strings.Builder
	for i, name := range search.WeightNames() {
		if search.BuildWeight(name) {
			fmt.Fprintf(&b, "%v ", values[i])
		}
	}
	return b.String()
}

// index is a's index searching with the weights values, built anew when
// their build-time weights are not those of the last two built.
func (a *fitAPI) index(values []float64) (*search.Index, error) {
	key := buildKey(values)
	base, ok := a.built[key]
	if !ok {
		var err error
		if base, err = search.NewWeighted(a.docs, values); err != nil {
			return nil, fmt.Errorf("%s: %w", a.name, err)
		}
		if len(a.built) >= 2 {
			clear(a.built)
		}
		a.built[key] = base
	}
	ix, err := base.Reweighted(values)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", a.name, err)
	}
	return ix, nil
}

// score ranks every query of a with the weights values.
func (a *fitAPI) score(values []float64) (fitScore, error) {
	ix, err := a.index(values)
	if err != nil {
		return fitScore{}, err
	}
	var s fitScore
	for _, t := range a.tasks {
		hits, _ := ix.Search(t.query, discovery.MaxResults)
		s.add(slices.IndexFunc(hits, func(h search.Hit) bool { return slices.Contains(t.want, h.Doc) }))
	}
	return s, nil
}

// scoreEach is each API's score.
func scoreEach(apis []*fitAPI, values []float64) ([]fitScore, error) {
	var scores []fitScore
	for _, a := range apis {
		s, err := a.score(values)
		if err != nil {
			return nil, err
		}
		scores = append(scores, s)
	}
	return scores, nil
}

// pooled is the scores counted together.
func pooled(scores []fitScore) fitScore {
	var sum fitScore
	for _, s := range scores {
		sum = sum.plus(s)
	}
	return sum
}

// fitAscend is coordinate ascent from start over the weights at the
// indices free, eval scoring a vector on each API fitted on: each pass
// tries each free weight times each of fitSteps and keeps the best change
// whose pooled objective gains at least o.minGain (and, with o.every,
// that lowers no API's objective), until a pass changes nothing or
// o.passes are done, printing each pass's value to progress (when not
// nil). It returns the best vector and its pooled objective.
func fitAscend(start []float64, free []int, o fitOptions, eval func([]float64) ([]fitScore, error), progress io.Writer) ([]float64, float64, error) {
	best := slices.Clone(start)
	scores, err := eval(best)
	if err != nil {
		return nil, 0, err
	}
	for range o.passes {
		changed := false
		for _, i := range free {
			orig := best[i]
			keep, at := orig, scores
			for _, m := range fitSteps() {
				if best[i] = orig * m; orig == 0 {
					best[i] = fitRevive * m
				}
				if best[i] == orig {
					continue
				}
				s, err := eval(best)
				if err != nil {
					return nil, 0, err
				}
				if better := pooled(s).objective() >= pooled(at).objective()+o.minGain; better && (!o.every || noneLower(s, scores)) {
					keep, at = best[i], s
				}
			}
			best[i] = keep
			if keep != orig {
				scores, changed = at, true
			}
		}
		if progress != nil {
			fmt.Fprintf(progress, "pass: objective %.4f\n", pooled(scores).objective())
		}
		if !changed {
			break
		}
	}
	return best, pooled(scores).objective(), nil
}

// noneLower reports whether no score of s has a lower objective than the
// same API's in was.
func noneLower(s, was []fitScore) bool {
	for k := range s {
		if s[k].objective() < was[k].objective() {
			return false
		}
	}
	return true
}

// freeWeights are the indices of the weights o fits: those read at
// search time, with o.build those read at build time too, and with o.only
// only those named.
func freeWeights(o fitOptions) []int {
	var free []int
	for i, name := range search.WeightNames() {
		if (o.build || !search.BuildWeight(name)) && (len(o.only) == 0 || slices.Contains(o.only, name)) {
			free = append(free, i)
		}
	}
	return free
}

// fitWeights runs the leave-one-API-out validation and the fit on all
// APIs, printing the folds' figures and the fitted weights to w and the
// passes' progress to progress.
func fitWeights(ctx context.Context, w, progress io.Writer, o fitOptions) error {
	for _, name := range o.only {
		if !slices.Contains(search.WeightNames(), name) {
			return fmt.Errorf("-fit-only: no weight %q (search.WeightNames)", name)
		}
	}
	apis, err := loadFitAPIs(ctx, o.kinds)
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
	if err := validateFolds(w, progress, apis, o); err != nil {
		return err
	}
	return fitAll(w, progress, apis, o)
}

// validateFolds fits on every two APIs and measures on the third,
// printing each fold's held-out recall with the default and the fitted
// weights, their mean, and each fold's fitted weights.
func validateFolds(w, progress io.Writer, apis []*fitAPI, o fitOptions) error {
	defaults := search.DefaultWeights()
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "held-out api\tqueries\tdefault r@1\tdefault r@5\tfitted r@1\tfitted r@5\tfit-set objective, default -> fitted\t\n")
	var mean [4]float64 // the folds' default and fitted recall@1 and @5, averaged
	var changes []string
	for h, held := range apis {
		rest := slices.Delete(slices.Clone(apis), h, h+1)
		fitted, obj, err := fitAscend(defaults, freeWeights(o), o, func(v []float64) ([]fitScore, error) { return scoreEach(rest, v) }, progress)
		if err != nil {
			return err
		}
		start, err := scoreEach(rest, defaults)
		if err != nil {
			return err
		}
		d, f, err := held.compare(defaults, fitted)
		if err != nil {
			return err
		}
		d1, d5 := d.recall()
		f1, f5 := f.recall()
		for k, r := range [4]float64{d1, d5, f1, f5} {
			mean[k] += r / float64(len(apis))
		}
		fmt.Fprintf(tw, "%s\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t%.4f -> %.4f\t\n", held.name, d.n, d1, d5, f1, f5, pooled(start).objective(), obj)
		changes = append(changes, "fold "+held.name+": "+weightChanges(defaults, fitted))
	}
	fmt.Fprintf(tw, "mean of folds\t\t%.3f\t%.3f\t%.3f\t%.3f\t\t\n", mean[0], mean[1], mean[2], mean[3])
	tw.Flush()
	for _, c := range changes {
		fmt.Fprintln(w, c)
	}
	return nil
}

// fitAll fits on all the APIs and prints the fitted weights and each
// API's recall (in sample) with the default and the fitted weights.
func fitAll(w, progress io.Writer, apis []*fitAPI, o fitOptions) error {
	defaults := search.DefaultWeights()
	fitted, obj, err := fitAscend(defaults, freeWeights(o), o, func(v []float64) ([]fitScore, error) { return scoreEach(apis, v) }, progress)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "all three APIs: objective %.4f; %s\n", obj, weightChanges(defaults, fitted))
	for _, a := range apis {
		d, f, err := a.compare(defaults, fitted)
		if err != nil {
			return err
		}
		d1, d5 := d.recall()
		f1, f5 := f.recall()
		fmt.Fprintf(w, "%s (%d queries, fitted on): default %.3f/%.3f, fitted %.3f/%.3f\n", a.name, d.n, d1, d5, f1, f5)
	}
	return nil
}

// compare is a's score with the weights x and with y.
func (a *fitAPI) compare(x, y []float64) (fitScore, fitScore, error) {
	sx, err := a.score(x)
	if err != nil {
		return fitScore{}, fitScore{}, err
	}
	sy, err := a.score(y)
	return sx, sy, err
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
