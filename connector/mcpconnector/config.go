package mcpconnector

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strings"
	"unicode"
)

// Server configures one upstream MCP server: either a command spoken to over
// stdio (Command, Args, Env, Dir) or a streamable HTTP endpoint (URL,
// Headers).
type Server struct {
	// Name is the namespace the server's tools appear under in programs. It
	// is empty only for a single unnamed upstream, whose tools go on the
	// codemode namespace.
	Name string
	// Command and Args start a stdio server; Dir is its working directory
	// (default the host's). The server's environment is the minimal one the
	// MCP SDKs pass (HOME, LOGNAME, PATH, SHELL, TERM and USER from the
	// host) plus Env, which adds or overrides variables; nothing else of the
	// host's environment, CODEMODE_RUNNER_TOKEN included, reaches it unless
	// Env names it.
	Command string
	Args    []string
	Env     map[string]string
	Dir     string
	// URL is a streamable HTTP endpoint; Headers are sent with every request
	// (for example Authorization).
	URL     string
	Headers map[string]string
}

// String describes the server for messages: its name and command or URL.
func (s Server) String() string {
	what := s.URL
	if what == "" {
		what = strings.Join(append([]string{s.Command}, s.Args...), " ")
	}
	if s.Name == "" {
		return what
	}
	return s.Name + " (" + what + ")"
}

// configEntry is one entry of the "mcpServers" object as MCP clients write
// it (Claude Desktop, Cursor, VS Code's "servers").
type configEntry struct {
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	Cwd     string            `json:"cwd"`
	URL     string            `json:"url"`
	Type    string            `json:"type"`
	Headers map[string]string `json:"headers"`
}

// ParseConfig reads an MCP client configuration: a JSON object whose
// "mcpServers" (or "servers") member maps names to {command, args, env, cwd}
// for stdio servers or {url, headers, type} for streamable HTTP servers. Each
// name becomes a namespace, so it must be usable as one after
// SanitizeToolName; servers are returned sorted by name. It returns an error
// naming the entry at fault: not JSON, no servers, an entry with neither or
// both of command and url, an unsupported type ("sse"), or two names that
// sanitise alike.
func ParseConfig(data []byte) ([]Server, error) {
	var file struct {
		MCPServers map[string]configEntry `json:"mcpServers"`
		Servers    map[string]configEntry `json:"servers"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		return nil, fmt.Errorf("mcpconnector: config is not the mcpServers JSON format: %w", err)
	}
	entries := file.MCPServers
	if entries == nil {
		entries = file.Servers
	}
	if len(entries) == 0 {
		return nil, fmt.Errorf(`mcpconnector: config has no servers; expected {"mcpServers": {"name": {"command": …} or {"url": …}}}`)
	}
	names := make([]string, 0, len(entries))
	for n := range entries {
		names = append(names, n)
	}
	slices.Sort(names)
	var servers []Server
	seen := map[string]string{}
	for _, n := range names {
		e := entries[n]
		ns := SanitizeToolName(n)
		if ns == "input" || ns == "console" || ns == "result" {
			ns += "_" // the program scope's own properties
		}
		if other, dup := seen[ns]; dup {
			return nil, fmt.Errorf("mcpconnector: config servers %q and %q both become the namespace %s", other, n, ns)
		}
		seen[ns] = n
		switch {
		case e.Command != "" && e.URL != "":
			return nil, fmt.Errorf("mcpconnector: config server %q has both command and url", n)
		case e.Command == "" && e.URL == "":
			return nil, fmt.Errorf("mcpconnector: config server %q has neither command nor url", n)
		case e.URL != "" && e.Type != "" && e.Type != "http" && e.Type != "streamable-http" && e.Type != "streamableHttp":
			return nil, fmt.Errorf("mcpconnector: config server %q: transport type %q is not supported (use streamable HTTP or stdio)", n, e.Type)
		}
		if e.URL != "" {
			if _, err := url.ParseRequestURI(e.URL); err != nil {
				return nil, fmt.Errorf("mcpconnector: config server %q: url: %w", n, err)
			}
		}
		servers = append(servers, Server{Name: ns, Command: e.Command, Args: e.Args, Env: e.Env, Dir: e.Cwd, URL: e.URL, Headers: e.Headers})
	}
	return servers, nil
}

// LoadConfig reads and parses an MCP client configuration file (see
// ParseConfig).
func LoadConfig(path string) ([]Server, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("mcpconnector: %w", err)
	}
	servers, err := ParseConfig(data)
	if err != nil {
		return nil, fmt.Errorf("%w (in %s)", err, path)
	}
	return servers, nil
}

// ParseTarget reads a command line's upstream: an http:// or https:// URL is
// a streamable HTTP server; anything else is a command line split on spaces
// (double or single quotes group words; no other shell syntax), for example
// "npx -y @modelcontextprotocol/server-memory". The server is unnamed.
func ParseTarget(target string) (Server, error) {
	target = strings.TrimSpace(target)
	if strings.HasPrefix(target, "http://") || strings.HasPrefix(target, "https://") {
		if _, err := url.ParseRequestURI(target); err != nil {
			return Server{}, fmt.Errorf("mcpconnector: %w", err)
		}
		return Server{URL: target}, nil
	}
	words, err := splitWords(target)
	if err != nil {
		return Server{}, err
	}
	if len(words) == 0 {
		return Server{}, fmt.Errorf("mcpconnector: empty MCP server command")
	}
	return Server{Command: words[0], Args: words[1:]}, nil
}

// splitWords splits a command line on spaces, honouring quotes.
func splitWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	var quote rune
	for _, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '"' || r == '\'':
			quote, inWord = r, true
		case unicode.IsSpace(r):
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("mcpconnector: unterminated %c quote in %q", quote, s)
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}
