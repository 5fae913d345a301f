package mcpconnector

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os/exec"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/codemode-go/codemode/internal/childenv"
	"github.com/codemode-go/codemode/internal/credhttp"
	"github.com/codemode-go/codemode/internal/membudget"
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

// maxTools is the most tools one server may list.
const maxTools = 10000

// maxToolsBytes bounds the tools one server lists, in bytes of their JSON
// across every page: each page is bounded (16 MiB), but a server paging
// without end was held in memory to 3.5 GB before this bound. All of a
// server's tools must fit what one page may hold; large real servers list
// well under 1 MiB.
const maxToolsBytes = 16 << 20

// maxInstructions bounds a server's instructions, in bytes: the thirteen
// popular servers tried for this bound gave 6,459 characters together, the
// largest 2,904.
const maxInstructions = 4 << 10

// upstream is a connected MCP server: its tools as listed at connect time
// and a session that is opened again when the server has gone away. It is
// safe for concurrent use.
type upstream struct {
	server       Server
	client       *mcp.Client
	tools        []*mcp.Tool
	instructions string
	stderr       *tail.Buffer
	redact       redactor
	tasks        taskNotes
	log          *slog.Logger // never nil
	askers       askers       // the runs calling the server, whose person a question goes to

	mu      sync.Mutex
	session *mcp.ClientSession
	dead    chan struct{} // closed when session ends
	cmd     *exec.Cmd
	closed  bool
}

// connect starts or dials the server, performs the MCP handshake and lists
// every tool (following pagination, at most maxTools tools and
// maxToolsBytes of them), within ctx. It returns an error naming the
// server, with the tail of a stdio server's standard error, when the
// server cannot be started, does not speak MCP or fails to list its tools.
func connect(ctx context.Context, s Server, log *slog.Logger) (*upstream, error) {
	u := &upstream{server: s, stderr: tail.New(stderrTail), redact: newRedactor(s), log: log}
	u.client = mcp.NewClient(&clientInfo, &mcp.ClientOptions{ElicitationHandler: u.elicit})
	if err := u.open(ctx); err != nil {
		if ctx.Err() != nil {
			return nil, u.errorf("%w", context.Cause(ctx))
		}
		return nil, err
	}
	total := 0
	for t, err := range u.session.Tools(ctx, nil) {
		if err == nil && len(u.tools) >= maxTools {
			err = fmt.Errorf("more than %d tools", maxTools)
		}
		if err == nil {
			raw, merr := json.Marshal(t)
			if total += len(raw); merr != nil || total > maxToolsBytes {
				err = fmt.Errorf("its tools are more than %d MiB of JSON", maxToolsBytes>>20)
			}
		}
		if err != nil {
			u.close()
			if ctx.Err() != nil {
				err = context.Cause(ctx)
			}
			return nil, u.errorf("listing tools: %w", err)
		}
		u.tools = append(u.tools, t)
	}
	if r := u.session.InitializeResult(); r != nil {
		u.instructions = boundInstructions(u.redact.clean(strings.TrimSpace(r.Instructions)))
	}
	return u, nil
}

// boundInstructions cuts instructions past maxInstructions at a line
// boundary, saying so.
func boundInstructions(s string) string {
	if len(s) <= maxInstructions {
		return s
	}
	cut := strings.LastIndexByte(s[:maxInstructions], '\n')
	if cut < maxInstructions/2 {
		cut = maxInstructions
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
	}
	return strings.TrimSpace(s[:cut]) + fmt.Sprintf("\n… (cut: the server's instructions are %d bytes)", len(s))
}

