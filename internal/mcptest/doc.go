// Package mcptest finds the real MCP servers the tests use
// (@modelcontextprotocol/server-everything, server-memory and
// server-filesystem), which scripts/test installs from npm into .tools/,
// and plays the small servers that reproduce what real servers do wrong:
// one that crashes at start, one that never answers the handshake, one
// that comes up only once a file exists, and one that lists real servers'
// tools with their schemas' export quirks (testdata/README.md).
package mcptest
