// The QuickJS entry of the runner. The Go runner in drivers/quickjs gives every
// execution its own QuickJS instance; it evaluates the program module itself
// (QuickJS's C API), then calls start with the evaluation promise and the
// module namespace, drains the outbox after each turn of the job queue, and
// calls deliver when a tool call is answered or a timer fires.

import { Execution, serializeError, type Finish, type Request, type Stream } from "./core";

type OutMessage =
  | { k: "call"; seq: number; ns: string; tool: string; input: string; site: string }
  | { k: "out"; stream: Stream; text: string }
  | { k: "timer"; id: number; ms: number }
  | { k: "done"; result: Finish };

let outbox: OutMessage[] = [];
let execution: Execution | undefined;

const host = {
  toolCall(seq: number, ns: string, tool: string, input: string, site: string) {
    outbox.push({ k: "call", seq, ns, tool, input, site });
  },
  output(stream: Stream, text: string) {
    outbox.push({ k: "out", stream, text });
  },
  finish(result: Finish) {
    outbox.push({ k: "done", result });
  },
};

// Timers: setTimeout and clearTimeout, carried by the host's clock.
let timerSeq = 0;
const timers = new Map<number, () => void>();

function setTimeout(callback: unknown, ms?: unknown, ...args: unknown[]): number {
  if (typeof callback !== "function") throw new TypeError("setTimeout expects a function");
  const id = ++timerSeq;
  let delay = Number(ms);
  if (!Number.isFinite(delay) || delay < 0) delay = 0;
  timers.set(id, () => (callback as (...a: unknown[]) => void)(...args));
  outbox.push({ k: "timer", id, ms: Math.floor(delay) });
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
    execution = new Execution(host, JSON.parse(requestJSON) as Request);
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

  /** drain returns the outbox as JSON text and empties it. */
  drain(): string {
    const text = JSON.stringify(outbox);
    outbox = [];
    return text;
  },

  /** waiting tells whether the execution can still make progress: calls or timers outstanding. */
  waiting(): boolean {
    return execution !== undefined && !execution.finished && (execution.pendingCalls > 0 || timers.size > 0);
  },

  /** serialize renders a thrown value for a failure the host detected. */
  serialize(value: unknown): string {
    return JSON.stringify(serializeError(value));
  },
};