// open opens a session; u.mu is held or u is not yet shared.
func (u *upstream) open(ctx context.Context) error {
	var transport mcp.Transport
	var cmd *exec.Cmd
	if u.server.URL != "" {
		transport = &mcp.StreamableClientTransport{
			Endpoint:     u.server.URL,
			HTTPClient:   &http.Client{Transport: headerTransport{origin: originOf(u.server.URL), headers: u.server.Headers, base: credhttp.Transport(), notes: &u.tasks}},
			MaxRetries:   -1,
			OAuthHandler: u.server.OAuth,
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
		transport = noteTransport{Transport: &mcp.CommandTransport{Command: cmd, TerminateDuration: time.Second}, notes: &u.tasks}
	}
	session, err := u.client.Connect(ctx, transport, nil)
	if err != nil {
		_ = procgroup.Kill(cmd)
		if cmd != nil && cmd.ProcessState != nil && ctx.Err() == nil {
			// "connection closed: calling initialize: EOF" says less.
			return u.errorf("the server exited (%s) before answering the MCP handshake: %w", cmd.ProcessState, err)
		}
		return u.errorf("connecting: %w", err)
	}
	dead := make(chan struct{})
	// Owned by the session: Wait returns when it ends (close or the
	// server going away), and the goroutine with it.
	go func() {
		_ = session.Wait()
		close(dead)
	}()
	u.session, u.dead, u.cmd = session, dead, cmd
	return nil
}

// serverError is an error from a server made safe to print: it names the
// server, holds the tail of a stdio server's standard error, and has the
// server's secrets redacted and control characters escaped; it unwraps to
// the cause (context.DeadlineExceeded, a *jsonrpc.Error).
type serverError struct {
	server string // the server's description (Server.String)
	detail string // what went wrong, and the stderr's tail
	cause  error
}

func (e *serverError) Error() string { return "mcp server " + e.server + ": " + e.detail }
func (e *serverError) Unwrap() error { return e.cause }

// maxDetail bounds the message of a *serverError, in bytes (the stderr's
// tail comes after it): it holds what the server said (a JSON-RPC error's
// message), and a down server's reason is in the scope of every program.
const maxDetail = 4 << 10

// errorf is a *serverError: the message, cut to maxDetail bytes after its
// secrets are redacted, and, for a stdio server, the tail of its standard
// error.
func (u *upstream) errorf(format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	detail := cutText(u.redact.clean(err.Error()), maxDetail, "the message")
	if tail := strings.TrimSpace(u.stderr.String()); tail != "" {
		detail += "; its stderr ends: " + u.redact.clean(tail)
	}
	return &serverError{server: u.server.String(), detail: detail, cause: err}
}

// cutText is s, or its first n bytes (cut on a character boundary) and a
// note saying how long what was cut is.
func cutText(s string, n int, what string) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("… (cut: %s is %d bytes)", what, len(s))
}

// live returns a session, opening a new one when the last has ended.
func (u *upstream) live(ctx context.Context) (*mcp.ClientSession, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.closed {
		return nil, u.errorf("closed")
	}
	select {
	case <-u.dead:
		u.session.Close()
		_ = procgroup.Kill(u.cmd)
		if err := u.open(ctx); err != nil {
			return nil, err
		}
	default:
	}
	return u.session, nil
}

// call calls the MCP tool name (as the server spells it) with args, a JSON
// object, and returns the unwrapped value (see unwrap). An error result is
// a *toolError; a server that goes away during the call, or cannot be
// reached, is an error naming the server (the next call starts it again);
// cancelling ctx abandons the call and returns ctx's error.
func (u *upstream) call(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
	defer u.askers.enter(ctx)()
	session, err := u.live(ctx)
	if err != nil {
		return nil, err
	}
	// The transport reserves the answer on the call's account as it
	// arrives, and ends the call when a reservation fails.
	ctx, refuse := context.WithCancelCause(ctx)
	defer refuse(nil)
	if acct := membudget.AccountFrom(ctx); acct != nil {
		ctx = context.WithValue(ctx, callKey{}, &callBudget{acct: acct, refuse: refuse})
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
	out, err := unwrap(res)
	var te *toolError
	if errors.As(err, &te) {
		te.server, te.tool = u.server.String(), name
		te.text = u.redact.r.Replace(te.text)
	}
	return out, err
}

// retire ends a session that has lost its server, so the next call opens a
// new one.
func (u *upstream) retire(session *mcp.ClientSession) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.session != session || u.closed {
		return
	}
	session.Close()
	_ = procgroup.Kill(u.cmd)
	<-u.dead
}

// close ends the session and stops a stdio server (closing its input, then
// SIGTERM, then SIGKILL for its whole process group).
func (u *upstream) close() error {
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

// headerTransport adds fixed headers to every request to the server's
// origin, keeps credentials from every other origin, bounds JSON response
// bodies and notes the tools/list results for taskSupport.
type headerTransport struct {
	origin  string // the server URL's origin (credhttp.Origin)
	headers map[string]string
	base    http.RoundTripper
	notes   *taskNotes
}

// originOf is the origin of the server URL raw, or "" when it does not
// parse (no request then gets the headers).
func originOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return credhttp.Origin(u)
}

