import {
  ErrorCtor, InternalErrorCtor, ObjectPrototype, apply, construct, ProxyCtor, PromiseCtor, RangeErrorCtor, StringCtor, TypeErrorCtor,
  charCodeAt, data, dateGetTime, dateToISOString, defineProperty, getPrototypeOf, hasOwn, isArray, join,
  jsonParse, jsonStringify, numberIsFinite, objectCreate, objectFreeze, objectKeys, objectToString,
  getOwnPropertyDescriptor, ownKeys,
  promiseReject, push, quote, record, setPrototypeOf, stringSlice, arrayJoin, arrayIndexOf,
} from "./intrinsics";
import { chachaStream, mathRandomSeed, type Bytes } from "./web/random";
import { unhandledRejections, type Unhandled } from "./unhandled";
import { callErrorOptions, callFailed, callStack, hostStack, type FrameMap, type Positions } from "./stack";

// The execution core of the code-mode runner: it builds the program scope
// (tools, console, result writer), calls the default export, numbers tool
// calls, keeps the result buffer transactional, serialises errors without
// trusting them, and keeps each execution's clock and random sequence. It
// knows nothing of how bytes reach the host: a Host does.
//
// A program runs in the runner's realm, so everything here after load goes
// through ./intrinsics (see there): state lives in closures, never on an
// object a program can reach or on a prototype it can change.

export type Stream = "stdout" | "stderr";

export type Content =
  | { type: "text"; text: string }
  | { type: "image"; data: string; mimeType: string };

export interface SerializedError {
  name: string;
  message: string;
  stack: string;
  /**
   * data is the JSON text of an uncaught error's own properties
   * (errorData), for the execution-result; absent or "" when none.
   */
  data?: string;
}

/**
 * Finish is an execution's end. value is the JSON text of what the default
 * export resolved to ("" for undefined); clock the clock values observed
 * since the last tool call. cpuLimit marks a failure the runner made because
 * the execution passed its CPU time limit (wire 1.5), never one the program
 * threw.
 */
export type Finish =
  | { outcome: "success"; content: Content[]; value: string; clock: number[] }
  | { outcome: "program-failed"; error: SerializedError; clock: number[]; cpuLimit?: true };

/**
 * RandomUse is how much of the execution's random streams the program has
 * used so far (wire 1.3): Math.random calls, and bytes of the crypto stream
 * (crypto.getRandomValues, crypto.randomUUID). A durable host records them
 * around a codemode.step, whose function does not run on replay, so that
 * the replay can use as much and the values after the step stay those of
 * the first pass.
 */
export interface RandomUse {
  draws: number;
  bytes: number;
}

/** What an execution needs from the platform that carries its messages. */
export interface Host {
  /**
   * toolCall reports a call; prefilled marks one answered from
   * Request.prefill (no result follows); draws and bytes are the
   * execution's RandomUse until now.
   */
  toolCall(seq: number, namespace: string, tool: string, inputJSON: string, clock: number[], prefilled: boolean, draws: number, bytes: number): void;
  output(stream: Stream, text: string): void;
  finish(result: Finish): void;
}

/**
 * listNamespace is the namespace name whose tools are the list tools (which
 * it keeps and never changes); its lookup table is made on the first has.
 */
export function listNamespace(name: string, tools: string[]): Namespace {
  let table: Record<string, boolean> | undefined;
  return objectFreeze({
    __proto__: null,
    name,
    has(tool: string): boolean {
      if (table === undefined) {
        table = record<boolean>();
        for (let i = 0; i < tools.length; i++) table[tools[i]] = true;
      }
      return table[tool] === true;
    },
    names: () => tools,
  }) as unknown as Namespace;
}

/**
 * A Namespace is one scope property's tools. Platforms keep a namespace
 * across executions (per scope, wire 1.2), so neither method may hand out
 * what an execution could change.
 */
export interface Namespace {
  name: string;
  /** has reports whether tool is one of the namespace's tools. */
  has(tool: string): boolean;
  /** names lists the tools in the contract's order; the caller must not change the list. */
  names(): string[];
}

export interface Request {
  filename: string;
  hasInput: boolean;
  input?: unknown;
  namespaces: Namespace[];
  limits: Limits;
  /** seed is Math.random's seed: four unsigned 32-bit words. */
  seed: number[];
  /** clock holds the values Date.now() returns, in order, before the real clock. */
  clock: number[];
  /**
   * setup is the scope setup (wire 1.3): compiled by the platform before
   * the program's module, called with the scope; the default export
   * receives what it returns. Absent or null: none.
   */
  setup?: unknown;
  /**
   * prefill holds the JSON text of results the host promised, by seq
   * (wire 1.3), in an object without a prototype: such a call is answered
   * at once, and reported as prefilled. Absent or null: none.
   */
  prefill?: Record<number, string> | null;
  /**
   * positions place the module's frames in the program (wire 1.8), for
   * the stacks the program reads. Absent: the module's places are the
   * program's.
   */
  positions?: Positions;
}

export interface Limits {
  /** Most UTF-16 code units of console output kept per execution. */
  maxOutput: number;
  /** Most UTF-16 code units of result content (and value) per execution. */
  maxContent: number;
  /** Most timers pending at once. */
  maxTimers: number;
}

export const errorLimits = { name: 200, message: 8192, stack: 16384, data: 2048 };

function bound(text: string, limit: number): string {
  if (text.length <= limit) return text;
  return stringSlice(text, 0, limit) + "… [truncated " + (text.length - limit) + " characters]";
}

function safeText(read: () => unknown, limit: number): string {
  try {
    const value = read();
    if (value === undefined || value === null) return "";
    if (typeof value === "string") return bound(value, limit);
    return bound(StringCtor(value), limit);
  } catch {
    return "";
  }
}

/**
 * serializeError reads a thrown value without letting it throw again. For
 * the host (an outcome), the stack is the engine's text where the runner
 * wrote the program's (see ./stack).
 */
export function serializeError(value: unknown, forHost = false): SerializedError {
  try {
    if (typeof value === "function") {
      const name = safeText(() => (value as { name?: unknown }).name, errorLimits.name);
      return { name: "Error", message: "a function" + (name ? " (" + name + ")" : "") + " was thrown", stack: "" };
    }
    if (typeof value === "object" && value !== null) {
      const v = value as { name?: unknown; message?: unknown; stack?: unknown };
      const name = safeText(() => v.name, errorLimits.name) || "Error";
      let message = safeText(() => v.message, errorLimits.message);
      if (message === "" && !safeIsError(value)) message = safeText(() => jsonOrString(value), errorLimits.message);
      const stack = forHost ? safeText(() => hostStack(value, safeText(() => v.stack, errorLimits.stack)), errorLimits.stack) : safeText(() => v.stack, errorLimits.stack);
      return { name, message, stack };
    }
    return { name: "Error", message: safeText(() => StringCtor(value), errorLimits.message), stack: "" };
  } catch {
    return { name: "Error", message: "unreadable thrown value", stack: "" };
  }
}

/** maxRejectionText bounds a rejection's reason in warnAtEnd's line, in UTF-16 code units. */
const maxRejectionText = 1024;

/**
 * describeRejection is a rejection's reason as text: an error's (or any
 * object's) name and message, read as serializeError reads them, else the
 * value as the console prints it; at most maxRejectionText characters.
 */
function describeRejection(reason: unknown): string {
  let text: string;
  if ((typeof reason === "object" && reason !== null) || typeof reason === "function") {
    const e = serializeError(reason);
    text = e.message === "" ? e.name : e.name + ": " + e.message;
  } else {
    text = formatValue(reason);
  }
  return text.length <= maxRejectionText ? text : stringSlice(text, 0, maxRejectionText) + "…";
}

/**
 * warnUnhandled emits a warning line for each rejection u holds but those
 * whose reason is failedWith, the error the execution failed with, and one
 * for those past them.
 */
