package mcpconnector

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"os"
	"slices"
	"strings"

	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/internal/toolname"
	"github.com/modelcontextprotocol/go-sdk/auth"
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
	// to URL's origin (for example Authorization). A redirect to another
	// origin carries neither them nor an Authorization, Cookie or
	// Proxy-Authorization header (OAuth's token included).
	URL     string
	Headers map[string]string
	// OAuth, when set, authorizes requests to URL as the MCP authorization
	// specification describes
	// (https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization):
	// the transport asks it for a token before each request and to
	// authorize after a 401 or 403 (go-sdk's auth.AuthorizationCodeHandler
	// runs the OAuth 2.1 flow with PKCE; codemode login and the CLI's
	// servers use one over a token file).
	OAuth auth.OAuthHandler
	// Approval says which of the server's tool calls need a person's
	// approval (their contract.Policy): ApprovalDestructive (the default,
	// also ""), ApprovalAlways or ApprovalNever. The configuration file's
	// "approval" member sets it.
	Approval Approval
	// Policies, by tool name (as the server spells it, or as programs call
	// it), replace the policy Approval gives those tools: approval, replay,
	// revert (for example a revert that calls the server's delete tool). A
	// name that matches no tool of the server keeps the server from
	// joining, with an error naming it (see Set.Down).
	Policies map[string]contract.Policy
	// Validate says how the host checks values against the server's
	// schemas: ValidateLenient (the default, also ""), ValidateStrict or
	// ValidateOff. ValidateTools sets it per tool, by the same names as
	// Policies (a name that matches no tool is a warning). The
	// configuration file's "validate" member and "tools": {"name":
	// {"validate": …}} set them.
	Validate      Validation
	ValidateTools map[string]Validation
	// Callers, by the same tool names as Policies, says who calls each
	// tool (contract.Policy.Callers): the model directly, programs, or
	// both; it applies on top of the tool's policy (Approval's or
	// Policies'). A name that matches no tool is a warning. The
	// configuration file's "tools": {"name": {"callers": "model"}} sets it.
	Callers map[string]contract.Callers
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

// Validation is how values are checked against a server's schemas
// (Server.Validate). Servers export their schemas from code (zod,
// pydantic), and some exports are stricter than the server itself; the
// host's validation exists to give a program early, precise errors, never
// to refuse what the server accepts.
type Validation string

// The validation modes.
const (
	// ValidateLenient validates against the schemas as the server means
	// them, declaring them the same way: a required property that has a
	// default is optional, and an object below the top with no properties
	// that allows none (an export of "any object", as zod's records and
	// empty objects come out) allows any. The top of an input schema stays
	// as written: {"type": "object", "additionalProperties": false} is how
	// MCP says a tool takes no arguments
	// (https://modelcontextprotocol.io/specification/2025-11-25/server/tools#tool).
	ValidateLenient Validation = "lenient"
	// ValidateStrict validates against the schemas exactly as written.
	ValidateStrict Validation = "strict"
	// ValidateOff does not validate on the host: the server checks its own
	// input. The tool is declared as for ValidateLenient.
	ValidateOff Validation = "off"
)

// check returns an error for a mode that is none of the above.
func (v Validation) check() error {
	switch v {
	case "", ValidateLenient, ValidateStrict, ValidateOff:
		return nil
	}
	return fmt.Errorf("validate %q is not %q, %q or %q", v, ValidateLenient, ValidateStrict, ValidateOff)
}

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

// String describes the server for messages without what may be secret:
// its name and its command without arguments, or its URL without user
// information, query or a path segment that looks like a key
// ("github (npx)", "search (https://mcp.example.com/mcp)"). Arguments,
// environment values and headers are never printed: real servers' own
// READMEs put keys there (--api-key=sk_..., --access-token=...).
func (s Server) String() string {
	what := s.Command
	if s.URL != "" {
		what = redactURL(s.URL)
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
	// Approval, Validate and Tools are codemode's own members
	// (Server.Approval, Server.Validate, Server.ValidateTools); MCP
	// clients ignore members they do not know.
	Approval Approval   `json:"approval"`
	Validate Validation `json:"validate"`
	Tools    map[string]struct {
		Validate Validation       `json:"validate"`
		Callers  contract.Callers `json:"callers"`
	} `json:"tools"`
}

// parseConfig reads an MCP client configuration (see LoadConfig).
func parseConfig(data []byte) ([]Server, error) {
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
		ns := toolname.Sanitize(n)
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
			return nil, fmt.Errorf("mcpconnector: config server %q has neither command nor url%s", n, entryKeys(data, n))
		case e.URL != "" && e.Type != "" && e.Type != "http" && e.Type != "streamable-http" && e.Type != "streamableHttp":
			return nil, fmt.Errorf("mcpconnector: config server %q: transport type %q is not supported (use streamable HTTP or stdio)", n, e.Type)
		}
		if e.URL != "" {
			if _, err := url.ParseRequestURI(e.URL); err != nil {
				return nil, fmt.Errorf("mcpconnector: config server %q: url: %w", n, err)
			}
		}
		s, err := e.server(n)
		if err != nil {
			return nil, err
		}
		s.Name = ns
		servers = append(servers, s)
	}
	return servers, nil
}

