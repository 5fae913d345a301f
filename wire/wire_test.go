package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"reflect"
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
		{"unknown field", frame(mustMarshal(t, map[int]int{0: 3, 1: 1, 99: 1})), ErrMalformed},
		{"missing execution", frame(mustMarshal(t, map[int]int{0: 3})), ErrMalformed},
		{"tool result with both", frame(mustMarshal(t, &Message{Kind: KindToolResult, Execution: 1, Seq: 1, Output: []byte("1"), Error: &Error{}})), ErrMalformed},
		{"bad stream", frame(mustMarshal(t, &Message{Kind: KindOutput, Execution: 1, Stream: "stdin"})), ErrMalformed},
		{"bad outcome", frame(mustMarshal(t, &Message{Kind: KindResult, Execution: 1, Outcome: "maybe"})), ErrMalformed},
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