function warnUnhandled(u: Unhandled, failedWith: unknown, emit: (stream: Stream, text: string) => void): void {
  const reasons = u.reasons();
  for (let i = 0; i < reasons.length; i++) {
    if (reasons[i] === failedWith && failedWith !== undefined) continue;
    emit("stderr", "warning: a promise was rejected and nothing handled it: " + describeRejection(reasons[i]) + " (did the program forget an await or a catch?)\n");
  }
  const more = u.more();
  if (more > 0) emit("stderr", "warning: " + more + (more === 1 ? " more promise was" : " more promises were") + " rejected and nothing handled them\n");
}

/** maxNamedTools is how many tools the note on calls still running names. */
const maxNamedTools = 5;

/**
 * noteRunning emits one line naming the tool calls still running when the
 * execution ended (running, its pending calls then, each named by its
 * error's message: Pending.error): the host drops them, and the program
 * never learns how they ended.
 */
function noteRunning(running: Record<number, { error: Error }>, emit: (stream: Stream, text: string) => void): void {
  const keys = objectKeys(running);
  if (keys.length === 0) return;
  const names: string[] = [];
  let others = false;
  for (let i = 0; i < keys.length; i++) {
    const name = running[keys[i] as unknown as number].error.message;
    if (arrayIndexOf(names, name) >= 0) continue;
    if (names.length < maxNamedTools) push(names, name);
    else others = true;
  }
  const n = keys.length;
  const list = join(names, ", ") + (others ? ", …" : "");
  emit("stderr", n === 1
    ? "note: 1 tool call (" + list + ") was still running when the program ended; its result, or its error, was dropped (await a call whose outcome matters)\n"
    : "note: " + n + " tool calls (" + list + ") were still running when the program ended; their results, or errors, were dropped (await a call whose outcome matters)\n");
}

function safeIsError(value: unknown): boolean {
  try {
    return value instanceof ErrorCtor;
  } catch {
    return false;
  }
}

// A program's own objects are its speech: printing them may run its toJSON
// and getters. Only what the runner sends as data (tool input, the value)
// is serialised by the runner's own walk below.
function jsonOrString(value: unknown): string {
  try {
    const text = jsonStringify(value);
    if (typeof text === "string") return text;
  } catch {
    // fall through
  }
  return StringCtor(value);
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
        return "[Function " + (safeText(() => (value as { name?: unknown }).name, 100) || "(anonymous)") + "]";
      case "symbol":
      case "bigint":
      case "number":
      case "boolean":
        return StringCtor(value);
    }
    if (value === null) return "null";
    if (safeIsError(value)) {
      const e = serializeError(value);
      const head = e.name + ": " + e.message;
      if (!e.stack) return head;
      // V8's stack starts with the error's line (QuickJS's does not): it
      // was printed twice.
      const line = e.message === "" ? e.name : head;
      if (stringSlice(e.stack, 0, line.length + 1) === line + "\n") return trimEnd(e.stack);
      return trimEnd(head + "\n" + e.stack);
    }
    return jsonOrString(value);
  } catch {
    return "[unprintable]";
  }
}

function trimEnd(text: string): string {
  let n = text.length;
  while (n > 0) {
    const c = charCodeAt(text, n - 1);
    if (c !== 10 && c !== 32 && c !== 9 && c !== 13) break;
    n--;
  }
  return stringSlice(text, 0, n);
}

class JSONValueError extends TypeErrorCtor {
  constructor(what: string, path: string, found: string) {
    super(what + " is not JSON: " + path + " is " + found);
    defineProperty(this, "name", data("TypeError", false));
  }
}

/**
 * maxArrayItems is the most items an array of a message may hold
 * (wire.MaxArrayElements, 1,048,576): the clock values a tool call or a
 * result carries, the content items of a result. A message with more is
 * refused by the host's decoder, which takes the runner for broken.
 */
export const maxArrayItems = 1 << 20;

/**
 * maxContentItems is the most content items a result holds (65,536): the
 * host decodes each into a Go value of about 200 bytes, and a million empty
 * items made it allocate 200 MB for a 7 MB message.
 */
export const maxContentItems = 1 << 16;

/** maxJSONDepth bounds the nesting of tool input and values. */
const maxJSONDepth = 64;

/**
 * The state of toJSONText's walk, kept between calls so that serialising a
 * small tool input allocates nothing but its text. The objects being walked
 * (outermost first) and the keys and indices leading to the value being
 * walked are stacks in objects without a prototype, written by index: no
 * program setter on Array.prototype sees them, and a walk inside a walk (a
 * getter that calls a tool) uses the entries above those of the walk it
 * interrupts. A path is spelled only for an error.
 */
const walkObjects = record<object | null>();
let walkDepth = 0;
const walkSteps = record<string | number>();
let walkStepCount = 0;
/**
 * The walk's text: a short tail appended to, and the full tails before it
 * (appending to one long string copies it whole in this engine: textBuffer).
 */
let walkText = "";
let walkParts: string[] | null = null;
let walkDates = false;
const walkTailSize = 4096;
/**
 * The length of the walk's full tails, and the most its text may grow to
 * (checked as a tail is full): a walk that only wants a short text stops
 * soon after passing it, instead of writing a large value whole.
 */
let walkFlushed = 0;
let walkLimit = Infinity;

/** WalkRefusal carries what toJSONText found that JSON cannot hold. */
class WalkRefusal {
  constructor(readonly found: string) {}
}

function refuse(found: string): never {
  throw new WalkRefusal(found);
}

function flushWalkText(): void {
  if (walkParts === null) walkParts = [];
  push(walkParts, walkText);
  walkFlushed += walkText.length;
  walkText = "";
  if (walkFlushed > walkLimit) refuse("longer than " + walkLimit + " characters");
}

function walkValue(v: unknown, base: number): void {
  switch (typeof v) {
    case "string":
      walkText += quote(v);
      return;
    case "number":
      if (!numberIsFinite(v)) refuse(StringCtor(v));
      walkText += "" + v;
      return;
    case "boolean":
      walkText += v ? "true" : "false";
      return;
    case "undefined":
      return refuse("undefined");
    case "bigint":
      return refuse("a bigint");
    case "symbol":
      return refuse("a symbol");
    case "function":
      return refuse("a function");
  }
  if (v === null) {
    walkText += "null";
    return;
  }
  const object = v as object;
  for (let i = base; i < walkDepth; i++) {
    if (walkObjects[i] === object) refuse("a circular reference");
  }
  if (walkDepth - base >= maxJSONDepth) refuse("nested deeper than " + maxJSONDepth + " levels");
  walkObjects[walkDepth++] = object;
  if (isArray(object)) {
    const list = object as unknown[];
    const n = list.length;
    walkText += "[";
    for (let i = 0; i < n; i++) {
      walkSteps[walkStepCount++] = i;
      if (!hasOwn(list, i)) refuse("a hole in an array");
      if (i > 0) walkText += ",";
      walkValue(list[i], base);
      walkStepCount--;
      if (walkText.length >= walkTailSize) flushWalkText();
    }
    walkText += "]";
  } else {
    const plain = isPlain(object);
    if (!plain && walkDates && isDate(object)) {
      // Only an object that is not plain is asked whether it is a Date:
      // asking throws for any other object, and each throw builds a stack
      // trace. A Date given Object.prototype is written as the plain
      // object it passes for, as JSON.stringify writes it.
      const time = dateGetTime(object);
      if (!numberIsFinite(time)) refuse("an invalid Date");
      walkText += quote(dateToISOString(object));
      walkObjects[--walkDepth] = null;
      return;
    }
    if (!plain) refuse("not a plain object (" + (safeText(() => objectToString(object), 100)) + ")");
    const keys = objectKeys(object);
    walkText += "{";
    let first = true;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      const item = (object as Record<string, unknown>)[key];
      if (item === undefined) continue;
      walkSteps[walkStepCount++] = key;
      walkText += first ? quote(key) + ":" : "," + quote(key) + ":";
      walkValue(item, base);
      walkStepCount--;
      first = false;
      if (walkText.length >= walkTailSize) flushWalkText();
    }
    walkText += "}";
  }
  // Let go of the object: the runner outlives an execution on Node.js.
  walkObjects[--walkDepth] = null;
}

