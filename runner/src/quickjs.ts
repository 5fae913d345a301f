// The QuickJS entry of the runner. The Go runner in drivers/quickjs gives every
// execution its own QuickJS instance, restored from a snapshot taken after
// install; it evaluates the program module itself (QuickJS's C API), then
// calls start with the evaluation promise and the module namespace, drains
// the outbox after each turn of the job queue, and calls deliver (or
// deliverValue, with a large output it read into a value itself) when a
// tool call is answered, hold/holdValue and release for a held output
// (wire 1.6), and fire when a timer fires.

import { DateCtor, ErrorCtor, RangeErrorCtor, TypeErrorCtor, WeakSetCtor, apply, data, dateNow, defineProperty, getOwnPropertyDescriptor, getPrototypeOf, hasOwn, isExtensible, join, jsonParse, mathFloor, numberIsFinite, objectFreeze, objectIs, objectKeys, ownKeys, push, quote, record, stringIndexOf, stringSlice, stringSplit, textBuffer, weakSetAdd, weakSetHas } from "./intrinsics";
import { installClock, installErrors, makeExecution, type Content, type Execution, type Finish, type ModuleBox, type Namespace, type Request, type Stream, type UnbegunExecution } from "./core";
import { installWeb } from "./web/index";
import { engineStack, installQuickJSStacks, positionsOf } from "./stack";

// The outbox is text in this closure, a line per message, so that no
// program can reach it and draining it is one read (every JavaScript call is
// costly in this engine). It is a TextBuffer, not a string: a turn that
// logs 20,000 lines would otherwise copy the outbox 20,000 times. Lines are tab-separated:
//
//   c <seq> <namespace> <tool> <clock> <input JSON>   a tool call
//   o <stream> <text as a JSON string>                program output
//   t <timer id> <delay ms>                           a timer to arm
//   x <timer id>                                      an armed timer to stop
//   d <Finish as JSON>                                the outcome
//   w <0 or 1>                                        (drain's last line)
//
// <clock> is the observed clock values, comma-separated (empty for none).
// Namespaces and tool names are identifiers and JSON text has no raw tab or
// newline, so neither separator can appear inside a field. The Go runner
// still checks every line: it trusts nothing from an engine.
const outbox = textBuffer();
let execution: Execution | undefined;
// made is the execution install makes before the template is snapshotted
// (makeExecution): every engine restored from the snapshot finds it made,
// and prepare only begins it. An engine runs one execution; should prepare
// run twice, the second makes its own.
let made: UnbegunExecution | undefined;
// prebuilt holds, by the Go runner's number for a scope and setup, an
// execution whose program argument is made (prebuild): the Go runner
// snapshots the engine after prebuild, so every engine restored from that
// snapshot finds it, and prepare begins it instead of made.
const prebuilt = record<UnbegunExecution>();
// outside counts the reads of the clock, Math.random and crypto made while
// no execution runs: the real ones, which no execution records. The Go
// runner evaluates a scope setup's text outside the execution (before
// prepare, and before prebuild), and a text such as
// (() => { const at = Date.now(); return (s) => ...; })() reads there: a
// prebuilt scope would keep the build's value for every execution, so
// prebuild refuses it. It is 0 in every snapshot: at install's end, and
// after a prebuild that succeeded.
let outside = 0;
const current = (): Execution | undefined => {
  if (execution === undefined) outside++;
  return execution;
};

// A prebuilt setup runs once, in the engine whose memory becomes the
// snapshot of every execution on the template, whatever its scope: what it
// does to the global object and the built-ins would be seen by every
// program, and the setup would not do it again. prebuildBegin lists what
// programs reach from the global object (globalGraph) before the Go runner
// evaluates the setup's text, and prebuild refuses a scope when the list
// differs after the setup; such a setup runs with each execution, as before.
let globalsBefore: Graph | undefined;

// A Graph lists, in a fixed order, every object reachable from the global
// object through prototypes and own properties: each object, its
// prototype, whether it is extensible and its number of own properties,
// then each property's key, value or accessors and attributes (read as
// descriptors: no getter runs, unless one on Object.prototype, which then
// differs).
interface Graph {
  items: unknown[];
  length: number;
}

