package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestRoundTripEveryKind(t *testing.T) {
	msgs := []*Message{
		{Kind: KindReady, Version: ProtocolVersion, Runner: "test"},
		{Kind: KindExecute, Execution: 1, Source: "export default 1", Filename: "agent.js", HasInput: true, Input: []byte(`{"a":1}`),
			Namespaces: []Namespace{{Name: "codemode", Tools: []string{"echo"}}}},
		{Kind: KindExecute, Execution: 2, Filename: "agent.js"},
		{Kind: KindCancel, Execution: 1},
		{Kind: KindToolCall, Execution: 1, Seq: 1, Namespace: "codemode", Tool: "echo", Input: []byte(`{}`), Site: "agent.js:1:2"},
		{Kind: KindToolResult, Execution: 1, Seq: 1, Output: []byte(`{"v":1}`)},
		{Kind: KindToolResult, Execution: 1, Seq: 2, Error: &Error{Name: "Error", Message: "nope"}},
		{Kind: KindOutput, Execution: 1, Stream: StreamStderr, Text: "hi\n"},
		{Kind: KindResult, Execution: 1, Outcome: OutcomeSuccess, Content: []Content{{Type: "text", Text: "a"}, {Type: "image", Data: "AA==", MimeType: "image/png"}}},
		{Kind: KindResult, Execution: 1, Outcome: OutcomeProgramFailed, Error: &Error{Name: "Error", Message: "boom", Stack: "at x"}},
		// The keys of 1.1.
		{Kind: KindReady, Version: ProtocolVersion, Versions: &Supported, Runner: "test"},
		{Kind: KindExecute, Execution: 3, Filename: "agent.js", Limits: &Limits{TimeoutMs: 200, MemoryBytes: 1 << 20, MaxOutput: 10, MaxContent: 20, MaxTimers: 3, CPUMs: 150},
			Seed: make([]byte, SeedSize), Clock: []float64{1.7e12, 0.5, 1767225600000.25}},
		{Kind: KindToolCall, Execution: 3, Seq: 1, Namespace: "codemode", Tool: "echo", Input: []byte(`{}`), Clock: []float64{1767225600000}},
		{Kind: KindResult, Execution: 3, Outcome: OutcomeSuccess, Value: []byte(`{"a":[1,2]}`), Clock: []float64{-1}},
		// The keys of 1.2.
		{Kind: KindExecute, Execution: 4, Filename: "agent.js", Scope: "sha256:00ff",
			Namespaces: []Namespace{{Name: "codemode", Tools: []string{"echo"}}}},
		{Kind: KindExecute, Execution: 5, Filename: "agent.js", Scope: "sha256:00ff"},
		{Kind: KindResult, Execution: 5, Outcome: OutcomeProgramFailed, Error: &Error{Name: "InternalError", Message: "unknown scope"}, ScopeUnknown: true},
		// The keys of 1.4.
		{Kind: KindReady, Version: 1, Runner: "node", TypeScript: true},
		{Kind: KindExecute, Execution: 6, Filename: "agent.ts", Source: "export default (n: number) => n;", TypeScript: true},
		{Kind: KindResult, Execution: 6, Outcome: OutcomeProgramFailed, Error: &Error{Name: "SyntaxError", Message: "enum"}, StripRefused: true},
		// The keys of 1.5.
		{Kind: KindResult, Execution: 7, Outcome: OutcomeProgramFailed, Error: &Error{Name: "TimeoutError", Message: "CPU time limit"}, CPULimit: true},
		// The keys of 1.6.
		{Kind: KindToolResult, Execution: 8, Seq: 1, Output: []byte(`{"rows":[]}`), Held: true},
		{Kind: KindToolResult, Execution: 8, Seq: 1, Release: true},
		// The keys of 1.7.
		{Kind: KindToolResult, Execution: 9, Seq: 1, Error: &Error{Name: "HTTPError", Message: "HTTP 404 Not Found", Data: []byte(`{"status":404}`)}},
		{Kind: KindResult, Execution: 9, Outcome: OutcomeProgramFailed, Error: &Error{Name: "QuotaError", Message: "quota", Data: []byte(`{"limit":100}`)}},
		// The keys of 1.8.
		{Kind: KindExecute, Execution: 10, Filename: "agent.ts", Positions: &Positions{
			Points:      []uint32{1, 1, 0, 0, uint32(PointOutside), 2, 1, 1, 1, uint32(PointShift), 9, 4, 8, 4, uint32(PointSame), 9, 12, 8, 4, uint32(PointShift), 12, 1, 0, 0, uint32(PointOutside)},
			DefaultName: "__codemodeDefault"}},
	}
	var buf bytes.Buffer
	w := NewWriter(&buf)
	for _, m := range msgs {
		if err := w.Write(m); err != nil {
			t.Fatalf("write %s: %v", m.Kind, err)
		}
	}
	r := NewReader(&buf)
	for _, want := range msgs {
		got, err := r.Read()
		if err != nil {
			t.Fatalf("read %s: %v", want.Kind, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %+v, want %+v", want.Kind, got, want)
		}
	}
	if _, err := r.Read(); err != io.EOF {
		t.Fatalf("after last frame: got %v, want io.EOF", err)
	}
}

func frame(payload []byte) []byte {
	b := make([]byte, 4+len(payload))
	binary.BigEndian.PutUint32(b, uint32(len(payload)))
	copy(b[4:], payload)
	return b
}

func TestReadRejectsBadFrames(t *testing.T) {
	good, err := Marshal(&Message{Kind: KindCancel, Execution: 3})
	if err != nil {
		t.Fatal(err)
	}
	unknownField := append([]byte{}, good...)
	unknownField[0]++ // one more map pair than present: truncated map
	huge := make([]byte, 4)
	binary.BigEndian.PutUint32(huge, MaxFrameSize+1)
	tests := []struct {
		name  string
		input []byte
		want  error
	}{
		{"oversized length", huge, ErrFrameTooLarge},
		{"truncated header", []byte{0, 0}, io.ErrUnexpectedEOF},
		{"truncated payload", frame(good)[:len(good)+2], io.ErrUnexpectedEOF},
		{"not cbor", frame([]byte{0xff, 0x00}), ErrMalformed},
		{"cbor not a map", frame([]byte{0x01}), ErrMalformed},
		{"broken map", frame(unknownField), ErrMalformed},
		{"unknown kind", frame(mustMarshal(t, map[int]int{0: 99})), ErrMalformed},
		{"unknown field", frame(mustMarshal(t, map[int]int{0: 3, 1: 1, 25: 1})), ErrMalformed},
		{"missing execution", frame(mustMarshal(t, map[int]int{0: 3})), ErrMalformed},
		{"tool result with both", frame(mustMarshal(t, &Message{Kind: KindToolResult, Execution: 1, Seq: 1, Output: []byte("1"), Error: &Error{}})), ErrMalformed},
		{"bad stream", frame(mustMarshal(t, &Message{Kind: KindOutput, Execution: 1, Stream: "stdin"})), ErrMalformed},
		{"bad outcome", frame(mustMarshal(t, &Message{Kind: KindResult, Execution: 1, Outcome: "maybe"})), ErrMalformed},
		{"unknown key below the extension keys", frame(mustMarshal(t, map[int]int{0: 3, 1: 1, 31: 1})), ErrMalformed},
		{"unknown key below the extension keys in a nested map", frame(mustMarshal(t, map[int]any{0: 7, 1: 1, 17: "program-failed", 14: map[int]any{1: "E", 2: "m", 9: 1}})), ErrMalformed},
		{"short seed", frame(mustMarshal(t, &Message{Kind: KindExecute, Execution: 1, Filename: "a.js", Seed: []byte{1, 2}})), ErrMalformed},
		{"versions past version", frame(mustMarshal(t, &Message{Kind: KindReady, Version: 1, Versions: &VersionRange{Min: Version{1, 0}, Max: Version{2, 0}}})), ErrMalformed},
		{"empty version range", frame(mustMarshal(t, &Message{Kind: KindReady, Version: 1, Versions: &VersionRange{Min: Version{1, 2}, Max: Version{1, 1}}})), ErrMalformed},
		{"error data not an object", frame(mustMarshal(t, &Message{Kind: KindResult, Execution: 1, Outcome: OutcomeProgramFailed, Error: &Error{Name: "E", Data: []byte("[1]")}})), ErrMalformed},
		{"error data not JSON", frame(mustMarshal(t, &Message{Kind: KindResult, Execution: 1, Outcome: OutcomeProgramFailed, Error: &Error{Name: "E", Data: []byte("{")}})), ErrMalformed},
		{"error data past MaxErrorData", frame(mustMarshal(t, &Message{Kind: KindResult, Execution: 1, Outcome: OutcomeProgramFailed,
			Error: &Error{Name: "E", Data: []byte(`{"a":"` + strings.Repeat("x", MaxErrorData) + `"}`)}})), ErrMalformed},
		{"value on a failure", frame(mustMarshal(t, &Message{Kind: KindResult, Execution: 1, Outcome: OutcomeProgramFailed, Error: &Error{Name: "E"}, Value: []byte("1")})), ErrMalformed},
		{"clock not finite", frame(mustMarshal(t, map[int]any{0: 4, 1: 1, 9: 1, 10: "a", 11: "b", 7: []byte("{}"), 22: []float64{math.Inf(1)}})), ErrMalformed},
		{"scope past its limit", frame(mustMarshal(t, &Message{Kind: KindExecute, Execution: 1, Filename: "a.js", Scope: strings.Repeat("a", MaxScopeSize+1)})), ErrMalformed},
		{"scope on a cancel", frame(mustMarshal(t, map[int]any{0: 3, 1: 1, 32: "sha256:00"})), ErrMalformed},
		{"setup on a cancel", frame(mustMarshal(t, map[int]any{0: 3, 1: 1, 34: "(s) => s"})), ErrMalformed},
		{"a setup over MaxSetupSize", frame(mustMarshal(t, map[int]any{0: 2, 1: 1, 5: "a.js", 34: strings.Repeat("x", MaxSetupSize+1)})), ErrMalformed},
		{"prefill on a tool-result", frame(mustMarshal(t, map[int]any{0: 5, 1: 1, 9: 1, 13: []byte("1"), 35: []any{map[int]any{1: 1, 2: []byte("1")}}})), ErrMalformed},
		{"a prefilled seq 0", frame(mustMarshal(t, map[int]any{0: 2, 1: 1, 5: "a.js", 35: []any{map[int]any{1: 0, 2: []byte("1")}}})), ErrMalformed},
		{"prefilled seqs out of order", frame(mustMarshal(t, map[int]any{0: 2, 1: 1, 5: "a.js", 35: []any{map[int]any{1: 2, 2: []byte("1")}, map[int]any{1: 2, 2: []byte("2")}}})), ErrMalformed},
		{"a prefilled result that is not JSON", frame(mustMarshal(t, map[int]any{0: 2, 1: 1, 5: "a.js", 35: []any{map[int]any{1: 1, 2: []byte("{")}}})), ErrMalformed},
		{"prefilled on an output", frame(mustMarshal(t, map[int]any{0: 6, 1: 1, 15: "stdout", 16: "x", 36: true})), ErrMalformed},
		{"random-stream use on an output", frame(mustMarshal(t, map[int]any{0: 6, 1: 1, 15: "stdout", 16: "x", 37: 2})), ErrMalformed},
		{"scope of the wrong type", frame(mustMarshal(t, map[int]any{0: 2, 1: 1, 5: "a.js", 32: 7})), ErrMalformed},
		{"scopeUnknown on a success", frame(mustMarshal(t, &Message{Kind: KindResult, Execution: 1, Outcome: OutcomeSuccess, ScopeUnknown: true})), ErrMalformed},
		{"scopeUnknown on a tool call", frame(mustMarshal(t, map[int]any{0: 4, 1: 1, 9: 1, 10: "a", 11: "b", 7: []byte("{}"), 33: true})), ErrMalformed},
		{"typeScript on a tool call", frame(mustMarshal(t, map[int]any{0: 4, 1: 1, 9: 1, 10: "a", 11: "b", 7: []byte("{}"), 39: true})), ErrMalformed},
		{"stripRefused on a success", frame(mustMarshal(t, &Message{Kind: KindResult, Execution: 1, Outcome: OutcomeSuccess, StripRefused: true})), ErrMalformed},
		{"cpuLimit on a success", frame(mustMarshal(t, &Message{Kind: KindResult, Execution: 1, Outcome: OutcomeSuccess, CPULimit: true})), ErrMalformed},
		{"cpuLimit on a tool-call", frame(mustMarshal(t, &Message{Kind: KindToolCall, Execution: 1, Seq: 1, Namespace: "n", Tool: "t", Input: []byte(`{}`), CPULimit: true})), ErrMalformed},
		{"held with an error", frame(mustMarshal(t, &Message{Kind: KindToolResult, Execution: 1, Seq: 1, Error: &Error{Name: "E"}, Held: true})), ErrMalformed},
		{"a release with an output", frame(mustMarshal(t, &Message{Kind: KindToolResult, Execution: 1, Seq: 1, Output: []byte(`1`), Release: true})), ErrMalformed},
		{"a release with an error", frame(mustMarshal(t, &Message{Kind: KindToolResult, Execution: 1, Seq: 1, Error: &Error{Name: "E"}, Release: true})), ErrMalformed},
		{"a release without a seq", frame(mustMarshal(t, &Message{Kind: KindToolResult, Execution: 1, Release: true})), ErrMalformed},
		{"held on a tool-call", frame(mustMarshal(t, &Message{Kind: KindToolCall, Execution: 1, Seq: 1, Namespace: "n", Tool: "t", Input: []byte(`{}`), Held: true})), ErrMalformed},
		{"release on a cancel", frame(mustMarshal(t, &Message{Kind: KindCancel, Execution: 1, Release: true})), ErrMalformed},
		{"positions on a tool-result", frame(mustMarshal(t, map[int]any{0: 5, 1: 1, 9: 1, 13: []byte("1"), 44: map[int]any{1: []int{1, 1, 1, 1, 1}}})), ErrMalformed},
		{"positions not five numbers a point", frame(mustMarshal(t, &Message{Kind: KindExecute, Execution: 1, Filename: "a.js", Positions: &Positions{Points: []uint32{1, 1, 1, 1}}})), ErrMalformed},
		{"positions out of order", frame(mustMarshal(t, &Message{Kind: KindExecute, Execution: 1, Filename: "a.js", Positions: &Positions{Points: []uint32{2, 1, 1, 1, 1, 1, 5, 1, 1, 1}}})), ErrMalformed},
		{"positions at column 0", frame(mustMarshal(t, &Message{Kind: KindExecute, Execution: 1, Filename: "a.js", Positions: &Positions{Points: []uint32{1, 0, 1, 1, 1}}})), ErrMalformed},
		{"positions mapping to line 0", frame(mustMarshal(t, &Message{Kind: KindExecute, Execution: 1, Filename: "a.js", Positions: &Positions{Points: []uint32{1, 1, 0, 1, uint32(PointSame)}}})), ErrMalformed},
		{"positions of an unknown kind", frame(mustMarshal(t, &Message{Kind: KindExecute, Execution: 1, Filename: "a.js", Positions: &Positions{Points: []uint32{1, 1, 1, 1, 4}}})), ErrMalformed},
		{"positions past MaxPositionPoints", frame(mustMarshal(t, &Message{Kind: KindExecute, Execution: 1, Filename: "a.js", Positions: manyPoints(MaxPositionPoints + 1)})), ErrMalformed},
		{"a default name past MaxDefaultName", frame(mustMarshal(t, &Message{Kind: KindExecute, Execution: 1, Filename: "a.js", Positions: &Positions{DefaultName: strings.Repeat("x", MaxDefaultName+1)}})), ErrMalformed},
		{"unknown extension key with a bad value", frame(append(mustMarshal(t, map[int]any{0: 3, 1: 1, 60: 1})[:0:0], 0xa3, 0x00, 0x03, 0x01, 0x01, 0x18, 0x3c, 0xff)), ErrMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewReader(bytes.NewReader(tt.input)).Read()
			if !errors.Is(err, tt.want) {
				t.Fatalf("got %v, want %v", err, tt.want)
			}
		})
	}
}

