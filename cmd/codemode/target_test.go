package main

import (
	"reflect"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/connector/mcpconnector"
)

func TestParseTarget(t *testing.T) {
	cases := []struct {
		in   string
		want mcpconnector.Server
		err  string
	}{
		{"npx -y @modelcontextprotocol/server-memory", mcpconnector.Server{Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-memory"}}, ""},
		{`mcp-server-filesystem "/tmp/my dir" '/b'`, mcpconnector.Server{Command: "mcp-server-filesystem", Args: []string{"/tmp/my dir", "/b"}}, ""},
		{"http://127.0.0.1:9/mcp", mcpconnector.Server{URL: "http://127.0.0.1:9/mcp"}, ""},
		{"  ", mcpconnector.Server{}, "empty MCP server command"},
		{`x "unterminated`, mcpconnector.Server{}, "unterminated"},
	}
	for _, c := range cases {
		got, err := parseTarget(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("parseTarget(%q) error %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("parseTarget(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
}
