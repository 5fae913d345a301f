// The reference side of the side-by-side harness: torkbot/code-mode's Host
// Node runtime, driven over stdin/stdout by bench/sidebyside (main.go). It is
// started as `node reference.mjs CHECKOUT`, where CHECKOUT is a built clone
// of https://github.com/torkbot/code-mode (npm install && npm run build).
// Each stdin line is a JSON request {"row": ..., "n": ..., "seq": ...}; each
// answer is one stdout line {"value": number} or {"error": string}.
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { createInterface } from "node:readline";

const checkout = process.argv[2];
const url = (p) => pathToFileURL(join(checkout, p)).href;
const { createClient, createToolbox, defineTool } = await import(url("dist/index.js"));
const { createHostNodeRuntime } = await import(url("dist/host-node/index.js"));
const require = createRequire(join(checkout, "package.json"));
const Schema = (await import(pathToFileURL(require.resolve("typebox/schema")).href)).default;

// schema wraps a JSON Schema as the Standard Schema the reference takes,
// compiled by typebox as the reference's own tests do (src/testing/schema.ts).
function schema(value) {
  const validator = Schema.Compile(value);
  return {
    "~standard": {
      version: 1,
      vendor: "codemode-go-bench",
      validate(input) {
        const [valid, errors] = validator.Errors(input);
        if (valid) return { value: input };
        return { issues: errors.map((e) => ({ message: e.message })) };
      },
      jsonSchema: { input: () => value, output: () => value },
    },
  };
}

const shared = JSON.parse(await readStdinLine());
const echoSchema = schema(shared.echoSchema);
const rowsData = JSON.parse(shared.rowsJSON);
const toolbox = createToolbox([
  defineTool("echo", { description: "Return the value it was given.", inputSchema: echoSchema, outputSchema: echoSchema },
    async (_ctx, input) => input),
  defineTool("rows", { description: "Return the rows.", inputSchema: schema(shared.emptySchema), outputSchema: schema(shared.rowsSchema) },
    async () => rowsData),
]);
const runtime = await createHostNodeRuntime({ nodePath: process.execPath, cwd: process.cwd() }, AbortSignal.timeout(30_000));
const client = createClient({ runtime, toolbox });
const signal = new AbortController().signal;

async function run(source) {
  let out = "";
  const outcome = await client.run(source, {
    signal,
    onTelemetry(ev) { if (ev.kind === "program-output" && ev.stream === "stdout") out += ev.text; },
  });
  if (outcome.kind !== "success") throw new Error(JSON.stringify(outcome.error ?? outcome));
  return out;
}

const programs = shared.programs;
const fill = (tpl, seq, n) => tpl.replaceAll("__SEQ__", String(seq)).replaceAll("__N__", String(n));

async function measure(req) {
  const { row, n } = req;
  let seq = req.seq;
  switch (row) {
    case "warm":
    case "big": {
      const t0 = performance.now();
      for (let i = 0; i < n; i++) await run(fill(programs[row], seq++, 0));
      return (performance.now() - t0) / n; // ms per execution
    }
    case "roundtrip": {
      const t0 = performance.now();
      await run(fill(programs.loop, seq, 0));
      const t1 = performance.now();
      await run(fill(programs.loop, seq + 1, n));
      const t2 = performance.now();
      return ((t2 - t1) - (t1 - t0)) * 1000 / n; // us per call
    }
    case "conc64":
    case "conc64pool": { // no pool here: the one runtime, measured beside our pools
      let next = 0;
      const t0 = performance.now();
      await Promise.all(Array.from({ length: 64 }, async () => {
        while (next < n) { const i = next++; await run(fill(programs.warm, seq + i, 0)); }
      }));
      return n / ((performance.now() - t0) / 1000); // executions per second
    }
    case "retained": {
      const heap = async (s) => Number((await run(fill(programs.heap, s, 0))).trim());
      for (let i = 0; i < 500; i++) await run(fill(programs.warm, seq++, 0));
      const h0 = await heap(seq++);
      for (let i = 0; i < n; i++) await run(fill(programs.warm, seq++, 0));
      const h1 = await heap(seq++);
      return (h1 - h0) / n; // bytes of V8 heap per execution
    }
    case "boot": {
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const t0 = performance.now();
      const rt = await createHostNodeRuntime({ nodePath: process.execPath, cwd: process.cwd() }, AbortSignal.timeout(30_000));
      const ms = performance.now() - t0;
      await rt[Symbol.asyncDispose]();
      return ms;
    }
    default:
      throw new Error(`unknown row ${row}`);
  }
}

function readStdinLine() {
  return new Promise((resolve) => {
    const rl = createInterface({ input: process.stdin });
    rl.once("line", (line) => { rl.close(); resolve(line); });
  });
}

process.stdout.write(JSON.stringify({ ready: true }) + "\n");
const rl = createInterface({ input: process.stdin });
for await (const line of rl) {
  try {
    process.stdout.write(JSON.stringify({ value: await measure(JSON.parse(line)) }) + "\n");
  } catch (err) {
    process.stdout.write(JSON.stringify({ error: String(err?.stack ?? err) }) + "\n");
  }
}
await runtime[Symbol.asyncDispose]();
