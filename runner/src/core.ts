import { jsonParse, jsonStringify } from "./intrinsics";

// The execution core of the code-mode runner: it builds the program scope
// (tools, console, result writer), calls the default export, numbers tool
// calls, keeps the result buffer transactional and serialises errors without
// trusting them. It knows nothing of how bytes reach the host: a Host does.

export type Stream = "stdout" | "stderr";

export type Content =
  | { type: "text"; text: string }
  | { type: "image"; data: string; mimeType: string };

export interface SerializedError {
  name: string;
  message: string;
  stack: string;
}

export type Finish =
  | { outcome: "success"; content: Content[] }
  | { outcome: "program-failed"; error: SerializedError };

/** What an execution needs from the platform that carries its messages. */
export interface Host {
  toolCall(seq: number, namespace: string, tool: string, inputJSON: string): void;
  output(stream: Stream, text: string): void;
  finish(result: Finish): void;
}

export interface Namespace {
  name: string;
  tools: string[];
}

export interface Request {
  filename: string;
  hasInput: boolean;
  input?: unknown;
  namespaces: Namespace[];
  limits: Limits;
}

export interface Limits {
  /** Most UTF-16 code units of console output kept per execution. */
  maxOutput: number;
  /** Most UTF-16 code units of result content per execution. */
  maxContent: number;
}

export const errorLimits = { name: 200, message: 8192, stack: 16384 };

function bound(text: string, limit: number): string {
  if (text.length <= limit) return text;
  return text.slice(0, limit) + `… [truncated ${text.length - limit} characters]`;
}

function safeText(read: () => unknown, limit: number): string {
  try {
    const value = read();
    if (value === undefined || value === null) return "";
    if (typeof value === "string") return bound(value, limit);
    if (typeof value === "symbol") return bound(value.toString(), limit);
    return bound(String(value), limit);
  } catch {
    return "";
  }
}

/** serializeError reads a thrown value without letting it throw again. */
export function serializeError(value: unknown): SerializedError {
  try {
    if (typeof value === "function") {
      const name = safeText(() => (value as { name?: unknown }).name, errorLimits.name);
      return { name: "Error", message: `a function${name ? ` (${name})` : ""} was thrown`, stack: "" };
    }
    if (typeof value === "object" && value !== null) {
      const v = value as { name?: unknown; message?: unknown; stack?: unknown };
      const name = safeText(() => v.name, errorLimits.name) || "Error";
      let message = safeText(() => v.message, errorLimits.message);
      if (message === "" && !safeIsError(value)) message = safeText(() => jsonOrString(value), errorLimits.message);
      return { name, message, stack: safeText(() => v.stack, errorLimits.stack) };
    }
    return { name: "Error", message: safeText(() => String(value), errorLimits.message), stack: "" };
  } catch {
    return { name: "Error", message: "unreadable thrown value", stack: "" };
  }
}

function safeIsError(value: unknown): boolean {
  try {
    return value instanceof Error;
  } catch {
    return false;
  }
}

function jsonOrString(value: unknown): string {
  try {
    const text = jsonStringify(value);
    if (typeof text === "string") return text;
  } catch {
    // fall through
  }
  return String(value);
}

/** formatValue renders one console argument as text. */
export function formatValue(value: unknown): string {
  try {
    switch (typeof value) {
      case "string":
        return value;
      case "undefined":
        return "undefined";
      case "function":
        return `[Function ${safeText(() => (value as { name?: unknown }).name, 100) || "(anonymous)"}]`;
      case "symbol":
      case "bigint":
      case "number":
      case "boolean":
        return String(value);
    }
    if (value === null) return "null";
    if (safeIsError(value)) {
      const e = serializeError(value);
      return e.stack ? `${e.name}: ${e.message}\n${e.stack}`.trimEnd() : `${e.name}: ${e.message}`;
    }
    return jsonOrString(value);
  } catch {
    return "[unprintable]";
  }
}

const reservedToolKeys = new Set<string>(["then", "__proto__", ...Object.getOwnPropertyNames(Object.prototype)]);

class JSONInputError extends TypeError {
  constructor(path: string, what: string) {
    super(`tool input is not JSON: ${path} is ${what}`);
    this.name = "TypeError";
  }
}

/**
 * checkJSON throws a TypeError naming the path when value is not plain JSON:
 * null, booleans, finite numbers, strings, dense arrays and plain objects.
 * Object properties whose value is undefined are allowed and dropped by
 * JSON.stringify, as usual; anything else JSON cannot carry is refused.
 */
