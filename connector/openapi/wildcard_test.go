package openapi_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/connector/openapi"
)

// A request body declared only as a media range JSON belongs to (*/*, as
// Kubernetes' description declares every one, or application/*) is taken
// and sent as JSON, a PATCH's as a JSON merge patch; before, the operation
// lost its body with a warning.
func TestWildcardBodiesAreSentAsJSON(t *testing.T) {
	srv := newAPIServer(t, func(r *http.Request) (int, string, string) { return 201, "application/json", `{"ok":true}` })
	doc := []byte(`{"openapi":"3.0.0","info":{"title":"k","version":"1"},"paths":{
  "/things":{"post":{"operationId":"createThing","requestBody":{"required":true,"content":{"*/*":{"schema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}}},
    "responses":{"201":{"description":"made","content":{"application/json":{"schema":{"type":"object"}}}}}}},
  "/things/{name}":{"patch":{"operationId":"patchThing","parameters":[{"name":"name","in":"path","required":true,"schema":{"type":"string"}}],
    "requestBody":{"required":true,"content":{"*/*":{"schema":{"type":"object"}}}},"responses":{"200":{"description":"patched"}}}},
  "/others":{"post":{"operationId":"createOther","requestBody":{"content":{"application/*":{"schema":{"type":"object"}},"application/octet-stream":{"schema":{"type":"string","format":"binary"}}}},
    "responses":{"201":{"description":"made"}}}}}}`)
	c, warnings, err := openapi.Parse(context.Background(), doc, openapi.Options{Name: "k", BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 0 {
		t.Errorf("warnings %q, want none", warnings)
	}
	out := runCode(t, `
await k.createThing({ body: { name: "x" } });
await k.createOther({ body: { any: [1] } });
await k.patchThing({ name: "x", body: { labels: { tier: "gold" } } });
const refused = await k.createThing({ body: { name: 5 } }).then(() => "sent", (e) => e.name);
refused
`, c)
	var refused string
	value(t, out, &refused)
	if refused != "ToolValidationError" {
		t.Errorf("a body against its schema: %s, want ToolValidationError", refused)
	}
	got := srv.requests()
	if len(got) != 3 {
		t.Fatalf("server saw %d requests, want 3", len(got))
	}
	for i, want := range []struct{ method, body, contentType string }{
		{"POST", `{"name":"x"}`, "application/json"},
		{"POST", `{"any":[1]}`, "application/json"},
		{"PATCH", `{"labels":{"tier":"gold"}}`, "application/merge-patch+json"}, // RFC 7386
	} {
		if got[i].Method != want.method || got[i].Body != want.body || got[i].Header.Get("Content-Type") != want.contentType {
			t.Errorf("request %d sent %s %q (%s), want %s %s as %s", i, got[i].Method, got[i].Body, got[i].Header.Get("Content-Type"), want.method, want.body, want.contentType)
		}
	}
}

// A document whose first server is no absolute http(s) URL (Kubernetes'
// "//kubernetes.local") and no Options.BaseURL: ErrBaseURL, which the CLI
// turns into "give --base-url NAME=URL".
func TestNoUsableBaseURL(t *testing.T) {
	doc := []byte(`{"openapi":"3.0.0","info":{"title":"k","version":"1"},"servers":[{"url":"//kubernetes.local"}],"paths":{}}`)
	_, _, err := openapi.Parse(context.Background(), doc, openapi.Options{Name: "k"})
	if !errors.Is(err, openapi.ErrBaseURL) || !strings.Contains(err.Error(), `"//kubernetes.local"`) {
		t.Fatalf("got %v, want ErrBaseURL naming the server", err)
	}
	if _, _, err := openapi.Parse(context.Background(), doc, openapi.Options{Name: "k", BaseURL: "https://k.example"}); err != nil {
		t.Fatalf("with a base URL: %v", err)
	}
}

// TestBaseURLErrorSaysWhatAndHow: every unusable base URL, configured or
// the document's, is a *BaseURLError wrapping ErrBaseURL, with the URL and
// the reason apart (a command line says how its flag sets one after the
// reason) and a message that ends with how a Go caller sets one.
func TestBaseURLErrorSaysWhatAndHow(t *testing.T) {
	doc := func(servers string) []byte {
		return []byte(`{"openapi":"3.0.0","info":{"title":"k","version":"1"},` + servers + `"paths":{}}`)
	}
	tests := []struct {
		name       string
		doc        []byte
		base       string
		url, cause string
	}{
		{"no servers", doc(""), "", "", "the document lists no servers"},
		{"a relative server", doc(`"servers":[{"url":"//kubernetes.local"}],`), "", "//kubernetes.local", `"//kubernetes.local" is not an absolute http(s) URL`},
		{"a base URL without its scheme", doc(""), "localhost:8080", "localhost:8080", `"localhost:8080" is not an absolute http(s) URL, such as "http://localhost:8080"`},
		{"a base URL with a space", doc(""), "http://h/ ", "http://h/ ", `"http://h/ " holds a space`},
		{"a base URL with a query", doc(""), "https://h/v1?key=x", "https://h/v1?key=x", `"https://h/v1?key=x" has a query or fragment, which a base URL cannot (operation paths and their query parameters follow it)`},
		{"a server with a fragment", doc(`"servers":[{"url":"https://h/v1#top"}],`), "", "https://h/v1#top", `"https://h/v1#top" has a query or fragment, which a base URL cannot (operation paths and their query parameters follow it)`},
	}
	for _, tt := range tests {
		_, _, err := openapi.Parse(context.Background(), tt.doc, openapi.Options{Name: "k", BaseURL: tt.base})
		var be *openapi.BaseURLError
		if !errors.As(err, &be) || !errors.Is(err, openapi.ErrBaseURL) {
			t.Errorf("%s: got %v, want a *BaseURLError wrapping ErrBaseURL", tt.name, err)
			continue
		}
		if be.URL != tt.url || be.Reason != tt.cause {
			t.Errorf("%s: URL %q, Reason %q; want %q, %q", tt.name, be.URL, be.Reason, tt.url, tt.cause)
		}
		if want := "no usable base URL: " + tt.cause + " (Options.BaseURL sets one)"; err.Error() != want {
			t.Errorf("%s: message %q, want %q", tt.name, err, want)
		}
	}
}

// TestBaseURLsAPersonMistypes gives Options.BaseURL as a person pastes it:
// without its scheme, or with a space after it (which url.Parse keeps in
// the path, so every request went to "/%20/…" and answered 404). Each is
// ErrBaseURL, saying what is wrong and, without a scheme, what to write.
func TestBaseURLsAPersonMistypes(t *testing.T) {
	doc := []byte(`{"openapi":"3.0.0","info":{"title":"k","version":"1"},"servers":[{"url":"https://k.example"}],"paths":{}}`)
	for _, tc := range []struct{ base, want string }{
		{"http://127.0.0.1:8080/ ", `"http://127.0.0.1:8080/ " holds a space`},
		{" https://api.example.com", `" https://api.example.com" holds a space`},
		{"127.0.0.1:8080", `"127.0.0.1:8080" is not an absolute http(s) URL, such as "http://127.0.0.1:8080"`},
		{"localhost:8080/api", `"localhost:8080/api" is not an absolute http(s) URL, such as "http://localhost:8080/api"`},
		{"htp://127.0.0.1:8080", `"htp://127.0.0.1:8080" is not an absolute http(s) URL (`},
	} {
		_, _, err := openapi.Parse(context.Background(), doc, openapi.Options{Name: "k", BaseURL: tc.base})
		if !errors.Is(err, openapi.ErrBaseURL) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("base URL %q: got %v, want ErrBaseURL: …%s…", tc.base, err, tc.want)
		}
	}
	for _, base := range []string{"http://127.0.0.1:8080", "https://api.example.com/v3/"} {
		if _, _, err := openapi.Parse(context.Background(), doc, openapi.Options{Name: "k", BaseURL: base}); err != nil {
			t.Errorf("base URL %q: %v", base, err)
		}
	}
}
