package client

import (
	"encoding/json"
	"testing"
)

// TestPropertiesBeyondTheMessage: an uncaught error's report shows the
// properties its message does not already say, in their order; an
// HTTPError's body, method and path are in its message, its status not.
func TestPropertiesBeyondTheMessage(t *testing.T) {
	body := `{"message":"Not Found","documentation_url":"https://docs.github.com/rest"}`
	httpProps, _ := json.Marshal(map[string]any{"status": 404, "method": "GET", "path": "/repos/a/b", "body": body})
	for _, c := range []struct {
		name, props, message, want string
	}{
		{"an HTTPError", string(httpProps), "HTTP 404 Not Found: GET /repos/a/b: " + body, `{"status":404}`},
		{"nothing the message says", `{"limit":100,"retryAfter":"30s"}`, "quota exceeded", `{"limit":100,"retryAfter":"30s"}`},
		{"all said", `{"repo":"a/b"}`, "no repository a/b", ""},
		{"order kept, empty string kept", `{"z":"","a":"x y","b":[1]}`, "x y", `{"z":"","b":[1]}`},
		{"not an object", `[1,2]`, "m", `[1,2]`},
		{"none", ``, "m", ""},
		{"invalid", `{"a":`, "m", `{"a":`},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := propertiesBeyond(json.RawMessage(c.props), c.message); got != c.want {
				t.Errorf("propertiesBeyond(%s, %q) = %s, want %s", c.props, c.message, got, c.want)
			}
		})
	}
}
