// Package answercut bounds the text of an answer a model reads (the code
// tool's JSON answer, a tool's output, a program's content) to a budget of
// characters, as Cloudflare's code mode does with truncateResult
// (https://developers.cloudflare.com/agents/tools/codemode/api-reference/):
// JSON is cut structurally, so what is left is still valid JSON that says
// what was left out; other text is cut at a character boundary with a
// marker. codetool and mcpserver cut their answers with it.
package answercut
