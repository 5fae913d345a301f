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
	"unicode/utf8"
)

// RequestOptions is one HTTP request through the connector
// (OpenApiRequestOptions, https://developers.cloudflare.com/agents/tools/codemode/api-reference/), as the program's request method passes it.
type RequestOptions struct {
	// Path is appended to the base URL: it starts with "/" and has no
	// query, fragment or "." / ".." segment; it is sent as written
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
// thrown Error named HTTPError whose message starts with the status.
type HTTPError struct {
	Status int    // the HTTP status code
	Method string // the request's method
	Path   string // the request's path below the base URL, without query
	// Body is the start of the response body (at most 2 KiB, cut on a
	// character boundary, "…" appended when cut).
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

// ErrorName makes the program's Error name HTTPError (client.ErrorNamer).
func (e *HTTPError) ErrorName() string { return "HTTPError" }

// Request sends one request and returns the response as JSON: a JSON body
// parsed, an empty body null, a UTF-8 body as a string and any other as
// {"contentType", "base64"}. It returns an *HTTPError for a status outside
// 2xx, and an error for a path or host that is not allowed, a timeout
// (Options.Timeout), or a body larger than Options.MaxResponseBytes.
func (c *Connector) Request(ctx context.Context, o RequestOptions) (json.RawMessage, error) {
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

// checkPath accepts an absolute path below the base URL.
func checkPath(p string) error {
	if !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") {
		return fmt.Errorf("path %q must start with a single /", p)
	}
	if strings.ContainsAny(p, "?#") {
		return fmt.Errorf("path %q has a query or fragment; pass query parameters as params", p)
	}
	for _, seg := range strings.Split(p, "/") {
		if u, err := url.PathUnescape(seg); err != nil {
			return fmt.Errorf("path %q: %w", p, err)
		} else if u == "." || u == ".." {
			return fmt.Errorf("path %q has a . or .. segment", p)
		}
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
	for k, v := range c.headers {
		req.Header[http.CanonicalHeaderKey(k)] = v
	}
	start := time.Now()
	resp, err := c.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		// The URL may carry what a program should not learn from an error;
		// name the request by its method and path only.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("%s %s: %w", method, escapedPath, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, c.maxResponse+1))
	if err != nil {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		return nil, fmt.Errorf("%s %s: reading the response: %w", method, escapedPath, err)
	}
	if c.logger != nil {
		c.logger.DebugContext(ctx, "openapi request", "namespace", c.name, "method", method, "path", escapedPath, "status", resp.StatusCode, "duration", time.Since(start))
	}
	if int64(len(data)) > c.maxResponse {
		return nil, fmt.Errorf("%s %s: the response is larger than %d bytes", method, escapedPath, c.maxResponse)
	}
	data = c.redact(data)
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, &HTTPError{Status: resp.StatusCode, Method: method, Path: escapedPath, Body: cut(string(data), maxErrorBody)}
	}
	ct := resp.Header.Get("Content-Type")
	mt, _, _ := mime.ParseMediaType(ct)
	value := responseValue(ct, data)
	return &response{status: resp.StatusCode, json: isJSON(mt) && len(bytes.TrimSpace(data)) > 0 && json.Valid(data), size: len(data), value: value}, nil
}

// methodOverride are the headers by which many web frameworks take a
// request's method from a header instead of the request line (the
// X-HTTP-Method-Override family); a program may not send them, since the
// host approves requests by method.
var methodOverride = map[string]bool{"X-Http-Method-Override": true, "X-Http-Method": true, "X-Method-Override": true}

// redact replaces the values of the connector's own headers (credentials
// the host adds) in a response body by "[redacted]": an API that echoes
// the request's headers back, in an error page or a debugging endpoint,
// would otherwise hand them to the program. Each value is looked for as it
// is, JSON-escaped, and, for "Scheme token" values, the token alone;
// values shorter than 8 bytes are left (they would match ordinary text).
func (c *Connector) redact(data []byte) []byte {
	for _, values := range c.headers {
		for _, v := range values {
			forms := []string{v}
			if q, err := json.Marshal(v); err == nil {
				forms = append(forms, string(q[1:len(q)-1]))
			}
			if _, token, ok := strings.Cut(v, " "); ok {
				forms = append(forms, strings.TrimSpace(token))
			}
			for _, f := range forms {
				if len(f) >= 8 && bytes.Contains(data, []byte(f)) {
					data = bytes.ReplaceAll(data, []byte(f), []byte("[redacted]"))
				}
			}
		}
	}
	return data
}

// responseValue turns a 2xx body into the program's value.
func responseValue(contentType string, data []byte) json.RawMessage {
	if len(bytes.TrimSpace(data)) == 0 {
		return json.RawMessage("null")
	}
	mt, _, _ := mime.ParseMediaType(contentType)
	if isJSON(mt) && json.Valid(data) {
		return data
	}
	if utf8.Valid(data) {
		out, _ := json.Marshal(string(data))
		return out
	}
	out, _ := json.Marshal(map[string]string{"contentType": contentType, "base64": base64.StdEncoding.EncodeToString(data)})
	return out
}

// cut bounds s to n bytes on a character boundary, marking a cut with "…".
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
