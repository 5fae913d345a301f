// Package echoserver runs loopback HTTP servers that play the far side of
// the host's credential tests (internal/credhttp, the client's fetch, the
// OpenAPI connector): they echo the request's headers back in every form a
// secret could take, redirect where they are told, compress when asked,
// honour Range, and record what each request carried.
//
// Paths:
//
//	/redirect?to=URL[&code=302]  redirects to URL
//	/echo?form=F&enc=E           the request's headers as JSON, in form F
//	                             (json, base64, base64url, base64-shifted, url),
//	                             compressed by E (gzip, deflate, rawdeflate,
//	                             br, gzip-always); each header also comes
//	                             back as a response header X-Echo-Name
//	/big?n=N                     N bytes of 'a', streamed without a length
package echoserver

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"encoding/base64"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Request is what one request carried.
type Request struct {
	Host   string // the Host header: the name the client used
	Path   string
	Header http.Header
}

// Server is one echo server.
type Server struct {
	URL  string // "http://HOST:PORT"
	Host string // the address it listens on
	Port string

	srv  *httptest.Server
	mu   sync.Mutex
	seen []Request
}

// Start starts a server on host (an IP address of the loopback interface,
// such as 127.0.0.2), closed when t ends; it skips t when host cannot be
// listened on.
func Start(t testing.TB, host string) *Server {
	t.Helper()
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		t.Skipf("cannot listen on %s: %v", host, err)
	}
	s := &Server{}
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	s.srv.Listener.Close()
	s.srv.Listener = ln
	s.srv.Start()
	t.Cleanup(s.srv.Close)
	s.URL = s.srv.URL
	s.Host, s.Port, _ = net.SplitHostPort(ln.Addr().String())
	return s
}

// Seen returns the requests received so far.
func (s *Server) Seen() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.seen...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.seen = append(s.seen, Request{Host: r.Host, Path: r.URL.Path, Header: r.Header.Clone()})
	s.mu.Unlock()
	q := r.URL.Query()
	switch r.URL.Path {
	case "/redirect":
		code, err := strconv.Atoi(q.Get("code"))
		if err != nil {
			code = http.StatusFound
		}
		w.Header().Set("Location", q.Get("to"))
		w.WriteHeader(code)
	case "/echo":
		echo(w, r, q)
	case "/big":
		n, _ := strconv.Atoi(q.Get("n"))
		big(w, n)
	default:
		http.NotFound(w, r)
	}
}

// echo writes the request's headers back.
func echo(w http.ResponseWriter, r *http.Request, q url.Values) {
	for name, values := range r.Header {
		for _, v := range values {
			w.Header().Add("X-Echo-"+name, v)
		}
	}
	body, _ := json.Marshal(r.Header)
	switch q.Get("form") {
	case "base64":
		body = []byte(base64.StdEncoding.EncodeToString(body))
	case "base64url":
		body = []byte(base64.URLEncoding.EncodeToString(body))
	case "base64-shifted":
		// One byte ahead, so that the secret sits at another alignment.
		body = []byte(base64.StdEncoding.EncodeToString(append([]byte("x"), body...)))
	case "url":
		body = []byte(url.QueryEscape(string(body)))
	}
	enc := q.Get("enc")
	if enc == "gzip" && !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
		enc = ""
	}
	var buf bytes.Buffer
	switch enc {
	case "gzip", "gzip-always":
		zw := gzip.NewWriter(&buf)
		zw.Write(body)
		zw.Close()
		w.Header().Set("Content-Encoding", "gzip")
	case "deflate":
		zw := zlib.NewWriter(&buf)
		zw.Write(body)
		zw.Close()
		w.Header().Set("Content-Encoding", "deflate")
	case "rawdeflate":
		zw, _ := flate.NewWriter(&buf, flate.BestSpeed)
		zw.Write(body)
		zw.Close()
		w.Header().Set("Content-Encoding", "deflate")
	case "br":
		// Not brotli: the host must refuse the coding, whatever the bytes.
		buf.Write(body)
		w.Header().Set("Content-Encoding", "br")
	default:
		// ServeContent honours Range, as file servers do.
		w.Header().Set("Content-Type", "application/json")
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(body))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(buf.Bytes())
}

// big streams n bytes of 'a' in 32 KiB writes, flushing each so the
// response is chunked and carries no length.
func big(w http.ResponseWriter, n int) {
	w.Header().Set("Content-Type", "application/octet-stream")
	chunk := bytes.Repeat([]byte("a"), 32<<10)
	f, _ := w.(http.Flusher)
	for n > 0 {
		k := min(n, len(chunk))
		if _, err := w.Write(chunk[:k]); err != nil {
			return
		}
		if f != nil {
			f.Flush()
		}
		n -= k
	}
}

// Leak returns the first of secrets that s reveals, as it is or once
// decoded (percent-decoding, and base64 of either alphabet at any offset of
// any run of base64 characters), or "" when it reveals none.
func Leak(s string, secrets ...string) string {
	for _, d := range decodings(s) {
		for _, secret := range secrets {
			if strings.Contains(d, secret) {
				return secret
			}
		}
	}
	return ""
}

// decodings returns s and what s decodes to.
func decodings(s string) []string {
	out := []string{s}
	if u, err := url.QueryUnescape(s); err == nil {
		out = append(out, u)
	}
	isB64 := func(r rune) bool {
		return r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || strings.ContainsRune("+/-_", r)
	}
	for _, run := range strings.FieldsFunc(s, func(r rune) bool { return !isB64(r) }) {
		std := strings.NewReplacer("-", "+", "_", "/").Replace(run)
		for drop := 0; drop < 4 && drop < len(std); drop++ {
			r := std[drop:]
			r = r[:len(r)/4*4]
			if b, err := base64.RawStdEncoding.DecodeString(r); err == nil {
				out = append(out, string(b))
			}
		}
	}
	return out
}
