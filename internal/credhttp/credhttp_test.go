package credhttp

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/internal/echoserver"
	"github.com/codemode-go/codemode/internal/membudget"
)

// originPolicy binds testPolicy's credentials to srv's origin only.
func originPolicy(srv *echoserver.Server) *Policy {
	u, _ := url.Parse(srv.URL)
	origin := Origin(u)
	return New(func(u *url.URL) string {
		if Origin(u) == origin {
			return "a"
		}
		return ""
	}, testPolicy().sets)
}

func send(t *testing.T, p *Policy, ctx context.Context, method, rawURL string, h http.Header) (*Response, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, method, rawURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header = h
	resp, err := p.Do(http.DefaultClient, req, func(*url.URL, int) error { return nil })
	if err != nil {
		return nil, err
	}
	return p.Read(ctx, resp, 1<<20)
}

// TestDoSendsWhatTheHostDecides: the program's owned headers are dropped
// (hop-by-hop, Accept-Encoding, the configured names), the host asks for
// gzip, and the credentials go to their origin only.
func TestDoSendsWhatTheHostDecides(t *testing.T) {
	a := echoserver.Start(t, "127.0.0.1")
	b := echoserver.Start(t, "127.0.0.2")
	p := originPolicy(a)
	program := http.Header{
		"Connection": {"X-Foo"}, "Te": {"trailers"}, "Accept-Encoding": {"br"}, "Upgrade": {"h2c"},
		"Authorization": {"Bearer mine-and-long"}, "X-Custom": {"kept"},
	}
	for _, target := range []*echoserver.Server{a, b} {
		before := len(target.Seen())
		if _, err := send(t, p, context.Background(), "GET", target.URL+"/echo", program.Clone()); err != nil {
			t.Fatal(err)
		}
		got := target.Seen()[before].Header
		want := map[string]string{"Accept-Encoding": "gzip", "X-Custom": "kept", "Te": "", "Upgrade": "", "X-Foo": ""}
		if target == a {
			want["Authorization"] = "Bearer " + testToken
		} else {
			want["Authorization"] = "" // a configured name: the host's alone
		}
		for name, v := range want {
			if got.Get(name) != v {
				t.Errorf("%s received %s %q, want %q", target.URL, name, got.Get(name), v)
			}
		}
	}
}

// TestReadDecodesThenRedacts: each coding the host decodes comes back
// decoded and redacted; another coding is refused.
func TestReadDecodesThenRedacts(t *testing.T) {
	a := echoserver.Start(t, "127.0.0.1")
	p := originPolicy(a)
	for _, enc := range []string{"", "gzip", "gzip-always", "deflate", "rawdeflate", "br"} {
		t.Run("enc="+enc, func(t *testing.T) {
			r, err := send(t, p, context.Background(), "GET", a.URL+"/echo?enc="+enc, http.Header{})
			if enc == "br" {
				var ue *UnsupportedEncodingError
				if !errors.As(err, &ue) {
					t.Fatalf("error %v, want an UnsupportedEncodingError", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(r.Body), `"Authorization":["[redacted]"]`) || echoserver.Leak(string(r.Body), testToken) != "" {
				t.Fatalf("body %s", r.Body)
			}
			if got := r.Header.Get("X-Echo-Authorization"); got != "[redacted]" {
				t.Fatalf("the echoed header is %q", got)
			}
			if enc != "" && (r.Header.Get("Content-Encoding") != "" || r.Header.Get("Content-Length") != "") {
				t.Fatalf("the decoded body keeps the encoded one's headers: %v", r.Header)
			}
		})
	}
	if r, err := send(t, p, context.Background(), "HEAD", a.URL+"/echo?enc=gzip-always", http.Header{}); err != nil || len(r.Body) != 0 {
		t.Fatalf("HEAD of a gzip response: %v", err)
	}
}

// TestReadReservesTheBody: a body read for a call is reserved on its
// account, and one past the budget fails the read.
func TestReadReservesTheBody(t *testing.T) {
	a := echoserver.Start(t, "127.0.0.1")
	p := originPolicy(a)
	b := membudget.New(400<<10, "Limits.MaxInFlightBytes", nil)
	acct := b.Open()
	ctx := membudget.WithAccount(context.Background(), acct)
	r, err := send(t, p, ctx, "GET", a.URL+"/big?n=100000", http.Header{})
	if err != nil {
		t.Fatal(err)
	}
	if b.Held() < int64(len(r.Body)) {
		t.Fatalf("a body of %d bytes holds %d", len(r.Body), b.Held())
	}
	_, err = send(t, p, ctx, "GET", a.URL+"/big?n=200000", http.Header{})
	var ee *membudget.ExceededError
	if !errors.As(err, &ee) {
		t.Fatalf("error %v, want the budget's", err)
	}
	acct.Close()
	if b.Held() != 0 {
		t.Fatalf("%d bytes reserved after Close", b.Held())
	}
}