// walkGlobals hands visit each item of the global object's Graph in order,
// and stops early when visit returns false (then it returns false). The
// objects left to walk are in an object without a prototype, and the
// descriptors are read through the captured Reflect: what a setup put on a
// prototype runs nowhere in the walk.
function walkGlobals(visit: (item: unknown) => boolean): boolean {
  const seen = new WeakSetCtor<object>();
  const todo = record<object>();
  let left = 0;
  const reach = (v: unknown): void => {
    if (((typeof v === "object" && v !== null) || typeof v === "function") && !weakSetHas(seen, v as object)) {
      weakSetAdd(seen, v as object);
      todo[left++] = v as object;
    }
  };
  reach(globalThis);
  while (left > 0) {
    const o = todo[--left];
    delete todo[left];
    const proto = getPrototypeOf(o);
    const keys = ownKeys(o);
    if (!visit(o) || !visit(proto) || !visit(isExtensible(o)) || !visit(keys.length)) return false;
    reach(proto);
    for (let i = 0; i < keys.length; i++) {
      const d = getOwnPropertyDescriptor(o, keys[i]) as PropertyDescriptor;
      const v = d.value, get = d.get, set = d.set;
      const attributes = (d.writable === true ? 1 : 0) + (d.enumerable === true ? 2 : 0) + (d.configurable === true ? 4 : 0);
      if (!visit(keys[i]) || !visit(v) || !visit(get) || !visit(set) || !visit(attributes)) return false;
      reach(v);
      reach(get);
      reach(set);
    }
  }
  return true;
}

// globalGraph lists the Graph. It runs before a setup's text is evaluated,
// in an engine as the snapshot left it, whose Array.prototype no setup has
// changed (a setup that did is not prebuilt): the list is an array.
function globalGraph(): Graph {
  const items: unknown[] = [];
  let n = 0;
  walkGlobals((item) => {
    items[n++] = item;
    return true;
  });
  return { items, length: n };
}

// sameGraph reports whether the global object's Graph is still before's,
// comparing as it walks (it keeps no second list).
function sameGraph(before: Graph): boolean {
  let i = 0;
  const same = walkGlobals((item) => i < before.length && objectIs(before.items[i++], item));
  return same && i === before.length;
}

// join reads no property of a number (ToString of a primitive), so a
// program's Number.prototype.toString is never called.
const numbers = (list: number[]): string => join(list as unknown as string[], ",");

function finishJSON(result: Finish): string {
  const clock = "\"clock\":[" + numbers(result.clock) + "]";
  if (result.outcome === "program-failed") {
    const e = result.error;
    // data is JSON text already (errorData), an object: a member as it is.
    const data = e.data !== undefined && e.data !== "" ? ",\"data\":" + e.data : "";
    return "{\"outcome\":\"program-failed\",\"error\":{\"name\":" + quote(e.name) + ",\"message\":" + quote(e.message) + ",\"stack\":" + quote(e.stack) + data + "}," + clock + "}";
  }
  const content = textBuffer();
  for (let i = 0; i < result.content.length; i++) {
    const c: Content = result.content[i];
    if (i > 0) content.add(",");
    content.add(c.type === "text"
      ? "{\"type\":\"text\",\"text\":" + quote(c.text) + "}"
      : "{\"type\":\"image\",\"data\":" + quote(c.data) + ",\"mimeType\":" + quote(c.mimeType) + "}");
  }
  const value = result.value === "" ? "" : "\"value\":" + result.value + ",";
  return "{\"outcome\":\"success\",\"content\":[" + content.take() + "]," + value + clock + "}";
}

// finished is the outcome's outbox entry, kept from the execution's end
// until drain writes it: after the lines warnAtEnd writes, once the jobs of
// that turn have run.
let finished = "";