/**
 * toJSONText returns the JSON text of value, walking it with the runner's
 * own captured functions: toJSON methods (on prototypes or not) and a
 * replaced JSON.stringify play no part. Plain JSON only: null, booleans,
 * finite numbers, strings, dense arrays and plain objects (prototype
 * Object.prototype or null); object properties whose value is undefined are
 * left out, as JSON.stringify does. With dates, a Date (or an instance of
 * a subclass) becomes its ISO string; a Date whose prototype was set to
 * Object.prototype or null is written as a plain object, as JSON.stringify
 * writes it. Anything else throws a TypeError that names what (for example
 * "tool input") and where (root "input", then ".key" and "[i]"); so does a
 * text longer than limit characters, whose walk stops within 4,096
 * characters (and one item) of passing it.
 */
export function toJSONText(value: unknown, what = "tool input", root = "input", dates = false, limit = Infinity): string {
  const base = walkDepth;
  const stepBase = walkStepCount;
  const outerText = walkText;
  const outerParts = walkParts;
  const outerDates = walkDates;
  const outerFlushed = walkFlushed;
  const outerLimit = walkLimit;
  walkText = "";
  walkParts = null;
  walkDates = dates;
  walkFlushed = 0;
  walkLimit = limit;
  try {
    walkValue(value, base);
    if (walkParts === null && walkText.length <= walkLimit) return walkText;
    flushWalkText();
    return arrayJoin(walkParts, "");
  } catch (error) {
    if (error instanceof WalkRefusal) {
      let path = root;
      for (let i = stepBase; i < walkStepCount; i++) {
        const step = walkSteps[i];
        path += typeof step === "number" ? "[" + step + "]" : "." + step;
      }
      throw new JSONValueError(what, path, error.found);
    }
    if (error instanceof JSONValueError) throw error;
    // The stack ran out while walking (an engine RangeError, not the
    // value's fault): thrown as it is, not as "tool input is not JSON".
    if (isPlainRangeError(error)) throw error;
    // The memory ran out while writing the text (a value too large for the
    // memory limit): thrown as it is, so that the driver names the limit.
    if (isOutOfMemory(error)) throw error;
    // A revoked Proxy, a getter that throws.
    throw new JSONValueError(what, root, "not serialisable (" + (serializeError(error).message) + ")");
  } finally {
    for (let i = base; i < walkDepth; i++) walkObjects[i] = null;
    walkDepth = base;
    walkStepCount = stepBase;
    walkText = outerText;
    walkParts = outerParts;
    walkDates = outerDates;
    walkFlushed = outerFlushed;
    walkLimit = outerLimit;
  }
}

const RangeErrorPrototype = RangeErrorCtor.prototype;
const InternalErrorPrototype: object | undefined = InternalErrorCtor === undefined ? undefined : InternalErrorCtor.prototype;

/**
 * isOutOfMemory reports QuickJS's "out of memory": an object whose
 * prototype is InternalError's and whose message says so.
 */
function isOutOfMemory(value: unknown): boolean {
  try {
    return InternalErrorPrototype !== undefined && typeof value === "object" && value !== null &&
      getPrototypeOf(value) === InternalErrorPrototype && serializeError(value).message === "out of memory";
  } catch {
    return false;
  }
}

/**
 * isPlainRangeError reports an object whose prototype is RangeError's, as
 * the engine's stack overflow is (not instanceof, which would call a
 * Symbol.hasInstance a program defined on RangeError).
 */
function isPlainRangeError(value: unknown): boolean {
  try {
    return typeof value === "object" && value !== null && getPrototypeOf(value) === RangeErrorPrototype;
  } catch {
    return false;
  }
}

/** isPlain reports an object whose prototype is Object.prototype or null. */
function isPlain(object: object): boolean {
  const proto = getPrototypeOf(object);
  return proto === ObjectPrototype || proto === null;
}

function isDate(object: object): boolean {
  try {
    dateGetTime(object);
    return true;
  } catch {
    return false;
  }
}

/** checkJSON throws toJSONText's TypeError when value is not plain JSON. */
export function checkJSON(value: unknown): void {
  toJSONText(value);
}

function isBase64(text: string): boolean {
  const n = text.length;
  if (n % 4 !== 0) return false;
  let pad = 0;
  for (let i = 0; i < n; i++) {
    const c = charCodeAt(text, i);
    if (c === 61) {
      pad++;
      if (pad > 2) return false;
      continue;
    }
    if (pad > 0) return false;
    const ok = (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 43 || c === 47;
    if (!ok) return false;
  }
  return true;
}

/**
 * sfc32 is Chris Doty-Humphrey's Small Fast Counting generator (PractRand),
 * 128 bits of state; random returns doubles in [0, 1) from two outputs (53
 * bits), as Math.random does. One seed gives one sequence on every engine.
 */
export function sfc32(seed: number[]): () => number {
  let a = seed[0] | 0;
  let b = seed[1] | 0;
  let c = seed[2] | 0;
  let d = seed[3] | 0;
  const next = (): number => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return t >>> 0;
  };
  for (let i = 0; i < 15; i++) next();
  return () => ((next() >>> 5) * 67108864 + (next() >>> 6)) / 9007199254740992;
}

const reservedToolKeys = record<boolean>();
{
  const names = ["then", "__proto__", "constructor", "hasOwnProperty", "isPrototypeOf", "propertyIsEnumerable",
    "toLocaleString", "toString", "valueOf", "__defineGetter__", "__defineSetter__", "__lookupGetter__", "__lookupSetter__"];
  for (let i = 0; i < names.length; i++) reservedToolKeys[names[i]] = true;
}

interface Pending {
  resolve(value: unknown): void;
  reject(error: unknown): void;
  /**
   * error is what the call rejects with should it fail, made where the
   * program called the tool; until then its message is the tool's name as
   * the program wrote it (namespace.tool, or fetch), for the note on the
   * calls still running at the end (warnAtEnd), so that naming them costs a
   * call nothing.
   */
  error: Error;
  /** held is the parse of a held output (wire 1.6) awaiting the host's verdict. */
  held?: { ok: boolean; value: unknown };
}

/**
 * ModuleBox carries a module namespace out of an async function, in an
 * object without a prototype. A promise resolved with the namespace itself
 * reads the namespace's `then`: a program module that exports a function
 * named then was called with the runner's resolve function, resolved with
 * a default export of its own, and run called that with the raw scope, past
 * a client's scope setup (it reached durable's hidden journal tools).
 */
export interface ModuleBox {
  readonly namespace: Record<string, unknown>;
}

/**
 * refused is a namespace's set, defineProperty, deleteProperty and
 * setPrototypeOf trap: one function for every namespace, not four closures
 * made for each.
 */
const refused = (): boolean => false;

/**
 * A Handler is one namespace's proxy handler in an execution: its state,
 * whose prototype is the execution's traps (makeExecution). known is the
 * text of the tools a program is told of (and of the members added), made on
 * the first unknown tool.
 */
interface Handler {
  ns: Namespace;
  tools: Record<string, unknown>;
  added: string[];
  known: string;
}