// credentialHeaders never leave the server's origin, whoever set them
// (the go-sdk sets Authorization from Server.OAuth).
var credentialHeaders = []string{"Authorization", "Cookie", "Proxy-Authorization"}

// maxResponse bounds one JSON response body from a streamable HTTP server,
// in bytes, as the go-sdk bounds stdio lines and server-sent events (16 MiB).
const maxResponse = 16 << 20

// RoundTrip sets the headers on a clone of req when it goes to the
// server's origin, and drops them and credentialHeaders from one a redirect
// sent to another origin (net/http forwards Authorization to another port
// of the same host, and a transport's headers to any host); it bounds a
// JSON response body to maxResponse bytes (event streams are bounded per
// event by the go-sdk), reserves a program's call's answer (its headers
// first) on the call's account, and notes what a tools/list response says.
func (h headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	lists := listsTools(req)
	req = req.Clone(req.Context())
	if credhttp.Origin(req.URL) == h.origin {
		for k, v := range h.headers {
			req.Header.Set(k, v)
		}
	} else {
		for k := range h.headers {
			req.Header.Del(k)
		}
		for _, k := range credentialHeaders {
			req.Header.Del(k)
		}
	}
	b, _ := req.Context().Value(callKey{}).(*callBudget)
	if b != nil {
		// The headers: at most 64 KiB (credhttp.Transport).
		if err := b.acct.Take(credhttp.HeaderReserve); err != nil {
			b.refuse(err)
			return nil, err
		}
	}
	resp, err := h.base.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	sse := strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream")
	if !sse {
		resp.Body = &limitedBody{ReadCloser: resp.Body, left: maxResponse}
	}
	if b != nil {
		if sse {
			resp.Body = &reservingBody{ReadCloser: resp.Body, budget: b, copies: answerCopies}
		} else if resp.Body, err = b.read(resp); err != nil {
			return nil, err
		}
	}
	if lists {
		resp.Body = &noteBody{ReadCloser: resp.Body, notes: h.notes, sse: sse}
	}
	return resp, nil
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

// answerCopies is how many times over a call reserves the bytes of its
// answer as they arrive: the answer as read, the go-sdk's decoded copy of
// it, and the value unwrap encodes (the client reserves that value and its
// frame again, on its own). One answer of 15 MiB took the heap up by 46 to
// 77 MiB, the client's copies included.
const answerCopies = 3

// callKey is the context key of a call's *callBudget.
type callKey struct{}

// callBudget is what the transport reserves a call's answer on: the
// call's account (Limits.MaxInFlightBytes), and how to end the call with
// a reservation that failed.
type callBudget struct {
	acct   *membudget.Account
	refuse context.CancelCauseFunc
}

// read reads a JSON answer whole, its buffers reserved before they are
// allocated (outgrown ones included) and the copies to come after, and
// returns it as a body to read again. It reads here, so that a refusal
// fails this call only: the go-sdk takes a failed read of a JSON answer
// for a broken connection.
func (b *callBudget) read(resp *http.Response) (io.ReadCloser, error) {
	defer resp.Body.Close()
	data, err := membudget.ReadAll(b.acct, resp.Body, maxResponse, resp.ContentLength)
	if errors.Is(err, membudget.ErrTooLarge) {
		err = fmt.Errorf("the server's response is larger than %d MiB", maxResponse>>20)
	}
	if err == nil {
		err = b.acct.Take(int64(len(data)) * (answerCopies - 1))
	}
	if exceeded := (*membudget.ExceededError)(nil); errors.As(err, &exceeded) {
		b.refuse(err)
	}
	if err != nil {
		return nil, err
	}
	return io.NopCloser(bytes.NewReader(data)), nil
}

// reservingBody reserves what it reads, copies times over, on the call's
// account; once a reservation fails, every read fails with it and the
// call ends with it (an event stream's failed read alone would leave the
// call waiting for its answer).
type reservingBody struct {
	io.ReadCloser
	budget  *callBudget
	copies  int64
	refused error
}

// Read reads from the body and reserves what it read.
func (r *reservingBody) Read(p []byte) (int, error) {
	if r.refused != nil {
		return 0, r.refused
	}
	n, err := r.ReadCloser.Read(p)
	if terr := r.budget.acct.Take(int64(n) * r.copies); terr != nil {
		r.refused = terr
		r.budget.refuse(terr)
		return 0, terr
	}
	return n, err
}
