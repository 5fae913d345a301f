// Package boundtest runs a memtest.Flood on a fresh runtime and checks what
// Limits.MaxInFlightBytes bounded: the client's, the OpenAPI connector's
// and the MCP connector's memory tests share it. It is apart from memtest,
// which packages below the client (internal/credhttp) use too.
package boundtest

import (
	"context"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/internal/memtest"
)

// program makes no call of its own: the flood's runner makes them.
const program = "export default async () => {}"

// RunWith runs one execution of flood f on a fresh runtime against k, with opts
// and a Limits.MaxInFlightBytes of bound, and returns how far the heap grew
// while it ran (memtest.HeapGrowth) and its outcome; the answers to f's calls go to
// answers, which is closed when the runner ends. A runtime that does not
// start, or a run that returns an error, fails the test.
func RunWith(t testing.TB, f memtest.Flood, k *contract.Contract, bound int64, opts client.RunOptions, answers chan string) (grew int64, out *client.Outcome) {
	t.Helper()
	rt, err := client.NewRuntime(context.Background(), f.Driver(answers))
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	opts.Limits.MaxInFlightBytes = bound
	grew = memtest.HeapGrowth(func() {
		out, err = client.New(rt, k).Run(context.Background(), program, opts)
	})
	if err != nil {
		t.Fatal(err)
	}
	return grew, out
}

// Run is RunWith that returns the answers to f's calls, in the order they
// came: "" for a success, else the error ("Name: message").
func Run(t testing.TB, f memtest.Flood, k *contract.Contract, bound int64, opts client.RunOptions) (grew int64, out *client.Outcome, answers []string) {
	t.Helper()
	ch := make(chan string, f.Calls)
	grew, out = RunWith(t, f, k, bound, opts, ch)
	return grew, out, Collect(ch)
}

// Collect returns what answers receives until it is closed.
func Collect(answers <-chan string) []string {
	var got []string
	for a := range answers {
		got = append(got, a)
	}
	return got
}

// CheckBound checks a flood's run against a Limits.MaxInFlightBytes of
// bound: some calls met the bound (else the test tested nothing), every
// call that failed did so with the RangeError naming it, and the heap grew
// by less than twice the bound.
func CheckBound(t testing.TB, grew, bound int64, answers []string) {
	t.Helper()
	ok, refused := 0, 0
	for _, a := range answers {
		switch {
		case a == "":
			ok++
		case strings.HasPrefix(a, "RangeError") && strings.Contains(a, "Limits.MaxInFlightBytes"):
			refused++
		default:
			t.Errorf("a call failed otherwise: %.300s", a)
		}
	}
	t.Logf("%d calls answered, %d refused by the bound; the heap grew by %.1f MiB at most, %.2fx MaxInFlightBytes",
		ok, refused, float64(grew)/(1<<20), float64(grew)/float64(bound))
	if refused == 0 {
		t.Errorf("no call met the bound: the test did not test it")
	}
	CheckGrowth(t, grew, bound)
}

// CheckGrowth checks that the heap grew by less than twice bound, a run's
// Limits.MaxInFlightBytes.
func CheckGrowth(t testing.TB, grew, bound int64) {
	t.Helper()
	if grew >= 2*bound {
		t.Errorf("the heap grew by %d MiB, past twice MaxInFlightBytes (%d MiB)", grew>>20, 2*bound>>20)
	}
}
