package remote

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/drivers"
)

var testToken = []byte("0123456789abcdef0123456789abcdef")

func TestHandshakeMessagesRoundTrip(t *testing.T) {
	nonce := bytes.Repeat([]byte{7}, nonceSize)
	for _, m := range []*handshake{
		{Kind: hsHello, Protocol: protocolName, Version: 1, Nonce: nonce},
		{Kind: hsAuth, Version: 1, Nonce: nonce, Proof: proof(testToken, roleClient, nonce, nonce, nil), Purpose: purposeRuntime},
		{Kind: hsAuth, Version: 1, Nonce: nonce, Purpose: purposeDescribe},
		{Kind: hsWelcome, Description: "QuickJS", Files: []typeFile{{Name: "a.d.ts", Text: "declare var a: 1;"}}},
		{Kind: hsRefuse, Code: refuseLimit, Message: "connection refused: limit of 2 connections reached"},
	} {
		var buf bytes.Buffer
		if err := writeHandshake(&buf, m); err != nil {
			t.Fatal(err)
		}
		got, err := readHandshake(&buf, maxHostHandshake)
		if err != nil {
			t.Fatalf("kind %d: %v", m.Kind, err)
		}
		if got.Kind != m.Kind || got.Description != m.Description || !bytes.Equal(got.Proof, m.Proof) || got.Message != m.Message {
			t.Fatalf("got %+v, want %+v", got, m)
		}
	}
}

func TestHandshakeDecoderRejects(t *testing.T) {
	nonce := bytes.Repeat([]byte{7}, nonceSize)
	enc := func(m *handshake) []byte {
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
		{"unknown kind", enc(&handshake{Kind: 9}), "unknown kind 9"},
		{"hello for another protocol", enc(&handshake{Kind: hsHello, Protocol: "http", Version: 1, Nonce: nonce}), `protocol "http"`},
		{"hello without version", enc(&handshake{Kind: hsHello, Protocol: protocolName, Nonce: nonce}), "missing version"},
		{"short nonce", enc(&handshake{Kind: hsAuth, Version: 1, Nonce: nonce[:5], Purpose: purposeRuntime}), "nonce of 5 bytes"},
		{"short proof", enc(&handshake{Kind: hsAuth, Version: 1, Nonce: nonce, Proof: []byte{1}, Purpose: purposeRuntime}), "proof of 1 bytes"},
		{"unknown purpose", enc(&handshake{Kind: hsAuth, Version: 1, Nonce: nonce, Purpose: "shell"}), `purpose "shell"`},
		{"refusal without code", enc(&handshake{Kind: hsRefuse}), "missing code"},
		{"indefinite length", []byte{0xbf, 0x00, 0x01, 0xff}, "indefinite-length"},
		{"tag", []byte{0xc1, 0xa1, 0x00, 0x01}, "tag"},
		{"duplicate key", []byte{0xa2, 0x00, 0x01, 0x00, 0x02}, "duplicate"},
		{"invalid UTF-8", []byte{0xa2, 0x00, 0x04, 0x08, 0x61, 0xff}, "UTF-8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := decodeHandshake(tc.payload)
			if !errors.Is(err, errMalformedHandshake) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want errMalformedHandshake containing %q", err, tc.want)
			}
		})
	}
}

func TestReadHandshakeRefusesOversizedFrame(t *testing.T) {
	_, err := readHandshake(bytes.NewReader([]byte{0, 0, 0x10, 0, 1}), maxClientHandshake)
	if !errors.Is(err, errMalformedHandshake) || !strings.Contains(err.Error(), "frame of 4096 bytes (limit 1024)") {
		t.Fatal(err)
	}
}

// TestProofsAreBoundToRoleNoncesAndChannel: a proof verifies only for the
// token, role, nonces and TLS binding it was made with.
func TestProofsAreBoundToRoleNoncesAndChannel(t *testing.T) {
	a, b := bytes.Repeat([]byte{1}, nonceSize), bytes.Repeat([]byte{2}, nonceSize)
	p := proof(testToken, roleClient, a, b, nil)
	if !validProof(p, testToken, roleClient, a, b, nil) {
		t.Fatal("a proof does not verify with its own inputs")
	}
	for name, ok := range map[string]bool{
		"other token":   validProof(p, []byte("another token of enough bytes!!"), roleClient, a, b, nil),
		"other role":    validProof(p, testToken, roleServer, a, b, nil),
		"swapped nonce": validProof(p, testToken, roleClient, b, a, nil),
		"bound channel": validProof(p, testToken, roleClient, a, b, []byte("tls")),
		"truncated":     validProof(p[:16], testToken, roleClient, a, b, nil),
	} {
		if ok {
			t.Errorf("%s: the proof verified", name)
		}
	}
}

