package quickjs

import (
	"encoding/json"
	"testing"

	"github.com/codemode-go/codemode/internal/wire"
)

// TestRequestParts checks what requestOf puts in the runner's JSON: only
// the parts an execution has, and nothing for a warm execution of a
// prebuilt scope (the runner then parses no JSON at all).
func TestRequestParts(t *testing.T) {
	names := &scopeNames{namespaces: []nsJSON{{Name: "codemode", Size: 6}}}
	seed := []byte{0, 0, 0, 1, 0x80, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 1, 2, 3, 4}
	for _, tc := range []struct {
		name     string
		msg      wire.Message
		prebuilt int32
		want     string // the parts' JSON, "" for none
	}{
		{"prebuilt scope, nothing else", wire.Message{}, 1, ""},
		{"namespaces unless prebuilt", wire.Message{}, 0, `{"namespaces":[{"name":"codemode","size":6}]}`},
		{"input", wire.Message{HasInput: true, Input: json.RawMessage(`{"n":1}`)}, 1, `{"hasInput":true,"input":{"n":1}}`},
		{"null input", wire.Message{HasInput: true, Input: json.RawMessage(`null`)}, 1, `{"hasInput":true,"input":null}`},
		{"replayed clock", wire.Message{Clock: []float64{1.5, 2}}, 1, `{"clock":[1.5,2]}`},
		{"empty clock", wire.Message{Clock: []float64{}}, 1, ""},
		{"prefill", wire.Message{Prefill: []wire.Prefilled{{Seq: 2, Output: json.RawMessage(`{}`)}}}, 1, `{"prefill":{"2":"{}"}}`},
		{"positions", wire.Message{Positions: &wire.Positions{DefaultName: "agent.ts"}}, 1, `{"positions":{"points":[],"defaultName":"agent.ts"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg := tc.msg
			msg.Seed = seed
			st := &driveState{names: names, prebuilt: tc.prebuilt}
			req, failed, err := requestOf(&execution{id: 7}, &msg, st)
			if err != nil || failed != nil {
				t.Fatalf("requestOf: %v %+v", err, failed)
			}
			if req.parts != tc.want {
				t.Errorf("parts %s, want %s", req.parts, tc.want)
			}
			if want := [4]uint32{1, 1 << 31, 1<<32 - 1, 0x01020304}; req.seed != want {
				t.Errorf("seed %v, want %v", req.seed, want)
			}
		})
	}
	t.Run("input that is not JSON fails the execution", func(t *testing.T) {
		msg := wire.Message{HasInput: true, Input: json.RawMessage(`{`), Seed: seed}
		_, failed, err := requestOf(&execution{id: 7}, &msg, &driveState{names: names})
		if err != nil || failed == nil || failed.Error == nil || failed.Error.Name != "TypeError" {
			t.Fatalf("got %v %+v, want a TypeError failure", err, failed)
		}
	})
}

// TestJSLimit checks that a limit past what a JavaScript integer holds is
// passed as the largest one, not wrapped to a negative number.
func TestJSLimit(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want int32
	}{{0, 0}, {1 << 20, 1 << 20}, {1<<31 - 1, 1<<31 - 1}, {1 << 31, 1<<31 - 1}, {1 << 40, 1<<31 - 1}} {
		if got := jsLimit(tc.n); got != jsInt(tc.want) {
			t.Errorf("jsLimit(%d) = %#x, want %#x", tc.n, uint64(got), uint64(jsInt(tc.want)))
		}
	}
}