/** Execution is one run of one program (see createExecution). */
export interface Execution {
  /** run awaits module evaluation, then calls the default export with the scope. */
  run(evaluate: () => Promise<ModuleBox>): Promise<void>;
  /**
   * fail ends the execution as program-failed with the serialised value;
   * cause "cpu-limit" marks it as the runner's CPU time limit (cpu.ts), which
   * nothing the program reaches can pass, and "deadline" as the platform's
   * deadline. An execution a limit ends gets no lines from warnAtEnd: it
   * was stopped, not finished.
   */
  fail(error: unknown, cause?: "cpu-limit" | "deadline"): void;
  /** deliver settles tool call seq: ok with output JSON text, or an error {name, message} as JSON. */
  deliver(seq: number, ok: boolean, payload: string): void;
  /**
   * hold parses output, the JSON text of call seq's output that the host
   * has not checked yet (wire 1.6, "Held results"), and keeps it: the call
   * stays pending until release, or deliver with an error, settles it.
   */
  hold(seq: number, output: string): void;
  /** release settles call seq with the output hold kept (its parse, or the parse's error). */
  release(seq: number): void;
  /** deliverValue fulfils call seq with value, its output already parsed by the driver. */
  deliverValue(seq: number, value: unknown): void;
  /** holdValue keeps value, call seq's held output already parsed by the driver, until release. */
  holdValue(seq: number, value: unknown): void;
  /** write formats values as one line of program output on stream. */
  write(stream: Stream, values: unknown[]): void;
  /** pendingCalls is the number of tool calls the host has not answered. */
  pendingCalls(): number;
  /**
   * waitingStack is the stack of the oldest tool call the host has not
   * answered (its frames where the program called the tool), or "" when
   * none is pending: a deadline that passes while the program waits names
   * the line that waited.
   */
  waitingStack(): string;
  /** finished reports whether the execution has ended (its outcome is decided). */
  finished(): boolean;
  /**
   * rejection is the platform's promise rejection tracker (unhandled.ts):
   * promise was rejected while it had no handler (handled false), or such
   * a promise got a handler later (handled true). After warnAtEnd it does
   * nothing.
   */
  rejection(promise: unknown, reason: unknown, handled: boolean): void;
  /**
   * warnAtEnd writes, once, the lines that tell the program's reader what
   * it left behind, on stderr within the output limit: a warning for each
   * promise still rejected with no handler, and a note naming the tool
   * calls still running. The platform calls it once the execution has
   * ended and the engine's jobs of that turn have run (a handler attached
   * to a rejected promise in them counts), just before it hands the
   * outcome to the host. It never throws.
   */
  warnAtEnd(): void;
  /**
   * flush hands the host an outcome that could not be handed over when the
   * execution ended (the stack was exhausted); nothing when there is none.
   */
  flush(): void;
  /** now is Date.now() for the program: the next replayed clock value, else the real clock; recorded. */
  now(): number;
  /**
   * perfNow is performance.now() for the program: like now, the next
   * replayed clock value, else real() (the platform's performance.now),
   * recorded in the same clock sequence; kept monotonic where the replayed
   * values end and real() (which restarts with every pass) begins.
   */
  perfNow(real: () => number): number;
  /** random is Math.random() for the program. */
  random(): number;
  /** randomBytes is the execution's crypto stream (crypto.getRandomValues, crypto.randomUUID). */
  randomBytes(): Bytes;
  /**
   * hostCall calls tool of a host namespace ("@web": not in the scope, for
   * the runner's own globals such as fetch) like a tool call, or returns
   * undefined when the execution was not given that namespace and tool.
   */
  hostCall(namespace: string, tool: string, input: unknown): Promise<unknown> | undefined;
  readonly limits: Limits;
  /** frames is what the execution's stacks are written with (./stack). */
  frames(): FrameMap;
}

/**
 * createExecution makes an execution. Its state lives in this closure and
 * in objects without a prototype, so that nothing a program does to
 * Object.prototype, Array.prototype or the globals can read or change it.
 */
export function createExecution(host: Host, request: Request, realNow: () => number): Execution {
  const made = makeExecution(host, realNow);
  made.begin(request);
  return made.execution;
}

/**
 * An UnbegunExecution is an execution made before its request is known
 * (makeExecution): begin gives it the request, once, before anything else
 * of execution is called.
 */
export interface UnbegunExecution {
  execution: Execution;
  begin(request: Request): void;
  /**
   * prebuild makes, before begin, the argument the program will be called
   * with (the scope, through the scope setup) for request, which has no
   * input: only its namespaces and setup are read. It reports whether the
   * argument could be made so, with nothing an execution records (a tool
   * call, a clock or random read, output, a rejection) happening on the
   * way; when it could not, the execution must not be used. The QuickJS
   * runner prebuilds a scope a host sends again into its snapshot (see
   * quickjs.ts, prebuild), so that an execution restored from it skips the
   * setup. begin then keeps the namespaces prebuild was given.
   */
  prebuild(request: Request): boolean;
}

/**
 * makeExecution makes an execution whose request comes later (begin). Its
 * functions and objects (about 40 closures, each about 1 µs in QuickJS)
 * depend on nothing in the request: the QuickJS runner makes one before
 * its template is snapshotted, so that an execution restored from the
 * snapshot finds it made.
 */
