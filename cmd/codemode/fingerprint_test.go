package main

import (
	"maps"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/connector/mcpconnector"
)

// An MCP server's fingerprint changes with its command line, URL, header
// and environment names, and holds no argument, environment or header
// value (they may be secrets).
func TestMCPFingerprint(t *testing.T) {
	base := mcpconnector.Server{Name: "github", Command: "npx", Args: []string{"-y", "server", "--token=sk_secret_1"}, Env: map[string]string{"TOKEN": "sk_secret_2"}}
	fp := func(s mcpconnector.Server) map[string]string {
		m := map[string]string{}
		mcpFingerprint(m, s)
		return m
	}
	want := fp(base)
	if v := want["github MCP server"]; v == "" || strings.Contains(v, "sk_secret") {
		t.Fatalf("fingerprint %q: empty, or shows a secret", v)
	}
	other := func(edit func(*mcpconnector.Server)) mcpconnector.Server {
		s := base
		s.Args = append([]string(nil), base.Args...)
		edit(&s)
		return s
	}
	tests := []struct {
		name   string
		server mcpconnector.Server
		same   bool
	}{
		{"another argument", other(func(s *mcpconnector.Server) { s.Args[2] = "--token=sk_other" }), false},
		{"another command", other(func(s *mcpconnector.Server) { s.Command = "node" }), false},
		{"a URL instead", other(func(s *mcpconnector.Server) { s.Command, s.Args, s.URL = "", nil, "https://mcp.example.com/mcp" }), false},
		{"a header added", other(func(s *mcpconnector.Server) { s.Headers = map[string]string{"Authorization": "Bearer sk_secret_3"} }), false},
		{"an environment variable added", other(func(s *mcpconnector.Server) { s.Env = map[string]string{"TOKEN": "sk_secret_2", "DEBUG": "1"} }), false},
		{"another environment value", other(func(s *mcpconnector.Server) { s.Env = map[string]string{"TOKEN": "sk_other"} }), true},
	}
	for _, tt := range tests {
		got := fp(tt.server)
		if maps.Equal(got, want) != tt.same {
			t.Errorf("%s: fingerprint %q, the base's %q; want same %v", tt.name, got, want, tt.same)
		}
		if strings.Contains(got["github MCP server"], "sk_") {
			t.Errorf("%s: fingerprint %q shows a secret", tt.name, got)
		}
	}
}
