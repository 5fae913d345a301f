// Package mcpserver serves code mode as an MCP server (codeMcpServer,
// https://developers.cloudflare.com/agents/tools/codemode/api-reference/):
// one tool, code, over any codetool.Runner. The agent sends {code}, a
// TypeScript program in any form models write, and the server answers with
// the program's codetool.Answer as JSON, then what the program appended
// (result.appendText, result.appendImage) as MCP text and image content;
// a failed program is an isError result whose text says what failed and
// where (line and column in the submitted code). The tool's description is
// codetool.Tool's: the namespaces, the codemode SDK, an example and,
// when they fit, the declarations. With a TypeScript checker each program
// is type-checked first and an invalid one is answered with the compiler's
// report, so the agent can correct it before anything runs. Answers are cut
// to a token budget (about 6,000 tokens by default, 4 characters per
// token, as Cloudflare's truncateResult), structurally for JSON so the
// text stays valid JSON.
//
// Over a runner that pauses for approval (a *durable.Handle, a
// codetool.Approver) the server also offers code_result, and puts each
// pause to the person through the client when it declared elicitation;
// over a plain client it asks the person about each call that needs
// approval instead. NewOpenAPI serves one OpenAPI document with two code
// tools, search and execute.
//
// The package builds the *mcp.Server (github.com/modelcontextprotocol/go-sdk);
// serving it over stdio or streamable HTTP (NewHTTPHandler) is the
// caller's choice.
package mcpserver