export function makeExecution(host: Host, realNow: () => number): UnbegunExecution {
  let request: Request = { __proto__: null } as unknown as Request;
  let limits: Limits = { __proto__: null, maxOutput: 0, maxContent: 0, maxTimers: 0 } as unknown as Limits;
  let replay: number[] = [];
  let frameMap = { __proto__: null, filename: "", positions: undefined } as unknown as FrameMap;
  let begun = false;
  // prebuilt is the argument prebuild made, undefined without one.
  let prebuilt: { arg: unknown } | undefined;
  const begin = (r: Request): void => {
    if (begun) throw new ErrorCtor("an execution was begun twice");
    begun = true;
    // The scope was made on the prebuilt request's namespaces (the same
    // names and tools, which the host keys it by): they stay.
    if (prebuilt !== undefined) r.namespaces = request.namespaces;
    request = r;
    limits = r.limits;
    replay = r.clock;
    frameMap = { __proto__: null, filename: r.filename, positions: r.positions } as unknown as FrameMap;
  };
  let seq = 0;
  let pending = record<Pending>();
  let pendingCount = 0;
  const content: Content[] = [];
  let contentSize = 0;
  let outputSize = 0;
  let outputCut = false;
  let done = false;
  let replayed = 0;
  let observed: number[] = [];
  let lastPerf = 0;
  let perfOffset = 0;
  // Both random streams start on first use: ChaCha20 keyed by the seed
  // (web/random.ts) costs a block per 64 bytes.
  let seeded: (() => number) | undefined;
  let bytes: Bytes | undefined;
  let draws = 0;
  let bytesUsed = 0;

  // The clock values read go with the next tool call or the outcome, kept
  // for replay, and a replay's execute message carries them all back: an
  // execution reads the clock at most maxArrayItems times (the most a
  // message's array holds, about 9 MB), and the read past that (a busy
  // wait) throws a RangeError. Replayed values count: a replay reads no
  // more than its first pass did.
  let clockReads = 0;
  const countClockRead = (): void => {
    if (clockReads >= maxArrayItems) {
      throw new RangeErrorCtor("the program read the clock (Date.now, performance.now, new Date) " + maxArrayItems + " times, the most an execution may; the values are kept for replay");
    }
    clockReads++;
  };
  // noClock is what takeClock gives when no clock was read since the last
  // take (most tool calls): no new array for each. Nothing writes to it.
  const noClock: number[] = objectFreeze([]) as number[];
  const takeClock = (): number[] => {
    const c = observed;
    if (c.length === 0) return noClock;
    observed = [];
    return c;
  };

  // The outcome is recorded before it is handed to the host, and handed
  // over by flush. A program that exhausts the stack can end the execution
  // where no further call fits (a tool call reported at the deepest frame
  // of a runaway recursion): then handing it over throws, and the next
  // flush from a shallower stack (the Go runner's drain after the turn, the
  // program's end, the deadline) hands it over. Before, the execution was
  // marked done with its outcome lost, and ended as a program awaiting a
  // promise nothing could settle, or at its deadline.
  // Serialising the error may run the program's getters, which may end up
  // here again (a getter that throws an error with a getter): flushing
  // keeps that from sending the outcome twice. A throw (no stack left)
  // leaves everything as it was, for the next flush.
  let unsent: Finish | undefined;
  // lost is the seq of a tool call not yet handed to the host, 0 when none
  // is (callTool).
  let lost = 0;
  const lostCall = (): Error =>
    new RangeErrorCtor("tool call " + lost + " could not be handed to the host (the stack was exhausted, or its message was too large), and the program went on");
  let unsentError: unknown;
  let unsentClock: number[] = [];
  let unsentCPULimit = false;
  let failing = false;
  let flushing = false;

  // What the execution left behind, for warnAtEnd: the promises it let
  // reject with no handler (made on the first), and the tool calls still
  // running when it ended (the pending calls then). quietEnd marks an end
  // a limit made; warned that warnAtEnd ran.
  let unhandled: Unhandled | undefined;
  let runningAtEnd: Record<number, Pending> | undefined;
  let quietEnd = false;
  let warned = false;
  // failedWith is what the execution failed with: a promise rejected with
  // it is no warning (QuickJS rejects a module's own promise, which nothing
  // handles, with the error its evaluation threw).
  let failedWith: unknown;

  // waiting is tool call n while the host's answer to it counts: undefined
  // once the call is settled, or once the execution has ended (whose
  // outcome the answer's arrival may now hand over: flush).
  const waiting = (n: number): Pending | undefined => {
    if (done) {
      flush();
      return undefined;
    }
    return pending[n];
  };
  // answered takes tool call n off the pending calls, for its answer.
  const answered = (n: number): Pending | undefined => {
    const call = waiting(n);
    if (call === undefined) return undefined;
    delete pending[n];
    pendingCount--;
    return call;
  };
  // keep keeps the parse of call n's held output (wire 1.6) until its
  // verdict; a second held output for the call changes nothing.
  const keep = (n: number, ok: boolean, value: unknown): void => {
    const call = waiting(n);
    if (call === undefined || call.held !== undefined) return;
    call.held = { __proto__: null, ok, value } as unknown as { ok: boolean; value: unknown };
  };
  const flush = (): void => {
    if (flushing) return;
    flushing = true;
    try {
      if (failing) {
        const error = serializeError(unsentError, true);
        // A thrown object that is not an Error has its JSON as its
        // message already.
        const data = errorData(unsentError);
        if (data !== "" && data !== error.message) error.data = data;
        unsent = unsentCPULimit
          ? { outcome: "program-failed", error, clock: unsentClock, cpuLimit: true }
          : { outcome: "program-failed", error, clock: unsentClock };
        failing = false;
        unsentError = undefined;
      }
      if (unsent === undefined) return;
      host.finish(unsent);
      unsent = undefined;
    } finally {
      flushing = false;
    }
  };

  const finish = (result: Finish): void => {
    if (done) {
      flush();
      return;
    }
    done = true;
    unsent = result;
    if (pendingCount > 0) runningAtEnd = pending;
    pendingCount = 0;
    pending = record<Pending>();
    flush();
  };

  // later flushes from a job of its own, at the bottom of the stack. fail
  // may run with almost no stack left, where serialising the error does not
  // throw but reads blanks (serializeError turns what it cannot read into
  // "Error" with no message): a caught runaway recursion ended as "Error: ".
  // await on a value that is not a promise reads nothing a program can
  // change (no then, no species). Should even scheduling fail, the next
  // flush from a shallower stack hands the outcome over (the Go runner's
  // drain, a delivered result, the program's end).
  const later = async (): Promise<void> => {
    await undefined;
    try {
      flush();
    } catch {
      // left for the next flush
    }
  };
  const flushLater = (): void => {
    try {
      void later();
    } catch {
      // left for the next flush
    }
  };

  const fail = (error: unknown, cause?: "cpu-limit" | "deadline"): void => {
    if (done) {
      flushLater();
      return;
    }
    // Nothing is called before done is set: this may run with almost no
    // stack left. The error is serialised by flush; the clock values are
    // those observed until now (the program may read the clock after).
    done = true;
    failing = true;
    unsentError = error;
    unsentCPULimit = cause === "cpu-limit";
    quietEnd = cause !== undefined;
    failedWith = error;
    unsentClock = observed;
    observed = [];
    if (pendingCount > 0) runningAtEnd = pending;
    pendingCount = 0;
    pending = record<Pending>();
    flushLater();
  };

  const write = (stream: Stream, values: unknown[]): void => {
    if (done || outputCut) return;
    const parts: string[] = [];
    for (let i = 0; i < values.length; i++) push(parts, formatValue(values[i]));
    emit(stream, join(parts, " ") + "\n");
  };

  // emit hands text to the host as output, cut at the output limit.
  const emit = (stream: Stream, line: string): void => {
    if (outputCut) return;
    let text = line;
    const room = limits.maxOutput - outputSize;
    if (text.length > room) {
      text = stringSlice(text, 0, room > 0 ? room : 0) + "\n[program output truncated at the limit of " + limits.maxOutput + " characters]\n";
      outputCut = true;
    }
    outputSize += text.length;
    host.output(stream, text);
  };

  const append = (item: Content, size: number): void => {
    if (done) throw new ErrorCtor("result content was appended after the program finished");
    if (content.length >= maxContentItems) {
      throw new RangeErrorCtor("result content holds at most " + maxContentItems + " items");
    }
    if (contentSize + size > limits.maxContent) {
      throw new RangeErrorCtor("result content exceeds the limit of " + limits.maxContent + " characters");
    }
    contentSize += size;
    push(content, item);
  };

  // report hands tool call n to the host (see callTool). A function of the
  // execution, not a closure made for each call.
  const report = (n: number, namespace: string, tool: string, inputJSON: string, prefilled: boolean): void => {
    try {
      host.toolCall(n, namespace, tool, inputJSON, takeClock(), prefilled, draws, bytesUsed);
    } catch (cause) {
      fail(cause);
      throw cause;
    }
    lost = 0;
  };

  // callTool calls namespace.tool with args. error is the error a failed
  // call rejects with, made by the caller where the program called the
  // tool, so that its stack is the program's (one frame fewer for the
  // engine to walk than making it here: about 1 µs in QuickJS).
  const callTool = (namespace: string, tool: string, args: unknown[], error: Error): Promise<unknown> => {
    if (done) return promiseReject(new ErrorCtor(namespace + "." + tool + " was called after the program finished"));
    if (args.length > 1) {
      return promiseReject(new TypeErrorCtor(namespace + "." + tool + " takes one argument (its input object) but was called with " + args.length));
    }
    let inputJSON: string;
    try {
      inputJSON = args.length === 0 ? "{}" : toJSONText(args[0]);
    } catch (cause) {
      return promiseReject(cause);
    }
    if (lost !== 0) {
      // A call took seq lost and never reached the host (below), and the
      // program caught what was thrown: it ends here.
      fail(lostCall());
      return promiseReject(new ErrorCtor(namespace + "." + tool + " was called after the program finished"));
    }
    const n = ++seq;
    // A call the host cannot be told of (its message is over the frame
    // limit, or no stack is left to send it) ends the execution: the host
    // would see the next call skip a seq, and a prefilled answer would go
    // unchecked. lost holds the seq until the host has it, for when not
    // even fail can be called: the next call, or the program's end, fails
    // the execution then.
    lost = n;
    const prefill = request.prefill;
    if (prefill !== undefined && prefill !== null && hasOwn(prefill, n)) {
      // The host promised this call's result: answered now, reported so
      // that the host checks it (before anything the program does next).
      const text = prefill[n];
      delete prefill[n];
      report(n, namespace, tool, inputJSON, true);
      return new PromiseCtor((resolve) => resolve(jsonParse(text)));
    }
    // The executor only keeps the functions: a throw inside it (no stack
    // left) would reject the promise, not reach the program, and leave the
    // seq taken and unreported.
    let settle: Pending | undefined;
    const promise = new PromiseCtor((resolve, reject) => {
      settle = { __proto__: null, resolve, reject, error } as unknown as Pending;
    });
    if (settle === undefined) {
      fail(lostCall());
      return promise;
    }
    pending[n] = settle;
    pendingCount++;
    report(n, namespace, tool, inputJSON, false);
    return promise;
  };

  // A namespace makes a tool's function when the program first reads it,
  // not one per tool at the start: with a catalogue of thousands of tools
  // an execution pays for the tools it touches. A function, once made, is
  // defined on the target (read-only, not configurable) so that it stays
  // the same function; the namespace refuses writes, definitions and
  // deletions, as the frozen object it replaces did.
  // otherNamespace names another namespace of the scope that has tool, or
  // is "": a program that calls codemode.list_issues for github's tool is
  // told where it is.
  const otherNamespace = (name: string, tool: string): string => {
    for (let i = 0; i < request.namespaces.length; i++) {
      const other = request.namespaces[i];
      if (other.name !== name && charCodeAt(other.name, 0) !== 64 && other.has(tool)) return other.name;
    }
    return "";
  };

  // members holds, by namespace name, what the scope setup's define may add
  // to: the namespace's handler (its target, tool test and the names
  // added, which ownKeys lists: a non-configurable property of the target
  // must be).
  const members = record<Handler>();
  let defining = false;

  const isTool = (h: Handler, key: string): boolean => reservedToolKeys[key] !== true && h.ns.has(key);
  const make = (h: Handler, tool: string): unknown => {
    const tools = h.tools;
    if (!hasOwn(tools, tool)) {
      // A call with no argument sends {}: tools whose input has no
      // required property (common among MCP tools) are called as tool().
      const name = h.ns.name;
      const called = name + "." + tool; // the message of its calls' errors until they fail (Pending.error)
      defineProperty(tools, tool, { __proto__: null, value: (...args: unknown[]) => callTool(name, tool, args, new ErrorCtor(called, callErrorOptions)), writable: false, enumerable: true, configurable: false } as PropertyDescriptor);
    }
    return tools[tool];
  };
  // traps are every namespace's proxy traps, made with the execution: a
  // namespace's handler is an object whose prototype they are, holding the
  // namespace's state (Handler), which the traps read as this.
  const traps = objectFreeze({
    __proto__: null,
    get(this: Handler, target: Record<string, unknown>, key: string | symbol) {
      if (typeof key !== "string" || hasOwn(target, key)) return target[key as string];
      if (isTool(this, key)) return make(this, key);
      if (reservedToolKeys[key] === true) return undefined;
      const ns = this.ns;
      // The members the scope setup added (codemode.step, codemode.run)
      // are named apart: they are the namespace's, not the contract's.
      if (this.known === "") {
        const added = this.added;
        this.known = (join(ns.names(), ", ") || "(none)") + (added.length > 0 ? "; " + ns.name + " also has " + join(added, ", ") : "");
      }
      const known = this.known;
      const elsewhere = otherNamespace(ns.name, key);
      const hint = elsewhere === "" ? "" : " (" + elsewhere + "." + key + " is a tool of " + elsewhere + ")";
      return () => promiseReject(new TypeErrorCtor("unknown tool " + ns.name + "." + key + ": the contract declares " + known + hint));
    },
    has(this: Handler, target: Record<string, unknown>, key: string | symbol) {
      return typeof key === "string" && (hasOwn(target, key) || isTool(this, key));
    },
    ownKeys(this: Handler) {
      // Every tool made (the result must list each non-configurable
      // property of the target), listed in the contract's order.
      const keys: string[] = [];
      const added = this.added;
      for (let i = 0; i < added.length; i++) push(keys, added[i]);
      const names = this.ns.names();
      for (let i = 0; i < names.length; i++) {
        if (reservedToolKeys[names[i]] === true) continue;
        make(this, names[i]);
        push(keys, names[i]);
      }
      return keys;
    },
    getOwnPropertyDescriptor(this: Handler, target: Record<string, unknown>, key: string | symbol) {
      if (typeof key === "string" && !hasOwn(target, key) && isTool(this, key)) make(this, key);
      return getOwnPropertyDescriptor(target, key);
    },
    set: refused,
    defineProperty: refused,
    deleteProperty: refused,
    setPrototypeOf: refused,
  });

  const namespace = (ns: Namespace): object => {
    const tools = record<unknown>();
    const handler = { __proto__: traps, ns, tools, added: [], known: "" } as unknown as Handler;
    members[ns.name] = handler;
    return new ProxyCtor(tools, handler as unknown as ProxyHandler<Record<string, unknown>>);
  };

  // The scope's console and result depend on nothing in the request.
  const writer = (stream: Stream) => (...values: unknown[]) => write(stream, values);
  const console = objectFreeze({
    debug: writer("stdout"),
    error: writer("stderr"),
    info: writer("stdout"),
    log: writer("stdout"),
    warn: writer("stderr"),
  });
  const result = objectFreeze({
    appendText: (text: unknown): void => {
      if (typeof text !== "string") throw new TypeErrorCtor("result.appendText expects a string, got " + (text === null ? "null" : typeof text));
      append({ __proto__: null, type: "text", text } as unknown as Content, text.length);
    },
    appendImage: (image: unknown): void => {
      if (typeof image !== "object" || image === null) throw new TypeErrorCtor("result.appendImage expects an object {data, mimeType}");
      const data = (image as { data?: unknown }).data;
      const mimeType = (image as { mimeType?: unknown }).mimeType;
      if (typeof data !== "string" || !isBase64(data)) {
        throw new TypeErrorCtor("result.appendImage: data must be a base64 string");
      }
      if (typeof mimeType !== "string" || mimeType === "") {
        throw new TypeErrorCtor("result.appendImage: mimeType must be a non-empty string");
      }
      append({ __proto__: null, type: "image", data, mimeType } as unknown as Content, data.length + mimeType.length);
    },
  });
  const scope = (): Record<string, unknown> => {
    // Defined, not assigned: a setter on Object.prototype sees nothing.
    const s = objectCreate(ObjectPrototype) as Record<string, unknown>;
    if (request.hasInput) defineProperty(s, "input", data(request.input));
    for (let i = 0; i < request.namespaces.length; i++) {
      const ns = request.namespaces[i];
      // "@…" namespaces are the host's, for the runner's globals (fetch).
      if (charCodeAt(ns.name, 0) === 64) continue;
      defineProperty(s, ns.name, data(namespace(ns)));
    }
    defineProperty(s, "console", data(console));
    defineProperty(s, "result", data(result));
    return objectFreeze(s);
  };

  // define is the scope setup's second argument: it adds a member to a
  // namespace of the scope (read-only, enumerable), beside its tools, so
  // that the namespace stays the runner's own object (a wrapper such as a
  // Proxy would add a frame to every tool call). It works only while the
  // setup runs, and refuses a tool's name, a reserved key and a name
  // already added.
  const define = (namespaceName: unknown, name: unknown, value: unknown): void => {
    if (!defining) throw new TypeErrorCtor("define works only while the scope setup runs");
    if (typeof namespaceName !== "string" || !hasOwn(members, namespaceName)) throw new TypeErrorCtor("define: the scope has no namespace " + StringCtor(namespaceName));
    const m = members[namespaceName];
    if (typeof name !== "string" || name === "" || reservedToolKeys[name] === true || isTool(m, name) || hasOwn(m.tools, name)) {
      throw new TypeErrorCtor("define: " + namespaceName + "." + StringCtor(name) + " is a tool, a reserved name or already defined");
    }
    defineProperty(m.tools, name, { __proto__: null, value, writable: false, enumerable: true, configurable: false } as PropertyDescriptor);
    push(m.added, name);
  };

  // scopeArg is what the program is called with: the scope, through the
  // scope setup when there is one.
  const scopeArg = (): unknown => {
    const arg: unknown = scope();
    const setup = request.setup;
    if (setup === undefined || setup === null) return arg;
    if (typeof setup !== "function") throw new TypeErrorCtor("the scope setup is " + (typeof setup) + ", not a function");
    defining = true;
    try {
      return apply(setup as (s: unknown, d: typeof define) => unknown, undefined, [arg, define]);
    } finally {
      defining = false;
    }
  };

  // prebuild: see UnbegunExecution. Whatever the setup did is checked
  // against the state an execution records; a setup that read the clock or
  // Math.random, wrote output, called a tool or left a rejection runs with
  // each execution instead, where those are its own.
  const prebuild = (r: Request): boolean => {
    if (begun || prebuilt !== undefined || r.hasInput) return false;
    request = r;
    let arg: unknown;
    try {
      arg = scopeArg();
    } catch {
      return false;
    }
    const untouched = seq === 0 && lost === 0 && clockReads === 0 && observed.length === 0 && draws === 0 && bytesUsed === 0 &&
      seeded === undefined && bytes === undefined && content.length === 0 && outputSize === 0 && !outputCut && !done && !failing &&
      unhandled === undefined && unsent === undefined;
    if (untouched) prebuilt = { __proto__: null, arg } as unknown as { arg: unknown };
    return untouched;
  };

  const succeed = (value: unknown): void => {
    if (done) {
      flush();
      return;
    }
    let valueJSON = "";
    if (value !== undefined) {
      try {
        valueJSON = toJSONText(value, "the program's value", "value", true);
      } catch (error) {
        fail(error);
        return;
      }
      if (contentSize + valueJSON.length > limits.maxContent) {
        fail(new RangeErrorCtor("the program's value (" + valueJSON.length + " characters of JSON) and its result content exceed the limit of " + limits.maxContent + " characters"));
        return;
      }
    }
    if (lost !== 0) {
      fail(lostCall());
      return;
    }
    const items: Content[] = [];
    for (let i = 0; i < content.length; i++) push(items, content[i]);
    finish({ outcome: "success", content: items, value: valueJSON, clock: takeClock() });
  };

  const execution: Execution = objectFreeze({
    __proto__: null,
    get limits(): Limits {
      return limits;
    },
    frames: (): FrameMap => frameMap,
    async run(evaluate: () => Promise<ModuleBox>): Promise<void> {
      let value: unknown;
      try {
        const ns = (await evaluate()).namespace;
        let program: unknown;
        try {
          program = ns.default;
        } catch {
          program = undefined;
        }
        if (typeof program !== "function") {
          const what = program === undefined ? "no default export" : "a default export of type " + (typeof program);
          throw new TypeErrorCtor("the program module has " + what + "; it must default-export a function (scope) => …");
        }
        const arg = prebuilt !== undefined ? prebuilt.arg : scopeArg();
        value = await (program as (scope: unknown) => unknown)(arg);
      } catch (error) {
        fail(error);
        return;
      }
      succeed(value);
    },
    fail,
    deliver(n: number, ok: boolean, payload: string): void {
      const call = answered(n);
      if (call === undefined) return;
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
      let props: unknown;
      try {
        const parsed = jsonParse(payload) as { name?: unknown; message?: unknown; data?: unknown };
        if (hasOwn(parsed, "name") && typeof parsed.name === "string") name = parsed.name;
        if (hasOwn(parsed, "message") && typeof parsed.message === "string") message = parsed.message;
        if (hasOwn(parsed, "data")) props = parsed.data;
      } catch {
        // keep the raw text
      }
      const error = call.error;
      callFailed(error);
      defineProperty(error, "message", data(message, false));
      defineProperty(error, "name", data(name, false));
      if (hasOwn(errorPrototypes, name)) setPrototypeOf(error, errorPrototypes[name]);
      defineErrorData(error, props);
      call.reject(error);
    },
    hold(n: number, output: string): void {
      let ok = true;
      let value: unknown;
      try {
        value = jsonParse(output);
      } catch (error) {
        ok = false;
        value = error;
      }
      keep(n, ok, value);
    },
    holdValue(n: number, value: unknown): void {
      keep(n, true, value);
    },
    deliverValue(n: number, value: unknown): void {
      const call = answered(n);
      if (call !== undefined) call.resolve(value);
    },
    release(n: number): void {
      const held = waiting(n);
      if (held === undefined || held.held === undefined) return;
      const call = answered(n) as Pending;
      if (call.held!.ok) call.resolve(call.held!.value);
      else call.reject(call.held!.value);
    },
    write,
    pendingCalls: () => pendingCount,
    waitingStack(): string {
      if (pendingCount === 0) return "";
      for (let n = 1; n <= seq; n++) {
        const call = pending[n];
        if (call === undefined) continue;
        return callStack(call.error);
      }
      return "";
    },
    finished: () => done,
    flush,
    rejection(promise: unknown, reason: unknown, handled: boolean): void {
      if (warned || typeof promise !== "object" || promise === null) return;
      if (unhandled === undefined) unhandled = unhandledRejections();
      unhandled.track(promise, reason, handled);
    },
    warnAtEnd(): void {
      if (warned) return;
      warned = true;
      const running = runningAtEnd;
      runningAtEnd = undefined;
      if (quietEnd) return;
      try {
        if (unhandled !== undefined) warnUnhandled(unhandled, failedWith, emit);
        if (running !== undefined) noteRunning(running, emit);
      } catch {
        // no stack or memory left: the outcome matters more
      }
    },
    now(): number {
      countClockRead();
      const t = replayed < replay.length ? replay[replayed++] : realNow();
      push(observed, t);
      return t;
    },
    perfNow(real: () => number): number {
      countClockRead();
      let t: number;
      if (replayed < replay.length) t = replay[replayed++];
      else {
        t = real() + perfOffset;
        if (t < lastPerf) {
          perfOffset += lastPerf - t;
          t = lastPerf;
        }
      }
      lastPerf = t;
      push(observed, t);
      return t;
    },
    random(): number {
      if (seeded === undefined) seeded = sfc32(mathRandomSeed(request.seed));
      draws++;
      return seeded();
    },
    randomBytes(): Bytes {
      if (bytes === undefined) {
        const stream = chachaStream(request.seed, 0);
        bytes = (out, offset, length) => {
          bytesUsed += length;
          stream(out, offset, length);
        };
      }
      return bytes;
    },
    hostCall(ns: string, tool: string, input: unknown): Promise<unknown> | undefined {
      for (let i = 0; i < request.namespaces.length; i++) {
        const n = request.namespaces[i];
        if (n.name !== ns) continue;
        if (n.has(tool)) return callTool(ns, tool, [input], new ErrorCtor(tool, callErrorOptions));
      }
      return undefined;
    },
  } as unknown as Execution);
  return { execution, begin, prebuild };
}

