// Package runnerhost is the runner host behind `codemode runner serve`: a
// [Server] accepts connections on TCP or a unix socket and boots one
// runtime of a local driver (QuickJS or Node.js) per connection, for the
// clients of drivers/remote. Before any execution, both sides prove that
// they hold a pre-shared token (internal/handshake), optionally inside
// mutual TLS; then the socket carries the wire protocol unchanged, and the
// host relays it frame by frame, tracking which executions are in flight so
// that it can close idle connections and drain on shutdown.
// drivers/remote/PROTOCOL.md documents the handshake, refusals and
// draining. Bad input from a socket ends only that connection.
package runnerhost

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/codemode-go/codemode/drivers"
	"github.com/codemode-go/codemode/internal/handshake"
	"github.com/codemode-go/codemode/internal/wire"
	"github.com/codemode-go/codemode/runner"
)

// ErrServerClosed is returned by Server.Serve after Shutdown or Close.
var ErrServerClosed = errors.New("remote runner: server closed")

// drainingErrorName is the JavaScript error name of the program-failed
// outcome a host answers an execute with while it drains (Server.Shutdown):
// the program never ran and may be run on another runtime.
const drainingErrorName = "RunnerDrainingError"

// Listen opens a listener for a runner host on addr: "host:port" for TCP
// (":0" picks a free port) or "unix:/path" for a unix socket, which is
// removed when the listener closes. It fails on a malformed address or
// when the address is in use (a unix socket file left by a killed host must
// be removed by hand).
func Listen(addr string) (net.Listener, error) {
	network, address, err := handshake.SplitAddress(addr)
	if err != nil {
		return nil, err
	}
	l, err := net.Listen(network, address)
	if err != nil {
		return nil, fmt.Errorf("remote runner: listening on %s: %w", addr, err)
	}
	return l, nil
}

// ServerOptions configures a runner host.
type ServerOptions struct {
	// Driver boots the local runtime of each connection (quickjs.New,
	// node.New, …). Required. The caller owns it and closes it after the
	// server.
	Driver drivers.Driver
	// Token is the pre-shared secret of at least handshake.MinTokenSize bytes that
	// clients must prove they hold. It may be empty only when TLS requires
	// and verifies client certificates (mutual TLS).
	Token []byte
	// TLS, when set, makes every connection TLS with this configuration:
	// Certificates hold the host's certificate; ClientCAs with ClientAuth
	// tls.RequireAndVerifyClientCert make it mutual.
	TLS *tls.Config
	// MaxConnections caps the connections with a runtime at once; past it a
	// client is refused with "connection refused: limit of N connections
	// reached". Default 64.
	MaxConnections int
	// MaxHandshakes caps connections still authenticating; past it a new
	// connection is refused (a refuse{limit} frame, written within a second)
	// and closed. Default 64.
	MaxHandshakes int
	// MaxHandshakesPerAddress caps the connections still authenticating
	// from one source IP address, so that one peer opening silent
	// connections cannot take every MaxHandshakes slot and lock out clients
	// from elsewhere; past it a connection from that address is refused
	// like one past MaxHandshakes. Default 8.
	MaxHandshakesPerAddress int
	// MaxHandshakesPerNetwork caps the connections still authenticating
	// from one network (NetworkPrefixIPv4, NetworkPrefixIPv6), since a
	// peer holding a few addresses of one network, or an IPv6 /64, would
	// pass MaxHandshakesPerAddress alone. Default 16. Besides, once three
	// quarters of MaxHandshakes are taken, a network that already holds a
	// slot gets no other: the last quarter is kept for networks that hold
	// none, so that a handful of networks cannot lock everyone out.
	MaxHandshakesPerNetwork int
	// NetworkPrefixIPv4 and NetworkPrefixIPv6 are the prefix lengths, in
	// bits, of the networks MaxHandshakesPerNetwork counts by; default 24
	// (an IPv4 /24) and 64 (an IPv6 /64, what one site is usually given:
	// RFC 6177 §2).
	NetworkPrefixIPv4, NetworkPrefixIPv6 int
	// AuthTimeout bounds what a connection may take before it has proved the
	// token: TLS and the hello/auth exchange. A silent or slow peer holds a
	// slot at most this long. Default 3s; at most HandshakeTimeout.
	AuthTimeout time.Duration
	// HandshakeTimeout bounds TLS, the handshake and the runtime's boot for
	// one connection; default 10s.
	HandshakeTimeout time.Duration
	// IdleTimeout, when positive, closes a connection that has had no
	// execution in flight and no traffic for this long.
	IdleTimeout time.Duration
	// Logger receives one record per connection event (accepted, refused,
	// closed with the reason); nil discards them.
	Logger *slog.Logger
}

