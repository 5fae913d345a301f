package client

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/codemode-go/codemode/internal/credhttp"
	"github.com/codemode-go/codemode/internal/membudget"
)

// fetchNamespace and fetchTool name the host call a program's fetch makes
// (runner/src/web/fetch.ts; see FetchPolicy).
const (
	fetchNamespace = "@web"
	fetchTool      = "fetch"
)

// FetchPolicy lets programs call fetch, through the host. The
// program's fetch, Request, Response and Headers follow the Fetch Standard
// (https://fetch.spec.whatwg.org/) for whole bodies (text, JSON, bytes; no
// streams). Each request becomes a tool call that the client serves with
// this policy: namespace "@web", tool "fetch" (a namespace that is not a
// JavaScript identifier, so it cannot clash with a contract namespace and
// is not in the program's scope), which Middleware and telemetry see like
// any tool call. A request the policy does not allow fails in the program
// with a TypeError naming the policy, as a network error does.
//
// Without a policy (RunOptions.Fetch nil) fetch is off: every fetch fails
// with such a TypeError.
type FetchPolicy struct {
	// Allow lists the origins programs may fetch: "host" or "host:port"
	// (HTTPS only, except for loopback hosts, where HTTP is allowed too),
	// or "http://host[:port]" / "https://host[:port]" for one scheme. A
	// bare host means the scheme's default port. Hosts compare
	// case-insensitively; there are no wildcards. Redirects are followed
	// only to allowed origins.
	Allow []string
	// Methods are the allowed request methods, upper case; nil means GET,
	// HEAD, POST, PUT, PATCH, DELETE and OPTIONS.
	Methods []string
	// Headers are added by the host to requests to an origin, keyed by an
	// Allow entry (credentials: "Authorization: Bearer …"). They are bound
	// to the origins of their entry, hop by hop: a request, or a redirect,
	// to another origin never carries them, nor any header of the same
	// name the program set (those names are the host's). The program never
	// sees them: the host asks for gzip itself (a program's
	// Accept-Encoding is dropped), decodes the body, and replaces each
	// value, JSON-escaped, percent-encoded or in base64, by "[redacted]" in
	// the body, the headers and the URL of every response; a request with
	// a Range header to an origin with Headers is refused. A server that
	// transforms a value in another way defeats the search (see
	// RATIONALE.md, "Credentials stay with their origin"); values shorter
	// than 8 bytes are not searched for.
	//
	// Whatever the policy, the program's own Authorization, Cookie,
	// Proxy-Authorization and Referer stop at the first redirect to
	// another origin, as the Fetch Standard's Authorization does
	// (https://fetch.spec.whatwg.org/#http-redirect-fetch), and
	// hop-by-hop headers (RFC 9110 §7.6.1) are the host's.
	Headers map[string]http.Header
	// MaxRequestBytes caps a request body; default 1 MiB.
	MaxRequestBytes int64
	// MaxResponseBytes caps a response body, decoded; default 8 MiB, at
	// most 11 MiB (a tool result carries the body in base64). The body is
	// reserved against Limits.MaxInFlightBytes as it arrives, and its
	// base64 answer with it: a fetch whose body would take the execution
	// past that bound fails with a RangeError.
	MaxResponseBytes int64
	// Timeout bounds one request, from sending it to the end of its
	// body; default 30s. The execution's deadline comes first anyway.
	Timeout time.Duration
	// MaxRequests caps the requests one execution may send; default 100.
	// A fetch past it fails with a TypeError
	// naming the cap, as a denied origin does. Redirects followed for a
	// request do not count again; requests a middleware answers itself (a
	// recorded result) are not sent and do not count.
	MaxRequests int
	// Transport sends the requests; nil means http.DefaultTransport with a
	// response's headers bounded to 64 KiB. Each request reserves 128 KiB
	// of Limits.MaxInFlightBytes for them, so a Transport of your own
	// should bound MaxResponseHeaderBytes as much. A test's server
	// certificate is trusted through it.
	Transport http.RoundTripper
}

// fetchRequest is what the program's fetch sends (runner/src/web/fetch.ts).
type fetchRequest struct {
	URL      string      `json:"url"`
	Method   string      `json:"method"`
	Headers  [][2]string `json:"headers"`
	Body     string      `json:"body,omitempty"` // base64
	Redirect string      `json:"redirect"`       // follow, error, manual
}

// fetchResponse is what the host answers.
type fetchResponse struct {
	URL        string      `json:"url"`
	Status     int         `json:"status"`
	StatusText string      `json:"statusText"`
	Headers    [][2]string `json:"headers"`
	Redirected bool        `json:"redirected"`
	Body       string      `json:"body"` // base64; last, for fetcher.answer
}

// fetchError is a failed fetch: the program sees a TypeError, as the Fetch
// Standard's network error.
type fetchError struct{ msg string }

func (e *fetchError) Error() string     { return e.msg }
func (e *fetchError) ErrorName() string { return "TypeError" }

const maxFetchResponse = (maxToolOutput - 64<<10) / 4 * 3

