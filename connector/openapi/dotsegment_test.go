package openapi_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/connector/openapi"
	"github.com/codemode-go/codemode/contract"
)

// dotDoc has a path parameter alone in its segment, two sharing one, and a
// label-style one (whose "." prefix a value of "." makes "..").
const dotDoc = `{"openapi":"3.0.0","info":{"title":"f","version":"1"},"paths":{
  "/files/{name}":{"get":{"operationId":"getFile","parameters":[{"name":"name","in":"path","required":true,"schema":{"type":"string"}}],"responses":{"200":{"description":"ok"}}}},
  "/typed/{stem}.{ext}":{"get":{"operationId":"getTyped","parameters":[{"name":"stem","in":"path","required":true,"schema":{"type":"string"}},{"name":"ext","in":"path","required":true,"schema":{"type":"string"}}],"responses":{"200":{"description":"ok"}}}},
  "/label/{id}":{"get":{"operationId":"getLabel","parameters":[{"name":"id","in":"path","required":true,"style":"label","schema":{"type":"string"}}],"responses":{"200":{"description":"ok"}}}}}}`

// TestPathParametersCannotMakeDotSegments: a path parameter whose value
// would be a "." or ".." segment once a server percent-decodes it (once or
// more, "/" and "\" splitting, ";" ending a segment as Tomcat reads it) is
// refused as a ToolValidationError naming the parameter and the
// operation, and nothing is sent; so is one whose decoded segment is a dot
// segment up to a "?", "#" or NUL (a server that decodes and parses the
// path again, or hands it to C, ends the segment there); before, ".." went out as %2E%2E, which a
// server that decodes before resolving dot segments (RFC 3986 §5.2.4)
// takes to the parent path. Values that only contain dots or slashes are
// sent, "/" as %2F.
func TestPathParametersCannotMakeDotSegments(t *testing.T) {
	srv := newAPIServer(t, func(r *http.Request) (int, string, string) { return 200, "application/json", `{}` })
	c, _, err := openapi.Parse(context.Background(), []byte(dotDoc), openapi.Options{Name: "f", BaseURL: srv.URL + "/api"})
	if err != nil {
		t.Fatal(err)
	}
	k := contractOf(t, c)
	cases := []struct {
		tool, input string
		sent        string // the escaped path the server sees, or "" when refused
		refused     string // the refusal's line, when refused
	}{
		{"getFile", `{"name":"."}`, "", "/name: refused: with this value the path segment {name} of GET /files/{name}"},
		{"getFile", `{"name":".."}`, "", "/name: refused"},
		{"getFile", `{"name":"%2e%2E"}`, "", "/name: refused"},
		{"getFile", `{"name":"%252e%252e"}`, "", "/name: refused"},
		{"getFile", `{"name":"../admin"}`, "", "/name: refused"},
		{"getFile", `{"name":"a/../b"}`, "", "/name: refused"},
		{"getFile", `{"name":"a/./b"}`, "", "/name: refused"},
		{"getFile", `{"name":"..\\admin"}`, "", "/name: refused"},
		{"getFile", `{"name":"..;v=1"}`, "", "/name: refused"},
		{"getFile", `{"name":"..?x"}`, "", "/name: refused"},
		{"getFile", `{"name":"..#x"}`, "", "/name: refused"},
		{"getFile", `{"name":".%3F"}`, "", "/name: refused"},
		{"getFile", `{"name":"..\u0000"}`, "", "/name: refused"},
		{"getTyped", `{"stem":"..?","ext":"json"}`, "", "/stem: refused"},
		{"getFile", `{"name":"what?"}`, "/api/files/what%3F", ""},
		{"getFile", `{"name":"a#..b"}`, "/api/files/a%23..b", ""},
		{"getTyped", `{"stem":"","ext":""}`, "", "/stem: refused: with this value the path segment {stem}.{ext} of GET /typed/{stem}.{ext}"},
		{"getTyped", `{"stem":".","ext":""}`, "", "/stem: refused"},
		{"getLabel", `{"id":"."}`, "", "/id: refused"},
		{"getLabel", `{"id":""}`, "", "/id: refused"},
		{"getFile", `{"name":"a/b"}`, "/api/files/a%2Fb", ""},
		{"getFile", `{"name":"/"}`, "/api/files/%2F", ""},
		{"getFile", `{"name":"..."}`, "/api/files/...", ""},
		{"getFile", `{"name":".hidden"}`, "/api/files/.hidden", ""},
		{"getFile", `{"name":"a..b"}`, "/api/files/a..b", ""},
		{"getFile", `{"name":"50%"}`, "/api/files/50%25", ""},
		{"getTyped", `{"stem":"a","ext":"."}`, "/api/typed/a..", ""},
		{"getLabel", `{"id":"x"}`, "/api/label/.x", ""},
	}
	for _, tc := range cases {
		before := len(srv.requests())
		_, err := k.Tool("f", tc.tool).Call(context.Background(), []byte(tc.input))
		got := srv.requests()
		if tc.sent == "" {
			var ve *contract.ValidationError
			if !errors.As(err, &ve) || ve.Tool != tc.tool || len(ve.Lines) != 1 || !strings.HasPrefix(ve.Lines[0], tc.refused) {
				t.Errorf("%s(%s): got %v, want a ValidationError of %s: %s…", tc.tool, tc.input, err, tc.tool, tc.refused)
			}
			if len(got) != before {
				t.Errorf("%s(%s): sent %s", tc.tool, tc.input, got[len(got)-1].RawPath)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s(%s): %v", tc.tool, tc.input, err)
			continue
		}
		if len(got) != before+1 || got[len(got)-1].RawPath != tc.sent {
			t.Errorf("%s(%s): server saw %+v, want one request to %s", tc.tool, tc.input, got[before:], tc.sent)
		}
	}
}

// TestRequestPathsCannotClimbOnceDecoded: the request method refuses a
// path with a dot segment after any number of percent-decodings ("/" and
// "\" splitting, "?", "#" and NUL ending a segment), which could climb above the base URL's path at a server
// that decodes before it resolves; before, only one decoding of each
// "/"-separated segment was checked.
func TestRequestPathsCannotClimbOnceDecoded(t *testing.T) {
	srv := newAPIServer(t, func(r *http.Request) (int, string, string) { return 200, "application/json", `{}` })
	c, _, err := openapi.Parse(context.Background(), []byte(dotDoc), openapi.Options{Name: "f", BaseURL: srv.URL + "/api"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path string
		ok   bool
	}{
		{"/files/..", false},
		{"/files/%2e%2e", false},
		{"/files/..%2Fadmin", false},
		{"/files/%252e%252e/admin", false},
		{"/files/..%5Cadmin", false},
		{"/files/..%3Fx", false},
		{"/files/..%23", false},
		{"/files/%252e%252e%253F/admin", false},
		{"/files/..%00", false},
		{"/files/what%3F", true},
		{"/files/a%2Fb", true},
		{"/files/...", true},
	} {
		_, err := c.Request(context.Background(), openapi.RequestOptions{Path: tc.path})
		if tc.ok != (err == nil) {
			t.Errorf("request %s: got %v, want ok %v", tc.path, err, tc.ok)
		}
		if err != nil && !strings.Contains(err.Error(), "a . or .. segment") {
			t.Errorf("request %s: %v, want it to name the dot segment", tc.path, err)
		}
	}
}