// Server is a runner host: for each accepted and authenticated connection
// it boots one runtime with its driver and relays wire frames between the
// socket and that runtime, so connections never share executions. It is
// safe for concurrent use.
type Server struct {
	opts   ServerOptions
	log    *slog.Logger
	ctx    context.Context // ends on Close: stops runtime boots
	cancel context.CancelFunc

	mu          sync.Mutex
	listeners   map[net.Listener]struct{}
	handshaking map[net.Conn]source // connections authenticating -> where from
	perAddress  map[string]int      // source IP -> connections authenticating
	perNetwork  map[string]int      // source network -> connections authenticating
	sessions    map[*session]struct{}
	runtimes    int // reserved runtime slots: sessions and boots
	draining    bool
	wg          sync.WaitGroup // connection goroutines
	nextID      uint64
}

// NewServer returns a runner host. It fails when Driver is nil, or when
// there is neither a token of at least handshake.MinTokenSize bytes nor a TLS
// configuration that requires and verifies client certificates.
func NewServer(opts ServerOptions) (*Server, error) {
	if opts.Driver == nil {
		return nil, errors.New("remote runner: ServerOptions.Driver is required")
	}
	mutual := opts.TLS != nil && opts.TLS.ClientAuth == tls.RequireAndVerifyClientCert
	if err := handshake.CheckToken(opts.Token, mutual); err != nil {
		return nil, err
	}
	if opts.MaxConnections <= 0 {
		opts.MaxConnections = 64
	}
	if opts.MaxHandshakes <= 0 {
		opts.MaxHandshakes = 64
	}
	if opts.MaxHandshakesPerAddress <= 0 {
		opts.MaxHandshakesPerAddress = 8
	}
	if opts.MaxHandshakesPerNetwork <= 0 {
		opts.MaxHandshakesPerNetwork = 16
	}
	if opts.NetworkPrefixIPv4 <= 0 || opts.NetworkPrefixIPv4 > 32 {
		opts.NetworkPrefixIPv4 = 24
	}
	if opts.NetworkPrefixIPv6 <= 0 || opts.NetworkPrefixIPv6 > 128 {
		opts.NetworkPrefixIPv6 = 64
	}
	if opts.HandshakeTimeout <= 0 {
		opts.HandshakeTimeout = 10 * time.Second
	}
	if opts.AuthTimeout <= 0 {
		opts.AuthTimeout = 3 * time.Second
	}
	opts.AuthTimeout = min(opts.AuthTimeout, opts.HandshakeTimeout)
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Server{
		opts: opts, log: log, ctx: ctx, cancel: cancel,
		listeners:   map[net.Listener]struct{}{},
		handshaking: map[net.Conn]source{},
		perAddress:  map[string]int{},
		perNetwork:  map[string]int{},
		sessions:    map[*session]struct{}{},
	}, nil
}

