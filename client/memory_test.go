package client_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/internal/echoserver"
	"github.com/codemode-go/codemode/internal/memtest"
)

// floodRun runs one execution of flood on a fresh runtime under a
// MaxInFlightBytes of bound, and returns the heap's growth and the outcome;
// the calls' answers go to answers.
func floodRun(t *testing.T, flood memtest.Flood, k *contract.Contract, bound int64, opts client.RunOptions, answers chan string) (int64, *client.Outcome) {
	t.Helper()
	rt, err := client.NewRuntime(context.Background(), flood.Driver(answers))
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	opts.Limits.MaxInFlightBytes = bound
	var out *client.Outcome
	grew := memtest.HeapGrowth(func() {
		out, err = client.New(rt, k).Run(context.Background(), "export default async () => {}", opts)
	})
	if err != nil {
		t.Fatal(err)
	}
	return grew, out
}

// collect returns what answers receives until it is closed.
func collect(answers <-chan string) []string {
	var got []string
	for a := range answers {
		got = append(got, a)
	}
	return got
}

// checkBound checks that some calls met the bound (else the test tested
// nothing), that they failed with a RangeError naming it, and that the heap
// grew by less than twice the bound.
func checkBound(t *testing.T, grew, bound int64, out *client.Outcome, answers []string) {
	t.Helper()
	ok, refused := 0, 0
	for _, a := range answers {
		switch {
		case a == "":
			ok++
		case strings.HasPrefix(a, "RangeError") && strings.Contains(a, "Limits.MaxInFlightBytes"):
			refused++
		default:
			t.Errorf("a call failed otherwise: %s", a)
		}
	}
	t.Logf("%d calls answered, %d refused by the bound, outcome %v; the heap grew by %.1f MiB at most, %.2fx MaxInFlightBytes",
		ok, refused, out.Kind, float64(grew)/(1<<20), float64(grew)/float64(bound))
	if refused == 0 {
		t.Errorf("no call met the bound: the test did not test it")
	}
	if grew >= 2*bound {
		t.Errorf("the heap grew by %d bytes, past twice MaxInFlightBytes (%d)", grew, 2*bound)
	}
}

// TestConcurrentFetchesStayWithinMaxInFlightBytes: a program that fetches
// 100 bodies of 2 MiB at once, under a MaxInFlightBytes of 32 MiB, takes
// the host's heap up by less than twice the bound, and the fetches past it
// fail with a RangeError naming it. Counted after the fact, the bound let
// the bodies and their answers pile up first: the review measured 1.9 GB
// of RSS for 100 fetches of 8 MB under the 256 MiB default.
func TestConcurrentFetchesStayWithinMaxInFlightBytes(t *testing.T) {
	const bound, body = 32 << 20, 2 << 20
	srv := echoserver.Start(t, "127.0.0.1")
	input, _ := json.Marshal(map[string]any{"url": fmt.Sprintf("%s/big?n=%d", srv.URL, body), "method": "GET", "headers": [][2]string{}, "redirect": "follow"})
	flood := memtest.Flood{Calls: 100, Namespace: "@web", Tool: "fetch", Input: input}
	k, err := contract.New()
	if err != nil {
		t.Fatal(err)
	}
	opts := client.RunOptions{Fetch: &client.FetchPolicy{Allow: []string{srv.Host + ":" + srv.Port}}}
	answers := make(chan string, flood.Calls)
	grew, out := floodRun(t, flood, k, bound, opts, answers)
	checkBound(t, grew, bound, out, collect(answers))
}

// TestSlowToolInputsStayWithinMaxInFlightBytes: a program that sends 100
// inputs of 1 MiB at once to a tool that holds them until every call has
// started or been refused takes the host's heap up by less than twice
// MaxInFlightBytes (16 MiB); the calls past the bound fail unrun with a
// RangeError naming it.
func TestSlowToolInputsStayWithinMaxInFlightBytes(t *testing.T) {
	const bound, size, calls = 16 << 20, 1 << 20, 100
	var pending sync.WaitGroup // calls neither started nor refused
	pending.Add(calls)
	release := make(chan struct{})
	hold, err := contract.NewTool("hold", "Holds its input until released.", func(ctx context.Context, in struct {
		Value string `json:"value"`
	}) (struct{}, error) {
		pending.Done()
		select {
		case <-release:
		case <-ctx.Done():
		}
		return struct{}{}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	k, err := contract.New(hold)
	if err != nil {
		t.Fatal(err)
	}
	input, _ := json.Marshal(map[string]string{"value": strings.Repeat("x", size)})
	flood := memtest.Flood{Calls: calls, Namespace: contract.DefaultNamespace, Tool: "hold", Input: input}
	// The refused calls are answered at once; the handlers are released
	// once every call has started or been refused.
	answers, seen := make(chan string, calls), make(chan string, calls)
	go func() {
		defer close(seen)
		for a := range answers {
			if a != "" {
				pending.Done()
			}
			seen <- a
		}
	}()
	go func() {
		pending.Wait()
		close(release)
	}()
	grew, out := floodRun(t, flood, k, bound, client.RunOptions{}, answers)
	checkBound(t, grew, bound, out, collect(seen))
}
