// Package mcpconnector turns upstream MCP servers into code-mode tools
// (McpConnector and codeMcpServer, https://developers.cloudflare.com/agents/tools/codemode/api-reference/): it connects to each server with
// github.com/modelcontextprotocol/go-sdk over stdio (a command) or
// streamable HTTP (a URL), lists its tools with pagination, sanitises their
// names into JavaScript identifiers as Cloudflare's sanitizeToolName does
// (the separators "-", ".", "/", ":" and spaces become "_", other
// characters that cannot be in an identifier are dropped, a leading digit
// gets a "_" prefix and a reserved word a "_" suffix: "read-file" is
// read_file, "2fa.verify" _2fa_verify, "delete" delete_; of tools whose
// names sanitise alike, one keeps the name and the others are suffixed
// "_2", "_3", … by a rule that depends on the names alone, with a
// warning; on the codemode namespace, where code mode's SDK has search,
// describe, step and run, tools of those names are suffixed too), and
// makes each a
// contract tool whose declarations are printed leniently from the server's
// own JSON Schemas and whose values are validated against them on the
// host (see Validation for the schema exports it reads as the server means
// them), and whose contract.Tool.Upstream is its MCP name ("MCP tool
// get-file"): a server that adds a tool can move a name to it, and a
// durable journal that recorded a call under the name then refuses to
// run it against the new tool. A call's MCP
// result is unwrapped the way codeMcpServer does: an error result becomes
// a thrown error (MCPToolError) carrying its text, structured content
// comes first, all-text content is parsed as JSON or kept as text, and
// mixed or binary content is kept whole so a program can forward an image
// with result.appendImage.
//
// One unnamed upstream puts its tools on the codemode namespace; named
// upstreams each become a namespace of their own (`await memory.search_nodes(
// { query })`). The configuration file format is the "mcpServers" JSON that
// MCP clients already use (LoadConfig).
//
// One server never takes the others down: Connect starts them all at
// once, each bounded by a connect timeout, and a server that fails to
// start is left out (its namespace says why), reported, and retried in
// the background until it joins (not with Options.NoRetry, for a host
// that runs one program and exits). An upstream whose process dies later is
// started again on the next call; the call that was in flight fails.
// Messages name a server by its name and command, never its arguments,
// environment or headers, and text relayed from a server has its
// configured secrets redacted and its control characters escaped.
package mcpconnector
