// The QuickJS entry of the runner. The Go runner in drivers/quickjs gives every
// execution its own QuickJS instance; it evaluates the program module itself
// (QuickJS's C API), then calls start with the evaluation promise and the
// module namespace, drains the outbox after each turn of the job queue, and
// calls deliver when a tool call is answered or a timer fires.

import { join, jsonParse, jsonStringify } from "./intrinsics";
import { Execution, type Finish, type Request, type Stream } from "./core";

// The outbox holds one line per message, tab-separated, so that draining it
// is one join rather than a JSON encoding of objects (every JavaScript call
// is costly in this engine):
//
//   c <seq> <namespace> <tool> <input JSON>   a tool call
//   o <stream> <text as a JSON string>        program output
//   t <timer id> <delay ms>                   a timer to arm
//   d <Finish as JSON>                        the outcome
//
// Namespaces and tool names are identifiers and JSON text has no raw tab or
// newline, so neither separator can appear inside a field.
let outbox: string[] = [];
let execution: Execution | undefined;

const host = {
  toolCall(seq: number, ns: string, tool: string, input: string) {
    outbox[outbox.length] = (`c\t${seq}\t${ns}\t${tool}\t${input}`);
  },
  output(stream: Stream, text: string) {
    outbox[outbox.length] = (`o\t${stream}\t${jsonStringify(text)}`);
  },
  finish(result: Finish) {
    outbox[outbox.length] = (`d\t${jsonStringify(result)}`);
  },
};

// Timers: setTimeout and clearTimeout, carried by the host's clock.
let timerSeq = 0;
const timers = new Map<number, () => void>();

const maxDelay = 2147483647;

function setTimeout(callback: unknown, ms?: unknown, ...args: unknown[]): number {
  if (typeof callback !== "function") throw new TypeError("setTimeout expects a function");
  const id = ++timerSeq;
  let delay = Number(ms);
  if (!Number.isFinite(delay) || delay < 0) delay = 0;
  // As in browsers and Node.js, delays are capped at 2^31-1 ms (about 24.8
  // days); the execution's deadline comes first anyway.
  if (delay > maxDelay) delay = maxDelay;
  timers.set(id, () => (callback as (...a: unknown[]) => void)(...args));
  outbox[outbox.length] = (`t\t${id}\t${Math.floor(delay)}`);
  return id;
}

function clearTimeout(id: unknown): void {
  timers.delete(Number(id));
}

// The global console writes to the execution's output like the scope
// console: an engine only ever runs one execution.
const write = (stream: Stream) => (...values: unknown[]) => execution?.write(stream, values);
const globalConsole = Object.freeze({
  debug: write("stdout"),
  error: write("stderr"),
  info: write("stdout"),
  log: write("stdout"),
  warn: write("stderr"),
});

export const quickjs = {
  /** install puts the timer functions and console on the global object. */
  install(global: Record<string, unknown>): void {
    Object.defineProperty(global, "setTimeout", { value: setTimeout, writable: true, configurable: true });
    Object.defineProperty(global, "clearTimeout", { value: clearTimeout, writable: true, configurable: true });
    Object.defineProperty(global, "console", { value: globalConsole, writable: true, configurable: true });
  },

  /** prepare creates the execution (requestJSON is a Request) before its module is evaluated. */
  prepare(requestJSON: string): void {
    execution = new Execution(host, jsonParse(requestJSON) as Request);
  },

  /**
   * start runs the prepared execution. With a compile error, evaluation is
   * null and compileError holds the thrown value.
   */
  start(evaluation: Promise<unknown> | null, namespace: Record<string, unknown> | null, compileError?: unknown): void {
    if (execution === undefined) throw new Error("start before prepare");
    if (evaluation === null || namespace === null) {
      execution.fail(compileError);
      return;
    }
    const ns = namespace;
    void execution.run(async () => {
      await evaluation;
      return ns;
    });
  },

  /** deliver answers tool call seq (ok: output JSON; not ok: {name, message} JSON). */
  deliver(seq: number, ok: boolean, payload: string): void {
    execution?.deliver(seq, ok, payload);
  },

  /** fire runs timer id's callback; a throw fails the execution. */
  fire(id: number): void {
    const callback = timers.get(id);
    if (callback === undefined) return;
    timers.delete(id);
    try {
      callback();
    } catch (error) {
      execution?.fail(error);
    }
  },

  /**
   * drain empties the outbox and returns its lines, then a last line
   * "w\t1" when the execution can still make progress (tool calls or timers
   * outstanding) or "w\t0" when it cannot.
   */
  drain(): string {
    const waiting = execution !== undefined && !execution.finished && (execution.pendingCalls > 0 || timers.size > 0);
    outbox[outbox.length] = waiting ? "w\t1" : "w\t0";
    const text = join(outbox, "\n");
    outbox = [];
    return text;
  },

};
