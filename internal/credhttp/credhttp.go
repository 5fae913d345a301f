// Package credhttp holds the host's HTTP credentials, each bound to the
// origins it was configured for, and sends the requests of programs with
// them: the fetch policy (client.FetchPolicy) and the OpenAPI connector
// (connector/openapi) both send through a Policy, so that one set of rules
// keeps a credential with its origin and out of the program's hands.
//
// Requests. On the first request and on every redirect, the headers sent
// are rebuilt from the program's: the ones the host owns are dropped
// (hop-by-hop headers, RFC 9110 §7.6.1; Accept-Encoding, Host,
// Content-Length, and every configured credential header name), the
// program's own Authorization, Cookie, Proxy-Authorization and Referer stop
// at the first redirect to another origin (the Fetch Standard's rule for a
// cross-origin redirect, https://fetch.spec.whatwg.org/#http-redirect-fetch,
// applied to every sensitive header), and then the credentials bound to
// that hop's origin, if any, are added. Nothing of a previous hop's
// credentials is copied. A Range header on a request that carries
// credentials is refused: a part of a response could cut a secret so that
// no search finds it.
//
// Responses. The host asks for gzip (Accept-Encoding) and decodes the body
// itself (gzip and deflate; another encoding is refused), then replaces
// every configured secret in the decoded body, the header names and values,
// the status text and the final URL by "[redacted]": as it is, and
// JSON-escaped, percent-encoded and base64-encoded (see secretForms).
//
// What cannot be guaranteed: a server that transforms a secret in another
// way (hashes it, reverses it, encodes it twice, splits it across a
// response, or puts it in a compressed archive) returns something the host
// does not recognise; a secret shorter than 8 bytes is not searched for; and
// an API that stores a secret and serves it back from another origin is
// outside what a host can see. Configure credentials that an API does not
// echo.
package credhttp

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/codemode-go/codemode/internal/membudget"
)

// Policy binds header sets (credentials) to origins. It is immutable and
// safe for concurrent use.
type Policy struct {
	bind  func(u *url.URL) string
	sets  map[string]http.Header
	names map[string]bool // canonical names of every configured header
	red   *redactor
}

// New returns a policy: bind names the header set of a request's URL (a key
// of sets, or "" for none), and sets holds the header sets by name. The
// values are copied.
func New(bind func(u *url.URL) string, sets map[string]http.Header) *Policy {
	p := &Policy{bind: bind, sets: map[string]http.Header{}, names: map[string]bool{}}
	for key, h := range sets {
		c := http.Header{}
		for name, values := range h {
			name = http.CanonicalHeaderKey(name)
			p.names[name] = true
			c[name] = append(c[name], values...)
		}
		p.sets[key] = c
	}
	p.red = newRedactor(p.sets)
	return p
}

// Origin is a URL's origin as the Fetch Standard compares them
// (https://html.spec.whatwg.org/multipage/browsers.html#same-origin):
// scheme, host in lower case, and port, the scheme's default when absent.
func Origin(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Hostname()) + ":" + port
}

// ownedHeaders are the request headers programs cannot set: hop-by-hop
// headers (RFC 9110 §7.6.1) and the framing and encoding the host decides.
var ownedHeaders = map[string]bool{
	"Connection": true, "Keep-Alive": true, "Proxy-Connection": true, "Te": true, "Trailer": true,
	"Transfer-Encoding": true, "Upgrade": true, "Host": true, "Content-Length": true, "Accept-Encoding": true,
	"Expect": true, "Http2-Settings": true,
}

// sensitiveHeaders are the program's headers that do not follow a redirect
// to another origin.
var sensitiveHeaders = []string{"Authorization", "Cookie", "Cookie2", "Proxy-Authorization", "Referer"}

// bodyHeaders describe a request body; they are dropped when a redirect
// drops the body (https://fetch.spec.whatwg.org/#http-redirect-fetch).
var bodyHeaders = []string{"Content-Type", "Content-Encoding", "Content-Language", "Content-Location"}

// RangeRefusedError is a request that carries credentials and a Range
// header.
type RangeRefusedError struct{ URL string }

// Error names the request's URL, redacted, and why it was refused.
func (e *RangeRefusedError) Error() string {
	return fmt.Sprintf("the request to %s carries the host's credentials, so it may not carry Range or If-Range: a partial response could hide a secret from the host's redaction", e.URL)
}

// ErrorName makes the program's error a TypeError, as a refused fetch.
func (e *RangeRefusedError) ErrorName() string { return "TypeError" }

// hop is the request state that carries from hop to hop.
type hop struct {
	program http.Header // the program's headers, owned ones dropped
	first   string      // the first request's origin
	crossed bool        // a hop has gone to another origin
}