// Serve accepts connections on l until Shutdown or Close, then returns
// ErrServerClosed; it closes l. It returns another error when Accept fails
// for a reason other than running out of file descriptors (which it waits
// out). Several listeners may be served at once.
func (s *Server) Serve(l net.Listener) error {
	s.mu.Lock()
	if s.draining {
		s.mu.Unlock()
		_ = l.Close()
		return ErrServerClosed
	}
	s.listeners[l] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.listeners, l)
		s.mu.Unlock()
		_ = l.Close()
	}()
	var backoff time.Duration
	for {
		c, err := l.Accept()
		if err != nil {
			if s.isDraining() {
				return ErrServerClosed
			}
			if errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) || errors.Is(err, syscall.ECONNABORTED) {
				backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
				s.log.Warn("remote runner: accept failed; retrying", "err", err, "in", backoff)
				time.Sleep(backoff)
				continue
			}
			return fmt.Errorf("remote runner: accepting: %w", err)
		}
		backoff = 0
		s.accept(c)
	}
}

func (s *Server) isDraining() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.draining
}

// accept starts a connection's goroutine, or closes it when the server is
// draining or too many connections are authenticating.
func (s *Server) accept(c net.Conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.draining {
		_ = c.Close()
		return
	}
	from := s.sourceOf(c.RemoteAddr())
	busy := s.preAuthBusy(c, from)
	if busy != "" {
		// Say so, briefly, so a client can tell a busy host from another
		// service; a peer that does not read loses nothing but a second.
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			_ = c.SetWriteDeadline(time.Now().Add(time.Second))
			_ = handshake.Write(c, &handshake.Message{Kind: handshake.Refuse, Code: handshake.RefuseLimit, Message: busy})
			_ = c.Close()
		}()
		return
	}
	s.handshaking[c] = from
	s.perAddress[from.addr]++
	s.perNetwork[from.network]++
	s.nextID++
	id := s.nextID
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		s.serveConn(id, c)
	}()
}

// ActiveConnections is the number of connections that have a runtime
// (authenticated, booting or running).
func (s *Server) ActiveConnections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.runtimes
}

// Shutdown drains the server: it stops accepting, closes connections that
// are authenticating or have no execution in flight, answers every new
// execute with a program-failed outcome named RunnerDrainingError, and closes
// each remaining connection when its last execution ends. It returns nil
// once every connection is closed, or, when ctx ends first, closes them all
// (failing their executions) and returns ctx's error.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.draining = true
	// Sessions drain before the listeners close, so that once Serve has
	// returned, every execute is answered with the draining failure.
	for ss := range s.sessions {
		ss.drain()
	}
	for l := range s.listeners {
		_ = l.Close()
	}
	for c := range s.handshaking {
		_ = c.Close()
	}
	s.mu.Unlock()
	done := make(chan struct{})
	go func() {
		s.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		s.cancel()
		return nil
	case <-ctx.Done():
		_ = s.Close()
		<-done
		return fmt.Errorf("remote runner: shutdown: %w", context.Cause(ctx))
	}
}

// Close stops the server at once: listeners and every connection are
// closed, their runtimes closed and their executions failed. It returns when
// every connection goroutine has stopped. It is safe to call more than once.
func (s *Server) Close() error {
	s.mu.Lock()
	s.draining = true
	s.cancel()
	for l := range s.listeners {
		_ = l.Close()
	}
	for c := range s.handshaking {
		_ = c.Close()
	}
	for ss := range s.sessions {
		ss.end("host closed")
	}
	s.mu.Unlock()
	s.wg.Wait()
	return nil
}