const host = {
  // Concatenated, not a template literal: QuickJS makes a template literal
  // a call of String.prototype.concat. numbers runs for an empty clock too:
  // skipping it made this the shallowest part of a tool call, so that the
  // stack no longer ran out where a call has its seq and is not reported
  // (the conformance test "stack exhausted inside tool calls, caught"
  // needs that to happen, and failed).
  toolCall(seq: number, ns: string, tool: string, input: string, clock: number[], prefilled: boolean, draws: number, bytes: number) {
    outbox.add((prefilled ? "p\t" : "c\t") + seq + "\t" + ns + "\t" + tool + "\t" + numbers(clock) + "\t" + draws + "," + bytes + "\t" + input + "\n");
  },
  output(stream: Stream, text: string) {
    outbox.add("o\t" + stream + "\t" + quote(text) + "\n");
  },
  finish(result: Finish) {
    finished = "d\t" + finishJSON(result) + "\n";
  },
};

// Timers: setTimeout, setInterval and their clear functions (which, as in
// HTML, clear either kind), carried by the host's clock. A timer set and
// cleared before the outbox is drained never reaches the host. An interval
// is re-armed after each run of its callback and counts as one pending
// timer until cleared.
let timerSeq = 0;
let timerCount = 0;
const timers = record<() => void>();
const intervals = record<number>();
let unarmed = record<number>();
let unarmedIds: number[] = [];

const maxDelay = 2147483647;

function setTimeout(callback: unknown, ms?: unknown, ...args: unknown[]): number {
  return addTimer("setTimeout", false, callback, ms, args);
}

function setInterval(callback: unknown, ms?: unknown, ...args: unknown[]): number {
  return addTimer("setInterval", true, callback, ms, args);
}

function addTimer(what: string, repeat: boolean, callback: unknown, ms: unknown, args: unknown[]): number {
  if (typeof callback !== "function") throw new TypeErrorCtor(what + " expects a function");
  const ex = execution;
  if (ex !== undefined && timerCount >= ex.limits.maxTimers) {
    const error = new RangeErrorCtor(what + ": " + ex.limits.maxTimers + " timers are pending, the execution's limit (maxTimers); clearTimeout or clearInterval frees one");
    ex.fail(error);
    throw error;
  }
  const id = ++timerSeq;
  let delay = typeof ms === "number" ? ms : +(ms as number);
  if (!numberIsFinite(delay) || delay < 0) delay = 0;
  // As in browsers and Node.js, delays are capped at 2^31-1 ms (about 24.8
  // days); the execution's deadline comes first anyway.
  if (delay > maxDelay) delay = maxDelay;
  timers[id] = () => apply(callback as () => void, undefined, args);
  timerCount++;
  unarmed[id] = mathFloor(delay);
  if (repeat) intervals[id] = mathFloor(delay);
  push(unarmedIds, id);
  return id;
}

function clearTimeout(id: unknown): void {
  let n: number;
  try {
    n = typeof id === "number" ? id : +(id as number);
  } catch {
    return;
  }
  if (timers[n] === undefined) return;
  delete timers[n];
  if (intervals[n] !== undefined) delete intervals[n];
  timerCount--;
  if (unarmed[n] !== undefined) delete unarmed[n];
  else outbox.add("x\t" + n + "\n");
}

// The global console writes to the execution's output like the scope
// console: an engine only ever runs one execution.
const write = (stream: Stream) => (...values: unknown[]) => {
  if (execution !== undefined) execution.write(stream, values);
};
const globalConsole = objectFreeze({
  debug: write("stdout"),
  error: write("stderr"),
  info: write("stdout"),
  log: write("stdout"),
  warn: write("stderr"),
});

const realNow = () => apply(dateNow, DateCtor, []);

/**
 * A TextNamespace is a Namespace whose tools are listed in text, each
 * between newlines ("\na\nb\n"; "" for none), its methods those of
 * textNamespaceMethods. A catalogue of 10,000 tools is one string here,
 * searched for the tool a program names and split only when a program
 * lists the namespace, so that an execution costs the same with 10 tools.
 */
interface TextNamespace {
  name: string;
  text: string;
  list: string[] | undefined;
}