export function checkJSON(value: unknown, path = "input", ancestors: object[] = []): void {
  if (typeof value !== "object" || value === null) {
    checkLeaf(value, path);
    return;
  }
  const object = value as object;
  if (ancestors.includes(object)) throw new JSONInputError(path, "a circular reference");
  if (ancestors.length >= maxJSONDepth) throw new JSONInputError(path, `nested deeper than ${maxJSONDepth} levels`);
  ancestors.push(object);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      if (!(i in value)) throw new JSONInputError(`${path}[${i}]`, "a hole in an array");
      const item = value[i];
      // Strings and finite numbers, the common case, need no call.
      if (typeof item === "string" || typeof item === "boolean" || item === null) continue;
      if (typeof item === "number" && Number.isFinite(item)) continue;
      checkJSON(item, `${path}[${i}]`, ancestors);
    }
  } else {
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) {
      const kind = safeText(() => Object.prototype.toString.call(value), 100);
      throw new JSONInputError(path, `not a plain object (${kind})`);
    }
    for (const key in object) {
      const item = (value as Record<string, unknown>)[key];
      if (typeof item === "string" || typeof item === "boolean" || item === null || item === undefined) continue;
      if (typeof item === "number" && Number.isFinite(item)) continue;
      checkJSON(item, `${path}.${key}`, ancestors);
    }
  }
  ancestors.pop();
}

function checkLeaf(value: unknown, path: string): void {
  switch (typeof value) {
    case "number":
      if (!Number.isFinite(value)) throw new JSONInputError(path, String(value));
      return;
    case "undefined":
      throw new JSONInputError(path, "undefined");
    case "bigint":
      throw new JSONInputError(path, "a bigint");
    case "symbol":
      throw new JSONInputError(path, "a symbol");
    case "function":
      throw new JSONInputError(path, "a function");
  }
}

/** maxJSONDepth bounds tool input nesting (the QuickJS stack is shallow). */
const maxJSONDepth = 64;

/** toJSONText checks value (checkJSON) and returns its JSON text. */
export function toJSONText(value: unknown): string {
  checkJSON(value);
  try {
    return jsonStringify(value);
  } catch (error) {
    // A cycle deeper than the walk, or a getter that throws.
    throw new JSONInputError("input", `not serialisable (${serializeError(error).message})`);
  }
}

const base64 = /^[A-Za-z0-9+/]*={0,2}$/;

interface Pending {
  resolve(value: unknown): void;
  reject(error: unknown): void;
  error: Error;
}

/**
 * Execution is one run of one program. The platform evaluates the module and
 * hands the evaluation and its namespace to run; tool results come back
 * through deliver.
 */
export class Execution {
  private seq = 0;
  private readonly pending = new Map<number, Pending>();
  private readonly content: Content[] = [];
  private contentSize = 0;
  private outputSize = 0;
  private outputCut = false;
  private done = false;

  constructor(
    private readonly host: Host,
    private readonly request: Request,
  ) {}

  /** pendingCalls is the number of tool calls the host has not answered. */
  get pendingCalls(): number {
    return this.pending.size;
  }

  /** finished reports whether the outcome has been handed to the host. */
  get finished(): boolean {
    return this.done;
  }

  /** run awaits module evaluation, then calls the default export with the scope. */
  async run(evaluate: () => Promise<Record<string, unknown>>): Promise<void> {
    try {
      const namespace = await evaluate();
      let program: unknown;
      try {
        program = namespace.default;
      } catch {
        program = undefined;
      }
      if (typeof program !== "function") {
        const what = program === undefined ? "no default export" : `a default export of type ${typeof program}`;
        throw new TypeError(`the program module has ${what}; it must default-export a function (scope) => …`);
      }
      await (program as (scope: unknown) => unknown)(this.scope());
      this.finish({ outcome: "success", content: this.content.slice() });
    } catch (error) {
      this.fail(error);
    }
  }

  /** fail ends the execution as program-failed with the serialised value. */
  fail(error: unknown): void {
    this.finish({ outcome: "program-failed", error: serializeError(error) });
  }

  private finish(result: Finish): void {
    if (this.done) return;
    this.done = true;
    this.pending.clear();
    this.host.finish(result);
  }