// serveConn authenticates one connection and, for a runtime, runs its
// session until it ends.
func (s *Server) serveConn(id uint64, raw net.Conn) {
	remote := raw.RemoteAddr().String()
	log := s.log.With("conn", id, "remote", remote)
	conn := raw
	defer func() { _ = conn.Close() }()
	defer func() {
		s.mu.Lock()
		s.untrack(raw)
		s.mu.Unlock()
	}()

	ss, err := s.authenticate(&conn, log)
	if err != nil {
		log.Warn("remote runner: connection refused", "err", err)
		return
	}
	if ss == nil {
		return // a describe connection, answered
	}
	s.mu.Lock()
	s.untrack(raw)
	s.sessions[ss] = struct{}{}
	draining := s.draining
	s.mu.Unlock()
	log.Info("remote runner: connection authenticated; runtime started")
	if draining {
		ss.drain()
	}
	reason := ss.run()
	s.mu.Lock()
	delete(s.sessions, ss)
	s.runtimes--
	s.mu.Unlock()
	log.Info("remote runner: connection closed", "reason", reason)
}

// untrack forgets an authenticating connection; s.mu is held. It may be
// called again for the same connection.
func (s *Server) untrack(c net.Conn) {
	from, ok := s.handshaking[c]
	if !ok {
		return
	}
	delete(s.handshaking, c)
	if s.perAddress[from.addr]--; s.perAddress[from.addr] <= 0 {
		delete(s.perAddress, from.addr)
	}
	if s.perNetwork[from.network]--; s.perNetwork[from.network] <= 0 {
		delete(s.perNetwork, from.network)
	}
}

// preAuthBusy returns why a connection from from may not take a
// pre-authentication slot, for the peer, or "" when it may; s.mu is held.
func (s *Server) preAuthBusy(c net.Conn, from source) string {
	// The last quarter of the slots is kept for networks holding none.
	shared := s.opts.MaxHandshakes - s.opts.MaxHandshakes/4
	refuse := func(why string, limit int, peer string) string {
		s.log.Warn("remote runner: connection refused: "+why, "remote", c.RemoteAddr().String(), "limit", limit)
		return "connection refused: " + peer + "; try again"
	}
	switch {
	case len(s.handshaking) >= s.opts.MaxHandshakes:
		return refuse("too many connections authenticating", s.opts.MaxHandshakes, "too many connections are authenticating")
	case s.perAddress[from.addr] >= s.opts.MaxHandshakesPerAddress:
		return refuse("too many connections authenticating from one address", s.opts.MaxHandshakesPerAddress, "too many connections from your address are authenticating")
	case s.perNetwork[from.network] >= s.opts.MaxHandshakesPerNetwork:
		return refuse("too many connections authenticating from one network", s.opts.MaxHandshakesPerNetwork, "too many connections from your network are authenticating")
	case s.perNetwork[from.network] > 0 && len(s.handshaking) >= shared:
		return refuse("the remaining authentication slots are kept for other networks", s.opts.MaxHandshakes, "too many connections are authenticating")
	}
	return ""
}

// source is where a connection comes from: its IP address, and the network
// that address belongs to ("127.0.0.0/24"). For a Unix socket, whose peers
// are all local, both are the whole address.
type source struct{ addr, network string }

func (s *Server) sourceOf(a net.Addr) source {
	tcp, ok := a.(*net.TCPAddr)
	if !ok {
		return source{a.String(), a.String()}
	}
	ip, bits := tcp.IP, s.opts.NetworkPrefixIPv6
	if v4 := ip.To4(); v4 != nil {
		ip, bits = v4, s.opts.NetworkPrefixIPv4
	}
	network := &net.IPNet{IP: ip.Mask(net.CIDRMask(bits, 8*len(ip))), Mask: net.CIDRMask(bits, 8*len(ip))}
	return source{ip.String(), network.String()}
}

// refusalGrace is how long a refusal may take to write, past the handshake
// deadline if need be: a few hundred bytes into the socket's buffer.
const refusalGrace = time.Second

