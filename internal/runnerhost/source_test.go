package runnerhost

import (
	"net"
	"testing"
)

// TestSourceNetworks: connections are counted by address and by network:
// an IPv4 /24 and an IPv6 /64 by default, other prefixes as configured; an
// IPv4-mapped IPv6 address is its IPv4 address.
func TestSourceNetworks(t *testing.T) {
	cases := []struct {
		name     string
		v4, v6   int
		addr     net.Addr
		wantAddr string
		wantNet  string
	}{
		{"IPv4", 24, 64, &net.TCPAddr{IP: net.ParseIP("192.0.2.77"), Port: 1}, "192.0.2.77", "192.0.2.0/24"},
		{"IPv4-mapped", 24, 64, &net.TCPAddr{IP: net.ParseIP("::ffff:192.0.2.77"), Port: 1}, "192.0.2.77", "192.0.2.0/24"},
		{"IPv6", 24, 64, &net.TCPAddr{IP: net.ParseIP("2001:db8:1:2:3:4:5:6"), Port: 1}, "2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"},
		{"IPv4 /16", 16, 64, &net.TCPAddr{IP: net.ParseIP("192.0.2.77"), Port: 1}, "192.0.2.77", "192.0.0.0/16"},
		{"IPv6 /48", 24, 48, &net.TCPAddr{IP: net.ParseIP("2001:db8:1:2::9"), Port: 1}, "2001:db8:1:2::9", "2001:db8:1::/48"},
		{"Unix socket", 24, 64, &net.UnixAddr{Name: "/run/codemode.sock", Net: "unix"}, "/run/codemode.sock", "/run/codemode.sock"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := &Server{opts: ServerOptions{NetworkPrefixIPv4: tc.v4, NetworkPrefixIPv6: tc.v6}}
			if got := s.sourceOf(tc.addr); got.addr != tc.wantAddr || got.network != tc.wantNet {
				t.Fatalf("source of %s: %+v, want %s in %s", tc.addr, got, tc.wantAddr, tc.wantNet)
			}
		})
	}
}
