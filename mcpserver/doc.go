// Package mcpserver exposes code mode as an MCP server with one tool, code
// (codeMcpServer, https://developers.cloudflare.com/agents/tools/codemode/api-reference/): the agent sends {code}, a TypeScript program in
// any form models write (see client.Client.RunCode), and the server runs it
// on a client's runtime, answering with the program's content as MCP text
// and image content, its console output as a separate bounded log block,
// and failures as isError results whose text says what failed and where
// (line and column in the submitted code). The tool's description carries
// the contract's TypeScript declarations through the {{types}} placeholder,
// and a call example through {{example}}. When a TypeScript checker is
// given, each program is type-checked first and an invalid one is answered
// with the compiler's report, so the agent can correct it before anything
// runs. Answers are cut to a token budget (about 6,000 tokens by default, 4
// characters per token, as Cloudflare's truncateResult), structurally for
// JSON so the text stays valid JSON.
//
// The package builds the *mcp.Server (github.com/modelcontextprotocol/go-sdk);
// serving it over stdio or streamable HTTP is the caller's choice.
package mcpserver
