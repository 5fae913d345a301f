package mcpconnector

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/codemode-go/codemode/internal/childenv"
	"github.com/codemode-go/codemode/internal/procgroup"
	"github.com/codemode-go/codemode/internal/tail"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// clientInfo names codemode to upstream servers in the MCP handshake.
var clientInfo = mcp.Implementation{Name: "codemode", Version: "0.1.0"}

// stderrTail is how much of a stdio server's standard error is kept for
// error messages, in bytes.
const stderrTail = 4 << 10

// Upstream is a connected MCP server: its tools as listed at connect time
// and a session that is opened again when the server has gone away. It is
// safe for concurrent use.
type Upstream struct {
	server       Server
	client       *mcp.Client
	tools        []*mcp.Tool
	instructions string
	stderr       *tail.Buffer

	mu      sync.Mutex
	session *mcp.ClientSession
	dead    chan struct{} // closed when session ends
	cmd     *exec.Cmd
	closed  bool
	// onWarning receives problems found after connect (OnWarning).
	onWarning func(error)
}

// ConnectTimeout bounds connecting to a server, its MCP handshake and the
// listing of its tools, when the caller's context allows longer.
const ConnectTimeout = 60 * time.Second

// MaxTools is the most tools one server may list.
const MaxTools = 10000

// MaxToolsBytes bounds the tools one server lists, in bytes of their JSON
// across every page: each page is bounded (16 MiB), but a server paging
// without end was held in memory to 3.5 GB before this bound. All of a
// server's tools must fit what one page may hold; large real servers list
// well under 1 MiB.
const MaxToolsBytes = 16 << 20

// Connect starts or dials the server, performs the MCP handshake and lists
// every tool (following pagination, at most MaxTools tools and
// MaxToolsBytes of them). ctx and
// ConnectTimeout bound the connection and the listing. It returns an error naming the server, with the tail of a stdio
// server's standard error, when the server cannot be started, does not
// speak MCP or fails to list its tools.
func Connect(ctx context.Context, s Server) (*Upstream, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, ConnectTimeout, fmt.Errorf("mcp server %s did not connect and list its tools within %s", s, ConnectTimeout))
	defer cancel()
	u := &Upstream{server: s, client: mcp.NewClient(&clientInfo, nil), stderr: tail.New(stderrTail)}
	if err := u.connect(ctx); err != nil {
		if ctx.Err() != nil {
			return nil, u.errorf("%w", context.Cause(ctx))
		}
		return nil, err
	}
	total := 0
	for t, err := range u.session.Tools(ctx, nil) {
		if err == nil && len(u.tools) >= MaxTools {
			err = fmt.Errorf("more than %d tools", MaxTools)
		}
		if err == nil {
			raw, merr := json.Marshal(t)
			if total += len(raw); merr != nil || total > MaxToolsBytes {
				err = fmt.Errorf("its tools are more than %d MiB of JSON", MaxToolsBytes>>20)
			}
		}
		if err != nil {
			u.Close()
			if ctx.Err() != nil {
				err = context.Cause(ctx)
			}
			return nil, u.errorf("listing tools: %w", err)
		}
		u.tools = append(u.tools, t)
	}
	if r := u.session.InitializeResult(); r != nil {
		u.instructions = r.Instructions
	}
	return u, nil
}

// connect opens a session; u.mu is held or u is not yet shared.
func (u *Upstream) connect(ctx context.Context) error {
	var transport mcp.Transport
	var cmd *exec.Cmd
	if u.server.URL != "" {
		transport = &mcp.StreamableClientTransport{
			Endpoint:   u.server.URL,
			HTTPClient: &http.Client{Transport: headerTransport{headers: u.server.Headers, base: http.DefaultTransport}},
			MaxRetries: -1,
		}
	} else {
		cmd = exec.Command(u.server.Command, u.server.Args...)
		cmd.Dir = u.server.Dir
		// The minimal environment the MCP SDKs give a stdio server, plus
		// what the configuration names: no host secret reaches a server a
		// program can ask to print its environment.
		cmd.Env = childenv.Build(u.server.Env, nil)
		cmd.Stderr = u.stderr
		// Its own process group, so that closing stops what a launcher
		// such as npx started too.
		procgroup.Isolate(cmd)
		transport = &mcp.CommandTransport{Command: cmd, TerminateDuration: time.Second}
	}
	session, err := u.client.Connect(ctx, transport, nil)
	if err != nil {
		_ = procgroup.Kill(cmd)
		return u.errorf("connecting: %w", err)
	}
	dead := make(chan struct{})
	// Owned by the session: Wait returns when it ends (Close or the
	// server going away), and the goroutine with it.
	go func() {
		_ = session.Wait()
		close(dead)
	}()
	u.session, u.dead, u.cmd = session, dead, cmd
	return nil
}

