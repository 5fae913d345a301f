package openapi

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/codemode-go/codemode/internal/membudget"
)

// requestOptions is one HTTP request through the connector
// (OpenApiRequestOptions, https://developers.cloudflare.com/agents/tools/codemode/api-reference/), as the program's request method passes it.
type requestOptions struct {
	// Path is appended to the base URL: it starts with "/" and has no
	// query, fragment or "." / ".." segment (after any number of
	// percent-decodings, checkPath); it is sent as written
	// (percent-encoding included).
	Path string `json:"path"`
	// Method is the HTTP method; empty means GET.
	Method string `json:"method,omitempty"`
	// Params are query parameters: scalars as name=value, arrays as repeated
	// names, objects JSON-encoded.
	Params map[string]any `json:"params,omitempty"`
	// Body, when present (not JSON null), is sent as JSON.
	Body json.RawMessage `json:"body,omitempty"`
	// Headers are added to the request; the connector's own headers
	// (credentials) take precedence.
	Headers map[string]string `json:"headers,omitempty"`
}

// HTTPError is a response with a status outside 2xx. Programs see it as a
// thrown HTTPError (a class of Error: e instanceof HTTPError, e.name ===
// "HTTPError") whose message starts with the status, and whose status,
// method, path and body are properties of their own (ErrorProperties).
type HTTPError struct {
	Status int    // the HTTP status code
	Method string // the request's method
	Path   string // the request's path below the base URL, without query
	// Body is the start of the response body without its trailing white
	// space (at most 2 KiB, cut on a character boundary, "…" appended when
	// cut).
	Body string
}

// Error formats the status, the request and the body's start:
// "HTTP 404 Not Found: GET /pets/7: {"message":"not found"}".
func (e *HTTPError) Error() string {
	s := fmt.Sprintf("HTTP %d %s: %s %s", e.Status, http.StatusText(e.Status), e.Method, e.Path)
	if e.Body != "" {
		s += ": " + e.Body
	}
	return s
}

// ErrorName makes the program's Error name HTTPError (an ErrorName method; see package client).
func (e *HTTPError) ErrorName() string { return "HTTPError" }

// ErrorProperties gives the program's HTTPError its status (a number),
// method, path and body (the start of the response body, as in the
// message), so that a program branches on e.status rather than reading the
// message (an ErrorProperties method; see package client).
//
// Each text is cut so that its JSON takes at most a share of
// wire.MaxErrorData (the method 256 bytes, the path 4 KiB, the body 10
// KiB; cut with "…" appended): past that limit the program would see
// none of the properties, and a long path (a 414 URI Too Long) or a body
// of markup or bytes that are not UTF-8, which JSON writes as six bytes
// each, would take it there.
func (e *HTTPError) ErrorProperties() map[string]any {
	return map[string]any{"status": e.Status, "method": jsonCut(e.Method, 256), "path": jsonCut(e.Path, 4<<10), "body": jsonCut(e.Body, 10<<10)}
}

// jsonCut returns s, or its start with "…" appended, such that
// encoding/json writes the start in at most n bytes: six for a control
// character, <, >, &, U+2028, U+2029 or a byte that is not UTF-8, two for
// a quote or a backslash, a character's own bytes otherwise (never fewer
// than encoding/json writes).
func jsonCut(s string, n int) string {
	size := 0
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		c := w
		switch {
		case r == utf8.RuneError && w == 1, r < 0x20, r == '<', r == '>', r == '&', r == '\u2028', r == '\u2029':
			c = 6
		case r == '"', r == '\\':
			c = 2
		}
		if size+c > n {
			return s[:i] + "…"
		}
		size += c
		i += w
	}
	return s
}

