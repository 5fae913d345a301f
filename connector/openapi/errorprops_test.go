package openapi_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/connector/openapi"
	"github.com/codemode-go/codemode/internal/errname"
)

// An HTTPError's properties reach the program whatever its path and body
// hold: a 414 URI Too Long answers a long path, and a body of markup or
// bytes that are not UTF-8 grows when encoded as JSON. Past
// wire.MaxErrorData the program would see no status at all.
func TestHTTPErrorPropertiesFitTheWire(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  *openapi.HTTPError
	}{
		{"a long path", &openapi.HTTPError{Status: 414, Method: "GET", Path: "/items/" + strings.Repeat("a", 20000)}},
		{"markup and a path of ampersands", &openapi.HTTPError{Status: 400, Method: "GET", Path: "/q/" + strings.Repeat("&", 2000), Body: strings.Repeat("<", 2048) + "…"}},
		{"bytes that are not UTF-8", &openapi.HTTPError{Status: 502, Method: "POST", Path: "/p/" + strings.Repeat("\x01", 3000), Body: strings.Repeat("\xff", 2048) + "…"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := errname.Data(tc.err)
			var props struct {
				Status int    `json:"status"`
				Path   string `json:"path"`
			}
			if err := json.Unmarshal(data, &props); err != nil || props.Status != tc.err.Status || !strings.HasPrefix(tc.err.Path, strings.TrimSuffix(props.Path, "…")) {
				t.Fatalf("data %.200s (%d bytes), %v; want status %d", data, len(data), err, tc.err.Status)
			}
		})
	}
}

// A method of 20,000 letters is a valid token; a server refuses it.
func TestHTTPErrorPropertiesLongMethod(t *testing.T) {
	data := errname.Data(&openapi.HTTPError{Status: 501, Method: strings.Repeat("X", 20000), Path: "/", Body: strings.Repeat("\u2028", 2000)})
	if !strings.HasPrefix(string(data), `{"body":`) || !strings.Contains(string(data), `"status":501`) {
		t.Fatalf("data %.200s (%d bytes)", data, len(data))
	}
}
