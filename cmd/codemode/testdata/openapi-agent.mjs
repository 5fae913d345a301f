// An agent's MCP client for `codemode openapi serve`, written with the
// official TypeScript SDK: node openapi-agent.mjs SDK_DIR (stdio COMMAND
// ARGS... | http URL). It lists the tools, calls search and execute with the
// programs in $AGENT_SEARCH and $AGENT_EXECUTE, and prints one JSON object:
// {tools: [names], search: {isError, text}, execute: {isError, text}}.
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [sdk, mode, ...rest] = process.argv.slice(2);
const load = (p) => import(pathToFileURL(join(sdk, "dist", "esm", "client", p)).href);
const { Client } = await load("index.js");
let transport;
if (mode === "stdio") {
  const { StdioClientTransport } = await load("stdio.js");
  transport = new StdioClientTransport({ command: rest[0], args: rest.slice(1), env: process.env, stderr: "inherit" });
} else {
  const { StreamableHTTPClientTransport } = await load("streamableHttp.js");
  transport = new StreamableHTTPClientTransport(new URL(rest[0]));
}
const client = new Client({ name: "openapi-agent", version: "1.0.0" });
await client.connect(transport);
const { tools } = await client.listTools();
const call = async (name, code) => {
  const res = await client.callTool({ name, arguments: { code } }, undefined, { timeout: 60000 });
  return { isError: Boolean(res.isError), text: res.content.filter((c) => c.type === "text").map((c) => c.text).join("\n") };
};
const out = {
  tools: tools.map((t) => t.name).sort(),
  descriptions: Object.fromEntries(tools.map((t) => [t.name, t.description])),
  search: await call("search", process.env.AGENT_SEARCH),
  execute: await call("execute", process.env.AGENT_EXECUTE),
};
await client.close();
process.stdout.write(JSON.stringify(out));