// manyPoints is positions of n points on successive lines, each mapped
// one line up.
func manyPoints(n int) *Positions {
	p := &Positions{}
	for i := range n {
		p.Points = append(p.Points, uint32(i+2), 1, uint32(i+1), 1, uint32(PointShift))
	}
	return p
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := encMode.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestWriteRefusesOversizedMessage(t *testing.T) {
	var buf bytes.Buffer
	err := NewWriter(&buf).Write(&Message{Kind: KindOutput, Execution: 1, Stream: StreamStdout, Text: string(make([]byte, MaxFrameSize))})
	if !errors.Is(err, ErrFrameTooLarge) {
		t.Fatalf("got %v, want ErrFrameTooLarge", err)
	}
	if buf.Len() != 0 {
		t.Fatalf("wrote %d bytes of a refused message", buf.Len())
	}
}

func FuzzRead(f *testing.F) {
	for _, m := range []*Message{
		{Kind: KindReady, Version: 1},
		{Kind: KindExecute, Execution: 1, Filename: "a.js", Source: "x"},
		{Kind: KindResult, Execution: 1, Outcome: OutcomeSuccess, Content: []Content{{Type: "text", Text: "a"}}},
		{Kind: KindReady, Version: 1, Versions: &Supported},
		{Kind: KindExecute, Execution: 1, Filename: "a.js", Limits: &Limits{TimeoutMs: 5}, Seed: make([]byte, SeedSize), Clock: []float64{1, 2.5}},
		{Kind: KindResult, Execution: 1, Outcome: OutcomeSuccess, Value: []byte("1"), Clock: []float64{3}},
	} {
		p, _ := Marshal(m)
		f.Add(frame(p))
	}
	// A later minor version's message: extension keys in the message and in
	// a nested map.
	f.Add(frame(mustMarshalF(f, map[int]any{0: 7, 1: 1, 17: "program-failed", 14: map[int]any{1: "E", 2: "m", 40: "cause"}, 41: []any{1, "x"}})))
	// The keys of 1.2: a scope with and without its namespaces, and the
	// answer to one the runner does not keep.
	for _, m := range []*Message{
		{Kind: KindExecute, Execution: 2, Filename: "a.js", Scope: "sha256:ab", Namespaces: []Namespace{{Name: "n", Tools: []string{"t"}}}},
		{Kind: KindExecute, Execution: 3, Filename: "a.js", Scope: "sha256:ab"},
		{Kind: KindResult, Execution: 3, Outcome: OutcomeProgramFailed, Error: &Error{Name: "InternalError", Message: "m"}, ScopeUnknown: true},
		{Kind: KindExecute, Execution: 4, Filename: "a.ts", Source: "let a: number = 1;", TypeScript: true},
		{Kind: KindResult, Execution: 4, Outcome: OutcomeProgramFailed, Error: &Error{Name: "SyntaxError", Message: "m"}, StripRefused: true},
		{Kind: KindResult, Execution: 5, Outcome: OutcomeProgramFailed, Error: &Error{Name: "TimeoutError", Message: "m"}, CPULimit: true},
		{Kind: KindToolResult, Execution: 6, Seq: 2, Output: []byte(`[1]`), Held: true},
		{Kind: KindToolResult, Execution: 6, Seq: 2, Release: true},
	} {
		p, _ := Marshal(m)
		f.Add(frame(p))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r := NewReader(bytes.NewReader(data))
		for i := 0; i < 8; i++ {
			m, err := r.Read()
			if err != nil {
				return
			}
			if err := m.Check(); err != nil {
				t.Fatalf("Read returned an unchecked message: %v", err)
			}
			p, err := Marshal(m)
			if err != nil {
				t.Fatalf("re-encoding a decoded message: %v", err)
			}
			if _, err := Unmarshal(p); err != nil {
				t.Fatalf("a decoded message does not decode again: %v", err)
			}
		}
	})
}

