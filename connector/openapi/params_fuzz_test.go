package openapi

import (
	"encoding/json"
	"net/url"
	"path"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/contract"
)

// FuzzSerializeParameters: for any JSON value and style, a path value has
// no raw "/", "?" or "#", and one that expandPath lets through stays at or
// below its operation's path (an empty value makes "/files/") however a server decodes it (repeatedly, "\" as
// "/") and resolves dot segments; a query part parses back, and a scalar
// string query value round-trips.
func FuzzSerializeParameters(f *testing.F) {
	for _, s := range []string{`"a b"`, `"../x"`, `"..?x"`, `".."`, `"%2e%2E"`, `"..\\x"`, `["a","b/c"]`, `["..",""]`, `{"x":"1","y":"&="}`, `7.5`, `true`, `null`, `"é?#%"`, `[[1],{"a":null}]`} {
		for _, style := range []string{"", "simple", "label", "matrix", "form", "spaceDelimited", "pipeDelimited", "deepObject"} {
			f.Add(s, style, true)
			f.Add(s, style, false)
		}
	}
	op := &operation{name: "get", method: "GET", path: "/files/{id}"}
	f.Fuzz(func(t *testing.T, raw, style string, explode bool) {
		var v any
		if json.Unmarshal([]byte(raw), &v) != nil {
			return
		}
		p := serializePath("id", style, explode, v)
		if strings.ContainsAny(p, "/?#") {
			t.Fatalf("path value %q for %s: not one segment", p, raw)
		}
		if _, err := url.PathUnescape(p); err != nil {
			t.Fatalf("path value %q: %v", p, err)
		}
		if full, err := op.expandPath(map[string]string{"id": p}); err == nil {
			for d := full; ; {
				// A server that parses the decoded path again ends it at a
				// "?" or "#"; one written in C at a NUL.
				cut, _, _ := strings.Cut(strings.NewReplacer("?", "\x00", "#", "\x00").Replace(d), "\x00")
				if resolved := path.Clean(strings.ReplaceAll(cut, `\`, "/")); resolved != "/files" && !strings.HasPrefix(resolved, "/files/") {
					t.Fatalf("path %q for %s: decoded as %q it resolves to %q", full, raw, d, resolved)
				}
				next, err := url.PathUnescape(d)
				if err != nil || next == d {
					break
				}
				d = next
			}
		}
		q := strings.Join(serializeQuery(nil, "q", style, explode, false, v), "&")
		if strings.ContainsAny(q, "# ") {
			t.Fatalf("query %q has a raw # or space", q)
		}
		parsed, err := url.ParseQuery(q)
		if err != nil {
			t.Fatalf("query %q does not parse: %v", q, err)
		}
		if s, ok := v.(string); ok && parsed.Get("q") != s {
			t.Fatalf("query %q: q is %q, want %q", q, parsed.Get("q"), s)
		}
		if h := serializeHeader(explode, v); strings.ContainsAny(h, "\r\n") && !strings.ContainsAny(raw, `\`) {
			t.Fatalf("header value %q has a line break not in the input", h)
		}
	})
}

// FuzzOperationName: every operation name is a valid tool name.
func FuzzOperationName(f *testing.F) {
	for _, s := range []string{"listPets", "get-pet.by/id", "2fa", "delete", "", "  ", "constructor", "ünïcode", "a{b}"} {
		f.Add("GET", "/pets/{petId}", s)
	}
	f.Fuzz(func(t *testing.T, method, path, id string) {
		name := operationName(method, path, id)
		if err := contract.CheckToolName(name); err != nil {
			t.Fatalf("operationName(%q, %q, %q) = %q: %v", method, path, id, name, err)
		}
	})
}