// authenticate runs TLS and the handshake on *connp under the handshake
// deadline and, for a runtime connection, boots the runtime and returns its
// session. It returns nil and no error for an answered describe connection.
// A refusal it could name is sent to the client before the error returns.
func (s *Server) authenticate(connp *net.Conn, log *slog.Logger) (*session, error) {
	ctx, cancel := context.WithTimeout(s.ctx, s.opts.HandshakeTimeout)
	defer cancel()
	dl, _ := ctx.Deadline()
	// Until the token is proved, the shorter AuthTimeout holds.
	_ = (*connp).SetDeadline(time.Now().Add(s.opts.AuthTimeout))
	if s.opts.TLS != nil {
		tc := tls.Server(*connp, s.opts.TLS)
		*connp = tc
		if err := tc.HandshakeContext(ctx); err != nil {
			return nil, fmt.Errorf("TLS handshake: %w", err)
		}
	}
	h := &handshaking{s: s, conn: *connp, limitMsg: fmt.Sprintf("connection refused: limit of %d connections reached", s.opts.MaxConnections)}
	if s.ActiveConnections() >= s.opts.MaxConnections {
		return nil, h.refuse(handshake.RefuseLimit, h.limitMsg, errors.New(h.limitMsg))
	}
	auth, welcome, err := h.prove()
	if err != nil {
		return nil, err
	}
	_ = h.conn.SetDeadline(dl)
	h.describe(ctx, welcome)
	if auth.Purpose == handshake.PurposeDescribe {
		if err := handshake.Write(h.conn, welcome); err != nil {
			return nil, err
		}
		log.Info("remote runner: description sent")
		return nil, nil
	}
	return h.boot(ctx, welcome)
}

// handshaking is one connection between TLS and its session.
type handshaking struct {
	s        *Server
	conn     net.Conn
	limitMsg string
}

// refuse sends the client a refusal and returns err. The handshake deadline
// may have passed already (a runtime too slow to boot): the refusal still
// gets a moment to reach the client, so that it reads why instead of EOF.
func (h *handshaking) refuse(code, msg string, err error) error {
	_ = h.conn.SetWriteDeadline(time.Now().Add(refusalGrace))
	_ = handshake.Write(h.conn, &handshake.Message{Kind: handshake.Refuse, Code: code, Message: handshake.BoundMessage(msg)})
	return err
}

// prove exchanges hello and auth: the client proves the token (when the
// host has one) over the host's nonce and the channel binding, and the
// welcome carries the host's proof.
func (h *handshaking) prove() (auth *handshake.Message, welcome *handshake.Message, err error) {
	binding, err := handshake.ChannelBinding(h.conn)
	if err != nil {
		return nil, nil, err
	}
	hostNonce := handshake.NewNonce()
	if err := handshake.Write(h.conn, &handshake.Message{Kind: handshake.Hello, Protocol: handshake.ProtocolName, Version: handshake.Version, Nonce: hostNonce}); err != nil {
		return nil, nil, err
	}
	auth, err = handshake.Read(h.conn, handshake.MaxClient)
	switch {
	case errors.Is(err, handshake.ErrMalformed):
		return nil, nil, h.refuse(handshake.RefuseMalformed, "remote runner: malformed handshake", err)
	case err != nil:
		return nil, nil, err
	case auth.Kind != handshake.Auth:
		return nil, nil, h.refuse(handshake.RefuseMalformed, "remote runner: expected auth", fmt.Errorf("handshake message %d instead of auth", auth.Kind))
	case auth.Version != handshake.Version:
		msg := fmt.Sprintf("the host speaks handshake version %d; the client %d", handshake.Version, auth.Version)
		return nil, nil, h.refuse(handshake.RefuseVersion, msg, errors.New(msg))
	}
	welcome = &handshake.Message{Kind: handshake.Welcome, Description: h.s.opts.Driver.Description()}
	if token := h.s.opts.Token; len(token) > 0 {
		if !handshake.ValidProof(auth.Proof, token, handshake.RoleClient, hostNonce, auth.Nonce, binding) {
			return nil, nil, h.refuse(handshake.RefuseAuth, "authentication failed", errors.New("authentication failed: wrong token proof"))
		}
		welcome.Proof = handshake.Proof(token, handshake.RoleServer, hostNonce, auth.Nonce, binding)
	}
	return auth, welcome, nil
}

