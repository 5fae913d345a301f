package remote

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/codemode-go/codemode/internal/handshake"
)

// downFor is how long a host that could not be reached, or refused a
// connection, goes to the back of the order for the next Connects.
const downFor = 5 * time.Second

// target is one runner host to try: where to dial, and the address as
// written (for TLS's server name and for messages).
type target struct {
	network, dial string
	name          string
}

// splitAddresses checks Options.Address: one or more addresses, separated
// by commas.
func splitAddresses(addrs string) ([]string, error) {
	var out []string
	for _, a := range strings.Split(addrs, ",") {
		a = strings.TrimSpace(a)
		if _, _, err := handshake.SplitAddress(a); err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// targets resolves the driver's addresses into the hosts to try, in the
// order to try them: starting one further along at each call (so that a
// pool's runtimes spread over the hosts), the hosts that failed in the
// last downFor last. A TCP host name resolves to every address it has (a
// Kubernetes headless Service names each ready pod); one that does not
// resolve is kept as it is, for dial to report.
func (d *hostDriver) targets(ctx context.Context) []target {
	var all []target
	for _, a := range d.addrs {
		network, addr, _ := handshake.SplitAddress(a)
		host, port, _ := net.SplitHostPort(addr)
		if network != "tcp" || net.ParseIP(host) != nil {
			all = append(all, target{network, addr, a})
			continue
		}
		ips, err := net.DefaultResolver.LookupHost(ctx, host)
		if err != nil || len(ips) == 0 {
			all = append(all, target{network, addr, a})
			continue
		}
		for _, ip := range ips {
			all = append(all, target{network, net.JoinHostPort(ip, port), a})
		}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	start := d.next % len(all)
	d.next++
	var up, down []target
	now := time.Now()
	for i := range all {
		t := all[(start+i)%len(all)]
		if at, ok := d.down[t.dial]; ok && now.Sub(at) < downFor {
			down = append(down, t)
		} else {
			delete(d.down, t.dial)
			up = append(up, t)
		}
	}
	return append(up, down...)
}

// markDown records that t could not be reached or refused a connection.
func (d *hostDriver) markDown(t target) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.down == nil {
		d.down = map[string]time.Time{}
	}
	d.down[t.dial] = time.Now()
}

// tryNext reports whether a failed handshake with one host should go on
// to the next: the host could not be reached, or refused the connection
// for a reason of its own (its limit, draining, a runtime that failed to
// boot). A failed authentication would fail everywhere.
func tryNext(err error) bool {
	var dialErr *dialError
	return errors.As(err, &dialErr) || (errors.Is(err, ErrRefused) && !errors.Is(err, ErrAuthFailed))
}

// dialError is a failure to connect to a host.
type dialError struct {
	addr string
	err  error
}

func (e *dialError) Error() string {
	return fmt.Sprintf("remote runner: connecting to %s: %v", e.addr, e.err)
}

func (e *dialError) Unwrap() error { return e.err }
