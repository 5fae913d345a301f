package credhttp

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/internal/echoserver"
)

const (
	testToken = "tok/AAAA+1111=secret"
	testUser  = "alice:pa55-w0rd-long"
)

func testPolicy() *Policy {
	return New(func(*url.URL) string { return "a" }, map[string]http.Header{"a": {
		"Authorization":       {"Bearer " + testToken},
		"Proxy-Authorization": {"Basic " + base64.StdEncoding.EncodeToString([]byte(testUser))},
		"X-Short":             {"1234567"}, // shorter than minSecret: left alone
	}})
}

// TestRedactionFindsTheCommonForms: each form an echo may take comes back
// as "[redacted]", and text around it is kept.
func TestRedactionFindsTheCommonForms(t *testing.T) {
	p := testPolicy()
	jsonText, _ := json.Marshal(map[string]string{"auth": "Bearer " + testToken})
	cases := []struct {
		name, in, want string
	}{
		{"value", "got Bearer " + testToken + ".", "got [redacted]."},
		{"token alone", "token=" + testToken + ";", "token=[redacted];"},
		{"json", string(jsonText), `{"auth":"[redacted]"}`},
		{"json with escaped slashes", `"tok\/AAAA+1111=secret"`, `"[redacted]"`},
		{"query escaped", "t=" + url.QueryEscape(testToken) + "&x", "t=[redacted]&x"},
		{"query escaped, lower-case hex", "t=tok%2fAAAA%2b1111%3dsecret&x", "t=[redacted]&x"},
		{"path escaped", "/" + url.PathEscape(testToken) + "/", "/[redacted]/"},
		{"basic credentials decoded", "user " + testUser + "!", "user [redacted]!"},
		{"basic password", "pw=pa55-w0rd-long", "pw=[redacted]"},
		{"short values are left", "1234567", "1234567"},
		{"nothing to find", "hello", "hello"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := p.RedactString(tc.in); got != tc.want {
				t.Fatalf("redacted %q to %q, want %q", tc.in, got, tc.want)
			}
		})
	}
	for k := range 3 {
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding} {
			text := enc.EncodeToString([]byte(strings.Repeat("x", k) + "Authorization: Bearer " + testToken + "\r\n"))
			got := p.RedactString(text)
			if !strings.Contains(got, "[redacted]") || echoserver.Leak(got, testToken) != "" {
				t.Errorf("base64 at alignment %d: %q redacted to %q", k, text, got)
			}
		}
	}
}

// FuzzRedact: a text holding a secret, in any of the forms an echo may
// take, never reveals it once redacted; a text without one comes back
// unchanged.
func FuzzRedact(f *testing.F) {
	f.Add([]byte("{\"h\":\""), []byte("\"}"), uint8(0))
	f.Add([]byte("x"), []byte(""), uint8(2))
	f.Add([]byte("ab"), []byte("c"), uint8(3))
	p := testPolicy()
	secrets := []string{testToken, testUser}
	f.Fuzz(func(t *testing.T, prefix, suffix []byte, form uint8) {
		plain := string(prefix) + "Bearer " + testToken + " " + testUser + string(suffix)
		var text string
		switch form % 5 {
		case 0:
			text = plain
		case 1:
			b, _ := json.Marshal(plain)
			text = string(b)
		case 2:
			text = base64.StdEncoding.EncodeToString([]byte(plain))
		case 3:
			text = base64.URLEncoding.EncodeToString([]byte(plain))
		case 4:
			text = url.QueryEscape(plain)
		}
		got := p.RedactString(text)
		if s := echoserver.Leak(got, secrets...); s != "" {
			t.Fatalf("form %d: %q reveals %q once redacted: %q", form%5, text, s, got)
		}
		clean := string(prefix) + string(suffix)
		if echoserver.Leak(clean, secrets...) == "" && !strings.Contains(clean, "[redacted]") {
			if got := p.RedactString(clean); got != clean && !strings.Contains(got, "[redacted]") {
				t.Fatalf("%q changed to %q", clean, got)
			}
		}
	})
}
