package mcpconnector

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/internal/defaults"
)

// Retry delays for a server that is down: the first retry after
// firstRetry, each next one twice as late, at most lastRetry apart.
const (
	firstRetry = 2 * time.Second
	lastRetry  = time.Minute
)

// Options configure Connect.
type Options struct {
	// ConnectTimeout bounds each server's start, MCP handshake and tool
	// listing, in every attempt; zero means 15 s (long enough for npx to
	// start a cached package, short enough that a server that hangs does
	// not hold the others' users for a minute). Servers start at once, so
	// one slow server delays no other.
	ConnectTimeout time.Duration
	// Logger, when not nil, receives what happens after Connect returns
	// and what Connect found: a server that is down (warning, once, with
	// the reason), a server that came up later (info), a tool left out or
	// whose schema degraded (warning). Nil means quiet; Set.Down still
	// tells which servers are down.
	Logger *slog.Logger
	// OnJoin, when not nil, is called with a server's name (its namespace)
	// when a server that was down comes up: Namespaces has its tools from
	// then on, and a contract built before lacks them. It is called from
	// the Set's own goroutine, one server at a time, never after Close
	// returns.
	OnJoin func(name string)
	// NoRetry leaves a server that is down down, for a host that runs one
	// program and exits (a command-line run), which would never see it
	// join: Connect does not retry it, and its namespace and the logger's
	// warning say that it failed to start or connect, not that it is
	// retried.
	NoRetry bool
}

// Set is the upstream servers of one configuration, each up (its tools
// listed) or down (retried in the background until it is up or the Set is
// closed). It is safe for concurrent use.
type Set struct {
	opts    Options
	members []*member
	stop    context.CancelFunc // ends the retries
	retries sync.WaitGroup

	mu     sync.Mutex
	closed bool
}

// member is one configured server: up (u and ns set) or down (why).
type member struct {
	server Server
	u      *upstream
	ns     contract.Namespace
	down   error
}