func mustMarshalF(f *testing.F, v any) []byte {
	b, err := encMode.Marshal(v)
	if err != nil {
		f.Fatal(err)
	}
	return b
}

// A peer of a later minor version adds keys at or above ExtensionKeys, in the
// message and in maps nested in it; this version reads the message and
// skips them.
func TestReadSkipsExtensionKeys(t *testing.T) {
	tests := []struct {
		name string
		in   map[int]any
		want *Message
	}{
		{"in the message", map[int]any{0: 3, 1: 9, 60: "later", 1000: []any{1, map[int]any{1: 2}}},
			&Message{Kind: KindCancel, Execution: 9}},
		{"in a nested error", map[int]any{0: 7, 1: 2, 17: "program-failed", 14: map[int]any{1: "E", 2: "m", 40: map[int]any{5: 1}}},
			&Message{Kind: KindResult, Execution: 2, Outcome: OutcomeProgramFailed, Error: &Error{Name: "E", Message: "m"}}},
		{"in content items", map[int]any{0: 7, 1: 2, 17: "success", 18: []any{map[int]any{1: "text", 2: "a", 50: true}}},
			&Message{Kind: KindResult, Execution: 2, Outcome: OutcomeSuccess, Content: []Content{{Type: "text", Text: "a"}}}},
		{"in limits", map[int]any{0: 2, 1: 4, 5: "a.js", 20: map[int]any{1: 7, 99: 1}},
			&Message{Kind: KindExecute, Execution: 4, Filename: "a.js", Limits: &Limits{TimeoutMs: 7}}},
		{"in the versions of ready", map[int]any{0: 1, 2: 1, 19: map[int]any{1: map[int]any{1: 1}, 2: map[int]any{1: 1, 2: 4, 32: 0}}},
			&Message{Kind: KindReady, Version: 1, Versions: &VersionRange{Min: Version{1, 0}, Max: Version{1, 4}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := NewReader(bytes.NewReader(frame(mustMarshal(t, tt.in)))).Read()
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestNegotiate(t *testing.T) {
	v10, v11, v12, v18, v19, v20 := Version{1, 0}, Version{1, 1}, Version{1, 2}, Version{1, 8}, Version{1, 9}, Version{2, 0}
	tests := []struct {
		name       string
		self, peer VersionRange
		want       Version
		err        string
	}{
		{"same", Supported, Supported, v18, ""},
		{"a 1.2 peer", Supported, VersionRange{v10, v12}, v12, ""},
		{"an old peer", Supported, VersionRange{v10, v10}, v10, ""},
		{"a 1.1 peer", Supported, VersionRange{v10, v11}, v11, ""},
		{"a newer minor", Supported, VersionRange{v10, v19}, v18, ""},
		{"a peer that dropped 1.0", VersionRange{v10, v10}, VersionRange{v11, v12}, Version{}, "runner speaks 1.1-1.2, this host 1.0"},
		{"a new major", Supported, VersionRange{v20, v20}, Version{}, "runner speaks 2.0, this host 1.0-1.8"},
		{"an old major", VersionRange{v20, v20}, Supported, Version{}, "runner speaks 1.0-1.8, this host 2.0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Negotiate(tt.self, tt.peer, "this host", "runner")
			if tt.err != "" {
				if !errors.Is(err, ErrVersion) || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("got %v, want an ErrVersion saying %q", err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

func TestPeerVersionsOfAnOldRunner(t *testing.T) {
	m := &Message{Kind: KindReady, Version: 1}
	if got := m.PeerVersions(); got != (VersionRange{Version{1, 0}, Version{1, 0}}) {
		t.Fatalf("got %v, want 1.0", got)
	}
}

func TestCheckVersionRefusesNewKeysFor10(t *testing.T) {
	tests := []struct {
		m   *Message
		key string
	}{
		{&Message{Kind: KindExecute, Execution: 1, Filename: "a.js", Limits: &Limits{TimeoutMs: 1}}, "limits"},
		{&Message{Kind: KindExecute, Execution: 1, Filename: "a.js", Seed: make([]byte, SeedSize)}, "seed"},
		{&Message{Kind: KindExecute, Execution: 1, Filename: "a.js", Clock: []float64{}}, "clock"},
	}
	for _, tt := range tests {
		err := tt.m.CheckVersion(Version{1, 0})
		if !errors.Is(err, ErrVersion) || !strings.Contains(err.Error(), tt.key) {
			t.Errorf("%s: got %v, want an ErrVersion naming it", tt.key, err)
		}
		if err := tt.m.CheckVersion(Version{1, 1}); err != nil {
			t.Errorf("%s on 1.1: %v", tt.key, err)
		}
	}
	if err := (&Message{Kind: KindExecute, Execution: 1, Filename: "a.js"}).CheckVersion(Version{1, 0}); err != nil {
		t.Errorf("a 1.0 execute message: %v", err)
	}
}

// A 1.1 runner would skip a scope and run the program with no namespaces:
// the keys of 1.2 are refused for any older peer.
func TestCheckVersionRefusesScopeBefore12(t *testing.T) {
	tests := []struct {
		m   *Message
		key string
	}{
		{&Message{Kind: KindExecute, Execution: 1, Filename: "a.js", Scope: "sha256:00"}, "scope (key 32)"},
		{&Message{Kind: KindResult, Execution: 1, Outcome: OutcomeProgramFailed, Error: &Error{Name: "E"}, ScopeUnknown: true}, "scopeUnknown (key 33)"},
	}
	for _, tt := range tests {
		for _, v := range []Version{{1, 0}, {1, 1}} {
			err := tt.m.CheckVersion(v)
			if !errors.Is(err, ErrVersion) || !strings.Contains(err.Error(), tt.key) || !strings.Contains(err.Error(), "needs 1.2") {
				t.Errorf("%s on %s: got %v, want an ErrVersion naming it and 1.2", tt.key, v, err)
			}
		}
		if err := tt.m.CheckVersion(Version{1, 2}); err != nil {
			t.Errorf("%s on 1.2: %v", tt.key, err)
		}
	}
}

// A 1.2 runner would skip a setup and hand the program the scope as it is
// (durable's journal tools included): setup is refused for any older peer.
func TestCheckVersionRefusesSetupBefore13(t *testing.T) {
	m := &Message{Kind: KindExecute, Execution: 1, Filename: "a.js", Setup: "(s) => s"}
	for _, v := range []Version{{1, 0}, {1, 1}, {1, 2}} {
		err := m.CheckVersion(v)
		if !errors.Is(err, ErrVersion) || !strings.Contains(err.Error(), "setup (key 34)") || !strings.Contains(err.Error(), "needs 1.3") {
			t.Errorf("setup on %s: got %v, want an ErrVersion naming it and 1.3", v, err)
		}
	}
	if err := m.CheckVersion(Version{1, 3}); err != nil {
		t.Errorf("setup on 1.3: %v", err)
	}
	for _, m := range []*Message{
		{Kind: KindExecute, Execution: 1, Filename: "a.js", Prefill: []Prefilled{{Seq: 1, Output: []byte("1")}}},
		{Kind: KindToolCall, Execution: 1, Seq: 1, Namespace: "a", Tool: "b", Input: []byte("{}"), Prefilled: true},
		{Kind: KindToolCall, Execution: 1, Seq: 1, Namespace: "a", Tool: "b", Input: []byte("{}"), RandomDraws: 2},
		{Kind: KindToolCall, Execution: 1, Seq: 1, Namespace: "a", Tool: "b", Input: []byte("{}"), RandomBytes: 16},
	} {
		if err := m.CheckVersion(Version{1, 2}); !errors.Is(err, ErrVersion) || !strings.Contains(err.Error(), "needs 1.3") {
			t.Errorf("%s on 1.2: got %v, want an ErrVersion naming 1.3", m.Kind, err)
		}
	}
}

func TestPrefillRoundTrip(t *testing.T) {
	m := &Message{Kind: KindExecute, Execution: 7, Filename: "a.js", Setup: "(s) => s",
		Prefill: []Prefilled{{Seq: 1, Output: []byte(`{"a":1}`)}, {Seq: 3, Output: []byte(`null`)}}}
	var buf bytes.Buffer
	if err := NewWriter(&buf).Write(m); err != nil {
		t.Fatal(err)
	}
	got, err := NewReader(&buf).Read()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, m) {
		t.Fatalf("got %+v, want %+v", got, m)
	}
}

func TestScopeDigest(t *testing.T) {
	a := []Namespace{{Name: "github", Tools: []string{"a", "b"}}}
	tests := []struct {
		name  string
		other []Namespace
		same  bool
	}{
		{"the same list", []Namespace{{Name: "github", Tools: []string{"a", "b"}}}, true},
		{"another order", []Namespace{{Name: "github", Tools: []string{"b", "a"}}}, false},
		{"another namespace", []Namespace{{Name: "gitlab", Tools: []string{"a", "b"}}}, false},
		{"names split differently", []Namespace{{Name: "github", Tools: []string{"ab"}}}, false},
		{"one more namespace", append([]Namespace{{Name: "x"}}, a...), false},
		{"none", nil, false},
	}
	d := ScopeDigest(a)
	if !strings.HasPrefix(d, "sha256:") || len(d) != len("sha256:")+64 || len(d) > MaxScopeSize {
		t.Fatalf("digest %q is not sha256: and 64 hex digits within MaxScopeSize", d)
	}
	for _, tt := range tests {
		if got := ScopeDigest(tt.other) == d; got != tt.same {
			t.Errorf("%s: equal digests %v, want %v", tt.name, got, tt.same)
		}
	}
}

// A 1.3 runner would run TypeScript as JavaScript: the keys of 1.4 are
// refused for any older peer.
func TestCheckVersionRefusesTypeScriptBefore14(t *testing.T) {
	tests := []struct {
		m   *Message
		key string
	}{
		{&Message{Kind: KindExecute, Execution: 1, Filename: "a.ts", Source: "let a: number = 1;", TypeScript: true}, "typeScript (key 39)"},
		{&Message{Kind: KindResult, Execution: 1, Outcome: OutcomeProgramFailed, Error: &Error{Name: "E"}, StripRefused: true}, "stripRefused (key 40)"},
	}
	for _, tt := range tests {
		err := tt.m.CheckVersion(Version{1, 3})
		if !errors.Is(err, ErrVersion) || !strings.Contains(err.Error(), tt.key) || !strings.Contains(err.Error(), "needs 1.4") {
			t.Errorf("%s on 1.3: got %v, want an ErrVersion naming it and 1.4", tt.key, err)
		}
		if err := tt.m.CheckVersion(Version{1, 4}); err != nil {
			t.Errorf("%s on 1.4: %v", tt.key, err)
		}
	}
}

// A 1.5 runner would take a release for an error and a held output for
// the answer: the keys of 1.6 are refused for any older peer.
func TestCheckVersionRefusesHeldBefore16(t *testing.T) {
	for _, m := range []*Message{
		{Kind: KindToolResult, Execution: 1, Seq: 1, Output: []byte(`1`), Held: true},
		{Kind: KindToolResult, Execution: 1, Seq: 1, Release: true},
	} {
		if err := m.CheckVersion(Version{1, 5}); !errors.Is(err, ErrVersion) || !strings.Contains(err.Error(), "needs 1.6") {
			t.Errorf("on 1.5: got %v, want an ErrVersion naming 1.6", err)
		}
		if err := m.CheckVersion(Version{1, 6}); err != nil {
			t.Errorf("on 1.6: %v", err)
		}
	}
}

// A 1.6 runner would reject the call without the error's properties: the
// key of 1.7 is refused for any older peer, so that a host leaves it out.
func TestCheckVersionRefusesErrorDataBefore17(t *testing.T) {
	m := &Message{Kind: KindToolResult, Execution: 1, Seq: 1, Error: &Error{Name: "HTTPError", Message: "HTTP 404", Data: []byte(`{"status":404}`)}}
	if err := m.CheckVersion(Version{1, 6}); !errors.Is(err, ErrVersion) || !strings.Contains(err.Error(), "needs 1.7") {
		t.Errorf("on 1.6: got %v, want an ErrVersion naming 1.7", err)
	}
	if err := m.CheckVersion(Version{1, 7}); err != nil {
		t.Errorf("on 1.7: %v", err)
	}
	m.Error.Data = nil
	if err := m.CheckVersion(Version{1, 0}); err != nil {
		t.Errorf("without data on 1.0: %v", err)
	}
}

// A runner older than 1.8 would skip the positions (an extension key), or,
// at 1.0, refuse the message: a host leaves them out below 1.8.
func TestCheckVersionRefusesPositionsBefore18(t *testing.T) {
	m := &Message{Kind: KindExecute, Execution: 1, Filename: "agent.ts", Positions: manyPoints(3)}
	if err := m.CheckVersion(Version{1, 7}); !errors.Is(err, ErrVersion) || !strings.Contains(err.Error(), "needs 1.8") {
		t.Errorf("on 1.7: got %v, want an ErrVersion naming 1.8", err)
	}
	if err := m.CheckVersion(Version{1, 8}); err != nil {
		t.Errorf("on 1.8: %v", err)
	}
	if err := m.Check(); err != nil {
		t.Errorf("MaxPositionPoints is allowed: %v", err)
	}
}

// A 1.4 host would not know the mark: the key of 1.5 is refused for any
// older peer (a runner leaves it out, and its CPU limit reads as a plain
// TimeoutError there).
func TestCheckVersionRefusesCPULimitBefore15(t *testing.T) {
	m := &Message{Kind: KindResult, Execution: 1, Outcome: OutcomeProgramFailed, Error: &Error{Name: "TimeoutError"}, CPULimit: true}
	if err := m.CheckVersion(Version{1, 4}); !errors.Is(err, ErrVersion) || !strings.Contains(err.Error(), "cpuLimit (key 41)") || !strings.Contains(err.Error(), "needs 1.5") {
		t.Errorf("on 1.4: got %v, want an ErrVersion naming cpuLimit and 1.5", err)
	}
	if err := m.CheckVersion(Version{1, 5}); err != nil {
		t.Errorf("on 1.5: %v", err)
	}
}