// request sends one request (the namespace's request method) and returns
// the response as JSON: a JSON body parsed, an empty body null, a UTF-8 body as a string and any other as
// {"contentType", "base64"}. It returns an *HTTPError for a status outside
// 2xx, and an error for a path or host that is not allowed, a timeout
// (Options.Timeout), or a body larger than Options.MaxResponseBytes.
func (c *Connector) request(ctx context.Context, o requestOptions) (json.RawMessage, error) {
	method := strings.ToUpper(strings.TrimSpace(o.Method))
	if method == "" {
		method = http.MethodGet
	}
	if c.readOnly && unsafeMethod(method) {
		return nil, fmt.Errorf("%s %s: this API is served read-only: only GET, HEAD, OPTIONS and TRACE requests are sent", method, o.Path)
	}
	if err := checkPath(o.Path); err != nil {
		return nil, err
	}
	var query []string
	for _, pair := range sortedKeys(o.Params) {
		query = serializeQuery(query, pair, "form", true, false, o.Params[pair])
	}
	var body []byte
	if t := bytes.TrimSpace(o.Body); len(t) > 0 && string(t) != "null" {
		body = t
	}
	h := http.Header{}
	for k, v := range o.Headers {
		h.Set(k, v)
	}
	return c.send(ctx, method, o.Path, strings.Join(query, "&"), h, body, "application/json")
}

// checkPath accepts an absolute path below the base URL: no query or
// fragment, and no dot segment however often it is percent-decoded
// (hasDotSegment).
func checkPath(p string) error {
	if !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") {
		return fmt.Errorf("path %q must start with a single /", p)
	}
	if strings.ContainsAny(p, "?#") {
		return fmt.Errorf("path %q has a query or fragment; pass query parameters as params", p)
	}
	if _, err := url.PathUnescape(p); err != nil {
		return fmt.Errorf("path %q: %w", p, err)
	}
	if hasDotSegment(p) {
		// It could climb above the base URL's path at a server that
		// decodes before it resolves dot segments (RFC 3986 §5.2.4).
		return fmt.Errorf("path %q has a . or .. segment (once percent-decoded, %%2F and \\ read as /)", p)
	}
	return nil
}

// send performs a request whose path is already escaped and checked.
func (c *Connector) send(ctx context.Context, method, escapedPath, rawQuery string, h http.Header, body []byte, contentType string) (json.RawMessage, error) {
	r, err := c.do(ctx, method, escapedPath, rawQuery, h, body, contentType)
	if err != nil {
		return nil, err
	}
	return r.value, nil
}

// response is a 2xx response: its status, whether its body is JSON, the
// body's size and the program's value.
type response struct {
	status int
	json   bool
	size   int
	value  json.RawMessage
}

// do performs a request whose path is already escaped and checked.
func (c *Connector) do(ctx context.Context, method, escapedPath, rawQuery string, h http.Header, body []byte, contentType string) (*response, error) {
	u := *c.base
	u.RawPath = c.base.EscapedPath() + escapedPath
	p, err := url.PathUnescape(u.RawPath)
	if err != nil {
		return nil, fmt.Errorf("path %q: %w", escapedPath, err)
	}
	u.Path, u.RawQuery = p, rawQuery
	if !c.allowed[strings.ToLower(u.Host)] {
		return nil, fmt.Errorf("host %s is not allowed", u.Host)
	}
	ctx, cancel := context.WithTimeoutCause(ctx, c.timeout, fmt.Errorf("%s %s took longer than %s", method, escapedPath, c.timeout))
	defer cancel()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), rd)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, escapedPath, err)
	}
	for k, v := range h {
		if methodOverride[http.CanonicalHeaderKey(k)] {
			return nil, fmt.Errorf("%s %s: the header %s is refused: it would change the request's method after the host decided on it (approval is by method)", method, escapedPath, k)
		}
		req.Header[k] = v
	}
	if body != nil {
		req.Header.Set("Content-Type", contentType)
	}
	if req.Header.Get("Accept") == "" {
		req.Header.Set("Accept", "application/json, */*;q=0.5")
	}
	start := time.Now()
	resp, err := c.creds.Do(c.client, req, c.follow)
	if err != nil {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		// The error names the request by its method and path only: a URL
		// may carry what a program should not learn.
		return nil, fmt.Errorf("%s %s: %w", method, escapedPath, err)
	}
	r, err := c.creds.Read(ctx, resp, c.maxResponse)
	if err != nil {
		switch {
		case ctx.Err() != nil:
			return nil, context.Cause(ctx)
		case errors.Is(err, membudget.ErrTooLarge):
			return nil, fmt.Errorf("%s %s: the response is larger than %d bytes", method, escapedPath, c.maxResponse)
		}
		return nil, fmt.Errorf("%s %s: reading the response: %w", method, escapedPath, err)
	}
	if c.logger != nil {
		c.logger.DebugContext(ctx, "openapi request", "namespace", c.name, "method", method, "path", escapedPath, "status", resp.StatusCode, "duration", time.Since(start))
	}
	data := r.Body
	if r.Status < 200 || r.Status > 299 {
		// Without the trailing newline most servers end a body with,
		// which put a blank line in reports.
		return nil, &HTTPError{Status: r.Status, Method: method, Path: escapedPath, Body: cut(bytes.TrimRightFunc(data, unicode.IsSpace), maxErrorBody)}
	}
	ct := r.Header.Get("Content-Type")
	mt, _, _ := mime.ParseMediaType(ct)
	value, err := responseValue(membudget.AccountFrom(ctx), ct, data)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, escapedPath, err)
	}
	return &response{status: r.Status, json: isJSON(mt) && len(bytes.TrimSpace(data)) > 0 && json.Valid(data), size: len(data), value: value}, nil
}

