// The stacks a program reads (docs/runner-protocol.md, "Program positions").
//
// A program that catches an error and prints or returns its stack reads
// what the engine wrote: the runner's own frames (its tool call, its run),
// the frames of a wrapper the host put around the program, and the places
// of the module the host sent, which differ from the program's own when
// the host wrapped it (RunCode's wrapper takes a line above the code) or
// reprinted it (esbuild). Each engine lets the runner write the stack
// itself from call sites (Error.prepareStackTrace; the runner's, and out
// of a program's reach on QuickJS): it keeps the program's frames, and
// frames of no file (native functions), places them in the program with
// the execute message's positions (wire 1.8), names the renamed default
// export default, and leaves out the frames of the runner, of a scope
// setup, of Node.js's internals and of the wrapper.
//
// The host's reports keep the engine's own text: the runner remembers the
// call sites of every stack it wrote and, when an error leaves the program
// (its outcome, the place a deadline found it waiting), sends the stack as
// the engine would have written it, which the host maps as before. A stack
// the program set itself goes as the program set it.

import {
  ErrorCtor, apply, charCodeAt, data, defineProperty, deleteProperty, getOwnPropertyDescriptor, getPrototypeOf, hasOwn, isArray, objectFreeze,
  stringIndexOf, stringSlice, stringSplit,
} from "./intrinsics";

/** Positions is an execute message's positions (wire 1.8): five numbers a point. */
export interface Positions {
  points: number[];
  /** defaultName is the module's name for the program's default export ("" for none). */
  defaultName: string;
}

/** FrameMap is what an execution's stacks are written with. */
export interface FrameMap {
  /** filename is the program module's name in frames. */
  filename: string;
  /** positions place the module's frames in the program; undefined: where they are. */
  positions: Positions | undefined;
}

/** setupFilename names a scope setup's code in frames (wire 1.3). */
export const setupFilename = "codemode-setup.js";

/** The kinds of a point (wire.PointKind). */
const pointSame = 0;
const pointShift = 1;
const pointUnknown = 3;

/**
 * positionsOf reads the positions of a request, the runner's own object
 * (a decoded message): undefined when there are none, or when they are
 * not five numbers a point.
 */
export function positionsOf(points: unknown, defaultName: unknown): Positions | undefined {
  if (!isArray(points) || points.length % 5 !== 0) return undefined;
  for (let i = 0; i < points.length; i++) {
    if (typeof points[i] !== "number") return undefined;
  }
  return { __proto__: null, points, defaultName: typeof defaultName === "string" ? defaultName : "" } as unknown as Positions;
}

/**
 * A Place is where a frame lies in the program: line 0 when its place is
 * not the program's (a wrapper's), -1 when the program's but unknown.
 */
interface Place {
  line: number;
  column: number;
}

/**
 * place finds where line and column of the module lie in the program (the
 * last point at or before them: docs/runner-protocol.md, "Program
 * positions"); without positions, the module's places are the program's.
 */