// describe puts the driver's declarations in the welcome, or why there are
// none: running programs does not need them (a Node.js host without
// @types/node still serves), and the client's TypeDefinitionFiles reports
// the reason.
func (h *handshaking) describe(ctx context.Context, welcome *handshake.Message) {
	files, err := h.s.opts.Driver.TypeDefinitionFiles(ctx)
	if err != nil {
		msg := "the host's driver has no type definitions: " + err.Error()
		if len(msg) > handshake.MaxRefusalMessage {
			msg = msg[:handshake.MaxRefusalMessage]
		}
		welcome.Message = msg
		return
	}
	welcome.Files = handshake.ToFiles(files)
}

// boot takes a runtime slot, boots the connection's runtime and sends the
// welcome.
func (h *handshaking) boot(ctx context.Context, welcome *handshake.Message) (*session, error) {
	s := h.s
	s.mu.Lock()
	switch {
	case s.draining:
		s.mu.Unlock()
		return nil, h.refuse(handshake.RefuseDraining, "connection refused: the host is shutting down", errors.New("draining"))
	case s.runtimes >= s.opts.MaxConnections:
		s.mu.Unlock()
		return nil, h.refuse(handshake.RefuseLimit, h.limitMsg, errors.New(h.limitMsg))
	}
	s.runtimes++
	s.mu.Unlock()
	release := func() {
		s.mu.Lock()
		s.runtimes--
		s.mu.Unlock()
	}
	local, err := s.opts.Driver.Connect(ctx, drivers.ConnectRequest{RunnerSource: runner.Source})
	if err != nil {
		release()
		msg := "connection refused: the host's runtime failed to boot: " + err.Error()
		if errors.Is(err, context.DeadlineExceeded) {
			msg = fmt.Sprintf("connection refused: the host's runtime did not boot within its handshake timeout (%s)", s.opts.HandshakeTimeout)
		}
		return nil, h.refuse(handshake.RefuseUnavailable, msg, fmt.Errorf("booting the runtime: %w", err))
	}
	if err := handshake.Write(h.conn, welcome); err != nil {
		release()
		_ = local.Close()
		return nil, err
	}
	_ = h.conn.SetDeadline(time.Time{})
	return newSession(s, h.conn, local), nil
}

// session relays one authenticated connection and its runtime.
type session struct {
	s        *Server
	conn     net.Conn
	local    drivers.Connection
	toClient *wire.Writer
	toLocal  *wire.Writer
	last     atomic.Int64 // UnixNano of the last frame either way

	mu       sync.Mutex
	inflight map[uint64]int // executions in flight, by id (a count: ids may repeat)
	n        int            // sum of inflight
	draining bool

	stop     chan struct{}
	stopOnce sync.Once
	reason   string
}

func newSession(s *Server, conn net.Conn, local drivers.Connection) *session {
	ss := &session{
		s: s, conn: conn, local: local,
		toClient: wire.NewWriter(conn),
		toLocal:  wire.NewWriter(local.Channel()),
		inflight: map[uint64]int{},
		stop:     make(chan struct{}),
	}
	ss.touch()
	return ss
}

func (ss *session) touch() { ss.last.Store(time.Now().UnixNano()) }

// end stops the session with a reason for the log; the first reason wins.
func (ss *session) end(reason string) {
	ss.stopOnce.Do(func() {
		ss.reason = reason
		close(ss.stop)
	})
}

// drain refuses new executions and ends the session once none is in
// flight.
func (ss *session) drain() {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.draining = true
	if ss.n == 0 {
		ss.end("drained")
	}
}

// channelGrace is how long a session whose runtime channel broke waits for
// the runtime's own end (and its reason) before ending anyway.
const channelGrace = 2 * time.Second

