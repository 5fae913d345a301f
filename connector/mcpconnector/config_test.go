package mcpconnector

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/contract"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestParseConfig(t *testing.T) {
	good := `{"mcpServers": {
		"memory": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"], "env": {"MEMORY_FILE_PATH": "/tmp/m.json"}},
		"my-files": {"command": "mcp-server-filesystem", "args": ["/data"], "cwd": "/srv", "validate": "strict", "tools": {"read_file": {"validate": "off"}, "write_file": {"callers": "model"}, "x": {}}},
		"remote": {"type": "http", "url": "https://example.test/mcp", "headers": {"Authorization": "Bearer x"}}
	}}`
	got, err := parseConfig([]byte(good))
	if err != nil {
		t.Fatal(err)
	}
	want := []Server{
		{Name: "memory", Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-memory"}, Env: map[string]string{"MEMORY_FILE_PATH": "/tmp/m.json"}},
		{Name: "my_files", Command: "mcp-server-filesystem", Args: []string{"/data"}, Dir: "/srv", Validate: ValidateStrict, ValidateTools: map[string]Validation{"read_file": ValidateOff},
			Callers: map[string]contract.Callers{"write_file": contract.CallersModel}},
		{Name: "remote", URL: "https://example.test/mcp", Headers: map[string]string{"Authorization": "Bearer x"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	if s, err := parseConfig([]byte(`{"servers": {"console": {"command": "x"}}}`)); err != nil || s[0].Name != "console_" {
		t.Fatalf("VS Code servers format or scope-name suffix: %+v %v", s, err)
	}
	bad := []struct{ name, text, want string }{
		{"not JSON", `{`, "not the mcpServers JSON format"},
		{"no servers", `{"mcpServers": {}}`, "has no servers"},
		{"neither", `{"mcpServers": {"a": {}}}`, `"a" has neither command nor url`},
		{"command misspelt", `{"mcpServers": {"a": {"comand": "x", "args": []}}}`, `"a" has neither command nor url (its keys: args, comand)`},
		{"url misspelt in servers", `{"servers": {"a": {"uri": "http://h/"}}}`, `"a" has neither command nor url (its keys: uri)`},
		{"both", `{"mcpServers": {"a": {"command": "x", "url": "http://h/"}}}`, `"a" has both`},
		{"sse", `{"mcpServers": {"a": {"type": "sse", "url": "http://h/"}}}`, `transport type "sse" is not supported`},
		{"bad url", `{"mcpServers": {"a": {"url": "::nope"}}}`, `"a": url`},
		{"names collide", `{"mcpServers": {"my-x": {"command": "a"}, "my.x": {"command": "b"}}}`, `both become the namespace my_x`},
		{"unknown validate", `{"mcpServers": {"a": {"command": "x", "validate": "loose"}}}`, `"a": validate "loose" is not "lenient", "strict" or "off"`},
		{"unknown tool validate", `{"mcpServers": {"a": {"command": "x", "tools": {"t": {"validate": "no"}}}}}`, `"a": tools["t"]: validate "no"`},
		{"unknown tool callers", `{"mcpServers": {"a": {"command": "x", "tools": {"t": {"callers": "agent"}}}}}`, `"a": tools["t"]: callers "agent" is not "model" or "both"`},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			_, err := parseConfig([]byte(c.text))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want %q", err, c.want)
			}
		})
	}
}

