package remote

import (
	"context"
	"fmt"
	"net"
)

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