// errorf wraps an error with the server's description and, for a stdio
// server, the tail of its standard error.
func (u *Upstream) errorf(format string, args ...any) error {
	err := fmt.Errorf("mcp server %s: "+format, append([]any{u.server}, args...)...)
	if tail := strings.TrimSpace(u.stderr.String()); tail != "" {
		err = fmt.Errorf("%w; its stderr ends: %s", err, tail)
	}
	return err
}

// Server returns the configuration the upstream was connected with.
func (u *Upstream) Server() Server { return u.server }

// Tools returns the server's tools as listed at connect time. Callers must
// not modify them.
func (u *Upstream) Tools() []*mcp.Tool { return u.tools }

// Instructions returns the instructions the server gave in its handshake.
func (u *Upstream) Instructions() string { return u.instructions }

// live returns a session, opening a new one when the last has ended.
func (u *Upstream) live(ctx context.Context) (*mcp.ClientSession, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.closed {
		return nil, fmt.Errorf("mcp server %s: closed", u.server)
	}
	select {
	case <-u.dead:
		u.session.Close()
		_ = procgroup.Kill(u.cmd)
		if err := u.connect(ctx); err != nil {
			return nil, err
		}
	default:
	}
	return u.session, nil
}

// CallTool calls the MCP tool name (as the server spells it) with args, a
// JSON object, and returns the unwrapped value (see Unwrap). An error
// result is a *ToolError; a server that goes away during the call, or
// cannot be reached, is an error naming the server (the next call starts it
// again); cancelling ctx abandons the call and returns ctx's error.
func (u *Upstream) CallTool(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
	session, err := u.live(ctx)
	if err != nil {
		return nil, err
	}
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		// A JSON-RPC error is the live server's answer; anything else means
		// the connection broke, so the next call opens a new session.
		var wire *jsonrpc.Error
		if !errors.As(err, &wire) {
			u.retire(session)
		}
		return nil, u.errorf("calling %s: %w", name, err)
	}
	out, err := Unwrap(res)
	var te *ToolError
	if errors.As(err, &te) {
		te.Server, te.Tool = u.server.String(), name
	}
	return out, err
}

// retire ends a session that has lost its server, so the next call opens a
// new one.
func (u *Upstream) retire(session *mcp.ClientSession) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.session != session || u.closed {
		return
	}
	session.Close()
	_ = procgroup.Kill(u.cmd)
	<-u.dead
}

// Close ends the session and stops a stdio server (closing its input, then
// SIGTERM, then SIGKILL for its whole process group).
func (u *Upstream) Close() error {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.closed {
		return nil
	}
	u.closed = true
	err := u.session.Close()
	_ = procgroup.Kill(u.cmd)
	<-u.dead
	return err
}

// headerTransport adds fixed headers to every request.
type headerTransport struct {
	headers map[string]string
	base    http.RoundTripper
}

// maxResponse bounds one JSON response body from a streamable HTTP server,
// in bytes, as the go-sdk bounds stdio lines and server-sent events (16 MiB).
const maxResponse = 16 << 20

// RoundTrip sets the headers on a clone of req, and bounds a JSON response
// body to maxResponse bytes (event streams are bounded per event by the
// go-sdk).
func (h headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(h.headers) > 0 {
		req = req.Clone(req.Context())
		for k, v := range h.headers {
			req.Header.Set(k, v)
		}
	}
	resp, err := h.base.RoundTrip(req)
	if err == nil && !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		resp.Body = &limitedBody{ReadCloser: resp.Body, left: maxResponse}
	}
	return resp, err
}

// limitedBody fails a read once more than its bound has been read.
type limitedBody struct {
	io.ReadCloser
	left int64
}

// Read reads from the body, failing past the bound.
func (l *limitedBody) Read(p []byte) (int, error) {
	if l.left <= 0 {
		return 0, fmt.Errorf("the server's response is larger than %d MiB", maxResponse>>20)
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.ReadCloser.Read(p)
	l.left -= int64(n)
	return n, err
}
