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
		kind    Kind // PeekHead's kind, when it reads the head
	}{
		{"unknown key", mustCBOR(map[int]any{0: 6, 1: 7, 99: "x"}), 7, true, KindOutput},
		{"bad stream", mustCBOR(map[int]any{0: 6, 1: 3, 15: "bogus"}), 3, true, KindOutput},
		{"big output", mustCBOR(map[int]any{0: 5, 1: 4, 9: 1, 13: make([]byte, 1<<20)}), 4, true, KindToolResult},
		{"no id", mustCBOR(map[int]any{0: 6}), 0, false, KindOutput},
		{"id zero", mustCBOR(map[int]any{0: 6, 1: 0}), 0, false, KindOutput},
		{"id is text", mustCBOR(map[int]any{0: 6, 1: "7"}), 0, false, 0},
		{"not a map", mustCBOR([]int{1, 2}), 0, false, 0},
		{"empty", nil, 0, false, 0},
		{"truncated", mustCBOR(map[int]any{0: 6, 1: 7})[:3], 0, false, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			id, ok := PeekExecution(tc.payload)
			if id != tc.id || ok != tc.ok {
				t.Fatalf("PeekExecution = %d, %v; want %d, %v", id, ok, tc.id, tc.ok)
			}
			if kind, hid, hok := PeekHead(tc.payload); hok && (kind != tc.kind || hid != tc.id) {
				t.Fatalf("PeekHead = %s, %d; want %s, %d", kind, hid, tc.kind, tc.id)
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
