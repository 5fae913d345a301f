package remote

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/codemode-go/codemode/drivers"
	"github.com/codemode-go/codemode/internal/handshake"
)

// Errors a remote runtime's client reports; test them with errors.Is. Their
// text is what a user sees, wrapped with the detail.
var (
	// ErrAuthFailed: the host rejected this client's token proof.
	ErrAuthFailed = errors.New("remote runner: authentication failed")
	// errHostNotAuthenticated: the peer did not prove that it holds the
	// token, so it is not the runner host this client was configured for.
	errHostNotAuthenticated = errors.New("remote runner: the host did not prove the token (not the configured runner host?)")
	// ErrRefused: the host refused the connection; the wrapped message says
	// why, for example "connection refused: limit of 8 connections reached".
	ErrRefused = errors.New("remote runner")
	// ErrConnectionLost: the connection to the host broke after the
	// handshake; executions in flight on it fail.
	ErrConnectionLost = errors.New("remote runner connection lost")
)

// Options configures the client side of a remote runner.
type Options struct {
	// Address is the runner host: "host:port" or "unix:/path". Required.
	// Several hosts are separated by commas, and a host name that resolves
	// to several IP addresses (a Kubernetes headless Service) counts as
	// that many hosts, resolved again at every Connect. Each Connect then
	// starts one host further along, so that the runtimes of a client.Pool
	// spread over the hosts, and goes on to the next host when one cannot
	// be reached or refuses (its limit, draining); a host that failed so
	// is tried last for the next 5 seconds. A pool replaces a runtime
	// whose host died with a connection to another host.
	Address string
	// Token is the pre-shared secret of at least 16 bytes; both sides
	// prove they hold it. It keys HMAC-SHA256 proofs that a peer may
	// observe, so it must be high-entropy (`openssl rand -hex 32`). It may
	// be empty only when TLS presents a client certificate (mutual TLS).
	Token []byte
	// TLS, when set, wraps the connection in TLS with this configuration:
	// RootCAs (or the system pool) verify the host, ServerName names it,
	// Certificates hold the client certificate for mutual TLS.
	TLS *tls.Config
	// HandshakeTimeout bounds connecting, TLS and the runner handshake,
	// within Connect's context; default 10s.
	HandshakeTimeout time.Duration
}

// hostDriver is the driver New returns.
type hostDriver struct {
	opts  Options
	addrs []string // Options.Address split at commas

	mu          sync.Mutex
	description string // the host's, from the last welcome
	files       []drivers.TypeDefinitionFile
	filesErr    string // why the host has no declaration files
	described   bool
	next        int                  // where the next Connect starts in the hosts
	down        map[string]time.Time // when a host (IP:port, or as written) last failed
}

var _ drivers.Driver = (*hostDriver)(nil)

// New returns a driver that connects to a runner host (`codemode runner
// serve`): each Connect opens one socket, and the host runs one
// runtime of its own driver for it. The runner runs on the host with the
// host's runner source; the client's runner source is not sent, and the
// version check happens in the wire protocol's ready message. The driver is
// safe for concurrent use. New fails when the address is malformed or when
// there is neither a token of at least 16 bytes nor a TLS client
// certificate.
func New(opts Options) (drivers.Driver, error) {
	addrs, err := splitAddresses(opts.Address)
	if err != nil {
		return nil, err
	}
	if err := handshake.CheckToken(opts.Token, opts.TLS != nil && (len(opts.TLS.Certificates) > 0 || opts.TLS.GetClientCertificate != nil)); err != nil {
		return nil, err
	}
	if opts.HandshakeTimeout <= 0 {
		opts.HandshakeTimeout = 10 * time.Second
	}
	return &hostDriver{opts: opts, addrs: addrs}, nil
}

// Description is the host driver's description, learned in the last
// handshake, prefixed with the host's address; before any handshake it
// names only the address.
func (d *hostDriver) Description() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.described {
		return "remote runner at " + d.opts.Address
	}
	return fmt.Sprintf("remote runner at %s: %s", d.opts.Address, d.description)
}