// One has and one names for every namespace, not two closures and a frozen
// object made for each (about 1 µs apiece in QuickJS).
const textNamespaceMethods = objectFreeze({
  __proto__: null,
  has(this: TextNamespace, tool: string): boolean {
    return tool !== "" && stringIndexOf(tool, "\n") < 0 && stringIndexOf(this.text, "\n" + tool + "\n") >= 0;
  },
  names(this: TextNamespace): string[] {
    if (this.list === undefined) {
      const text = this.text;
      this.list = text.length < 2 ? [] : stringSplit(stringSlice(text, 1, text.length - 1), "\n");
    }
    return this.list;
  },
});

/** textNamespace is the namespace name whose tools are listed in text (see TextNamespace). */
function textNamespace(name: string, text: string): Namespace {
  return { __proto__: textNamespaceMethods, name, text, list: undefined } as unknown as Namespace;
}

/**
 * prefillOf copies the request's prefilled results (seq -> JSON text) into
 * an object without a prototype, or gives null for none.
 */
function prefillOf(p: unknown): Record<number, string> | null {
  if (typeof p !== "object" || p === null) return null;
  const out = record<string>();
  const keys = objectKeys(p);
  for (let i = 0; i < keys.length; i++) {
    const v = (p as Record<string, unknown>)[keys[i]];
    if (typeof v === "string") out[keys[i]] = v;
  }
  return out;
}

/**
 * noParts is the request text's parse when the Go runner sends none: an
 * execution with no input, no replayed clock, no prefilled results, no
 * positions and a prebuilt scope (most warm executions).
 */
const noParts = objectFreeze({ __proto__: null });

/**
 * request copies the Go runner's request into objects without a prototype.
 * text is the JSON of the request's structured parts (hasInput and input,
 * namespaces, clock, prefill, positions; each absent when empty), or null
 * for none: JSON.parse takes about 0.13 µs a character in QuickJS, so the
 * parts every execution has come as prepare's arguments instead (see
 * prepare). tools holds each namespace's tools (see textNamespace), one
 * namespace after the other in the order of the request's namespaces, each
 * of the length (size) the request gives it; null when it lists none.
 */
function request(text: string | null, tools: string | null): Request {
  // Each part is read only when the text has it: an absent one is not
  // looked up on Object.prototype, which a scope setup's text, evaluated
  // before, could have changed.
  const r = text === null ? noParts : jsonParse(text);
  const listed = hasOwn(r, "namespaces") ? r.namespaces : [];
  const namespaces: Namespace[] = [];
  let at = 0;
  for (let i = 0; i < listed.length; i++) {
    const ns = listed[i];
    const size: number = ns.size;
    const all = tools as string;
    defineProperty(namespaces, i, data(textNamespace(ns.name, at === 0 && size === all.length ? all : stringSlice(all, at, at + size))));
    at += size;
  }
  return {
    __proto__: null,
    filename: "",
    hasInput: hasOwn(r, "hasInput") && r.hasInput === true,
    input: hasOwn(r, "input") ? r.input : undefined,
    namespaces,
    limits: { __proto__: null, maxOutput: 0, maxContent: 0, maxTimers: 0 },
    seed: [0, 0, 0, 0],
    clock: hasOwn(r, "clock") ? r.clock : [],
    prefill: hasOwn(r, "prefill") ? prefillOf(r.prefill) : null,
    positions: hasOwn(r, "positions") && r.positions !== null ? positionsOf(r.positions.points, r.positions.defaultName) : undefined,
  } as unknown as Request;
}

