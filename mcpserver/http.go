package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemode-go/codemode/internal/defaults"
)

// HTTPOptions bounds what streamable HTTP clients may hold on the server.
type HTTPOptions struct {
	// MaxSessions caps the open MCP sessions; past it a request that would
	// open one is answered 503 Service Unavailable. Default
	// 256.
	MaxSessions int
	// SessionIdle closes a session that has had no request for this long
	// (the client opens a new one); default 30 minutes.
	SessionIdle time.Duration
	// BodyTimeout bounds reading one request's body, so a client that sends
	// it slowly holds a connection at most this long; default
	// 30 s. (Not http.Server.ReadTimeout: that deadline also
	// ends the server-sent event streams of long answers, since net/http
	// cancels a request whose connection read times out.)
	BodyTimeout time.Duration
	// MaxBodyBytes bounds one request's body; default 32 MiB.
	MaxBodyBytes int64
}

// withDefaults returns o with its zero fields set to their defaults (256
// sessions, 30 minutes idle, 30 s per body, 32 MiB per body; see
// internal/defaults, where the command line's flags read them too).
func (o HTTPOptions) withDefaults() HTTPOptions {
	if o.MaxSessions <= 0 {
		o.MaxSessions = defaults.MCPMaxSessions
	}
	if o.SessionIdle <= 0 {
		o.SessionIdle = defaults.MCPSessionIdle
	}
	if o.BodyTimeout <= 0 {
		o.BodyTimeout = defaults.MCPBodyTimeout
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = defaults.MCPMaxBodyBytes
	}
	return o
}

// NewHTTPHandler serves srv over streamable HTTP (the go-sdk's handler)
// within opts' bounds. Serve it with an http.Server whose ReadHeaderTimeout
// is set (codemode mcp serve gives a client 10 seconds to send a request's
// headers).
func NewHTTPHandler(srv *mcp.Server, opts HTTPOptions) http.Handler {
	opts = opts.withDefaults()
	inner := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{SessionTimeout: opts.SessionIdle, MaxRequestBodyBytes: opts.MaxBodyBytes})
	return &httpHandler{srv: srv, inner: inner, opts: opts, opened: map[string]bool{}}
}

type httpHandler struct {
	srv     *mcp.Server
	inner   http.Handler
	opts    HTTPOptions
	mu      sync.Mutex
	opening int             // requests in flight that may open a session
	opened  map[string]bool // IDs of the sessions requests opened
}

// ServeHTTP bounds the body's read, and refuses a new session past the cap.
func (h *httpHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Body != nil && r.Body != http.NoBody {
		rc := http.NewResponseController(w)
		if err := rc.SetReadDeadline(time.Now().Add(h.opts.BodyTimeout)); err == nil {
			r.Body = &deadlineBody{ReadCloser: r.Body, clear: func() { _ = rc.SetReadDeadline(time.Time{}) }}
		}
	}
	if r.Method != http.MethodPost || r.Header.Get("Mcp-Session-Id") != "" || !h.initializes(r) {
		h.inner.ServeHTTP(w, r)
		return
	}
	h.mu.Lock()
	live := map[string]bool{}
	for ss := range h.srv.Sessions() {
		live[ss.ID()] = true
	}
	for id := range h.opened {
		if !live[id] { // closed: by its client, or idle
			delete(h.opened, id)
		}
	}
	if len(h.opened)+h.opening >= h.opts.MaxSessions {
		h.mu.Unlock()
		w.Header().Set("Retry-After", strconv.Itoa(60))
		http.Error(w, fmt.Sprintf("the server has %d open MCP sessions, its limit; close one or try again later", h.opts.MaxSessions), http.StatusServiceUnavailable)
		return
	}
	h.opening++
	h.mu.Unlock()
	h.inner.ServeHTTP(w, r)
	// The session a request opened is named in its answer (a stateless
	// request, such as the client's server/discover, names none).
	id := w.Header().Get("Mcp-Session-Id")
	h.mu.Lock()
	h.opening--
	if id != "" {
		h.opened[id] = true
	}
	h.mu.Unlock()
}

// initializes reports whether r is an initialize request, which opens a
// session; it reads the body (within MaxBodyBytes) and puts it back.
func (h *httpHandler) initializes(r *http.Request) bool {
	body, err := io.ReadAll(io.LimitReader(r.Body, h.opts.MaxBodyBytes+1))
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(body), r.Body), r.Body}
	if err != nil {
		return false // the inner handler meets the same error
	}
	var msg struct {
		Method string `json:"method"`
	}
	return json.Unmarshal(body, &msg) == nil && msg.Method == "initialize"
}

// deadlineBody clears the connection's read deadline once the body has been
// read to its end, so that the deadline bounds only the body. After a
// failure the deadline stays, so the connection is closed rather than read
// on.
type deadlineBody struct {
	io.ReadCloser
	clear func()
	once  sync.Once
}

// Read reads the body, clearing the deadline at its end.
func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF {
		b.once.Do(b.clear)
	}
	return n, err
}
