package journalui

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/codemode-go/codemode/durable"
)

//go:embed assets
var assets embed.FS

// Defaults of Options.
const (
	// defaultPollInterval is how often a live page's stream reads the
	// journal for changes.
	defaultPollInterval = time.Second
	// defaultLimit is how many executions per runtime the list shows.
	defaultLimit = 200
	// defaultActionTimeout bounds an approval's replay or a rollback.
	defaultActionTimeout = 10 * time.Minute
)

// cookieName is the session cookie set after a login.
const cookieName = "codemode_ui_session"

// Options configure a Handler.
type Options struct {
	// Token, when set, is required to use the page: /login asks for it and
	// sets a session cookie. When empty the handler answers loopback
	// clients only (403 otherwise). A server listening on a non-loopback
	// address must set it (the CLI reads CODEMODE_UI_TOKEN).
	Token string
	// PollInterval is how often a live page's event stream reads the
	// journal; 0 means 1 s.
	PollInterval time.Duration
	// Limit is how many executions of each runtime the list reads, newest
	// first; 0 means 200.
	Limit int
	// ActionTimeout bounds one approval's replay or one rollback; 0 means
	// 10 minutes. A closed browser tab does not cancel them: an
	// approved replay runs to its end.
	ActionTimeout time.Duration
	// Logger receives failures to read the journal at warn level; nil is
	// quiet.
	Logger *slog.Logger
}

// Handler serves the journal page for one or more durable handles (one per
// runtime name). Create it with New; Close ends its live-update streams.
type Handler struct {
	handles []*durable.Handle
	opts    Options
	log     *slog.Logger
	secret  []byte // signs CSRF tokens
	mux     *http.ServeMux
	pages   map[string]*template.Template
	static  fs.FS

	closeOnce sync.Once
	closed    chan struct{}
}

// New returns the page for the handles' journals. It returns an error when
// no handle is given or two handles share a runtime name.
func New(handles []*durable.Handle, opts Options) (*Handler, error) {
	if len(handles) == 0 {
		return nil, errors.New("journalui: no durable handle given")
	}
	seen := map[string]bool{}
	for i, h := range handles {
		if h == nil {
			return nil, fmt.Errorf("journalui: handle %d is nil", i)
		}
		if seen[h.Name()] {
			return nil, fmt.Errorf("journalui: two handles have the runtime name %q", h.Name())
		}
		seen[h.Name()] = true
	}
	if opts.PollInterval <= 0 {
		opts.PollInterval = defaultPollInterval
	}
	if opts.Limit <= 0 {
		opts.Limit = defaultLimit
	}
	if opts.ActionTimeout <= 0 {
		opts.ActionTimeout = defaultActionTimeout
	}
	secret := make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		return nil, fmt.Errorf("journalui: %w", err)
	}
	static, err := fs.Sub(assets, "assets/static")
	if err != nil {
		return nil, fmt.Errorf("journalui: %w", err)
	}
	pages, err := parsePages()
	if err != nil {
		return nil, err
	}
	h := &Handler{
		handles: handles, opts: opts, log: opts.Logger, secret: secret,
		pages: pages, static: static, closed: make(chan struct{}),
	}
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	m := http.NewServeMux()
	m.HandleFunc("GET /{$}", h.list)
	m.HandleFunc("GET /executions/{id}", h.detail)
	m.HandleFunc("POST /executions/{id}/approve", h.approve)
	m.HandleFunc("POST /executions/{id}/reject", h.reject)
	m.HandleFunc("POST /executions/{id}/happened", h.happened)
	m.HandleFunc("POST /executions/{id}/rollback", h.rollback)
	m.HandleFunc("GET /events", h.events)
	m.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	m.HandleFunc("GET /login", h.loginPage)
	m.HandleFunc("POST /login", h.login)
	h.mux = m
	return h, nil
}

// Close ends every live-update stream (so that http.Server.Shutdown, which
// waits for open requests, can finish) and makes new ones end at once. It
// is safe to call more than once; register it with
// http.Server.RegisterOnShutdown.
func (h *Handler) Close() {
	h.closeOnce.Do(func() { close(h.closed) })
}

// contentSecurityPolicy allows the page's own script, style sheet and
// event stream, and nothing else: no inline script or style, no frames, no
// plugins, forms posting only to the page itself.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
	"form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// ServeHTTP sets the security headers, checks the client (loopback or
