package main

import (
	"testing"

	"github.com/codemode-go/codemode/durable"
)

// TestRecordedFlags: the flags a pause's hint gives for a run whose
// command did not repeat them are those its recorded configuration names,
// with placeholders for what the journal keeps as digests.
func TestRecordedFlags(t *testing.T) {
	tests := []struct {
		name        string
		conf        map[string]string
		flags, note string
	}{
		{"a tools file", map[string]string{"tools file": "sha256:00"}, " --tools FILE",
			"(FILE: the tools file the run used; the journal keeps digests and names, not paths, commands or values)"},
		{"an OpenAPI document", map[string]string{"items base URL": "http://127.0.0.1:8080/v1", "items document": "sha256:01", "items header names": "none"},
			" --openapi items=SPEC --base-url items=http://127.0.0.1:8080/v1",
			"(SPEC: the OpenAPI document of that namespace; the journal keeps digests and names, not paths, commands or values)"},
		{"a document with headers and a tools file", map[string]string{"tools file": "sha256:00", "pet store base URL": "https://x/v3?a=1&b=2", "pet store document": "sha256:01",
			"pet store header names": "Authorization, X-Key"},
			" --tools FILE --openapi 'pet store='SPEC --base-url 'pet store=https://x/v3?a=1&b=2' --header-env 'pet store=Authorization:'ENVVAR --header-env 'pet store=X-Key:'ENVVAR",
			"(FILE: the tools file the run used; SPEC: the OpenAPI document of that namespace; ENVVAR: a variable holding that header's value; the journal keeps digests and names, not paths, commands or values)"},
		{"MCP servers of --mcp and --config", map[string]string{"mcp MCP server": "mcp (npx), ...", "github MCP server": "github (gh), ...", "files MCP server": "files (fs), ..."},
			" --config CONFIG --mcp SERVER",
			"(CONFIG: the mcpServers file naming the MCP server(s) files, github; SERVER: the command line or URL of the MCP server mcp; the journal keeps digests and names, not paths, commands or values)"},
		{"a Go program's run", durable.GoProgramConfiguration(), "", ""},
		{"no configuration", nil, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			flags, note := recordedFlags(tt.conf)
			if flags != tt.flags || note != tt.note {
				t.Fatalf("got\n%q\n%q\nwant\n%q\n%q", flags, note, tt.flags, tt.note)
			}
		})
	}
}
