package remote

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
)

// splitAddress returns the network ("tcp" or "unix") and address of a
// runner host address: "host:port" for TCP, "unix:/path" for a unix socket.
func splitAddress(addr string) (network, address string, err error) {
	if path, ok := strings.CutPrefix(addr, "unix:"); ok {
		if path == "" {
			return "", "", errors.New("remote runner: empty unix socket path in address \"unix:\"")
		}
		return "unix", path, nil
	}
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return "", "", fmt.Errorf("remote runner: address %q is neither host:port nor unix:/path: %w", addr, err)
	}
	return "tcp", addr, nil
}

// Listen opens a listener for a runner host on addr: "host:port" for TCP
// (":0" picks a free port) or "unix:/path" for a unix socket, which is
// removed when the listener closes. It fails on a malformed address or
// when the address is in use (a unix socket file left by a killed host must
// be removed by hand).
func Listen(addr string) (net.Listener, error) {
	network, address, err := splitAddress(addr)
	if err != nil {
		return nil, err
	}
	l, err := net.Listen(network, address)
	if err != nil {
		return nil, fmt.Errorf("remote runner: listening on %s: %w", addr, err)
	}
	return l, nil
}

// dial connects to t under ctx; its errors are *dialError.
func dial(ctx context.Context, t target) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, t.network, t.dial)
	if err != nil {
		addr := t.name
		if t.dial != t.name && t.network == "tcp" {
			addr = fmt.Sprintf("%s (%s)", t.name, t.dial)
		}
		return nil, &dialError{addr: addr, err: err}
	}
	return c, nil
}