// entryKeys lists the keys the config data gives the server named n, "
// (its keys: args, comand)", so that a misspelt "command" or "url" shows;
// "" when it has none.
func entryKeys(data []byte, n string) string {
	var file struct {
		MCPServers map[string]map[string]json.RawMessage `json:"mcpServers"`
		Servers    map[string]map[string]json.RawMessage `json:"servers"`
	}
	_ = json.Unmarshal(data, &file) // parseConfig decoded it already
	entry, ok := file.MCPServers[n]
	if !ok {
		entry = file.Servers[n]
	}
	if len(entry) == 0 {
		return ""
	}
	return " (its keys: " + strings.Join(slices.Sorted(maps.Keys(entry)), ", ") + ")"
}

// server is the entry named n as a Server (without its namespace name), or
// an error naming it for an unknown approval rule or validation mode.
func (e configEntry) server(n string) (Server, error) {
	switch e.Approval {
	case "", ApprovalDestructive, ApprovalAlways, ApprovalNever:
	default:
		return Server{}, fmt.Errorf("mcpconnector: config server %q: approval %q is not %q, %q or %q", n, e.Approval, ApprovalDestructive, ApprovalAlways, ApprovalNever)
	}
	if err := e.Validate.check(); err != nil {
		return Server{}, fmt.Errorf("mcpconnector: config server %q: %w", n, err)
	}
	s := Server{Command: e.Command, Args: e.Args, Env: e.Env, Dir: e.Cwd, URL: e.URL, Headers: e.Headers, Approval: e.Approval, Validate: e.Validate}
	for tool, t := range e.Tools {
		if err := t.Validate.check(); err != nil {
			return Server{}, fmt.Errorf("mcpconnector: config server %q: tools[%q]: %w", n, tool, err)
		}
		if t.Validate != "" {
			if s.ValidateTools == nil {
				s.ValidateTools = map[string]Validation{}
			}
			s.ValidateTools[tool] = t.Validate
		}
		switch t.Callers {
		case "":
		case contract.CallersModel, contract.CallersBoth:
			if s.Callers == nil {
				s.Callers = map[string]contract.Callers{}
			}
			s.Callers[tool] = t.Callers
		default:
			return Server{}, fmt.Errorf("mcpconnector: config server %q: tools[%q]: callers %q is not %q or %q", n, tool, t.Callers, contract.CallersModel, contract.CallersBoth)
		}
	}
	return s, nil
}

// LoadConfig reads an MCP client configuration file: a JSON object whose
// "mcpServers" (or "servers") member maps names to {command, args, env, cwd}
// for stdio servers or {url, headers, type} for streamable HTTP servers,
// each with codemode's optional "approval" ("destructive", "always" or
// "never"; see Server.Approval), "validate" ("lenient", "strict" or "off";
// see Server.Validate) and "tools" ({"tool_name": {"validate": …,
// "callers": "model" or "both"}}; see Server.Callers). Each
// name becomes a namespace, so it must be usable as one once sanitised
// as a tool name is (see the package documentation); servers are returned sorted by name. It returns an
// error naming the file and the entry at fault: not JSON, no servers, an
// entry with neither or both of command and url, an unsupported type
// ("sse"), an unknown approval rule or validation mode, or two names that
// sanitise alike.
//
//	servers, err := mcpconnector.LoadConfig("mcp.json")
//	set, err := mcpconnector.Connect(ctx, servers, mcpconnector.Options{})
func LoadConfig(path string) ([]Server, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("mcpconnector: %w", err)
	}
	servers, err := parseConfig(data)
	if err != nil {
		return nil, fmt.Errorf("%w (in %s)", err, path)
	}
	return servers, nil
}