// TestClientDetectsAFakeHost: a host that does not hold the token cannot
// pass the client's check, whatever it answers.
func TestClientDetectsAFakeHost(t *testing.T) {
	for _, tc := range []struct {
		name    string
		welcome func(hello, auth *handshake) *handshake
		want    error
		text    string
	}{
		{"random proof", func(h, a *handshake) *handshake {
			return &handshake{Kind: hsWelcome, Proof: newNonce()}
		}, errHostNotAuthenticated, ""},
		{"no proof", func(h, a *handshake) *handshake { return &handshake{Kind: hsWelcome} }, errHostNotAuthenticated, ""},
		{"echoed client proof", func(h, a *handshake) *handshake {
			return &handshake{Kind: hsWelcome, Proof: a.Proof}
		}, errHostNotAuthenticated, ""},
		{"hello again", func(h, a *handshake) *handshake { return h }, nil, "instead of welcome"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := Listen("127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			go func() {
				c, err := l.Accept()
				if err != nil {
					return
				}
				defer c.Close()
				hello := &handshake{Kind: hsHello, Protocol: protocolName, Version: handshakeVersion, Nonce: newNonce()}
				_ = writeHandshake(c, hello)
				auth, err := readHandshake(c, maxClientHandshake)
				if err != nil {
					return
				}
				_ = writeHandshake(c, tc.welcome(hello, auth))
			}()
			d, err := New(Options{Address: l.Addr().String(), Token: testToken})
			if err != nil {
				t.Fatal(err)
			}
			_, err = d.Connect(context.Background(), drivers.ConnectRequest{})
			if err == nil || (tc.want != nil && !errors.Is(err, tc.want)) || !strings.Contains(err.Error(), tc.text) {
				t.Fatalf("Connect = %v, want %v %q", err, tc.want, tc.text)
			}
		})
	}
}

func TestClientRejectsOtherServices(t *testing.T) {
	for _, tc := range []struct {
		name, greeting, want string
	}{
		{"an HTTP server", "HTTP/1.1 400 Bad Request\r\n\r\n", "frame of 1213486160 bytes"},
		{"a closed socket", "", "EOF"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := Listen("127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			go func() {
				c, err := l.Accept()
				if err != nil {
					return
				}
				_, _ = c.Write([]byte(tc.greeting))
				_ = c.Close()
			}()
			d, _ := New(Options{Address: l.Addr().String(), Token: testToken})
			_, err = d.Connect(context.Background(), drivers.ConnectRequest{})
			if err == nil || !strings.Contains(err.Error(), "did not greet as a runner host") || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Connect = %v", err)
			}
		})
	}
}

func TestOptionsAreChecked(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts Options
		want string
	}{
		{"no token", Options{Address: "127.0.0.1:1"}, "a token is required unless mutual TLS"},
		{"short token", Options{Address: "127.0.0.1:1", Token: []byte("short")}, "the token has 5 bytes; at least 16"},
		{"bad address", Options{Address: "localhost", Token: testToken}, "neither host:port nor unix:/path"},
		{"empty unix path", Options{Address: "unix:", Token: testToken}, "empty unix socket path"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := New(tc.opts); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("New = %v, want %q", err, tc.want)
			}
		})
	}
	if _, err := NewServer(ServerOptions{Token: testToken}); err == nil || !strings.Contains(err.Error(), "Driver is required") {
		t.Fatalf("NewServer without a driver = %v", err)
	}
}

// FuzzDecodeHandshake: no input makes the decoder panic, and whatever it
// accepts passes check and re-encodes to a payload that decodes the same.
func FuzzDecodeHandshake(f *testing.F) {
	nonce := bytes.Repeat([]byte{7}, nonceSize)
	for _, m := range []*handshake{
		{Kind: hsHello, Protocol: protocolName, Version: 1, Nonce: nonce},
		{Kind: hsAuth, Version: 1, Nonce: nonce, Proof: nonce, Purpose: purposeRuntime},
		{Kind: hsWelcome, Proof: nonce, Description: "d", Files: []typeFile{{Name: "a", Text: "b"}}},
		{Kind: hsRefuse, Code: refuseAuth, Message: "authentication failed"},
	} {
		b, _ := hsEnc.Marshal(m)
		f.Add(b)
	}
	f.Add([]byte("GET / HTTP/1.1\r\n"))
	f.Fuzz(func(t *testing.T, payload []byte) {
		m, err := decodeHandshake(payload)
		if err != nil {
			if !errors.Is(err, errMalformedHandshake) {
				t.Fatalf("error %v does not wrap errMalformedHandshake", err)
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
		m2, err := decodeHandshake(again)
		if err != nil {
			t.Fatalf("re-encoded message does not decode: %v", err)
		}
		if m2.Kind != m.Kind || m2.Version != m.Version || !bytes.Equal(m2.Nonce, m.Nonce) || m2.Message != m.Message {
			t.Fatalf("round trip changed %+v into %+v", m, m2)
		}
	})
}
