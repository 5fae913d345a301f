package client

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/internal/echoserver"
)

// Secrets the fetch policy adds for one origin in these tests.
const (
	fetchToken  = "tok-AAAA-1111-secret"
	fetchAPIKey = "key-BBBB-2222-secret"
	// programToken is a credential the program sends itself.
	programToken = "prog-CCCC-3333-own"
)

// fetchOrigins starts the servers of the credential tests: a holds the
// credentials; b is another host (127.0.0.2), c another port of a's host,
// and "localhost:" + a.Port another host name for a's server.
func fetchOrigins(t *testing.T) (a, b, c *echoserver.Server, f *fetcher) {
	a = echoserver.Start(t, "127.0.0.1")
	b = echoserver.Start(t, "127.0.0.2")
	c = echoserver.Start(t, "127.0.0.1")
	entry := a.Host + ":" + a.Port
	f, err := newFetcher(&FetchPolicy{
		Allow: []string{entry, "localhost:" + a.Port, b.Host + ":" + b.Port, c.Host + ":" + c.Port},
		Headers: map[string]http.Header{entry: {
			"Authorization": {"Bearer " + fetchToken},
			"X-Api-Key":     {fetchAPIKey},
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return a, b, c, f
}

// via builds a URL that redirects through each of hops to target.
func via(target string, hops ...string) string {
	for i := len(hops) - 1; i >= 0; i-- {
		target = hops[i] + "/redirect?to=" + url.QueryEscape(target)
	}
	return target
}

// fetchAnswer is a fetch as the program sees it.
type fetchAnswer struct {
	fetchResponse
	body string // decoded
	err  error
}

func (a fetchAnswer) text() string {
	var b strings.Builder
	b.WriteString(a.URL + "\n" + a.StatusText + "\n")
	for _, h := range a.Headers {
		b.WriteString(h[0] + ": " + h[1] + "\n")
	}
	b.WriteString(a.body)
	if a.err != nil {
		b.WriteString("\n" + a.err.Error())
	}
	return b.String()
}

func doFetch(t *testing.T, f *fetcher, req fetchRequest) fetchAnswer {
	t.Helper()
	if req.Method == "" {
		req.Method = "GET"
	}
	if req.Redirect == "" {
		req.Redirect = "follow"
	}
	in, _ := json.Marshal(req)
	out, err := f.do(context.Background(), in)
	if err != nil {
		return fetchAnswer{err: err}
	}
	var a fetchAnswer
	if err := json.Unmarshal(out, &a.fetchResponse); err != nil {
		t.Fatal(err)
	}
	body, err := base64.StdEncoding.DecodeString(a.Body)
	if err != nil {
		t.Fatal(err)
	}
	a.body = string(body)
	return a
}

// TestFetchCredentialsStayWithTheirOrigin: the policy's credentials reach
// their own origin only, on every hop of a redirect chain (two and three
// hops, across hosts, ports and host names), a program's own credentials
// stop at the first other origin, no Referer crosses, and whatever form an
// echo of the credentials takes (JSON, base64 at any alignment, percent
// encoding, a response header, gzip, deflate) the program sees
// "[redacted]" instead.
func TestFetchCredentialsStayWithTheirOrigin(t *testing.T) {
	a, b, c, f := fetchOrigins(t)
	localhost := "http://localhost:" + a.Port
	hostSecrets := []string{fetchToken, fetchAPIKey}
	cases := []struct {
		name    string
		req     fetchRequest
		wantErr string // "" when the fetch answers
		// redacted: the answer must show that a credential was echoed
		// and replaced (the test would pass vacuously otherwise).
		redacted bool
	}{
		{"two hops to another host", fetchRequest{URL: via(b.URL+"/echo", a.URL, b.URL)}, "", false},
		{"three hops back to the origin", fetchRequest{URL: via(a.URL+"/echo", a.URL, b.URL, a.URL)}, "", true},
		{"to another port", fetchRequest{URL: via(c.URL+"/echo", a.URL)}, "", false},
		{"to another host name", fetchRequest{URL: via(localhost+"/echo", a.URL)}, "", false},
		{"307 with a body to another host", fetchRequest{URL: via(b.URL+"/echo", a.URL) + "&code=307", Method: "POST", Body: base64.StdEncoding.EncodeToString([]byte("payload"))}, "", false},
		{"the program's own credentials", fetchRequest{URL: via(b.URL+"/echo", c.URL, a.URL),
			Headers: [][2]string{{"Authorization", "Bearer " + programToken}, {"Cookie", "session=" + programToken}, {"X-Api-Key", programToken}}}, "", false},
		{"json echo", fetchRequest{URL: a.URL + "/echo?form=json"}, "", true},
		{"base64 echo", fetchRequest{URL: a.URL + "/echo?form=base64"}, "", true},
		{"base64url echo", fetchRequest{URL: a.URL + "/echo?form=base64url"}, "", true},
		{"shifted base64 echo", fetchRequest{URL: a.URL + "/echo?form=base64-shifted"}, "", true},
		{"percent-encoded echo", fetchRequest{URL: a.URL + "/echo?form=url"}, "", true},
		{"gzip asked by the program", fetchRequest{URL: a.URL + "/echo?enc=gzip", Headers: [][2]string{{"Accept-Encoding", "gzip"}}}, "", true},
		{"gzip base64 echo", fetchRequest{URL: a.URL + "/echo?enc=gzip&form=base64"}, "", true},
		{"gzip unasked", fetchRequest{URL: a.URL + "/echo?enc=gzip-always", Headers: [][2]string{{"Accept-Encoding", "identity"}}}, "", true},
		{"deflate", fetchRequest{URL: a.URL + "/echo?enc=deflate", Headers: [][2]string{{"Accept-Encoding", "deflate"}}}, "", true},
		{"raw deflate", fetchRequest{URL: a.URL + "/echo?enc=rawdeflate"}, "", true},
		{"br", fetchRequest{URL: a.URL + "/echo?enc=br", Headers: [][2]string{{"Accept-Encoding", "br"}}}, `Content-Encoding "br" is not one the host decodes`, false},
		{"range", fetchRequest{URL: a.URL + "/echo", Headers: [][2]string{{"Range", "bytes=20-40"}}}, "may not carry Range", false},
		{"range after a redirect", fetchRequest{URL: via(a.URL+"/echo", b.URL), Headers: [][2]string{{"Range", "bytes=20-40"}}}, "may not carry Range", false},
		{"manual redirect", fetchRequest{URL: via(b.URL+"/echo", a.URL), Redirect: "manual"}, "", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := map[*echoserver.Server]int{a: len(a.Seen()), b: len(b.Seen()), c: len(c.Seen())}
			ans := doFetch(t, f, tc.req)
			switch {
			case tc.wantErr == "" && ans.err != nil:
				t.Fatalf("fetch failed: %v", ans.err)
			case tc.wantErr != "" && (ans.err == nil || !strings.Contains(ans.err.Error(), tc.wantErr)):
				t.Fatalf("error %v, want one containing %q", ans.err, tc.wantErr)
			}
			if s := echoserver.Leak(ans.text(), hostSecrets...); s != "" {
				t.Errorf("the program sees the host's %q:\n%s", s, ans.text())
			}
			if tc.redacted && !strings.Contains(ans.text(), "[redacted]") {
				t.Errorf("the echo was not redacted, so the case tests nothing:\n%s", ans.text())
			}
			for srv, n := range before {
				for _, r := range srv.Seen()[n:] {
					checkHop(t, r, srv == a && r.Host == a.Host+":"+a.Port, srv == c)
				}
			}
		})
	}
}

// checkHop checks what one hop carried: the host's credentials exactly
// when it went to their origin; the program's own only on the first
// origin of its request (c, where the case that sends them starts); a
// Referer never.
func checkHop(t *testing.T, r echoserver.Request, credentialed, programOrigin bool) {
	t.Helper()
	got := r.Header.Get("Authorization") + " " + r.Header.Get("X-Api-Key")
	if credentialed && got != "Bearer "+fetchToken+" "+fetchAPIKey {
		t.Errorf("%s%s: the origin's credentials are %q", r.Host, r.Path, got)
	}
	if !credentialed {
		for name, values := range r.Header {
			if s := echoserver.Leak(name+": "+strings.Join(values, ", "), fetchToken, fetchAPIKey); s != "" {
				t.Errorf("%s%s received the host's %q in %s", r.Host, r.Path, s, name)
			}
		}
	}
	if !programOrigin && strings.Contains(strings.Join(r.Header.Values("Authorization"), "")+r.Header.Get("Cookie"), programToken) {
		t.Errorf("%s%s received the program's credentials after a redirect from another origin", r.Host, r.Path)
	}
	if r.Header.Get("X-Api-Key") == programToken {
		t.Errorf("%s%s received the program's X-Api-Key, a header the host owns", r.Host, r.Path)
	}
	if ref := r.Header.Get("Referer"); ref != "" {
		t.Errorf("%s%s received Referer %q", r.Host, r.Path, ref)
	}
}