/**
 * reservedErrorKeys are the members of an error's data (wire 1.7) that
 * defineErrorData skips: the error's own name, message and stack, and keys
 * that would read as the object's wiring: constructor, __proto__ and every
 * other member of Error.prototype and Object.prototype (toString, valueOf,
 * …), taken when the runner loads. A string toString of its own would make
 * String(e) and `${e}` throw.
 */
const reservedErrorKeys: Record<string, true> = (() => {
  const reserved = { __proto__: null, name: true, message: true, stack: true, constructor: true, ["__proto__"]: true } as unknown as Record<string, true>;
  const inherited = [ownKeys(ErrorCtor.prototype), ownKeys(ObjectPrototype)];
  for (let i = 0; i < inherited.length; i++) {
    const keys = inherited[i];
    for (let j = 0; j < keys.length; j++) {
      const k = keys[j];
      if (typeof k === "string") defineProperty(reserved, k, data(true));
    }
  }
  return reserved;
})();

/**
 * defineErrorData gives a rejected tool call's error the members of its
 * data (a JSON object the host sent with the error, wire 1.7) as own,
 * enumerable properties, such as an HTTPError's status; anything else is
 * ignored.
 */
function defineErrorData(error: object, props: unknown): void {
  if (typeof props !== "object" || props === null || isArray(props)) return;
  const keys = objectKeys(props);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i];
    if (reservedErrorKeys[k] === true) continue;
    defineProperty(error, k, data((props as Record<string, unknown>)[k]));
  }
}