// TypeDefinitionFiles returns the host driver's declaration files, sent by
// the host in every handshake. When no runtime has connected yet, it opens
// a short "describe" connection (authenticated like any other, booting no
// runtime) to fetch them.
func (d *hostDriver) TypeDefinitionFiles(ctx context.Context) ([]drivers.TypeDefinitionFile, error) {
	d.mu.Lock()
	if d.described {
		files, why := d.files, d.filesErr
		d.mu.Unlock()
		if why != "" {
			return nil, fmt.Errorf("remote runner at %s: %s", d.opts.Address, why)
		}
		return files, nil
	}
	d.mu.Unlock()
	conn, _, err := d.handshake(ctx, handshake.PurposeDescribe)
	if err != nil {
		return nil, err
	}
	_ = conn.Close()
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.filesErr != "" {
		return nil, fmt.Errorf("remote runner at %s: %s", d.opts.Address, d.filesErr)
	}
	return d.files, nil
}

// Connect opens a connection to the host, authenticates both ways and
// returns the connection once the host has booted a runtime for it; the
// runner's ready message is the first thing on the channel. ctx governs
// connecting and the handshake. Errors wrap ErrAuthFailed,
// ErrHostNotAuthenticated or ErrRefused, or say what failed.
func (d *hostDriver) Connect(ctx context.Context, req drivers.ConnectRequest) (drivers.Connection, error) {
	conn, _, err := d.handshake(ctx, handshake.PurposeRuntime)
	if err != nil {
		return nil, err
	}
	c := &connection{conn: conn, done: make(chan struct{})}
	c.ch = &channel{c: c}
	return c, nil
}

// handshake dials a host, runs TLS and the runner handshake, and records
// the host's description and files. It tries the hosts in turn (see
// Options.Address) while one cannot be reached or refuses.
func (d *hostDriver) handshake(ctx context.Context, purpose string) (net.Conn, *handshake.Message, error) {
	var errs []error
	for _, t := range d.targets(ctx) {
		conn, welcome, err := d.handshakeWith(ctx, t, purpose)
		if err == nil {
			return conn, welcome, nil
		}
		errs = append(errs, err)
		if !tryNext(err) || ctx.Err() != nil {
			break
		}
		d.markDown(t)
	}
	if len(errs) == 1 {
		return nil, nil, errs[0]
	}
	return nil, nil, errors.Join(errs...)
}

// handshakeWith is handshake with one host.
func (d *hostDriver) handshakeWith(ctx context.Context, t target, purpose string) (net.Conn, *handshake.Message, error) {
	ctx, cancel := context.WithTimeout(ctx, d.opts.HandshakeTimeout)
	defer cancel()
	conn, err := dial(ctx, t)
	if err != nil {
		return nil, nil, err
	}
	// Reads and writes below stop when ctx ends.
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) })
	welcome, err := d.exchange(ctx, &conn, t, purpose)
	if !stop() || err != nil {
		_ = conn.Close()
		if err == nil || ctx.Err() != nil {
			err = fmt.Errorf("remote runner: handshake with %s: %w", t.name, context.Cause(ctx))
		}
		return nil, nil, err
	}
	_ = conn.SetDeadline(time.Time{})
	d.mu.Lock()
	d.description, d.files, d.filesErr, d.described = welcome.Description, handshake.FromFiles(welcome.Files), welcome.Message, true
	d.mu.Unlock()
	return conn, welcome, nil
}

