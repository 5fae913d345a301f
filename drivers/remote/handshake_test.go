package remote

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/drivers"
	"github.com/codemode-go/codemode/internal/handshake"
)

var testToken = []byte("0123456789abcdef0123456789abcdef")

// TestClientDetectsAFakeHost: a host that does not hold the token cannot
func TestClientDetectsAFakeHost(t *testing.T) {
	for _, tc := range []struct {
		name    string
		welcome func(hello, auth *handshake.Message) *handshake.Message
		want    error
		text    string
	}{
		{"random proof", func(h, a *handshake.Message) *handshake.Message {
			return &handshake.Message{Kind: handshake.Welcome, Proof: handshake.NewNonce()}
		}, errHostNotAuthenticated, ""},
		{"no proof", func(h, a *handshake.Message) *handshake.Message { return &handshake.Message{Kind: handshake.Welcome} }, errHostNotAuthenticated, ""},
		{"echoed client proof", func(h, a *handshake.Message) *handshake.Message {
			return &handshake.Message{Kind: handshake.Welcome, Proof: a.Proof}
		}, errHostNotAuthenticated, ""},
		{"hello again", func(h, a *handshake.Message) *handshake.Message { return h }, nil, "instead of welcome"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := net.Listen("tcp", "127.0.0.1:0")
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
				hello := &handshake.Message{Kind: handshake.Hello, Protocol: handshake.ProtocolName, Version: handshake.Version, Nonce: handshake.NewNonce()}
				_ = handshake.Write(c, hello)
				auth, err := handshake.Read(c, handshake.MaxClient)
				if err != nil {
					return
				}
				_ = handshake.Write(c, tc.welcome(hello, auth))
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
			l, err := net.Listen("tcp", "127.0.0.1:0")
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
}
