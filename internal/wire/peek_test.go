package wire

import (
	"testing"

	"github.com/fxamacker/cbor/v2"
)

func TestPeekExecution(t *testing.T) {
	mustCBOR := func(v any) []byte {
		b, err := cbor.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	cases := []struct {
		name    string
		payload []byte
		id      uint64
		ok      bool
	}{
		{"unknown key", mustCBOR(map[int]any{0: 6, 1: 7, 99: "x"}), 7, true},
		{"bad stream", mustCBOR(map[int]any{0: 6, 1: 3, 15: "bogus"}), 3, true},
		{"no id", mustCBOR(map[int]any{0: 6}), 0, false},
		{"id zero", mustCBOR(map[int]any{0: 6, 1: 0}), 0, false},
		{"id is text", mustCBOR(map[int]any{0: 6, 1: "7"}), 0, false},
		{"not a map", mustCBOR([]int{1, 2}), 0, false},
		{"empty", nil, 0, false},
		{"truncated", mustCBOR(map[int]any{0: 6, 1: 7})[:3], 0, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			id, ok := PeekExecution(tc.payload)
			if id != tc.id || ok != tc.ok {
				t.Fatalf("PeekExecution = %d, %v; want %d, %v", id, ok, tc.id, tc.ok)
			}
		})
	}
}

// FuzzPeekExecution: any payload gives an id or none, without panicking,
// and a payload that decodes strictly gives that message's execution.
func FuzzPeekExecution(f *testing.F) {
	for _, m := range []*Message{
		{Kind: KindOutput, Execution: 3, Stream: StreamStdout, Text: "x"},
		{Kind: KindResult, Execution: 9, Outcome: OutcomeSuccess},
	} {
		p, _ := Marshal(m)
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, payload []byte) {
		id, ok := PeekExecution(payload)
		if m, err := Unmarshal(payload); err == nil && m.Execution != 0 && (!ok || id != m.Execution) {
			t.Fatalf("strict decode says execution %d, PeekExecution %d %v", m.Execution, id, ok)
		}
	})
}
