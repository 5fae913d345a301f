package remote_test

import (
	"context"
	"io"
	"net"
	"testing"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/drivers/remote"
)

// TestSilentConnectionsFromOneAddressDoNotLockOutOthers opens 64 silent
// connections from 127.0.0.2 (a second loopback source): they take at most
// MaxHandshakesPerAddress slots, so a client from 127.0.0.1 is served at
// once, and the silent ones are closed after the pre-authentication
// deadline rather than the whole handshake timeout.
func TestSilentConnectionsFromOneAddressDoNotLockOutOthers(t *testing.T) {
	h := startHost(t, quickjsDriver(t), remote.ServerOptions{AuthTimeout: time.Second, HandshakeTimeout: time.Minute})
	dialer := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}, Timeout: 5 * time.Second}
	var silent []net.Conn
	for range 64 {
		c, err := dialer.Dial("tcp", h.addr)
		if err != nil {
			t.Skipf("cannot dial from 127.0.0.2 (%v)", err)
		}
		silent = append(silent, c)
	}
	defer func() {
		for _, c := range silent {
			c.Close()
		}
	}()
	rt, err := client.NewRuntime(context.Background(), h.driver(t))
	if err != nil {
		t.Fatalf("a client from another address was locked out: %v", err)
	}
	runOK(t, rt)
	rt.Close()

	// Every silent connection ends: refused at once past the per-address
	// cap, or closed at the pre-authentication deadline. None is held for
	// the minute-long handshake timeout.
	start := time.Now()
	for i, c := range silent {
		_ = c.SetReadDeadline(time.Now().Add(20 * time.Second))
		if _, err := io.Copy(io.Discard, c); err != nil {
			t.Fatalf("silent connection %d was not closed: %v", i, err)
		}
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("the silent connections were held for %s", d)
	}
}
