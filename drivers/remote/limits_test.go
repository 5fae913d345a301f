package remote_test

import (
	"context"
	"io"
	"net"
	"testing"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/internal/runnerhost"
)

// TestSilentConnectionsFromOneAddressDoNotLockOutOthers opens 64 silent
// connections from 127.0.0.2 (a second loopback source): they take at most
// MaxHandshakesPerAddress slots, so a client from 127.0.0.1 is served at
// once, and the silent ones are closed after the pre-authentication
// deadline rather than the whole handshake timeout.
func TestSilentConnectionsFromOneAddressDoNotLockOutOthers(t *testing.T) {
	h := startHost(t, quickjsDriver(t), runnerhost.ServerOptions{AuthTimeout: time.Second, HandshakeTimeout: time.Minute})
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

// TestSilentConnectionsFromOneNetworkDoNotLockOutOthers is the review's
// attack and more: 72 silent connections from 9 addresses of one /24 (8
// each, within MaxHandshakesPerAddress), then 16 from each of four other
// /24s. One network takes at most MaxHandshakesPerNetwork slots, and the
// last quarter of MaxHandshakes stays for networks holding none, so a
// client from a fifth network is served at once.
func TestSilentConnectionsFromOneNetworkDoNotLockOutOthers(t *testing.T) {
	h := startHost(t, quickjsDriver(t), runnerhost.ServerOptions{AuthTimeout: 30 * time.Second, HandshakeTimeout: time.Minute})
	var silent []net.Conn
	defer func() {
		for _, c := range silent {
			c.Close()
		}
	}()
	dial := func(ip net.IP, n int) {
		dialer := net.Dialer{LocalAddr: &net.TCPAddr{IP: ip}, Timeout: 5 * time.Second}
		for range n {
			c, err := dialer.Dial("tcp", h.addr)
			if err != nil {
				t.Skipf("cannot dial from %s (%v)", ip, err)
			}
			silent = append(silent, c)
		}
	}
	for host := byte(2); host <= 10; host++ {
		dial(net.IPv4(127, 0, 1, host), 8)
	}
	for network := byte(2); network <= 5; network++ {
		dial(net.IPv4(127, 0, network, 2), 8)
		dial(net.IPv4(127, 0, network, 3), 8)
	}
	// The client dials from 127.0.0.1: another /24.
	rt, err := client.NewRuntime(context.Background(), h.driver(t))
	if err != nil {
		t.Fatalf("a client from another network was locked out: %v", err)
	}
	runOK(t, rt)
	rt.Close()
}
