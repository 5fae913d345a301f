// Package mcptest finds the real MCP servers the tests use
// (@modelcontextprotocol/server-everything, server-memory and
// server-filesystem), which scripts/test installs from npm into .tools/.
package mcptest
