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
	"github.com/codemode-go/codemode/internal/boundtest"
	"github.com/codemode-go/codemode/internal/echoserver"
	"github.com/codemode-go/codemode/internal/memtest"
)

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
	grew, _ := boundtest.RunWith(t, flood, k, bound, opts, answers)
	boundtest.CheckBound(t, grew, bound, boundtest.Collect(answers))
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
	grew, _ := boundtest.RunWith(t, flood, k, bound, client.RunOptions{}, answers)
	boundtest.CheckBound(t, grew, bound, boundtest.Collect(seen))
}