// follow keeps redirects on the allowed hosts.
func (c *Connector) follow(next *url.URL, hops int) error {
	if hops >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	if !c.allowed[strings.ToLower(next.Host)] {
		return fmt.Errorf("redirect to %s refused: the host is not allowed", next.Host)
	}
	return nil
}

// methodOverride are the headers by which many web frameworks take a
// request's method from a header instead of the request line (the
// X-HTTP-Method-Override family); a program may not send them, since the
// host approves requests by method.
var methodOverride = map[string]bool{"X-Http-Method-Override": true, "X-Http-Method": true, "X-Method-Override": true}

// responseValue turns a 2xx body into the program's value: JSON as it is,
// other UTF-8 text as a JSON string, anything else as {"contentType",
// "base64"}. A new value's buffer is reserved on acct before it is
// allocated.
func responseValue(acct *membudget.Account, contentType string, data []byte) (json.RawMessage, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return json.RawMessage("null"), nil
	}
	mt, _, _ := mime.ParseMediaType(contentType)
	if isJSON(mt) && json.Valid(data) {
		return data, nil
	}
	var head, tail []byte
	var size int
	if utf8.Valid(data) {
		head, tail = []byte(`"`), []byte(`"`)
		size = quotedLen(data)
	} else {
		ct, _ := json.Marshal(contentType)
		head = append(append([]byte(`{"contentType":`), ct...), `,"base64":"`...)
		tail = []byte(`"}`)
		size = base64.StdEncoding.EncodedLen(len(data))
	}
	size += len(head) + len(tail)
	if err := acct.Take(int64(size)); err != nil {
		return nil, err
	}
	out := make([]byte, 0, size)
	out = append(out, head...)
	if utf8.Valid(data) {
		out = appendQuoted(out, data)
	} else {
		out = base64.StdEncoding.AppendEncode(out, data)
	}
	out = append(out, tail...)
	return out, nil
}

// quotedLen is the length of s's contents as a JSON string (RFC 8259 §7),
// quotes not counted, as appendQuoted writes it.
func quotedLen(s []byte) int {
	n := len(s)
	for _, b := range s {
		switch {
		case b == '"' || b == '\\' || b == '\n' || b == '\r' || b == '\t':
			n++
		case b < 0x20:
			n += 5
		}
	}
	return n
}

// appendQuoted appends s, valid UTF-8, escaped for a JSON string.
func appendQuoted(dst, s []byte) []byte {
	const hex = "0123456789abcdef"
	for _, b := range s {
		switch {
		case b == '"' || b == '\\':
			dst = append(dst, '\\', b)
		case b == '\n':
			dst = append(dst, '\\', 'n')
		case b == '\r':
			dst = append(dst, '\\', 'r')
		case b == '\t':
			dst = append(dst, '\\', 't')
		case b < 0x20:
			dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xf])
		default:
			dst = append(dst, b)
		}
	}
	return dst
}

// cut bounds s to n bytes on a character boundary, marking a cut with "…".
func cut(s []byte, n int) string {
	if len(s) <= n {
		return string(s)
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return string(s[:n]) + "…"
}