func (d *hostDriver) exchange(ctx context.Context, connp *net.Conn, t target, purpose string) (*handshake.Message, error) {
	addr := t.name
	if d.opts.TLS != nil {
		cfg := d.opts.TLS.Clone()
		if cfg.ServerName == "" {
			if network, a, _ := handshake.SplitAddress(addr); network == "tcp" {
				cfg.ServerName, _, _ = net.SplitHostPort(a)
			}
		}
		tc := tls.Client(*connp, cfg)
		*connp = tc
		if err := tc.HandshakeContext(ctx); err != nil {
			return nil, fmt.Errorf("remote runner: TLS handshake with %s: %w", addr, err)
		}
	}
	conn := *connp
	binding, err := handshake.ChannelBinding(conn)
	if err != nil {
		return nil, err
	}
	hello, err := handshake.Read(conn, handshake.MaxHost)
	if err != nil {
		return nil, fmt.Errorf("remote runner: %s did not greet as a runner host: %w", addr, err)
	}
	switch {
	case hello.Kind == handshake.Refuse:
		return nil, refusal(hello)
	case hello.Kind != handshake.Hello:
		return nil, fmt.Errorf("remote runner: %s sent handshake message %d before hello", addr, hello.Kind)
	case hello.Version != handshake.Version:
		return nil, fmt.Errorf("remote runner: the host speaks handshake version %d; this client speaks %d", hello.Version, handshake.Version)
	}
	auth := &handshake.Message{Kind: handshake.Auth, Version: handshake.Version, Nonce: handshake.NewNonce(), Purpose: purpose}
	if len(d.opts.Token) > 0 {
		auth.Proof = handshake.Proof(d.opts.Token, handshake.RoleClient, hello.Nonce, auth.Nonce, binding)
	}
	if err := handshake.Write(conn, auth); err != nil {
		return nil, fmt.Errorf("remote runner: %w", err)
	}
	welcome, err := handshake.Read(conn, handshake.MaxHost)
	if err != nil {
		return nil, fmt.Errorf("remote runner: waiting for the host's welcome: %w", err)
	}
	switch welcome.Kind {
	case handshake.Refuse:
		return nil, refusal(welcome)
	case handshake.Welcome:
	default:
		return nil, fmt.Errorf("remote runner: %s sent handshake message %d instead of welcome", addr, welcome.Kind)
	}
	if len(d.opts.Token) > 0 && !handshake.ValidProof(welcome.Proof, d.opts.Token, handshake.RoleServer, hello.Nonce, auth.Nonce, binding) {
		return nil, errHostNotAuthenticated
	}
	return welcome, nil
}

// refusal turns a refuse message into the client's error.
func refusal(m *handshake.Message) error {
	if m.Code == handshake.RefuseAuth {
		return ErrAuthFailed
	}
	return fmt.Errorf("%w: %s", ErrRefused, m.Message)
}

// connection is the client's end of one remote runtime.
type connection struct {
	conn net.Conn
	ch   *channel
	done chan struct{}

	mu    sync.Mutex
	err   error
	ended bool // lost or closed
}

// channel is the connection's byte channel: the socket, noting the first
// read or write failure as the connection's end.
type channel struct{ c *connection }

func (ch *channel) Read(p []byte) (int, error) {
	n, err := ch.c.conn.Read(p)
	if err != nil {
		ch.c.lost(err)
	}
	return n, err
}

func (ch *channel) Write(p []byte) (int, error) {
	n, err := ch.c.conn.Write(p)
	if err != nil {
		ch.c.lost(err)
	}
	return n, err
}

func (ch *channel) Close() error { return ch.c.Close() }

func (c *connection) Channel() io.ReadWriteCloser { return c.ch }
func (c *connection) Done() <-chan struct{}       { return c.done }

// Err is nil while the connection is up and after Close, and an error
// wrapping ErrConnectionLost once it broke.
func (c *connection) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// lost records a broken connection, unless it was closed on purpose.
func (c *connection) lost(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended {
		return
	}
	if errors.Is(err, io.EOF) {
		c.err = fmt.Errorf("%w: the host closed the connection", ErrConnectionLost)
	} else {
		c.err = fmt.Errorf("%w: %w", ErrConnectionLost, err)
	}
	c.ended = true
	_ = c.conn.Close()
	close(c.done)
}

// Close closes the socket; the host then closes the runtime it ran for this
// connection. It is safe to call more than once.
func (c *connection) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.ended {
		c.ended = true
		_ = c.conn.Close()
		close(c.done)
	}
	return nil
}
