// Package defaults holds the values public packages give zero option
// fields, so that the command line's flags show the same defaults without
// the packages exporting them. Each value is stated in words in the field's
// documentation too.
package defaults

import "time"

// MCPConnectTimeout is mcpconnector.Options.ConnectTimeout's default: long
// enough for npx to start a cached package, short enough that a server
// that hangs does not hold the others' users for a minute.
const MCPConnectTimeout = 15 * time.Second

// MCPMaxTokens is mcpserver.Options.MaxTokens' default: the answer budget,
// in estimated tokens of 4 characters each (TruncateOptions' 6,000 tokens,
// https://developers.cloudflare.com/agents/tools/codemode/api-reference/).
const MCPMaxTokens = 6000

// MCPMaxExecutions and MCPMaxQueued are mcpserver.Options.MaxExecutions' and
// MaxQueued's defaults: eight programs of up to 64 MiB each run at once (a
// review measured 24 concurrent programs at 1.75 GB), and 64 more wait.
const (
	MCPMaxExecutions = 8
	MCPMaxQueued     = 64
)

// MCPElicitTimeout is mcpserver.Options.ElicitTimeout's default: how long a
// person asked through the client has to decide.
const MCPElicitTimeout = 10 * time.Minute

// Defaults of mcpserver.HTTPOptions: open sessions, a session's idle time,
// the bound on reading one request's body, and one body's size (a program
// of 8 MiB, escaped as JSON).
const (
	MCPMaxSessions  = 256
	MCPSessionIdle  = 30 * time.Minute
	MCPBodyTimeout  = 30 * time.Second
	MCPMaxBodyBytes = 32 << 20
)

// PausedTTL is the age after which durable.Handle.ExpirePaused ends a
// paused or orphaned running execution when given no age (Cloudflare Code
// Mode API reference, "DEFAULT_PAUSED_TTL_MS").
const PausedTTL = 24 * time.Hour