/**
 * errorData is the JSON text of an uncaught error's own enumerable
 * properties, the name, message, stack and the keys defineErrorData skips
 * aside, as the execution-result carries them (wire 1.7, the error's
 * data): the properties a tool error arrived with (a QuotaError's limit)
 * and those a program gave its own errors. "" when value has none JSON can
 * hold. A property that is undefined, a function, a class instance, a
 * cycle, or a getter or Proxy trap that throws is left out, and so is one
 * that would take the text past errorLimits.data characters; only the
 * first 256 keys are read. It never throws: a Proxy's traps and getters
 * run, as they do when the error's message is read, but what they throw
 * is caught.
 */
export function errorData(value: unknown): string {
  if (typeof value !== "object" || value === null) return "";
  try {
    const keys = objectKeys(value);
    const limit = errorLimits.data - 2;
    let text = "";
    for (let i = 0; i < keys.length && i < 256 && text.length < limit; i++) {
      const key = keys[i];
      if (reservedErrorKeys[key] === true) continue;
      const member = errorMember(value, key, limit - text.length);
      if (member === "" || text.length + member.length + 1 > limit) continue;
      text += text === "" ? member : "," + member;
    }
    return text === "" ? "" : "{" + text + "}";
  } catch {
    return "";
  }
}

/**
 * errorMember is the JSON member (quoted key, colon, value) of value's
 * property key, or "" when the runner's walk refuses it or it would be
 * longer than room.
 */