export const quickjs = {
  /** install puts the timer functions, console, Date and Math.random on the global object. */
  install(global: Record<string, unknown>): void {
    // QuickJS hands Error.prepareStackTrace call sites whose getFunction()
    // is the frame's function, the runner's own included: callTool, which
    // reaches every namespace's tools, those a client's scope setup hides
    // too (V8 gives undefined for strict-mode frames; QuickJS does not).
    // The hook is the runner's (./stack: the stacks a program reads); the
    // property is replaced by an unwritable undefined before any program
    // runs, so no program can read it or install one.
    installQuickJSStacks(() => (execution !== undefined ? execution.frames() : undefined));
    if (!defineProperty(ErrorCtor, "prepareStackTrace", { __proto__: null, value: undefined, writable: false, enumerable: false, configurable: false } as PropertyDescriptor)) {
      throw new TypeErrorCtor("the runner cannot remove Error.prepareStackTrace");
    }
    defineProperty(global, "setTimeout", data(setTimeout, false));
    defineProperty(global, "clearTimeout", data(clearTimeout, false));
    defineProperty(global, "setInterval", data(setInterval, false));
    defineProperty(global, "clearInterval", data(clearTimeout, false));
    defineProperty(global, "console", data(globalConsole, false));
    installClock(global, current);
    installErrors(global);
    installWeb(global, {
      current,
      setTimeout: (f, ms) => setTimeout(f, ms),
      reportError: (error) => {
        if (execution !== undefined) execution.write("stderr", ["Uncaught (in an event listener)", error]);
      },
    });
    made = makeExecution(host, realNow);
    outside = 0;
  },

  /**
   * prepare creates the execution before its module is evaluated:
   * requestJSON holds the request's structured parts, and tools lists the
   * namespaces' tools (see request; either null for none); setup is the
   * scope setup the Go runner compiled (wire 1.3), or null; id names a
   * prebuilt scope, or is 0. The
   * rest is what every request has: the module's filename, the limits
   * (UTF-16 code units of output and of content, timers) and
   * Math.random's seed, four 32-bit words (sent as signed integers).
   */
  prepare(requestJSON: string | null, tools: string | null, setup: unknown, id: number, filename: string, maxOutput: number, maxContent: number, maxTimers: number, s0: number, s1: number, s2: number, s3: number): void {
    const r = request(requestJSON, tools);
    r.setup = setup;
    r.filename = filename;
    r.limits = { __proto__: null, maxOutput, maxContent, maxTimers } as unknown as Request["limits"];
    r.seed = [s0 >>> 0, s1 >>> 0, s2 >>> 0, s3 >>> 0];
    let m: UnbegunExecution;
    if (typeof id === "number" && id > 0) {
      // The Go runner names a prebuilt scope only in an engine restored
      // from a snapshot that holds it.
      if (!hasOwn(prebuilt, id)) throw new ErrorCtor("prepare: no prebuilt scope " + id);
      m = prebuilt[id];
      delete prebuilt[id];
    } else {
      m = made !== undefined ? made : makeExecution(host, realNow);
      made = undefined;
    }
    m.begin(r);
    execution = m.execution;
  },

  /**
   * prebuild makes the program argument of executions without input whose
   * namespaces and tools are requestJSON's and tools (as prepare's) and
   * whose scope setup is setup, under id (UnbegunExecution.prebuild). It
   * reports whether it could: the setup did nothing an execution records,
   * set no timer and wrote nothing to the outbox, and nothing (the setup's
   * text, evaluated before) read the real clock or randomness since the
   * engine's snapshot (outside), and what programs reach from the global
   * object is as prebuildBegin found it. The Go runner checks
   * that no job is left queued, then snapshots the engine; otherwise it
   * discards it.
   */
  prebuild(id: number, requestJSON: string, tools: string, setup: unknown): boolean {
    const before = globalsBefore;
    globalsBefore = undefined;
    if (execution !== undefined || made === undefined || hasOwn(prebuilt, id) || before === undefined) return false;
    const r = request(requestJSON, tools);
    r.setup = setup;
    const m = makeExecution(host, realNow);
    const timersBefore = timerSeq;
    // The clock, Math.random, console and the rejection tracker reach the
    // execution through this variable: prebuild sees what the setup did.
    execution = m.execution;
    let ok = false;
    try {
      ok = m.prebuild(r);
    } finally {
      execution = undefined;
    }
    if (timerSeq !== timersBefore || finished !== "" || outbox.take() !== "" || outside !== 0) ok = false;
    if (ok) {
      try {
        ok = sameGraph(before);
      } catch {
        ok = false;
      }
    }
    if (ok) prebuilt[id] = m;
    return ok;
  },

  /**
   * prebuildBegin lists what programs reach from the global object, for
   * the prebuild that follows (globalsBefore): the Go runner calls it
   * before it evaluates the setup's text.
   */
  prebuildBegin(): void {
    globalsBefore = globalGraph();
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
      return { __proto__: null, namespace: ns } as unknown as ModuleBox;
    });
  },

  /** deliver answers tool call seq (ok: output JSON; not ok: {name, message} JSON). */
  deliver(seq: number, ok: boolean, payload: string): void {
    if (execution !== undefined) execution.deliver(seq, ok, payload);
  },

  /** hold parses the held output of tool call seq and keeps it until release (wire 1.6). */
  hold(seq: number, output: string): void {
    if (execution !== undefined) execution.hold(seq, output);
  },

  /** release settles tool call seq with the output hold kept. */
  release(seq: number): void {
    if (execution !== undefined) execution.release(seq);
  },

  /** deliverValue fulfils tool call seq with value, the driver's parse of its output. */
  deliverValue(seq: number, value: unknown): void {
    if (execution !== undefined) execution.deliverValue(seq, value);
  },

  /** holdValue keeps value, the driver's parse of call seq's held output, until release. */
  holdValue(seq: number, value: unknown): void {
    if (execution !== undefined) execution.holdValue(seq, value);
  },

  /** fire runs timer id's callback; a throw fails the execution. */
  fire(id: number): void {
    const callback = timers[id];
    if (callback === undefined) return;
    const every = intervals[id];
    if (every !== undefined) {
      // Re-armed before the callback runs, so that it may clear itself.
      unarmed[id] = every;
      push(unarmedIds, id);
    } else {
      delete timers[id];
      timerCount--;
    }
    try {
      callback();
    } catch (error) {
      if (execution !== undefined) execution.fail(error);
    }
  },

  /**
   * stopStack is the stack of where the program is, as the engine writes
   * it (the runner's own frame first): the Go runner calls it from the
   * interrupt poll that stops a program at its deadline.
   */
  stopStack(): string {
    return engineStack(new ErrorCtor(""));
  },

  /** waitingStack is the stack of the oldest unanswered tool call, or "" (Execution.waitingStack). */
  waitingStack(): string {
    return execution !== undefined ? execution.waitingStack() : "";
  },

  /**
   * track is the engine's promise rejection tracker
   * (drivers/quickjs/rejection.go calls it from QuickJS's
   * JS_SetHostPromiseRejectionTracker): promise was rejected with no
   * handler, or, handled, got one later (Execution.rejection).
   */
  track(promise: unknown, reason: unknown, handled: boolean): void {
    if (execution !== undefined) execution.rejection(promise, reason, handled);
  },

  /**
   * drain empties the outbox and returns its lines, then a last line
   * "w\t1" when the execution can still make progress (tool calls or timers
   * outstanding) or "w\t0" when it cannot. The outcome, once the execution
   * has ended, follows the lines warnAtEnd writes.
   */
  drain(): string {
    // An outcome the execution could not hand over where it ended (see
    // Execution.flush) goes out now, from the bottom of the stack.
    if (execution !== undefined) execution.flush();
    if (finished !== "") {
      if (execution !== undefined) execution.warnAtEnd();
      outbox.add(finished);
      finished = "";
    }
    const ids = unarmedIds;
    for (let i = 0; i < ids.length; i++) {
      const ms = unarmed[ids[i]];
      if (ms !== undefined) outbox.add("t\t" + (ids[i]) + "\t" + ms + "\n");
    }
    if (ids.length > 0) {
      unarmed = record<number>();
      unarmedIds = [];
    }
    const waiting = execution !== undefined && !execution.finished() && (execution.pendingCalls() > 0 || timerCount > 0);
    outbox.add(waiting ? "w\t1" : "w\t0");
    return outbox.take();
  },
};