  /** deliver settles tool call seq: ok with output JSON text, or an error {name, message}. */
  deliver(seq: number, ok: boolean, payload: string): void {
    const call = this.pending.get(seq);
    if (call === undefined) return;
    this.pending.delete(seq);
    if (ok) {
      let value: unknown;
      try {
        value = jsonParse(payload);
      } catch (error) {
        call.reject(error);
        return;
      }
      call.resolve(value);
      return;
    }
    let name = "Error";
    let message = payload;
    try {
      const parsed = jsonParse(payload) as { name?: unknown; message?: unknown };
      if (typeof parsed.name === "string") name = parsed.name;
      if (typeof parsed.message === "string") message = parsed.message;
    } catch {
      // keep the raw text
    }
    const error = call.error;
    error.message = message;
    error.name = name;
    call.reject(error);
  }

  private callTool(namespace: string, tool: string, input: unknown): Promise<unknown> {
    const error = new Error("tool call failed");
    if (this.done) return Promise.reject(new Error(`${namespace}.${tool} was called after the program finished`));
    let inputJSON: string;
    try {
      inputJSON = toJSONText(input);
    } catch (cause) {
      return Promise.reject(cause);
    }
    const seq = ++this.seq;
    return new Promise((resolve, reject) => {
      this.pending.set(seq, { resolve, reject, error });
      this.host.toolCall(seq, namespace, tool, inputJSON);
    });
  }

  /** write formats values as one line of program output on stream. */
  write(stream: Stream, values: unknown[]): void {
    if (this.done || this.outputCut) return;
    let text = values.map(formatValue).join(" ") + "\n";
    const room = this.request.limits.maxOutput - this.outputSize;
    if (text.length > room) {
      text = text.slice(0, Math.max(room, 0)) + `\n[program output truncated at the limit of ${this.request.limits.maxOutput} characters]\n`;
      this.outputCut = true;
    }
    this.outputSize += text.length;
    this.host.output(stream, text);
  }

  private append(item: Content, size: number): void {
    if (this.done) throw new Error("result content was appended after the program finished");
    if (this.contentSize + size > this.request.limits.maxContent) {
      throw new RangeError(`result content exceeds the limit of ${this.request.limits.maxContent} characters`);
    }
    this.contentSize += size;
    this.content.push(item);
  }

  private scope(): Record<string, unknown> {
    const write = (stream: Stream) => (...values: unknown[]) => this.write(stream, values);
    const console = Object.freeze({
      debug: write("stdout"),
      error: write("stderr"),
      info: write("stdout"),
      log: write("stdout"),
      warn: write("stderr"),
    });
    const result = Object.freeze({
      appendText: (text: unknown): void => {
        if (typeof text !== "string") throw new TypeError(`result.appendText expects a string, got ${text === null ? "null" : typeof text}`);
        this.append({ type: "text", text }, text.length);
      },
      appendImage: (image: unknown): void => {
        if (typeof image !== "object" || image === null) throw new TypeError("result.appendImage expects an object {data, mimeType}");
        const { data, mimeType } = image as { data?: unknown; mimeType?: unknown };
        if (typeof data !== "string" || data.length % 4 !== 0 || !base64.test(data)) {
          throw new TypeError("result.appendImage: data must be a base64 string");
        }
        if (typeof mimeType !== "string" || mimeType === "") {
          throw new TypeError("result.appendImage: mimeType must be a non-empty string");
        }
        this.append({ type: "image", data, mimeType }, data.length + mimeType.length);
      },
    });
    const scope: Record<string, unknown> = {};
    if (this.request.hasInput) scope.input = this.request.input;
    for (const ns of this.request.namespaces) scope[ns.name] = this.namespace(ns);
    scope.console = console;
    scope.result = result;
    return Object.freeze(scope);
  }

  private namespace(ns: Namespace): object {
    const tools: Record<string, unknown> = Object.create(null);
    for (const tool of ns.tools) {
      // A call with no argument sends {}: tools whose input has no required
      // property (common among MCP tools) are called as tool().
      tools[tool] = (...args: unknown[]) => this.callTool(ns.name, tool, args.length === 0 ? {} : args[0]);
    }
    Object.freeze(tools);
    const known = ns.tools.join(", ") || "(none)";
    return new Proxy(tools, {
      get(target, key) {
        if (typeof key !== "string" || key in target || reservedToolKeys.has(key)) {
          return (target as Record<string | symbol, unknown>)[key];
        }
        return () => Promise.reject(new TypeError(`unknown tool ${ns.name}.${key}: the contract declares ${known}`));
      },
    });
  }
}