// Connect starts or dials every server at once, each bounded by
// ConnectTimeout and ctx, and returns when each is up or down: a server
// that cannot be started, does not answer the MCP handshake or fails to
// list its tools, or whose tools cannot be made contract tools, is down,
// and retried in the background (after 2 s, then twice as late each time,
// at most a minute apart) until it comes up or Close, unless
// Options.NoRetry. A single server may
// be unnamed (its tools go on the codemode namespace); with more than one,
// every server needs a distinct name. It returns an error only for no
// servers, a missing or repeated name, or ctx ending first.
//
//	set, err := mcpconnector.Connect(ctx, servers, mcpconnector.Options{Logger: logger})
//	defer set.Close()
//	c, err := contract.NewNamespaced(set.Namespaces()...)
//
// # Notes
//   - A down server's namespace has no tools and instructions saying why
//     (see Namespaces); Down lists the down servers.
//   - An up server whose process dies later keeps its namespace: the call
//     in flight fails with an error naming the server, and the next call
//     starts it again.
func Connect(ctx context.Context, servers []Server, opts Options) (*Set, error) {
	if err := checkNames(servers); err != nil {
		return nil, err
	}
	if opts.ConnectTimeout <= 0 {
		opts.ConnectTimeout = defaults.MCPConnectTimeout
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	retries, stop := context.WithCancel(context.WithoutCancel(ctx))
	s := &Set{opts: opts, stop: stop}
	var wg sync.WaitGroup
	for _, srv := range servers {
		m := &member{server: srv}
		s.members = append(s.members, m)
		wg.Go(func() { s.attempt(ctx, m) })
	}
	wg.Wait()
	if ctx.Err() != nil {
		s.Close()
		return nil, fmt.Errorf("mcpconnector: connecting: %w", context.Cause(ctx))
	}
	for _, m := range s.members {
		switch {
		case m.down != nil && opts.NoRetry:
			opts.Logger.Warn(m.down.Error())
		case m.down != nil:
			opts.Logger.Warn(fmt.Sprintf("%s; retrying in the background", m.down))
			s.retries.Go(func() { s.retry(retries, m) })
		}
	}
	return s, nil
}

// checkNames returns an error for no servers, or a name missing or
// repeated.
func checkNames(servers []Server) error {
	if len(servers) == 0 {
		return errors.New("mcpconnector: no MCP servers to connect to")
	}
	names := map[string]bool{}
	for _, s := range servers {
		if s.Name == "" && len(servers) > 1 {
			return fmt.Errorf("mcpconnector: server %s needs a name: with several servers each is a namespace", s)
		}
		if names[s.Name] {
			return fmt.Errorf("mcpconnector: two servers are named %s", s.Name)
		}
		names[s.Name] = true
	}
	return nil
}

// attempt connects m's server within ConnectTimeout and makes its
// namespace; it reports whether the server is up. Warnings go to the
// logger.
func (s *Set) attempt(ctx context.Context, m *member) bool {
	ctx, cancel := context.WithTimeoutCause(ctx, s.opts.ConnectTimeout,
		fmt.Errorf("did not start, answer the MCP handshake and list its tools within %s", s.opts.ConnectTimeout))
	defer cancel()
	u, err := connect(ctx, m.server, s.opts.Logger)
	var ns contract.Namespace
	var warnings []error
	if err == nil {
		if ns, warnings, err = u.namespace(); err != nil {
			u.close()
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		m.down = err
		return false
	}
	if s.closed {
		u.close()
		return false
	}
	for _, w := range warnings {
		s.opts.Logger.Warn(w.Error())
	}
	m.u, m.ns, m.down = u, ns, nil
	return true
}

// retry attempts m's server again until it is up or ctx ends (Close).
func (s *Set) retry(ctx context.Context, m *member) {
	delay := firstRetry
	t := time.NewTimer(delay)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if s.attempt(ctx, m) {
			s.opts.Logger.Info(fmt.Sprintf("mcp server %s is up: %d tools on %s", m.server, len(m.ns.Tools), m.ns.Name))
			if s.opts.OnJoin != nil {
				s.opts.OnJoin(m.ns.Name)
			}
			return
		}
		delay = min(2*delay, lastRetry)
		t.Reset(delay)
	}
}

// Namespaces returns one contract namespace per server, in configuration
// order: codemode for a single unnamed server, else the server's name.
// An up server's namespace has its tools and its handshake instructions
// (at most 4 KiB; control characters escaped). A down server's has no
// tools, and instructions whose first line says it is unavailable and
// why (what the server said cut to 4 KiB), so that an agent reading the namespaces knows, and Unavailable set
// to the same reason, so that a program that calls one of its tools
// meanwhile fails with an error saying so.
func (s *Set) Namespaces() []contract.Namespace {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]contract.Namespace, 0, len(s.members))
	for _, m := range s.members {
		if m.down == nil {
			out = append(out, m.ns)
			continue
		}
		out = append(out, s.downNamespace(m))
	}
	return out
}

// downNamespace is down server m's namespace: no tools, and why, for an
// agent (Instructions, whose first line is the namespace's summary in the
// code tool's description) and for a program that calls one of its tools
// (Unavailable); each says whether the server is retried (NoRetry).
func (s *Set) downNamespace(m *member) contract.Namespace {
	reason := downReason(m.down)
	instructions := "Unavailable: " + reason + "\n\nThis MCP server is down, so its tools are not declared."
	unavailable := "its MCP server failed to start or connect (" + reason + ")"
	if !s.opts.NoRetry {
		instructions += " codemode retries it in the background; once it is up its tools appear here (the tool list changes)."
		unavailable += "; codemode retries it in the background"
	}
	return contract.Namespace{Name: namespaceName(m.server), Instructions: instructions, Unavailable: unavailable}
}

// downReason is why a server is down, on one line, as an agent may read
// it: a *serverError's detail (redacted), without the server's
// description.
func downReason(why error) string {
	reason := why.Error()
	var se *serverError
	if errors.As(why, &se) {
		reason = se.detail
	}
	return strings.Join(strings.Fields(reason), " ")
}

// Down returns the servers that are down, by namespace name, with why
// (the last attempt's error, naming the server). It is empty when every
// server is up.
func (s *Set) Down() map[string]error {
	s.mu.Lock()
	defer s.mu.Unlock()
	down := map[string]error{}
	for _, m := range s.members {
		if m.down != nil {
			down[namespaceName(m.server)] = m.down
		}
	}
	return down
}

// Close stops the retries and closes every server that is up (a stdio
// server's process group is stopped). A nil Set is closed already.
func (s *Set) Close() error {
	if s == nil {
		return nil
	}
	s.stop()
	s.retries.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	var errs []error
	for _, m := range s.members {
		if m.u != nil {
			errs = append(errs, m.u.close())
		}
	}
	return errors.Join(errs...)
}