function place(p: Positions | undefined, line: number, column: number): Place {
  if (p === undefined) return { __proto__: null, line, column } as unknown as Place;
  const pts = p.points;
  let lo = 0;
  let hi = pts.length / 5 - 1;
  let at = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const l = pts[5 * mid];
    if (l < line || (l === line && pts[5 * mid + 1] <= column)) {
      at = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  const kind = at < 0 ? -1 : pts[5 * at + 4];
  let found: Place;
  if (kind === pointSame) {
    found = { __proto__: null, line: pts[5 * at + 2], column: pts[5 * at + 3] } as unknown as Place;
  } else if (kind === pointShift && line === pts[5 * at]) {
    found = { __proto__: null, line: pts[5 * at + 2], column: pts[5 * at + 3] + column - pts[5 * at + 1] } as unknown as Place;
  } else if (kind === pointShift) {
    found = { __proto__: null, line: pts[5 * at + 2] + line - pts[5 * at], column } as unknown as Place;
  } else {
    found = { __proto__: null, line: kind === pointUnknown ? -1 : 0, column: 0 } as unknown as Place;
  }
  return found;
}

/**
 * ownFile is the name of the runner's own file in frames
 * ("codemode-runner.js" on QuickJS, "[stdin]" when Node.js reads the
 * bootstrap from standard input), from a stack made as the runner loads;
 * "" when none can be read.
 */
export const ownFile = ((): string => {
  const stack = new ErrorCtor("").stack;
  if (typeof stack !== "string") return "";
  const lines = stringSplit(stack, "\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const at = stringIndexOf(line, "    at ");
    if (at !== 0) continue;
    // "    at f (file:line:column)" or "    at file:line:column"; this runs
    // as the runner loads, before any program could change String.prototype.
    let where = line.slice(7);
    const open = where.indexOf("(");
    if (open >= 0) where = where.slice(open + 1, where.length - 1);
    const end = where.lastIndexOf(":", where.lastIndexOf(":") - 1);
    return end > 0 ? where.slice(0, end) : "";
  }
  return "";
})();

/** notTheProgram reports a frame file that is the runner's, a scope setup's or Node.js's own. */
function notTheProgram(file: unknown): boolean {
  if (typeof file !== "string") return false;
  return file === ownFile || file === setupFilename || (charCodeAt(file, 0) === 110 && stringSlice(file, 0, 5) === "node:");
}

/** quickJSCallSite is what QuickJS's call sites give. */
interface QuickJSCallSite {
  getFunction(): unknown;
  getFunctionName(): string | null;
  getFileName(): string | null;
  getLineNumber(): number;
  getColumnNumber(): number;
  isNative(): boolean;
}

/**
 * quickJSStack writes QuickJS call sites as QuickJS writes a stack
 * (build_backtrace in quickjs.c): for the program (map), or, without a
 * map, as the engine does. QuickJS hands the call sites only to
 * Error.prepareStackTrace, which is the runner's: no program can reach
 * their prototype, and their methods are called as they are.
 */
function quickJSStack(cs: QuickJSCallSite[], map: FrameMap | undefined, unsure = false): string {
  let s = "";
  let first = true;
  for (let i = 0; i < cs.length; i++) {
    const c = cs[i];
    const name = c.getFunctionName();
    const shown = name === null || name === "" ? "<anonymous>" : name;
    if (c.isNative()) {
      s += "    at " + shown + " (native)\n";
      continue;
    }
    const file = c.getFileName();
    let line = c.getLineNumber();
    let column = c.getColumnNumber();
    let named = shown;
    if (map !== undefined) {
      if (file === map.filename) {
        const at = place(map.positions, line, column);
        if (at.line === 0) continue;
        line = first && unsure ? -1 : at.line;
        column = at.column;
        if (map.positions !== undefined && name === map.positions.defaultName && name !== "") named = "default";
      } else if (notTheProgram(file)) {
        continue;
      }
    }
    first = false;
    const where = (file === null ? "<null>" : file) + (line !== -1 ? ":" + line + ":" + column : "");
    // A place with no function is a syntax error's (the parser's place).
    s += c.getFunction() === null ? "    at " + where + "\n" : "    at " + named + " (" + where + ")\n";
  }
  return s;
}

/** A Written stack: the call sites, and the texts made of them. */
interface Written {
  cs: unknown[];
  map: FrameMap | undefined;
  /** program is the text the program reads, once made. */
  program: string | undefined;
  /** engine is the text the engine would have written, once made (on Node.js, when written). */
  engine: string | undefined;
}

const WeakMapCtor = WeakMap;
const weakGet = WeakMap.prototype.get;
const weakSet = WeakMap.prototype.set;
const written = new WeakMapCtor<object, Written>();

/** engineText is w's stack as the engine would have written it. */
function engineText(w: Written): string {
  if (w.engine === undefined) w.engine = quickJSStack(w.cs as QuickJSCallSite[], undefined);
  return w.engine;
}

/**
 * hostStack is what the host is sent of value's stack, read as read: the
 * engine's text when read is the text the runner wrote for the program,
 * read otherwise (a stack the program set, or one no hook wrote).
 */
export function hostStack(value: unknown, read: string): string {
  if ((typeof value !== "object" || value === null) && typeof value !== "function") return read;
  const w = apply(weakGet, written, [value]) as Written | undefined;
  if (w === undefined || w.program !== read) return read;
  return engineText(w);
}

/**
 * engineStack is the stack QuickJS would have written for error, made by
 * the runner's hook, or "" when the hook did not write it.
 */
export function engineStack(error: unknown): string {
  if (typeof error !== "object" || error === null) return "";
  const w = apply(weakGet, written, [error]) as Written | undefined;
  return w === undefined ? "" : engineText(w);
}

/**
 * The stack of an Error QuickJS made: an accessor of the Error's own, as
 * V8's is, which writes the text when first read (writing it costs about
 * as much again as making the Error, and most Errors a program makes are
 * never read: every tool call makes one for its rejection). Setting it
 * makes it the value set.
 */
const stackAccessor = objectFreeze({
  __proto__: null,
  get(this: unknown): unknown {
    const w = (typeof this === "object" && this !== null ? apply(weakGet, written, [this]) : undefined) as Written | undefined;
    if (w === undefined) return undefined;
    if (w.program === undefined) {
      try {
        w.program = quickJSStack(w.cs as QuickJSCallSite[], w.map, placeUnsure(this as object));
      } catch {
        w.program = "";
      }
    }
    return w.program;
  },
  set(this: unknown, value: unknown): void {
    if (typeof this === "object" && this !== null) defineProperty(this, "stack", data(value, false));
  },
  enumerable: false,
  configurable: true,
}) as PropertyDescriptor;

/**
 * callErrorOptions are the options every tool call's Error is made with
 * (new Error(message, callErrorOptions)): on QuickJS a cause the hook knows
 * the Error by (see installQuickJSStacks), undefined elsewhere.
 */
export let callErrorOptions: { cause: unknown } | undefined;

/** callMarker is the cause of a tool call's Error until the call fails. */
const callMarker = objectFreeze({ __proto__: null });

/** currentFrames is installQuickJSStacks's current. */
let currentFrames: () => FrameMap | undefined = () => undefined;

/**
 * callFailed gives the program the stack of a tool call's Error, which it
 * rejects the call with: on QuickJS the stack was kept as call sites since
 * the call was made (most calls succeed, and their Errors are never read),
 * and is now written as any other Error's, when first read.
 */
export function callFailed(error: object): void {
  if (callErrorOptions === undefined) return;
  const d = getOwnPropertyDescriptor(error, "cause");
  if (d === undefined || d.value !== callMarker) return;
  deleteProperty(error, "cause");
  const cs = getOwnPropertyDescriptor(error, "stack");
  if (cs === undefined || !isArray(cs.value)) return;
  const w = { __proto__: null, cs: cs.value, map: currentFrames(), program: undefined, engine: undefined } as unknown as Written;
  apply(weakSet, written, [error, w]);
  defineProperty(error, "stack", stackAccessor);
}

/**
 * callStack is the engine's stack of a tool call's Error, for the host
 * (where a deadline found the program waiting for the call).
 */
export function callStack(error: object): string {
  const stack = (error as { stack?: unknown }).stack;
  if (isArray(stack)) return quickJSStack(stack as QuickJSCallSite[], undefined);
  return typeof stack === "string" ? hostStack(error, stack) : "";
}

const TypeErrorPrototype = TypeError.prototype;
const ReferenceErrorPrototype = ReferenceError.prototype;

/**
 * placeUnsure reports an error QuickJS raised at a property read or write
 * or a name lookup (by its prototype and message), whose place QuickJS
 * does not record: its first frame names the last place recorded before,
 * often a line above. The host places such a failure in its report from
 * the program's source (drivers/quickjs/locate.go), which the runner does
 * not read: the program's stack gives that frame no place rather than a
 * wrong one.
 */
function placeUnsure(error: object): boolean {
  const proto = getPrototypeOf(error);
  if (proto !== TypeErrorPrototype && proto !== ReferenceErrorPrototype) return false;
  const d = getOwnPropertyDescriptor(error, "message");
  const m = d === undefined ? undefined : d.value;
  if (typeof m !== "string") return false;
  if (proto === ReferenceErrorPrototype) {
    const at = stringIndexOf(m, " ");
    return at > 0 && (stringSlice(m, at) === " is not defined" || stringSlice(m, at) === " is not initialized");
  }
  const read = stringSlice(m, 0, 22) === "cannot read property '" || stringSlice(m, 0, 21) === "cannot set property '";
  return read && (stringSlice(m, m.length - 9) === "' of null" || stringSlice(m, m.length - 14) === "' of undefined");
}

// Error.isError where the engine has it (QuickJS): whether a value is an
// Error object, which QuickJS gives a stack of its own.
const isError = (ErrorCtor as unknown as { isError?: (v: unknown) => boolean }).isError;

/**
 * installQuickJSStacks makes the runner QuickJS's Error.prepareStackTrace
 * (through the property's own setter; the caller then replaces the
 * property, so that no program can read or set the hook), and wraps
 * Error.captureStackTrace. current gives the frame map of the execution
 * running, or undefined.
 *
 * QuickJS calls the hook for a new Error, for Error.captureStackTrace, and
 * whenever a value is thrown after a catch (quickjs-ng keeps the last
 * uncaught backtrace: error_back_trace in quickjs.c), with the thrown
 * value, whatever it is: the hook writes a stack for the first two and
 * does nothing for the third (QuickJS keeps what it returns for no one
 * here, and leaves a thrown Error's own stack alone).
 */
export function installQuickJSStacks(current: () => FrameMap | undefined): void {
  const desc = getOwnPropertyDescriptor(ErrorCtor, "prepareStackTrace");
  const capture = (ErrorCtor as unknown as { captureStackTrace?: unknown }).captureStackTrace;
  if (desc === undefined || typeof desc.set !== "function" || typeof isError !== "function" || typeof capture !== "function") return;
  let capturing = false;
  const hook = (error: unknown, cs: QuickJSCallSite[]): string => {
    try {
      if (capturing) {
        // QuickJS sets the stack to what the hook returns.
        capturing = false;
        const w = { __proto__: null, cs, map: current(), program: undefined, engine: undefined } as unknown as Written;
        w.program = quickJSStack(cs, w.map);
        if ((typeof error === "object" && error !== null) || typeof error === "function") apply(weakSet, written, [error, w]);
        return w.program;
      }
      if (apply(isError, ErrorCtor, [error]) && !hasOwn(error, "stack")) {
        // A tool call's Error keeps its call sites as its stack until the
        // call fails (callFailed); the program cannot reach it before.
        if (hasOwn(error, "cause") && (error as { cause?: unknown }).cause === callMarker) return cs as unknown as string;
        // A new Error: QuickJS keeps an own stack (this accessor) and
        // ignores what the hook returns.
        const w = { __proto__: null, cs, map: current(), program: undefined, engine: undefined } as unknown as Written;
        apply(weakSet, written, [error, w]);
        defineProperty(error as object, "stack", stackAccessor);
      }
    } catch {
      // the stack stays unwritten
    }
    return "";
  };
  apply(desc.set, ErrorCtor, [hook]);
  currentFrames = current;
  callErrorOptions = objectFreeze({ __proto__: null, cause: callMarker }) as { cause: unknown };
  defineProperty(ErrorCtor, "captureStackTrace", data(function captureStackTrace(this: unknown, ...args: unknown[]): unknown {
    capturing = true;
    try {
      return apply(capture as (...a: unknown[]) => unknown, this, args);
    } finally {
      capturing = false;
    }
  }, false));
}

/** v8CallSite is what V8's call sites give. */
interface V8CallSite {
  getFileName(): string | null | undefined;
  getFunctionName(): string | null;
  getLineNumber(): number | null;
  getColumnNumber(): number | null;
}

/**
 * v8Frame is a V8 call site's frame text for the program, or "" to leave
 * the frame out. text is the call site's own text (its toString), which
 * ends with its place ("f (agent.ts:3:7)", "async agent.ts:3:7").
 */
function v8Frame(c: V8CallSite, text: string, map: FrameMap, site: V8Methods): string {
  const file = apply(site.getFileName, c, []);
  if (file !== map.filename) return notTheProgram(file) ? "" : text;
  const line = apply(site.getLineNumber, c, []);
  const column = apply(site.getColumnNumber, c, []);
  if (typeof line !== "number" || typeof column !== "number") return text;
  const at = place(map.positions, line, column);
  if (at.line === 0) return "";
  const was = file + ":" + line + ":" + column;
  const now = at.line > 0 ? file + ":" + at.line + ":" + at.column : file;
  const close = text.length > 0 && charCodeAt(text, text.length - 1) === 41 ? 1 : 0; // ")"
  const end = text.length - close;
  if (end < was.length || stringSlice(text, end - was.length, end) !== was) return text;
  let head = stringSlice(text, 0, end - was.length);
  const p = map.positions;
  if (p !== undefined && p.defaultName !== "" && apply(site.getFunctionName, c, []) === p.defaultName) {
    const i = stringIndexOf(head, p.defaultName);
    if (i >= 0) head = stringSlice(head, 0, i) + "default" + stringSlice(head, i + p.defaultName.length);
  }
  return head + now + (close === 1 ? ")" : "");
}

/** V8Methods are a V8 call site's methods, captured from its prototype. */
interface V8Methods {
  getFileName: () => string | null | undefined;
  getFunctionName: () => string | null;
  getLineNumber: () => number | null;
  getColumnNumber: () => number | null;
  toString: () => string;
}

/**
 * v8Stack writes the program's stack from V8 call sites and engine, the
 * stack Node.js wrote for them (its error line, then a frame a call site):
 * the same error line, then the program's frames. When engine does not
 * end with the call sites' frames as V8 writes them, it is returned as it is.
 */
function v8Stack(cs: V8CallSite[], engine: string, map: FrameMap, site: V8Methods): string {
  const texts: string[] = [];
  let frames = 0;
  for (let i = 0; i < cs.length; i++) {
    const t = apply(site.toString, cs[i], []);
    if (typeof t !== "string") return engine;
    texts[i] = t;
    frames += 8 + t.length; // "\n    at " and the frame
  }
  if (frames > engine.length) return engine;
  let at = engine.length - frames;
  for (let i = 0; i < cs.length; i++) {
    if (stringSlice(engine, at, at + 8) !== "\n    at " || stringSlice(engine, at + 8, at + 8 + texts[i].length) !== texts[i]) return engine;
    at += 8 + texts[i].length;
  }
  let s = stringSlice(engine, 0, engine.length - frames);
  for (let i = 0; i < cs.length; i++) {
    const f = v8Frame(cs[i], texts[i], map, site);
    if (f !== "") s += "\n    at " + f;
  }
  return s;
}

/**
 * installV8Stacks makes the runner Node.js's Error.prepareStackTrace, in
 * front of Node.js's own (which writes the engine's text; V8 calls the hook
 * when a stack is first read). A program may set its own, as on Node.js
 * alone: its stacks are then its own. current gives the frame map of the
 * execution the stack is read in, or undefined.
 */
export function installV8Stacks(current: () => FrameMap | undefined): void {
  const engineHook = (ErrorCtor as unknown as { prepareStackTrace?: unknown }).prepareStackTrace;
  if (typeof engineHook !== "function") return;
  let site: V8Methods | undefined;
  const hook = function (this: unknown, error: unknown, cs: V8CallSite[]): unknown {
    const engine = apply(engineHook as (e: unknown, c: unknown) => unknown, this, [error, cs]);
    try {
      const map = current();
      if (map === undefined || typeof engine !== "string" || site === undefined) return engine;
      const program = v8Stack(cs, engine, map, site);
      if (program !== engine && ((typeof error === "object" && error !== null) || typeof error === "function")) {
        const w = { __proto__: null, cs, map, program, engine } as unknown as Written;
        apply(weakSet, written, [error, w]);
      }
      return program;
    } catch {
      return engine;
    }
  };
  // The call sites' methods, from one call site, before any program runs.
  defineProperty(ErrorCtor, "prepareStackTrace", data((_: unknown, cs: unknown[]) => cs, false));
  const sample = new ErrorCtor("").stack as unknown;
  defineProperty(ErrorCtor, "prepareStackTrace", data(hook, false));
  if (!isArray(sample) || sample.length === 0) return;
  const proto = getPrototypeOf(sample[0] as object);
  if (proto === null) return;
  const m = { __proto__: null } as unknown as V8Methods;
  const names = ["getFileName", "getFunctionName", "getLineNumber", "getColumnNumber", "toString"] as const;
  for (let i = 0; i < names.length; i++) {
    const f = (proto as Record<string, unknown>)[names[i]];
    if (typeof f !== "function") return;
    (m as unknown as Record<string, unknown>)[names[i]] = f;
  }
  site = m;
}
