package handshake

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

var testToken = []byte("0123456789abcdef0123456789abcdef")

func TestHandshakeMessagesRoundTrip(t *testing.T) {
	nonce := bytes.Repeat([]byte{7}, NonceSize)
	for _, m := range []*Message{
		{Kind: Hello, Protocol: ProtocolName, Version: 1, Nonce: nonce},
		{Kind: Auth, Version: 1, Nonce: nonce, Proof: Proof(testToken, RoleClient, nonce, nonce, nil), Purpose: PurposeRuntime},
		{Kind: Auth, Version: 1, Nonce: nonce, Purpose: PurposeDescribe},
		{Kind: Welcome, Description: "QuickJS", Files: []TypeFile{{Name: "a.d.ts", Text: "declare var a: 1;"}}},
		{Kind: Refuse, Code: RefuseLimit, Message: "connection refused: limit of 2 connections reached"},
	} {
		var buf bytes.Buffer
		if err := Write(&buf, m); err != nil {
			t.Fatal(err)
		}
		got, err := Read(&buf, MaxHost)
		if err != nil {
			t.Fatalf("kind %d: %v", m.Kind, err)
		}
		if got.Kind != m.Kind || got.Description != m.Description || !bytes.Equal(got.Proof, m.Proof) || got.Message != m.Message {
			t.Fatalf("got %+v, want %+v", got, m)
		}
	}
}

func TestHandshakeDecoderRejects(t *testing.T) {
	nonce := bytes.Repeat([]byte{7}, NonceSize)
	enc := func(m *Message) []byte {
		b, err := hsEnc.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, tc := range []struct {
		name    string
		payload []byte
		want    string
	}{
		{"empty", nil, "EOF"},
		{"not a map", []byte{0x01}, "cannot unmarshal"},
		{"unknown kind", enc(&Message{Kind: 9}), "unknown kind 9"},
		{"hello for another protocol", enc(&Message{Kind: Hello, Protocol: "http", Version: 1, Nonce: nonce}), `protocol "http"`},
		{"hello without version", enc(&Message{Kind: Hello, Protocol: ProtocolName, Nonce: nonce}), "missing version"},
		{"short nonce", enc(&Message{Kind: Auth, Version: 1, Nonce: nonce[:5], Purpose: PurposeRuntime}), "nonce of 5 bytes"},
		{"short proof", enc(&Message{Kind: Auth, Version: 1, Nonce: nonce, Proof: []byte{1}, Purpose: PurposeRuntime}), "proof of 1 bytes"},
		{"unknown purpose", enc(&Message{Kind: Auth, Version: 1, Nonce: nonce, Purpose: "shell"}), `purpose "shell"`},
		{"refusal without code", enc(&Message{Kind: Refuse}), "missing code"},
		{"indefinite length", []byte{0xbf, 0x00, 0x01, 0xff}, "indefinite-length"},
		{"tag", []byte{0xc1, 0xa1, 0x00, 0x01}, "tag"},
		{"duplicate key", []byte{0xa2, 0x00, 0x01, 0x00, 0x02}, "duplicate"},
		{"invalid UTF-8", []byte{0xa2, 0x00, 0x04, 0x08, 0x61, 0xff}, "UTF-8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode(tc.payload)
			if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want ErrMalformed containing %q", err, tc.want)
			}
		})
	}
}

func TestReadHandshakeRefusesOversizedFrame(t *testing.T) {
	_, err := Read(bytes.NewReader([]byte{0, 0, 0x10, 0, 1}), MaxClient)
	if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "frame of 4096 bytes (limit 1024)") {
		t.Fatal(err)
	}
}

// TestProofsAreBoundToRoleNoncesAndChannel: a proof verifies only for the
// token, role, nonces and TLS binding it was made with.
func TestProofsAreBoundToRoleNoncesAndChannel(t *testing.T) {
	a, b := bytes.Repeat([]byte{1}, NonceSize), bytes.Repeat([]byte{2}, NonceSize)
	p := Proof(testToken, RoleClient, a, b, nil)
	if !ValidProof(p, testToken, RoleClient, a, b, nil) {
		t.Fatal("a proof does not verify with its own inputs")
	}
	for name, ok := range map[string]bool{
		"other token":   ValidProof(p, []byte("another token of enough bytes!!"), RoleClient, a, b, nil),
		"other role":    ValidProof(p, testToken, RoleServer, a, b, nil),
		"swapped nonce": ValidProof(p, testToken, RoleClient, b, a, nil),
		"bound channel": ValidProof(p, testToken, RoleClient, a, b, []byte("tls")),
		"truncated":     ValidProof(p[:16], testToken, RoleClient, a, b, nil),
	} {
		if ok {
			t.Errorf("%s: the proof verified", name)
		}
	}
}

// FuzzDecodeHandshake: no input makes the decoder panic, and whatever it
// accepts passes check and re-encodes to a payload that decodes the same.
func FuzzDecodeHandshake(f *testing.F) {
	nonce := bytes.Repeat([]byte{7}, NonceSize)
	for _, m := range []*Message{
		{Kind: Hello, Protocol: ProtocolName, Version: 1, Nonce: nonce},
		{Kind: Auth, Version: 1, Nonce: nonce, Proof: nonce, Purpose: PurposeRuntime},
		{Kind: Welcome, Proof: nonce, Description: "d", Files: []TypeFile{{Name: "a", Text: "b"}}},
		{Kind: Refuse, Code: RefuseAuth, Message: "authentication failed"},
	} {
		b, _ := hsEnc.Marshal(m)
		f.Add(b)
	}
	f.Add([]byte("GET / HTTP/1.1\r\n"))
	f.Fuzz(func(t *testing.T, payload []byte) {
		m, err := Decode(payload)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error %v does not wrap ErrMalformed", err)
			}
			return
		}
		if err := m.check(); err != nil {
			t.Fatalf("accepted a message that fails check: %v", err)
		}
		again, err := hsEnc.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		m2, err := Decode(again)
		if err != nil {
			t.Fatalf("re-encoded message does not decode: %v", err)
		}
		if m2.Kind != m.Kind || m2.Version != m.Version || !bytes.Equal(m2.Nonce, m.Nonce) || m2.Message != m.Message {
			t.Fatalf("round trip changed %+v into %+v", m, m2)
		}
	})
}