// origin is one parsed Allow entry.
type origin struct {
	entry  string
	host   string // lower case, without brackets
	port   string // "" for the scheme's default
	scheme string // "" for https (and http for loopback)
}

func parseOrigins(allow []string) ([]origin, error) {
	var out []origin
	for _, a := range allow {
		o := origin{entry: a}
		rest := a
		if s, r, ok := strings.Cut(a, "://"); ok {
			if s != "http" && s != "https" {
				return nil, fmt.Errorf("fetch policy: origin %q: scheme %q is not http or https", a, s)
			}
			o.scheme, rest = s, r
		}
		if rest == "" || strings.ContainsAny(rest, "/?#@ ") {
			return nil, fmt.Errorf("fetch policy: origin %q is not HOST or HOST:PORT", a)
		}
		host, port, err := net.SplitHostPort(rest)
		if err != nil {
			host, port = strings.Trim(rest, "[]"), ""
		}
		o.host, o.port = strings.ToLower(host), port
		out = append(out, o)
	}
	return out, nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// match returns the Allow entry that admits u, or "".
func match(origins []origin, u *url.URL) string {
	host := strings.ToLower(u.Hostname())
	port := u.Port()
	def := map[string]string{"http": "80", "https": "443"}[u.Scheme]
	if port == "" {
		port = def
	}
	for _, o := range origins {
		if o.host != host {
			continue
		}
		switch {
		case o.scheme != "" && o.scheme != u.Scheme:
			continue
		case o.scheme == "" && u.Scheme != "https" && !(u.Scheme == "http" && isLoopback(host)):
			continue
		}
		want := o.port
		if want == "" {
			want = def
		}
		if want == port {
			return o.entry
		}
	}
	return ""
}

// fetcher serves the "@web.fetch" calls of one run.
type fetcher struct {
	p       FetchPolicy
	origins []origin
	creds   *credhttp.Policy // the policy's Headers, each bound to its Allow entry
	client  *http.Client
	sent    atomic.Int64 // requests sent in this execution
}

// defaultMaxFetchRequests is FetchPolicy.MaxRequests's default: requests
// per execution.
const defaultMaxFetchRequests = 100

func newFetcher(p *FetchPolicy) (*fetcher, error) {
	origins, err := parseOrigins(p.Allow)
	if err != nil {
		return nil, err
	}
	for key := range p.Headers {
		if !slices.ContainsFunc(origins, func(o origin) bool { return o.entry == key }) {
			return nil, fmt.Errorf("fetch policy: headers for %q, which is not in Allow", key)
		}
	}
	f := &fetcher{p: *p, origins: origins}
	f.creds = credhttp.New(func(u *url.URL) string { return match(origins, u) }, p.Headers)
	if f.p.Methods == nil {
		f.p.Methods = []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"}
	}
	if f.p.MaxRequestBytes <= 0 {
		f.p.MaxRequestBytes = 1 << 20
	}
	if f.p.MaxResponseBytes <= 0 {
		f.p.MaxResponseBytes = 8 << 20
	}
	if f.p.MaxResponseBytes > maxFetchResponse {
		f.p.MaxResponseBytes = maxFetchResponse
	}
	if f.p.Timeout <= 0 {
		f.p.Timeout = 30 * time.Second
	}
	if f.p.MaxRequests <= 0 {
		f.p.MaxRequests = defaultMaxFetchRequests
	}
	transport := f.p.Transport
	if transport == nil {
		transport = http.DefaultTransport
	}
	f.client = &http.Client{Transport: transport}
	return f, nil
}

func (f *fetcher) allowed() string {
	if len(f.p.Allow) == 0 {
		return "none"
	}
	return strings.Join(f.p.Allow, ", ")
}

// do performs one fetch call.
func (f *fetcher) do(ctx context.Context, input json.RawMessage) (json.RawMessage, error) {
	var in fetchRequest
	if err := json.Unmarshal(input, &in); err != nil {
		return nil, fmt.Errorf("fetch: malformed request from the runner: %w", err)
	}
	u, err := url.Parse(in.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, &fetchError{fmt.Sprintf("fetch %s: only http and https URLs can be fetched", in.URL)}
	}
	entry := match(f.origins, u)
	if entry == "" {
		return nil, &fetchError{fmt.Sprintf("fetch %s: the origin %s://%s is not allowed by the host's fetch policy (allowed: %s)", in.URL, u.Scheme, u.Host, f.allowed())}
	}
	if n := f.sent.Add(1); n > int64(f.p.MaxRequests) {
		return nil, &fetchError{fmt.Sprintf("fetch %s: this execution already sent %d requests, the most the host's fetch policy allows (MaxRequests)", in.URL, f.p.MaxRequests)}
	}
	if !slices.Contains(f.p.Methods, in.Method) {
		return nil, &fetchError{fmt.Sprintf("fetch %s: the method %s is not allowed by the host's fetch policy (allowed: %s)", in.URL, in.Method, strings.Join(f.p.Methods, ", "))}
	}
	if int64(base64.StdEncoding.DecodedLen(len(in.Body))) > f.p.MaxRequestBytes+2 {
		return nil, &fetchError{fmt.Sprintf("fetch %s: the request body of about %d bytes exceeds the host's fetch policy limit of %d bytes (MaxRequestBytes)", in.URL, base64.StdEncoding.DecodedLen(len(in.Body)), f.p.MaxRequestBytes)}
	}
	acct := membudget.AccountFrom(ctx)
	if err := acct.Take(int64(base64.StdEncoding.DecodedLen(len(in.Body)))); err != nil {
		return nil, fmt.Errorf("fetch %s: %w", in.URL, err)
	}
	body, err := base64.StdEncoding.DecodeString(in.Body)
	if err != nil {
		return nil, fmt.Errorf("fetch: malformed body from the runner: %w", err)
	}
	if int64(len(body)) > f.p.MaxRequestBytes {
		return nil, &fetchError{fmt.Sprintf("fetch %s: the request body of %d bytes exceeds the host's fetch policy limit of %d bytes (MaxRequestBytes)", in.URL, len(body), f.p.MaxRequestBytes)}
	}
	ctx, cancel := context.WithTimeout(ctx, f.p.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, in.Method, u.String(), bytes.NewReader(body))
	if err != nil {
		return nil, &fetchError{fmt.Sprintf("fetch %s: %v", in.URL, err)}
	}
	if len(body) == 0 {
		req.Body, req.GetBody, req.ContentLength = http.NoBody, nil, 0
	}
	for _, h := range in.Headers {
		req.Header.Add(h[0], h[1])
	}
	redirected := false
	resp, err := f.creds.Do(f.client, req, func(next *url.URL, hops int) error {
		if err := f.follow(in, next, hops); err != nil {
			return err
		}
		redirected = true
		return nil
	})
	if err != nil {
		return nil, f.failure(ctx, in.URL, err)
	}
	r, err := f.creds.Read(ctx, resp, f.p.MaxResponseBytes)
	if errors.Is(err, membudget.ErrTooLarge) {
		return nil, &fetchError{fmt.Sprintf("fetch %s: the response body exceeds the host's fetch policy limit of %d bytes (MaxResponseBytes)", in.URL, f.p.MaxResponseBytes)}
	}
	if err != nil {
		return nil, f.failure(ctx, in.URL, err)
	}
	return f.answer(acct, r, redirected)
}

// follow decides a redirect by the request's redirect mode and the
// policy's origins.
func (f *fetcher) follow(in fetchRequest, next *url.URL, hops int) error {
	switch in.Redirect {
	case "manual":
		return http.ErrUseLastResponse
	case "error":
		return &fetchError{fmt.Sprintf("fetch %s: redirected to %s, and the request's redirect mode is \"error\"", in.URL, next)}
	}
	if hops >= 20 {
		return &fetchError{fmt.Sprintf("fetch %s: more than 20 redirects", in.URL)}
	}
	if match(f.origins, next) == "" {
		return &fetchError{fmt.Sprintf("fetch %s: redirected to %s, whose origin is not allowed by the host's fetch policy (allowed: %s)", in.URL, next, f.allowed())}
	}
	return nil
}

// answer encodes the program's response: the body in base64, written into
// one buffer reserved on the call's account before it is allocated.
func (f *fetcher) answer(acct *membudget.Account, r *credhttp.Response, redirected bool) (json.RawMessage, error) {
	out := fetchResponse{URL: r.URL, Status: r.Status, StatusText: r.StatusText, Redirected: redirected, Headers: [][2]string{}}
	for name, values := range r.Header {
		for _, v := range values {
			out.Headers = append(out.Headers, [2]string{strings.ToLower(name), v})
		}
	}
	slices.SortStableFunc(out.Headers, func(a, b [2]string) int { return strings.Compare(a[0], b[0]) })
	meta, err := json.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("fetch: encoding the response: %w", err)
	}
	// meta ends with `"body":""}`; the body goes between the quotes.
	const tail = `"}`
	head := meta[:len(meta)-len(tail)]
	size := len(head) + base64.StdEncoding.EncodedLen(len(r.Body)) + len(tail)
	if err := acct.Take(int64(size)); err != nil {
		return nil, fmt.Errorf("fetch %s: %w", r.URL, err)
	}
	buf := make([]byte, size)
	n := copy(buf, head)
	base64.StdEncoding.Encode(buf[n:], r.Body)
	copy(buf[size-len(tail):], tail)
	return buf, nil
}

// failure is the program's TypeError for a request that got no response.
func (f *fetcher) failure(ctx context.Context, rawURL string, err error) error {
	var fe *fetchError
	if errors.As(err, &fe) {
		// The message may name a URL a server chose (a redirect's).
		return &fetchError{f.creds.RedactString(fe.msg)}
	}
	var named errorNamer
	if errors.As(err, &named) {
		return fmt.Errorf("fetch %s: %w", rawURL, err)
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &fetchError{fmt.Sprintf("fetch %s: no complete response within %s (the host's fetch policy Timeout)", rawURL, f.p.Timeout)}
	}
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	// The error text names the host and the failure, never the headers.
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return &fetchError{fmt.Sprintf("fetch %s: network error: %v", rawURL, err)}
}
