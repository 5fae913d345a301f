// The conformance servers' tools: add_numbers (tools_call) or test-tool (auth scenarios).
const tools: any = codemode;
let answer: unknown;
try {
  answer = await tools.add_numbers({ a: 1, b: 2 });
} catch {
  answer = await tools.test_tool({});
}
answer
