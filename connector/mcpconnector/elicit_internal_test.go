package mcpconnector

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/internal/runctx"
)

// withDefaults fills in the schema's defaults for the fields left out
// (SEP-1034), and nothing else.
func TestWithDefaults(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","default":"Ada"},"n":{"type":"integer","default":3},"on":{"type":"boolean","default":false},"x":{"type":"string"}}}`)
	for _, tc := range []struct {
		name    string
		content map[string]any
		want    map[string]any
	}{
		{"nothing given", nil, map[string]any{"name": "Ada", "n": float64(3), "on": false}},
		{"given values stay", map[string]any{"name": "Bo", "x": "y"}, map[string]any{"name": "Bo", "x": "y", "n": float64(3), "on": false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := withDefaults(tc.content, schema); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
	if got := withDefaults(map[string]any{"a": 1}, json.RawMessage(`not json`)); !reflect.DeepEqual(got, map[string]any{"a": 1}) {
		t.Fatalf("a schema that is not JSON changed the answer: %v", got)
	}
}

// A question goes to the run calling the server only when every call in
// flight is that run's.
func TestAskersOnly(t *testing.T) {
	var a askers
	if got, why := a.only(); got != nil || !strings.Contains(why, "no program") {
		t.Fatalf("idle: %v %q", got, why)
	}
	one, two := &runctx.Asker{}, &runctx.Asker{}
	end1 := a.enter(runctx.WithAsker(context.Background(), one))
	end1b := a.enter(runctx.WithAsker(context.Background(), one))
	if got, _ := a.only(); got != one {
		t.Fatalf("one run: %v", got)
	}
	endPlain := a.enter(context.Background())
	if got, why := a.only(); got != nil || !strings.Contains(why, "several") {
		t.Fatalf("a run and a call without an asker: %v %q", got, why)
	}
	endPlain()
	end2 := a.enter(runctx.WithAsker(context.Background(), two))
	if got, why := a.only(); got != nil || !strings.Contains(why, "several") {
		t.Fatalf("two runs: %v %q", got, why)
	}
	end1()
	end1b()
	if got, _ := a.only(); got != two {
		t.Fatalf("after the first run: %v", got)
	}
	end2()
}

// A call its run gave up on keeps any question from being forwarded for a
// while: the server may still ask about it, and it is nobody's now.
func TestAskersAfterAnAbandonedCall(t *testing.T) {
	var a askers
	alice, bob := &runctx.Asker{}, &runctx.Asker{}
	ctx, cancel := context.WithCancel(runctx.WithAsker(context.Background(), alice))
	end := a.enter(ctx)
	cancel()
	end()
	endBob := a.enter(runctx.WithAsker(context.Background(), bob))
	defer endBob()
	if got, why := a.only(); got != nil || !strings.Contains(why, "gave up on") {
		t.Fatalf("Bob's call after Alice's abandoned one: %v %q", got, why)
	}
	a.lingering[0] = a.lingering[0].Add(-2 * lingerFor)
	if got, _ := a.only(); got != bob {
		t.Fatalf("after the abandoned call expired: %v", got)
	}
}