// logged in) and the CSRF token of POST requests, and serves the page.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hdr := w.Header()
	hdr.Set("Content-Security-Policy", contentSecurityPolicy)
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("X-Frame-Options", "DENY")
	// same-origin, not no-referrer: with no-referrer browsers send
	// "Origin: null" on form posts, which the origin check must refuse.
	hdr.Set("Referrer-Policy", "same-origin")
	hdr.Set("Cross-Origin-Opener-Policy", "same-origin")
	hdr.Set("Cross-Origin-Resource-Policy", "same-origin")
	if h.opts.Token == "" {
		if !loopbackAddr(r.RemoteAddr) {
			http.Error(w, "this journal page serves loopback clients only; start it with a token (CODEMODE_UI_TOKEN) to allow others", http.StatusForbidden)
			return
		}
		if !loopbackHost(r.Host) {
			http.Error(w, "this journal page answers only under a loopback host name (localhost, 127.0.0.1, [::1])", http.StatusMisdirectedRequest)
			return
		}
	}
	if r.Method == http.MethodPost {
		// Fetch metadata and Origin, where the browser sends them, must say
		// the request comes from this page.
		site := r.Header.Get("Sec-Fetch-Site")
		if o := r.Header.Get("Origin"); (o != "" && !sameOrigin(o, r)) || (site != "" && site != "same-origin" && site != "none") {
			http.Error(w, "cross-origin request refused", http.StatusForbidden)
			return
		}
	}
	public := strings.HasPrefix(r.URL.Path, "/static/") || r.URL.Path == "/login"
	if h.opts.Token != "" && !public && !h.loggedIn(r) {
		if r.Method == http.MethodGet && r.URL.Path != "/events" {
			http.Redirect(w, r, "/login?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
			return
		}
		http.Error(w, "log in first", http.StatusUnauthorized)
		return
	}
	if r.Method == http.MethodPost {
		r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
		if err := r.ParseForm(); err != nil {
			http.Error(w, "bad form: "+err.Error(), http.StatusBadRequest)
			return
		}
		if !h.validCSRF(r, r.PostForm.Get("csrf")) {
			http.Error(w, "the form's CSRF token is missing or wrong: reload the page and try again", http.StatusForbidden)
			return
		}
	}
	h.mux.ServeHTTP(w, r)
}

// session is the value of the session cookie for the token: an HMAC of a
// fixed label keyed by the token, so the cookie never holds the token.
func (h *Handler) session() string {
	m := hmac.New(sha256.New, []byte(h.opts.Token))
	m.Write([]byte("codemode journal page session v1"))
	return hex.EncodeToString(m.Sum(nil))
}

func (h *Handler) loggedIn(r *http.Request) bool {
	c, err := r.Cookie(cookieName)
	if err != nil {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(c.Value), []byte(h.session())) == 1
}

// csrf is the CSRF token of r's session: an HMAC, keyed by the handler's
// random secret, of the session cookie's value ("" on loopback without a
// token).
func (h *Handler) csrf(r *http.Request) string {
	sess := ""
	if c, err := r.Cookie(cookieName); err == nil {
		sess = c.Value
	}
	m := hmac.New(sha256.New, h.secret)
	m.Write([]byte("csrf\x00" + sess))
	return hex.EncodeToString(m.Sum(nil))
}

func (h *Handler) validCSRF(r *http.Request, got string) bool {
	return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(h.csrf(r))) == 1
}

// checkToken compares a submitted token with the configured one in
// constant time (hashing both first, so that the length leaks nothing).
func (h *Handler) checkToken(got string) bool {
	a := sha256.Sum256([]byte(got))
	b := sha256.Sum256([]byte(h.opts.Token))
	return subtle.ConstantTimeCompare(a[:], b[:]) == 1
}

func (h *Handler) loginPage(w http.ResponseWriter, r *http.Request) {
	if h.opts.Token == "" {
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return
	}
	h.render(w, r, http.StatusOK, "login", loginView{Next: safeNext(r.URL.Query().Get("next"))})
}

func (h *Handler) login(w http.ResponseWriter, r *http.Request) {
	if h.opts.Token == "" {
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return
	}
	next := safeNext(r.PostForm.Get("next"))
	if !h.checkToken(r.PostForm.Get("token")) {
		h.render(w, r, http.StatusUnauthorized, "login", loginView{Next: next, Problem: "That token is not the one this page was started with."})
		return
	}
	http.SetCookie(w, &http.Cookie{
		Name: cookieName, Value: h.session(), Path: "/", HttpOnly: true,
		Secure: r.TLS != nil, SameSite: http.SameSiteStrictMode,
	})
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// safeNext keeps a post-login destination on this site: a path of this
// origin, never another one. It parses next (url.Parse) and keeps only a
// path without scheme, host or user that starts with one "/"; anything a
// browser could read as another origin ("//evil", "/\evil", a tab or
// newline it strips, as in "/\t/evil") gives "/".
func safeNext(next string) string {
	if strings.ContainsFunc(next, func(r rune) bool { return r < 0x20 || r == 0x7f || r == '\\' }) {
		return "/"
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" ||
		!strings.HasPrefix(u.Path, "/") || strings.HasPrefix(u.Path, "//") {
		return "/"
	}
	return u.RequestURI()
}

// loopbackAddr reports whether a RemoteAddr ("ip:port") is a loopback IP.
func loopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// loopbackHost reports whether a Host header names this machine's loopback
// interface: localhost (or a name under .localhost, RFC 6761 section 6.3)
// or a loopback IP, with or without a port.
func loopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// sameOrigin reports whether an Origin header names the host r was sent to.
func sameOrigin(origin string, r *http.Request) bool {
	u, err := url.Parse(origin)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && strings.EqualFold(u.Host, r.Host)
}

// actionContext is the context of an approval or rollback: not cancelled
// when the browser goes away (a replay that started runs to its end),
// bounded by ActionTimeout.
func (h *Handler) actionContext(r *http.Request) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(r.Context()), h.opts.ActionTimeout)
}
