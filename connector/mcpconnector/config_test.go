package mcpconnector

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/contract"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestSanitizeToolName(t *testing.T) {
	cases := map[string]string{
		"read_file":        "read_file",
		"read-file":        "read_file",
		"files.read":       "files_read",
		"github/list prs":  "github_list_prs",
		"ns:tool":          "ns_tool",
		"2fa":              "_2fa",
		"delete":           "delete_",
		"then":             "then_",
		"toString":         "toString_",
		"__proto__":        "__proto___",
		"héllo wörld!":     "hllo_wrld",
		"":                 "_",
		"!!!":              "_",
		"$ok":              "$ok",
		"get-tiny-image":   "get_tiny_image",
		"constructor":      "constructor_",
		"already_fine_123": "already_fine_123",
	}
	for in, want := range cases {
		got := SanitizeToolName(in)
		if got != want {
			t.Errorf("SanitizeToolName(%q) = %q, want %q", in, got, want)
		}
		if err := contract.CheckToolName(got); err != nil {
			t.Errorf("SanitizeToolName(%q) = %q, which is not a tool name: %v", in, got, err)
		}
	}
}

func FuzzSanitizeToolName(f *testing.F) {
	for _, s := range []string{"a-b", "2x", "delete", "", "\xff", "a b.c/d:e"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if err := contract.CheckToolName(SanitizeToolName(s)); err != nil {
			t.Fatalf("%q -> %q: %v", s, SanitizeToolName(s), err)
		}
	})
}

func TestParseConfig(t *testing.T) {
	good := `{"mcpServers": {
		"memory": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"], "env": {"MEMORY_FILE_PATH": "/tmp/m.json"}},
		"my-files": {"command": "mcp-server-filesystem", "args": ["/data"], "cwd": "/srv"},
		"remote": {"type": "http", "url": "https://example.test/mcp", "headers": {"Authorization": "Bearer x"}}
	}}`
	got, err := ParseConfig([]byte(good))
	if err != nil {
		t.Fatal(err)
	}
	want := []Server{
		{Name: "memory", Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-memory"}, Env: map[string]string{"MEMORY_FILE_PATH": "/tmp/m.json"}},
		{Name: "my_files", Command: "mcp-server-filesystem", Args: []string{"/data"}, Dir: "/srv"},
		{Name: "remote", URL: "https://example.test/mcp", Headers: map[string]string{"Authorization": "Bearer x"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	if s, err := ParseConfig([]byte(`{"servers": {"console": {"command": "x"}}}`)); err != nil || s[0].Name != "console_" {
		t.Fatalf("VS Code servers format or scope-name suffix: %+v %v", s, err)
	}
	bad := []struct{ name, text, want string }{
		{"not JSON", `{`, "not the mcpServers JSON format"},
		{"no servers", `{"mcpServers": {}}`, "has no servers"},
		{"neither", `{"mcpServers": {"a": {}}}`, `"a" has neither command nor url`},
		{"both", `{"mcpServers": {"a": {"command": "x", "url": "http://h/"}}}`, `"a" has both`},
		{"sse", `{"mcpServers": {"a": {"type": "sse", "url": "http://h/"}}}`, `transport type "sse" is not supported`},
		{"bad url", `{"mcpServers": {"a": {"url": "::nope"}}}`, `"a": url`},
		{"names collide", `{"mcpServers": {"my-x": {"command": "a"}, "my.x": {"command": "b"}}}`, `both become the namespace my_x`},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseConfig([]byte(c.text))
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
		servers, err := ParseConfig(data)
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

func TestParseTarget(t *testing.T) {
	cases := []struct {
		in   string
		want Server
		err  string
	}{
		{"npx -y @modelcontextprotocol/server-memory", Server{Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-memory"}}, ""},
		{`mcp-server-filesystem "/tmp/my dir" '/b'`, Server{Command: "mcp-server-filesystem", Args: []string{"/tmp/my dir", "/b"}}, ""},
		{"http://127.0.0.1:9/mcp", Server{URL: "http://127.0.0.1:9/mcp"}, ""},
		{"  ", Server{}, "empty MCP server command"},
		{`x "unterminated`, Server{}, "unterminated"},
	}
	for _, c := range cases {
		got, err := ParseTarget(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ParseTarget(%q) error %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParseTarget(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
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
			got, err := Unwrap(c.res)
			if c.wantErr != "" {
				var te *ToolError
				if err == nil || !strings.Contains(err.Error(), c.wantErr) || !asToolError(err, &te) {
					t.Fatalf("error %v, want a *ToolError with %q", err, c.wantErr)
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

func asToolError(err error, target **ToolError) bool {
	te, ok := err.(*ToolError)
	*target = te
	return ok
}
