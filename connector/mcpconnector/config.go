package mcpconnector

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strings"
	"unicode"

	"github.com/codemode-go/codemode/contract"
	"github.com/modelcontextprotocol/go-sdk/mcp"
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
	// Approval says which of the server's tool calls need a person's
	// approval (their contract.Policy): ApprovalDestructive (the default,
	// also ""), ApprovalAlways or ApprovalNever. The configuration file's
	// "approval" member sets it.
	Approval Approval
	// Policies, by tool name (as the server spells it, or as programs call
	// it), replace the policy Approval gives those tools: approval, replay,
	// revert (for example a revert that calls the server's delete tool). A
	// name that matches no tool of the server is an error when the tools
	// are made.
	Policies map[string]contract.Policy
}

// Approval is a server's approval rule (Server.Approval).
type Approval string

// The approval rules.
const (
	// ApprovalDestructive: a call needs approval unless the tool's MCP
	// annotations say it only reads, or that it is not destructive. MCP's
	// defaults apply to hints left out (readOnlyHint false, destructiveHint
	// true: https://modelcontextprotocol.io/specification/2025-06-18/schema#toolannotations),
	// so a tool without annotations needs approval.
	ApprovalDestructive Approval = "destructive"
	// ApprovalAlways: every call needs approval.
	ApprovalAlways Approval = "always"
	// ApprovalNever: no call needs approval (the server is trusted).
	ApprovalNever Approval = "never"
)

// needs reports whether a rule asks approval of a tool with annotations a.
func (r Approval) needs(a *mcp.ToolAnnotations) bool {
	switch r {
	case ApprovalAlways:
		return true
	case ApprovalNever:
		return false
	}
	if a == nil {
		return true
	}
	if a.ReadOnlyHint {
		return false
	}
	return a.DestructiveHint == nil || *a.DestructiveHint
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
	// Approval is codemode's own member (Server.Approval); MCP clients
	// ignore members they do not know.
	Approval Approval `json:"approval"`
}

// ParseConfig reads an MCP client configuration: a JSON object whose
// "mcpServers" (or "servers") member maps names to {command, args, env, cwd}
// for stdio servers or {url, headers, type} for streamable HTTP servers,
// each with codemode's optional "approval" ("destructive", "always" or
// "never"; see Server.Approval). Each
// name becomes a namespace, so it must be usable as one after
// SanitizeToolName; servers are returned sorted by name. It returns an error
// naming the entry at fault: not JSON, no servers, an entry with neither or
// both of command and url, an unsupported type ("sse"), an unknown approval
// rule, or two names that sanitise alike.
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
		switch e.Approval {
		case "", ApprovalDestructive, ApprovalAlways, ApprovalNever:
		default:
			return nil, fmt.Errorf("mcpconnector: config server %q: approval %q is not %q, %q or %q", n, e.Approval, ApprovalDestructive, ApprovalAlways, ApprovalNever)
		}
		servers = append(servers, Server{Name: ns, Command: e.Command, Args: e.Args, Env: e.Env, Dir: e.Cwd, URL: e.URL, Headers: e.Headers, Approval: e.Approval})
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
