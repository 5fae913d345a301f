// An MCP client on the official TypeScript SDK for TestJournalMCPElicitation:
// it starts the server command, declares the elicitation capability when
// asked to (answering each elicitation with the given action), calls the
// code tool with the program, then code_result with the execution's ID, and
// prints {asked, protocol, answer, later} as one JSON line.
// Usage: node elicit-client.cjs '{"command": ..., "args": [...], "action": "accept"|"decline"|"cancel"|null, "code": ...}'
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");
const { ElicitRequestSchema } = require("@modelcontextprotocol/sdk/types.js");

async function main() {
  const cfg = JSON.parse(process.argv[2]);
  const capabilities = cfg.action ? { elicitation: {} } : {};
  const client = new Client({ name: "ts-sdk-agent", version: "1.0.0" }, { capabilities });
  const asked = [];
  if (cfg.action) {
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      asked.push(req.params.message);
      return cfg.action === "accept" ? { action: "accept", content: {} } : { action: cfg.action };
    });
  }
  const transport = new StdioClientTransport({ command: cfg.command, args: cfg.args, stderr: "inherit", env: process.env });
  await client.connect(transport);
  const answer = await client.callTool({ name: "code", arguments: { code: cfg.code } }, undefined, { timeout: 120000 });
  const head = JSON.parse(answer.content[0].text);
  const later = await client.callTool({ name: "code_result", arguments: { executionId: head.executionId } });
  process.stdout.write(JSON.stringify({ asked, protocol: transport.protocolVersion ?? null, answer, later }) + "\n");
  await client.close();
}

main().catch((e) => {
  process.stderr.write(String(e && e.stack || e) + "\n");
  process.exit(1);
});