function errorMember(value: object, key: string, room: number): string {
  try {
    const item = (value as Record<string, unknown>)[key];
    if (item === undefined || typeof item === "function") return "";
    const name = quote(key);
    return name + ":" + toJSONText(item, "an error property", key, true, room - name.length - 1);
  } catch {
    return "";
  }
}

/**
 * toolErrorClass is the class of the errors named name that tool calls
 * reject with: an Error whose prototype carries the name, as TypeError's
 * does, so a program may test `e instanceof ToolValidationError` as well
 * as `e.name === "ToolValidationError"`, and construct one itself.
 */
function toolErrorClass(name: string): ErrorConstructor {
  const C = class extends ErrorCtor {};
  defineProperty(C, "name", { __proto__: null, value: name, writable: false, enumerable: false, configurable: true } as PropertyDescriptor);
  defineProperty(C.prototype, "name", data(name, false));
  return C as unknown as ErrorConstructor;
}

/**
 * toolErrorClasses are the error names of internal/errname that a tool
 * call rejects with and that JavaScript has no class for; installErrors
 * makes them globals (and the declarations declare them).
 */
const toolErrorClasses: Record<string, ErrorConstructor> = {
  __proto__: null,
  ToolValidationError: toolErrorClass("ToolValidationError"),
  MCPToolError: toolErrorClass("MCPToolError"),
  HTTPError: toolErrorClass("HTTPError"),
} as unknown as Record<string, ErrorConstructor>;

/**
 * errorPrototypes are the prototypes a rejected tool call's error takes by
 * its name: those of toolErrorClasses, and TypeError's and RangeError's
 * (a refused fetch is a TypeError, as the Fetch standard says; a limit a
 * RangeError), so that instanceof agrees with the name.
 */
const errorPrototypes: Record<string, object> = {
  __proto__: null,
  ToolValidationError: toolErrorClasses.ToolValidationError.prototype,
  MCPToolError: toolErrorClasses.MCPToolError.prototype,
  HTTPError: toolErrorClasses.HTTPError.prototype,
  TypeError: TypeErrorCtor.prototype,
  RangeError: RangeErrorCtor.prototype,
} as unknown as Record<string, object>;

/** installErrors puts the classes of toolErrorClasses on the global object. */
export function installErrors(global: Record<string, unknown>): void {
  defineProperty(global, "ToolValidationError", data(toolErrorClasses.ToolValidationError, false));
  defineProperty(global, "MCPToolError", data(toolErrorClasses.MCPToolError, false));
  defineProperty(global, "HTTPError", data(toolErrorClasses.HTTPError, false));
}

/**
 * installClock replaces Date, performance.now and Math.random on global
 * with versions that ask current() for the running execution: its replayed
 * clock and seeded sequence, or, outside any execution, the real ones. new
 * Date() with no argument and Date() take the execution's clock; new
 * Date(x) is as ever.
 */
export function installClock(global: Record<string, unknown>, current: () => Execution | undefined): void {
  const RealDate = global.Date as DateConstructor;
  const realNow = RealDate.now;
  const math = global.Math as Math;
  const realRandom = math.random;
  const dateToStringOf = (RealDate.prototype as { toString: () => string }).toString;
  const now = function now(): number {
    const ex = current();
    return ex === undefined ? apply(realNow, RealDate, []) : ex.now();
  };
  const handler = {
    __proto__: null,
    construct(target: DateConstructor, args: unknown[], newTarget: unknown) {
      if (args.length === 0) return construct(target, [now()], newTarget as never);
      return construct(target, args, newTarget as never);
    },
    apply() {
      return apply(dateToStringOf, new RealDate(now()), []);
    },
    get(target: DateConstructor, key: PropertyKey) {
      const v = (target as unknown as Record<PropertyKey, unknown>)[key as string];
      // A program that replaces Date.now gets its own.
      return key === "now" && v === realNow ? now : v;
    },
  };
  const DateProxy = new ProxyCtor(RealDate, handler as unknown as ProxyHandler<DateConstructor>);
  defineProperty(RealDate.prototype, "constructor", data(DateProxy, false));
  defineProperty(global, "Date", data(DateProxy, false));
  const random = function random(): number {
    const ex = current();
    return ex === undefined ? apply(realRandom, math, []) : ex.random();
  };
  defineProperty(math, "random", data(random, false));
  installPerformanceNow(global, current);
}

/**
 * installPerformanceNow replaces performance.now with one that reads the
 * running execution's clock (Execution.perfNow), outside any execution the
 * real one.
 */
function installPerformanceNow(global: Record<string, unknown>, current: () => Execution | undefined): void {
  const perf = global.performance as { now?: () => number } | undefined;
  const realPerfNow = perf === undefined ? undefined : perf.now;
  if (perf !== undefined && typeof realPerfNow === "function") {
    const real = (): number => apply(realPerfNow, perf, []);
    const now = function now(): number {
      const ex = current();
      return ex === undefined ? real() : ex.perfNow(real);
    };
    defineProperty(now, "name", { __proto__: null, value: "now", configurable: true } as PropertyDescriptor);
    // QuickJS's performance.now is neither writable nor configurable: then
    // the global performance becomes a new object with the same prototype
    // and timeOrigin.
    if (!defineProperty(perf, "now", data(now, false))) {
      const replacement = objectCreate(getPrototypeOf(perf)) as Record<string, unknown>;
      defineProperty(replacement, "now", data(now, true));
      defineProperty(replacement, "timeOrigin", data((perf as Record<string, unknown>).timeOrigin, true));
      defineProperty(global, "performance", data(replacement, false));
    }
  }
}

export { jsonParse, jsonStringify, PromiseCtor, hasOwn };