// run relays until either side ends, the idle timeout passes or the server
// ends the session; it then closes the socket and the runtime, waits for the
// relay goroutines and returns the reason.
func (ss *session) run() string {
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		ss.end(ss.up())
	}()
	go func() {
		defer wg.Done()
		ss.end(ss.down())
	}()
	if idle := ss.s.opts.IdleTimeout; idle > 0 {
		t := time.NewTimer(idle)
	wait:
		for {
			select {
			case <-ss.stop:
				break wait
			case <-t.C:
				quiet := time.Since(time.Unix(0, ss.last.Load()))
				ss.mu.Lock()
				busy := ss.n > 0
				ss.mu.Unlock()
				if !busy && quiet >= idle {
					ss.end(fmt.Sprintf("idle for %s", idle))
					break wait
				}
				t.Reset(max(idle-quiet, idle/10))
			}
		}
		t.Stop()
	}
	<-ss.stop
	_ = ss.conn.Close()
	_ = ss.local.Close()
	wg.Wait()
	return ss.reason
}

// up relays client → runtime: execute, cancel and tool-result.
func (ss *session) up() string {
	r := wire.NewReader(ss.conn)
	for {
		m, err := r.Read()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return "the client closed the connection"
			}
			return fmt.Sprintf("reading from the client: %v", err)
		}
		ss.touch()
		switch m.Kind {
		case wire.KindExecute:
			ss.mu.Lock()
			if ss.draining {
				ss.mu.Unlock()
				if err := ss.toClient.Write(drainRefusal(m.Execution)); err != nil {
					return fmt.Sprintf("writing to the client: %v", err)
				}
				continue
			}
			ss.inflight[m.Execution]++
			ss.n++
			ss.mu.Unlock()
		case wire.KindCancel:
			// The runner sends nothing more for a cancelled execution.
			ss.settle(m.Execution, true)
		case wire.KindToolResult:
		default:
			return fmt.Sprintf("the client sent an unexpected %s message", m.Kind)
		}
		if err := ss.toLocal.Write(m); err != nil {
			return fmt.Sprintf("writing to the runtime: %v", err)
		}
	}
}

// down relays runtime → client.
func (ss *session) down() string {
	r := wire.NewReader(ss.local.Channel())
	for {
		m, err := r.Read()
		if err != nil {
			select {
			case <-ss.stop:
				return "closed"
			default:
			}
			// A broken channel (a Node.js program that wrote to fd 3)
			// ends the session even while the runtime's process lives on;
			// ending it closes the runtime.
			select {
			case <-ss.local.Done():
				if lerr := ss.local.Err(); lerr != nil {
					return fmt.Sprintf("the runtime ended: %v", lerr)
				}
			case <-time.After(channelGrace):
			}
			return fmt.Sprintf("the runtime's channel ended: %v", err)
		}
		ss.touch()
		if err := ss.toClient.Write(m); err != nil {
			return fmt.Sprintf("writing to the client: %v", err)
		}
		if m.Kind == wire.KindResult {
			ss.settle(m.Execution, false)
		}
	}
}

// settle removes one execution (all of them with that id, for a cancel)
// from the in-flight set, and ends a draining session that has none left.
func (ss *session) settle(id uint64, all bool) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	k := ss.inflight[id]
	if k == 0 {
		return
	}
	if all || k == 1 {
		delete(ss.inflight, id)
		ss.n -= k
	} else {
		ss.inflight[id] = k - 1
		ss.n--
	}
	if ss.draining && ss.n == 0 {
		ss.end("drained")
	}
}

// drainRefusal is the outcome of an execute that arrives while the host
// drains.
func drainRefusal(id uint64) *wire.Message {
	return &wire.Message{Kind: wire.KindResult, Execution: id, Outcome: wire.OutcomeProgramFailed, Error: &wire.Error{
		Name:    drainingErrorName,
		Message: "remote runner: the host is shutting down (draining) and starts no new executions; the program did not run",
	}}
}