func FuzzParseConfig(f *testing.F) {
	f.Add([]byte(`{"mcpServers": {"a": {"command": "x", "args": ["1"]}}}`))
	f.Add([]byte(`{"servers": {"b": {"url": "http://h/x", "headers": {"k": "v"}}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		servers, err := parseConfig(data)
		if err != nil {
			return
		}
		for _, s := range servers {
			if (s.Command == "") == (s.URL == "") || contract.CheckToolName(s.Name) != nil {
				t.Fatalf("accepted a bad server %+v", s)
			}
		}
	})
}

func TestUnwrap(t *testing.T) {
	img := &mcp.ImageContent{Data: []byte{1, 2, 3}, MIMEType: "image/png"}
	cases := []struct {
		name    string
		res     *mcp.CallToolResult
		want    string
		wantErr string
	}{
		{"structured first", &mcp.CallToolResult{StructuredContent: map[string]any{"a": 1}, Content: []mcp.Content{&mcp.TextContent{Text: "ignored"}}}, `{"a":1}`, ""},
		{"JSON text", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: `{"b": [1, 2]}`}}}, `{"b": [1, 2]}`, ""},
		{"plain text", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hello"}}}, `"hello"`, ""},
		{"several texts joined", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "a"}, &mcp.TextContent{Text: "b"}}}, `"a\nb"`, ""},
		{"empty", &mcp.CallToolResult{}, `null`, ""},
		{"mixed kept whole", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "see"}, img}}, `{"content":[{"type":"text","text":"see"},{"type":"image","mimeType":"image/png","data":"AQID"}]}`, ""},
		{"error", &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "no such entity"}}}, "", "no such entity"},
		{"error without text", &mcp.CallToolResult{IsError: true}, "", "no content"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := unwrap(c.res)
			if c.wantErr != "" {
				var te *toolError
				if err == nil || !strings.Contains(err.Error(), c.wantErr) || !asToolError(err, &te) {
					t.Fatalf("error %v, want a *toolError with %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var a, b any
			if json.Unmarshal(got, &a) != nil || json.Unmarshal([]byte(c.want), &b) != nil || !reflect.DeepEqual(a, b) {
				t.Fatalf("got %s, want %s", got, c.want)
			}
		})
	}
}

func asToolError(err error, target **toolError) bool {
	te, ok := err.(*toolError)
	*target = te
	return ok
}

// TestServerStringHidesSecrets: a server is named in messages by its name
// and command or a redacted URL; the argument forms real servers' READMEs
// recommend for keys, environment values and headers never appear.
func TestServerStringHidesSecrets(t *testing.T) {
	cases := []struct {
		server Server
		want   string
	}{
		{Server{Name: "stripe", Command: "npx", Args: []string{"-y", "@stripe/mcp", "--tools=all", "--api-key=sk_test_51Hx9"}}, "stripe (npx)"},
		{Server{Name: "heroku", Command: "npx", Args: []string{"-y", "@heroku/mcp-server"}, Env: map[string]string{"HEROKU_API_KEY": "hrku-123"}}, "heroku (npx)"},
		{Server{Command: "/opt/bin/server"}, "/opt/bin/server"},
		{Server{Name: "remote", URL: "https://user:pw@mcp.example.test/mcp?api_key=abc123", Headers: map[string]string{"Authorization": "Bearer t0ken"}}, "remote (https://mcp.example.test/mcp)"},
		{Server{Name: "smithery", URL: "https://server.example.test/a1b2c3d4e5f6a7b8c9d0e1f2/mcp"}, "smithery (https://server.example.test/%E2%80%A6/mcp)"},
	}
	for _, c := range cases {
		if got := c.server.String(); got != c.want {
			t.Errorf("%+v: String() = %q, want %q", c.server, got, c.want)
		}
		if got := fmt.Sprintf("%v", c.server); got != c.want {
			t.Errorf("%%v of the server = %q, want %q", got, c.want)
		}
	}
}

// TestRedactorCleansRelayedText: text relayed from a server (its stderr, a
// tool's error) loses the configured secrets, terminal escapes and other
// control characters, keeping newlines and tabs.
func TestRedactorCleansRelayedText(t *testing.T) {
	t.Setenv("HOST_TOKEN", "tok-from-the-host-9f8e")
	s := Server{Command: "npx",
		Args:    []string{"-y", "@stripe/mcp", "--api-key=sk_test_51HxAbCdEf", "--access-token", "plainvalue123", "--verbose", "/data/dir"},
		Env:     map[string]string{"FIRECRAWL_API_KEY": "fc-0123456789abcdef", "FROM_HOST": "${HOST_TOKEN}", "MODE": "1", "NODE_ENV": "production"},
		Headers: map[string]string{"Authorization": "Bearer hdr-secret-77"}}
	r := newRedactor(s)
	cases := []struct{ in, want string }{
		{"\x1b[31mError:\x1b[0m invalid key sk_test_51HxAbCdEf\n\tat main", "Error: invalid key [redacted]\n\tat main"},
		{"bad --api-key=sk_test_51HxAbCdEf given", "bad [redacted] given"},
		{"token plainvalue123 refused", "token [redacted] refused"},
		{"key fc-0123456789abcdef and tok-from-the-host-9f8e and hdr-secret-77", "key [redacted] and [redacted] and [redacted]"},
		{"bell\a, backspace\b, title \x1b]0;pwned\x07, c1 \u009b, del \x7f", `bell\x07, backspace\x08, title , c1 \x9b, del \x7f`},
		{"mode 1 in /data/dir for production", "mode 1 in /data/dir for production"},
		{"bad utf-8 \xff", "bad utf-8 \uFFFD"},
	}
	for _, c := range cases {
		if got := r.clean(c.in); got != c.want {
			t.Errorf("clean(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestConfigApprovalRule(t *testing.T) {
	servers, err := parseConfig([]byte(`{"mcpServers": {"a": {"command": "x", "approval": "never"}, "b": {"command": "y"}}}`))
	if err != nil || servers[0].Approval != ApprovalNever || servers[1].Approval != "" {
		t.Fatalf("servers %+v, %v", servers, err)
	}
	if _, err := parseConfig([]byte(`{"mcpServers": {"a": {"command": "x", "approval": "sometimes"}}}`)); err == nil || !strings.Contains(err.Error(), `approval "sometimes"`) {
		t.Fatalf("an unknown rule: %v", err)
	}
}