// headers returns the headers of hop r: the program's, less the sensitive
// ones once the request has left its first origin and the body headers
// when it has no body (a redirect dropped it), plus the credentials bound
// to r's URL.
func (p *Policy) headers(st *hop, r *http.Request) (http.Header, error) {
	u := r.URL
	if Origin(u) != st.first {
		st.crossed = true
	}
	h := st.program.Clone()
	if st.crossed {
		for _, name := range sensitiveHeaders {
			h.Del(name)
		}
	}
	if r.Body == nil || r.Body == http.NoBody {
		for _, name := range bodyHeaders {
			h.Del(name)
		}
	}
	set := p.sets[p.bind(u)]
	if len(set) > 0 && (h.Get("Range") != "" || h.Get("If-Range") != "") {
		return nil, &RangeRefusedError{URL: p.RedactString(u.Redacted())}
	}
	for name, values := range set {
		h[name] = append([]string(nil), values...)
	}
	h.Set("Accept-Encoding", "gzip")
	return h, nil
}

// maxHeaderBytes bounds a response's header section when Do sends with
// Go's default transport, which reads up to 10 MiB of it: APIs send a few
// KiB.
const maxHeaderBytes = 64 << 10

// HeaderReserve is what each request Do sends (a redirect's included)
// reserves on its call's account (membudget.AccountFrom) before it is
// sent, for its response's header section: as read, and the map net/http
// makes of it. Other senders through Transport reserve it too.
const HeaderReserve = 2 * maxHeaderBytes

// boundedTransport is http.DefaultTransport with response headers bounded
// to maxHeaderBytes, which Do sends with in place of http.DefaultTransport
// or a nil Transport. It is made once, so that its connections are reused,
// and never changed.
var boundedTransport = func() http.RoundTripper {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxResponseHeaderBytes = maxHeaderBytes
	return t
}()

// Transport returns the transport Do sends with in place of
// http.DefaultTransport: its settings, with a response's headers bounded
// to 64 KiB. It is shared; it must not be changed.
func Transport() http.RoundTripper { return boundedTransport }

// Do sends req through client with the headers of each hop rebuilt as the
// package says; req.Header holds the program's headers. follow decides each
// redirect: it returns nil to follow one to next, after hops redirects
// already followed, http.ErrUseLastResponse to return the redirect itself,
// or an error to fail. The client is copied; its CheckRedirect is not used,
// and a nil Transport or http.DefaultTransport is replaced by one that
// bounds response headers to 64 KiB. Each hop reserves 128 KiB for its
// response's headers on the call's account first (a Transport of the
// caller's should bound MaxResponseHeaderBytes as much). The response must
// be read with Read, which decodes and redacts it.
func (p *Policy) Do(client *http.Client, req *http.Request, follow func(next *url.URL, hops int) error) (*http.Response, error) {
	acct := membudget.AccountFrom(req.Context())
	if err := acct.Take(HeaderReserve); err != nil {
		return nil, err
	}
	st := &hop{program: http.Header{}, first: Origin(req.URL)}
	for name, values := range req.Header {
		name = http.CanonicalHeaderKey(name)
		if ownedHeaders[name] || p.names[name] {
			continue
		}
		st.program[name] = append(st.program[name], values...)
	}
	h, err := p.headers(st, req)
	if err != nil {
		return nil, err
	}
	req.Header = h
	c := *client
	if c.Transport == nil || c.Transport == http.DefaultTransport {
		c.Transport = boundedTransport
	}
	c.CheckRedirect = func(next *http.Request, via []*http.Request) error {
		if err := follow(next.URL, len(via)); err != nil {
			return err
		}
		if err := acct.Take(HeaderReserve); err != nil {
			return err
		}
		h, err := p.headers(st, next)
		if err != nil {
			return err
		}
		next.Header = h
		return nil
	}
	resp, err := c.Do(req)
	if err != nil {
		// The error names a URL a server chose (a redirect's Location).
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, &redactedError{msg: p.RedactString(err.Error()), err: err}
	}
	return resp, nil
}

// redactedError is an error whose text went through the redactor; Unwrap
// keeps the original for errors.Is and errors.As.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// RedactString replaces every configured secret in s.
func (p *Policy) RedactString(s string) string { return p.red.redactString(s) }

// redactHeader returns the response headers a program may see: every
// configured secret replaced in names and values, less those in drop.
func (p *Policy) redactHeader(h http.Header, drop ...string) http.Header {
	out := http.Header{}
	for name, values := range h {
		if slices.Contains(drop, name) {
			continue
		}
		n := p.RedactString(name)
		for _, v := range values {
			out[n] = append(out[n], p.RedactString(v))
		}
	}
	return out
}
