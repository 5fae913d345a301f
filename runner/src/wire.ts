// The wire protocol of docs/runner-protocol.md, on the JavaScript side: frames
// (4-byte big-endian length + CBOR map with small-integer keys) and the
// runner loop that serves execute, tool-result and cancel messages. It runs
// in the realm of the programs it serves (Node.js), so it uses ./intrinsics
// only (see there) and keeps its state in closures.

import {
  ErrorCtor, RangeErrorCtor, TypeErrorCtor, Uint8ArrayCtor, charCodeAt, data, defineProperty, hasOwn, isArray, jsonParse, numberIsSafeInteger, push, quote, record,
  typedArrayLength, typedArraySet,
  mathMax, view, join, stringIndexOf, stringSlice, stringSplit,
} from "./intrinsics";
import { decode, MapWriter, utf8Decode, Writer, type CBORMap, type Value } from "./cbor";
import { duration, type CPUMeter } from "./cpu";
import { createExecution, listNamespace, serializeError, type Execution, type Finish, type Host, type Limits, type ModuleBox, type Namespace } from "./core";
import { ownFile, positionsOf } from "./stack";

/** protocolVersion is the major version, protocolMinor the newest minor (docs/runner-protocol.md, "Versions"). */
export const protocolVersion = 1;
export const protocolMinor = 8;
export const maxFrameSize = 16 << 20;

const K = {
  kind: 0, execution: 1, version: 2, runner: 3, source: 4, filename: 5, hasInput: 6, input: 7, namespaces: 8,
  seq: 9, namespace: 10, tool: 11, site: 12, output: 13, error: 14, stream: 15, text: 16, outcome: 17, content: 18,
  versions: 19, limits: 20, seed: 21, clock: 22, value: 23, scope: 32, scopeUnknown: 33, setup: 34, prefill: 35, prefilled: 36, randomDraws: 37, randomBytes: 38,
  typeScript: 39, stripRefused: 40, cpuLimit: 41, held: 42, release: 43, positions: 44,
} as const;

/**
 * The scopes a runner keeps (wire 1.2): at most maxScopes, whose tool
 * names take at most maxScopeBytes (counted as UTF-16 code units plus 16
 * per name), the least recently used evicted first; the newest is kept
 * whatever its size, so that the scope of the execution at hand survives.
 */
export const maxScopes = 16;
export const maxScopeBytes = 8 << 20;

const Kind = { ready: 1, execute: 2, cancel: 3, toolCall: 4, toolResult: 5, output: 6, result: 7 } as const;

/** A channel carries bytes both ways; the runner calls write, the platform calls receive. */
export interface Channel {
  /**
   * write queues a frame, in order, and returns: the runner sends from
   * inside a program's stack (a tool call), where the platform's own
   * writing may run out of stack and break (Node.js's socket.write did).
   * When write throws, the frame is not sent.
   */
  write(bytes: Uint8Array): void;
  /** close ends the channel after a protocol fault. */
  close(reason: Error): void;
}

/** RunnerLimits are the runner's defaults and hard caps; an execute message's limits are capped by them. */
export interface RunnerLimits extends Limits {
  /** timeoutMs is the execution deadline in milliseconds; 0 for none. */
  timeoutMs: number;
}

/** Platform is what an embedding (the Node.js bootstrap) gives the runner. */
export interface Platform {
  /** run calls f with ex as the current execution of everything f starts (AsyncLocalStorage). */
  run<T>(ex: Execution, f: () => T): T;
  /** randomSeed returns four unsigned 32-bit words from a CSPRNG. */
  randomSeed(): number[];
  /** now is the real clock. */
  now(): number;
  /** setTimer and clearTimer are the host's own timers, for deadlines. */
  setTimer(f: () => void, ms: number): unknown;
  clearTimer(handle: unknown): void;
  /**
   * cpu, where the platform has one, meters executions' CPU time limits
   * (limits key 32); without it the runner ignores them.
   */
  cpu?: CPUMeter;
  /** started and ended bracket an execution (the platform tracks its timers). */
  started(ex: Execution): void;
  ended(ex: Execution): void;
  /**
   * afterTurn calls f once the jobs queued now have run and the platform
   * has told the executions of the promises they let reject with no
   * handler (Execution.rejection): an execution's outcome waits for it,
   * so that its warnAtEnd sees them.
   */
  afterTurn(f: () => void): void;
}

export interface RunnerOptions {
  channel: Channel;
  /**
   * importModule evaluates source as a fresh root ES module named filename
   * and returns its namespace in a ModuleBox (an object without a
   * prototype: never resolve a promise with the namespace itself).
   */
  importModule(source: string, filename: string, execution: number, compiled?: unknown): Promise<ModuleBox>;
  /**
   * compileModule, with stripTypes, compiles a stripped program's module
   * before anything of it runs, so that an error only the engine finds
   * (a redeclared let, a duplicate parameter) refuses the program like
   * a syntax error the stripper finds: the host then erases it and reports
   * the error with its position. It returns the compiled module, which
   * importModule takes as compiled.
   */
  compileModule?(source: string, filename: string, execution: number): unknown;
  /**
   * compileSetup compiles a scope setup's text (wire 1.3) as a script
   * named codemode-setup.js and returns the function it evaluates to. It
   * throws what compiling threw. The runner keeps what it returns, by
   * text, for later executions.
   */
  compileSetup(text: string): unknown;
  /**
   * stripTypes, where the platform has it, erases TypeScript's types from
   * a program in place (blanks, so every line and column stays where it
   * was) and returns the JavaScript; it throws for syntax that blanks cannot
   * erase (an enum) and for syntax errors. With it, the runner's ready says
   * typeScript (wire 1.4, docs/runner-protocol.md "Type stripping").
   */
  stripTypes?(source: string): string;
  runner: string;
  limits: RunnerLimits;
  platform: Platform;
}

/**
 * keptCache keeps values by key, least recently used first: at most
 * maxScopes, whose sizes add up to at most maxScopeBytes; the newest is
 * kept whatever its size. A miss is undefined.
 */
function keptCache<T>(): { get(key: string): T | undefined; put(key: string, value: T, size: number): void } {
  interface Kept {
    key: string;
    value: T;
    size: number;
  }
  let kept: Kept[] = [];
  return {
    get(key: string): T | undefined {
      for (let i = 0; i < kept.length; i++) {
        const k = kept[i];
        if (k.key !== key) continue;
        for (let j = i; j + 1 < kept.length; j++) kept[j] = kept[j + 1];
        kept[kept.length - 1] = k;
        return k.value;
      }
      return undefined;
    },
    put(key: string, value: T, size: number): void {
      const next: Kept[] = [];
      let bytes = size;
      // The newest first, then the others from the most recently used,
      // while they fit.
      for (let i = kept.length - 1; i >= 0; i--) {
        const k = kept[i];
        if (k.key === key) continue;
        if (next.length + 1 >= maxScopes || bytes + k.size > maxScopeBytes) break;
        push(next, k);
        bytes += k.size;
      }
      const order: Kept[] = [];
      for (let i = next.length - 1; i >= 0; i--) push(order, next[i]);
      push(order, { __proto__: null, key, value, size } as unknown as Kept);
      kept = order;
    },
  };
}

/** FrameTooLarge is the RangeError frame throws for a message over the frame limit. */
class FrameTooLarge extends RangeErrorCtor {}

/**
 * withClock says, of a message over the frame limit, how many of its values
 * are the clock values it carries (which a program can pile up by reading
 * the clock in a loop); other errors are returned as they are.
 */
function withClock(error: unknown, what: string, clock: number[]): unknown {
  if (!(error instanceof FrameTooLarge) || clock.length === 0) return error;
  return new RangeErrorCtor(`${what} does not fit in a message with the ${clock.length} clock values the program read (Date.now, performance.now, new Date), which are kept for replay: ${error.message}`);
}

/**
 * isBlank reports JavaScript's white space and line terminators: ASCII
 * controls and space, NBSP, BOM, and Unicode's space separators (Zs) and
 * line and paragraph separators (ECMA-262, "White Space").
 */
function isBlank(c: number): boolean {
  return c <= 32 || c === 0xa0 || c === 0xfeff || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000;
}

/**
 * inComment reports whether a comment may be open before offset at on its
 * line of text (a // or /* before it on the line, in a string or not): then
 * the character at offset does not end a statement.
 */
function inComment(text: string, at: number): boolean {
  for (let i = at - 1; i > 0; i--) {
    const c = charCodeAt(text, i);
    if (c === 10 || c === 13 || c === 0x2028 || c === 0x2029) return false;
    if ((c === 47 || c === 42) && charCodeAt(text, i - 1) === 47) return true;
  }
  return false;
}

/**
 * joinedByBlanks returns the offset in stripped of a token that blanking
 * types may have joined to the statement before, or -1. Blanking keeps
 * every position, and where it blanks a statement's own semicolon (a type
 * alias ended by a semicolon on the next line, `type T = 1;[0]`) or a
 * statement that ended by a line break, the next line can continue the
 * statement before it: `const t = {}\ntype K = "x"\n;["x"].map(f)` becomes
 * `const t = {}` indexed by `["x"]`. Node.js's stripper puts a semicolon
 * back in some such places, not in all. This refuses, conservatively, a
 * blanked stretch followed by a token that continues an expression ( ( [ `
 * + - / ) unless the code before it ends a statement (; or { or nothing,
 * outside a comment) or the stretch was only type arguments (<...>) or a
 * non-null assertion (!) on one line, after which the token continues the
 * same expression in TypeScript too. Comments count as blanks. A false
 * alarm costs the host's erasure, not meaning.
 */
export function joinedByBlanks(source: string, stripped: string): number {
  let before = -1; // the last character of stripped that is not blank; -1 at the start
  let beforeAt = -1; // its offset
  let blanked = -1; // the first blanked character of source since then; -1 for none
  let simple = true; // the stretch is on one line and blanks no semicolon
  const n = stripped.length;
  for (let i = 0; i < n; i++) {
    const c = charCodeAt(stripped, i);
    if (isBlank(c)) {
      const o = charCodeAt(source, i);
      if (blanked < 0) {
        if (!isBlank(o)) {
          blanked = o;
          simple = true;
        }
      } else if (c === 10 || c === 13 || o === 59) {
        simple = false;
      }
      continue;
    }
    if (blanked >= 0 && c === 47 && i + 1 < n) {
      // A comment after the stretch (// or /* at the start of a token is
      // never division or a regular expression) is skipped, like blanks.
      const d = charCodeAt(stripped, i + 1);
      if (d === 47) {
        while (i + 1 < n && charCodeAt(stripped, i + 1) !== 10) i++;
        continue;
      }
      if (d === 42) {
        i += 2;
        while (i + 1 < n && !(charCodeAt(stripped, i) === 42 && charCodeAt(stripped, i + 1) === 47)) i++;
        i++;
        continue;
      }
    }
    if (blanked >= 0) {
      const continues = c === 40 || c === 91 || c === 96 || c === 43 || c === 45 || c === 47; // ( [ ` + - /
      const ends = before === -1 || ((before === 59 || before === 123) && !inComment(stripped, beforeAt)); // start ; {
      const sameExpression = simple && (blanked === 60 || blanked === 33); // < !
      if (continues && !ends && !sameExpression) return i;
      blanked = -1;
    }
    before = c;
    beforeAt = i;
  }
  return -1;
}

function frame(m: MapWriter): Uint8Array {
  const w = new Writer();
  m.into(w);
  if (w.n > maxFrameSize) throw new FrameTooLarge(`message of ${w.n} bytes exceeds the 16 MiB frame limit`);
  const out = w.result(4);
  out[0] = w.n >>> 24;
  out[1] = (w.n >>> 16) & 255;
  out[2] = (w.n >>> 8) & 255;
  out[3] = w.n & 255;
  return out;
}

function head(kind: number, id: number): MapWriter {
  const m = new MapWriter();
  m.key(K.kind).uint(kind);
  if (id > 0) m.key(K.execution).uint(id);
  return m;
}

function textField(m: MapWriter, key: number, value: string): void {
  if (value !== "") m.key(key).text(value);
}

function clockField(m: MapWriter, clock: number[]): void {
  if (clock.length === 0) return;
  const w = m.key(K.clock);
  w.head(4, clock.length);
  for (let i = 0; i < clock.length; i++) w.float(clock[i]);
}

/**
 * programStack is a program error's stack as the program sees it: without
 * V8's first line (the name and message, which the outcome carries apart,
 * as QuickJS's stacks leave them out) and without the runner's own frames
 * (its tool call, its run), as the QuickJS driver leaves them out.
 */
export function programStack(stack: string, name: string, message: string): string {
  const headLine = message === "" ? name : `${name}: ${message}`;
  if (stack === headLine) return "";
  if (stringIndexOf(stack, headLine + "\n") === 0) stack = stringSlice(stack, headLine.length + 1);
  if (ownFile === "" || stringIndexOf(stack, ownFile + ":") < 0) return stack;
  const lines = stringSplit(stack, "\n");
  const kept: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (stringIndexOf(line, "(" + ownFile + ":") >= 0 || stringIndexOf(line, "at " + ownFile + ":") >= 0) continue;
    push(kept, line);
  }
  return join(kept, "\n");
}

function errorField(m: MapWriter, e: { name: string; message: string; stack?: string; data?: string }): void {
  const em = new MapWriter();
  em.key(1).text(e.name);
  em.key(2).text(e.message);
  const stack = e.stack === undefined || e.stack === "" ? "" : programStack(e.stack, e.name, e.message);
  if (stack !== "") em.key(3).text(stack);
  // The error's own properties (wire 1.7, an extension key of the error
  // map): a host older than 1.7 skips them.
  if (e.data !== undefined && e.data !== "") em.key(32).textAsBytes(e.data);
  em.into(m.key(K.error));
}

function failure(id: number, name: string, message: string): MapWriter {
  const m = head(Kind.result, id);
  m.key(K.outcome).text("program-failed");
  errorField(m, { name, message });
  return m;
}

/** resultMessage is the execution-result message of execution id's outcome. */
function resultMessage(id: number, result: Finish): MapWriter {
  const r = head(Kind.result, id);
  if (result.outcome === "success") {
    r.key(K.outcome).text("success");
    const content = result.content;
    if (content.length > 0) {
      const w = r.key(K.content);
      w.head(4, content.length);
      for (let i = 0; i < content.length; i++) {
        const c = content[i];
        const cm = new MapWriter();
        if (c.type === "text") {
          cm.key(1).text("text");
          textField(cm, 2, c.text);
        } else {
          cm.key(1).text("image");
          textField(cm, 3, c.data);
          textField(cm, 4, c.mimeType);
        }
        cm.into(w);
      }
    }
    clockField(r, result.clock);
    if (result.value !== "") r.key(K.value).textAsBytes(result.value);
  } else {
    r.key(K.outcome).text("program-failed");
    errorField(r, result.error);
    clockField(r, result.clock);
    if (result.cpuLimit === true) r.key(K.cpuLimit).bool(true);
  }
  return r;
}

const asMap = (v: Value | undefined): CBORMap | undefined =>
  typeof v === "object" && v !== null && !isArray(v) && !(typedArrayLengthOf(v) >= 0) ? (v as CBORMap) : undefined;

function typedArrayLengthOf(v: unknown): number {
  try {
    return typedArrayLength(v);
  } catch {
    return -1;
  }
}

const asBytes = (v: Value | undefined): Uint8Array | undefined => (typedArrayLengthOf(v) >= 0 ? (v as Uint8Array) : undefined);
const asUint = (v: Value | undefined): number => (typeof v === "number" && v >= 0 && numberIsSafeInteger(v) ? v : 0);

/** cap is requested capped by limit: requested when it is set and smaller, else limit. */
function cap(requested: number, limit: number): number {
  if (requested > 0 && (limit <= 0 || requested < limit)) return requested;
  return limit;
}

function seedFrom(bytes: Uint8Array): number[] {
  const out: number[] = [];
  for (let i = 0; i < 4; i++) {
    push(out, ((bytes[4 * i] << 24) | (bytes[4 * i + 1] << 16) | (bytes[4 * i + 2] << 8) | bytes[4 * i + 3]) >>> 0);
  }
  return out;
}

/**
 * startRunner sends ready and returns the function the platform calls with
 * each chunk of bytes read from the channel.
 */
export function startRunner(opts: RunnerOptions): (chunk: Uint8Array) => void {
  const executions: Record<number, Execution> = { __proto__: null } as unknown as Record<number, Execution>;
  let buffered = new Uint8ArrayCtor(0);
  let used = 0;
  let dead = false;
  const channel = opts.channel;
  const platform = opts.platform;
  const defaults = opts.limits;

  // A frame too large throws here, and nothing of it is sent; the channel
  // queues the rest and writes them later (see Channel.write).
  const send = (m: MapWriter) => {
    if (dead) return;
    channel.write(frame(m));
  };

  // The kept scopes (wire 1.2) and compiled scope setups (wire 1.3).
  const scopes = keptCache<Namespace[]>();
  const setups = keptCache<unknown>();
  const compiledSetup = (text: string): unknown => {
    const kept = setups.get(text);
    if (kept !== undefined) return kept;
    const fn = opts.compileSetup(text);
    setups.put(text, fn, text.length);
    return fn;
  };
  const fault = (reason: Error) => {
    if (dead) return;
    dead = true;
    channel.close(reason);
  };

  const execute = (m: CBORMap) => {
    const id = m[K.execution] as number;
    if (executions[id] !== undefined) {
      send(failure(id, "Error", "duplicate execution id"));
      return;
    }
    const filename = m[K.filename];
    if (typeof filename !== "string") throw new TypeErrorCtor("execute message without a filename");
    const source = m[K.source];
    let text = typeof source === "string" ? source : "";
    let compiled: unknown;
    if (m[K.typeScript] === true) {
      // TypeScript to strip and compile before anything runs; a program
      // this runner cannot strip goes back to the host, which erases it
      // itself.
      let refused = "this runner does not strip TypeScript";
      if (opts.stripTypes !== undefined) {
        try {
          const stripped = opts.stripTypes(text);
          const joined = joinedByBlanks(text, stripped);
          if (joined >= 0) throw new ErrorCtor(`blanking types at offset ${joined} would join two statements`);
          text = stripped;
          if (opts.compileModule !== undefined) compiled = opts.compileModule(text, filename, id);
          refused = "";
        } catch (error) {
          const e = serializeError(error);
          refused = `${e.name}: ${e.message}`;
        }
      }
      if (refused !== "") {
        const f = failure(id, "SyntaxError", `the runner did not strip the program's types (${refused}); nothing ran (the host erases them itself)`);
        f.key(K.stripRefused).bool(true);
        send(f);
        return;
      }
    }
    // The namespaces: the message's, kept under its scope if it names one,
    // or those kept under the scope it names alone.
    const scope = m[K.scope];
    const nsList = m[K.namespaces];
    let namespaces: Namespace[];
    if (typeof scope === "string" && scope !== "" && !isArray(nsList)) {
      const found = scopes.get(scope);
      if (found === undefined) {
        const f = failure(id, "InternalError", `the runner keeps no namespaces for scope ${scope}; nothing ran (the host sends them again)`);
        f.key(K.scopeUnknown).bool(true);
        send(f);
        return;
      }
      namespaces = found;
    } else {
      namespaces = [];
      let size = 0;
      if (isArray(nsList)) {
        for (let i = 0; i < nsList.length; i++) {
          const ns = asMap(nsList[i]);
          if (ns === undefined || typeof ns[1] !== "string") throw new TypeErrorCtor("malformed namespace");
          // The decoded array is the runner's own (the decoder made it and
          // nothing else holds it): it is kept as the list, not copied.
          let tools: string[] = [];
          const names = ns[2];
          if (isArray(names)) {
            for (let j = 0; j < names.length; j++) {
              if (typeof names[j] !== "string") throw new TypeErrorCtor("malformed tool name");
              size += (names[j] as string).length + 16;
            }
            tools = names as string[];
          }
          push(namespaces, listNamespace(ns[1] as string, tools));
        }
      }
      if (typeof scope === "string" && scope !== "") scopes.put(scope, namespaces, size);
    }
    const hasInput = m[K.hasInput] === true;
    let input: unknown;
    if (hasInput) {
      const bytes = asBytes(m[K.input]);
      if (bytes === undefined) throw new TypeErrorCtor("execute message without its input");
      try {
        input = jsonParse(utf8Decode(bytes, 0, typedArrayLength(bytes)));
      } catch {
        send(failure(id, "TypeError", "program input is not valid JSON"));
        return;
      }
    }
    const lm = asMap(m[K.limits]);
    const req = (k: number) => (lm === undefined ? 0 : asUint(lm[k]));
    const limits = {
      __proto__: null,
      maxOutput: cap(req(3), defaults.maxOutput),
      maxContent: cap(req(4), defaults.maxContent),
      maxTimers: cap(req(5), defaults.maxTimers),
    } as unknown as Limits;
    const timeoutMs = cap(req(1), defaults.timeoutMs);
    const cpuMs = req(32);
    const seedBytes = asBytes(m[K.seed]);
    const seed = seedBytes !== undefined && typedArrayLength(seedBytes) === 16 ? seedFrom(seedBytes) : platform.randomSeed();
    const clock: number[] = [];
    const clockIn = m[K.clock];
    if (isArray(clockIn)) {
      for (let i = 0; i < clockIn.length; i++) if (typeof clockIn[i] === "number") push(clock, clockIn[i] as number);
    }

    let deadline: unknown;
    let ending = false;
    const host: Host = {
      toolCall(seq, namespace, tool, inputJSON, observed, prefilled, draws, bytes) {
        if (executions[id] === undefined) return;
        const c = head(Kind.toolCall, id);
        c.key(K.seq).uint(seq);
        textField(c, K.namespace, namespace);
        textField(c, K.tool, tool);
        c.key(K.input).textAsBytes(inputJSON);
        clockField(c, observed);
        if (prefilled) c.key(K.prefilled).bool(true);
        if (draws > 0) c.key(K.randomDraws).uint(draws);
        if (bytes > 0) c.key(K.randomBytes).uint(bytes);
        try {
          send(c);
        } catch (error) {
          throw withClock(error, `the call of ${namespace}.${tool}`, observed);
        }
      },
      output(stream, text) {
        if (executions[id] === undefined) return;
        const o = head(Kind.output, id);
        o.key(K.stream).text(stream);
        textField(o, K.text, text);
        send(o);
      },
      // The result goes once the turn's jobs have run and the warnings of
      // what the execution left behind are written (afterTurn), unless the
      // host cancelled the execution meanwhile.
      finish(result: Finish) {
        const ex = executions[id];
        if (ex === undefined || ending) return;
        platform.afterTurn(() => {
          if (executions[id] !== ex) return;
          ex.warnAtEnd();
          sendResult(ex, result);
        });
        ending = true;
      },
    };
    // sendResult sends the result, at the bottom of the stack (afterTurn),
    // and forgets the execution.
    const sendResult = (ex: Execution, result: Finish): void => {
      try {
        send(resultMessage(id, result));
      } catch (error) {
        send(failure(id, "RangeError", (withClock(error, "the result", result.clock) as Error).message));
      } finally {
        if (deadline !== undefined) platform.clearTimer(deadline);
        platform.ended(ex);
        delete executions[id];
      }
    };
    // The scope setup, compiled before the program's module is evaluated
    // (and kept: setups). One that does not compile fails the execution.
    let setup: unknown = null;
    let setupError: { error: unknown } | undefined;
    const setupText = m[K.setup];
    if (typeof setupText === "string" && setupText !== "") {
      try {
        setup = compiledSetup(setupText);
      } catch (error) {
        setupError = { error };
      }
    }
    // The results the host promised (wire 1.3), by seq.
    let prefill: Record<number, string> | null = null;
    const prefillIn = m[K.prefill];
    if (isArray(prefillIn)) {
      prefill = record<string>();
      for (let i = 0; i < prefillIn.length; i++) {
        const p = asMap(prefillIn[i]);
        const output = p === undefined ? undefined : asBytes(p[2]);
        if (p === undefined || typeof p[1] !== "number" || output === undefined) throw new TypeErrorCtor("malformed prefilled result");
        prefill[p[1] as number] = utf8Decode(output, 0, typedArrayLength(output));
      }
    }
    // Where the module's places lie in the program (wire 1.8).
    const pm = asMap(m[K.positions]);
    const positions = pm === undefined ? undefined : positionsOf(pm[1], pm[2]);
    const request = {
      __proto__: null, filename, hasInput, input, namespaces, limits, seed, clock, setup, prefill, positions,
    } as unknown as Parameters<typeof createExecution>[1];
    const execution = createExecution(host, request, platform.now);
    executions[id] = execution;
    platform.started(execution);
    if (cpuMs > 0 && platform.cpu !== undefined) platform.cpu.track(execution, cpuMs);
    if (timeoutMs > 0) {
      deadline = platform.setTimer(() => {
        const e = new ErrorCtor(`the execution deadline of ${duration(timeoutMs)} was exceeded`);
        defineProperty(e, "name", data("TimeoutError", false));
        // Where the program waited, when it waited for a tool call.
        defineProperty(e, "stack", data(execution.waitingStack(), false));
        execution.fail(e, "deadline");
      }, timeoutMs);
    }
    if (setupError !== undefined) {
      const error = setupError.error;
      platform.run(execution, () => execution.fail(error));
      return;
    }
    platform.run(execution, () => execution.run(() => opts.importModule(text, filename, id, compiled)));
  };

  const handle = (m: CBORMap) => {
    const kind = m[K.kind];
    const id = m[K.execution];
    if (typeof id !== "number" || id < 1) throw new ErrorCtor(`message of kind ${kind} has no execution id`);
    switch (kind) {
      case Kind.execute:
        execute(m);
        return;
      case Kind.toolResult: {
        const seq = asUint(m[K.seq]);
        const output = asBytes(m[K.output]);
        const error = asMap(m[K.error]);
        const execution = executions[id];
        if (execution === undefined) return;
        if (platform.cpu !== undefined) platform.cpu.resumed(execution);
        if (m[K.release] === true) execution.release(seq);
        else if (output !== undefined && m[K.held] === true) execution.hold(seq, utf8Decode(output, 0, typedArrayLength(output)));
        else if (output !== undefined) execution.deliver(seq, true, utf8Decode(output, 0, typedArrayLength(output)));
        else {
          const name = error !== undefined && typeof error[1] === "string" ? error[1] : "Error";
          const message = error !== undefined && typeof error[2] === "string" ? error[2] : "";
          // The error's data (wire 1.7): a JSON object the host checked.
          const props = error !== undefined ? asBytes(error[32]) : undefined;
          const tail = props !== undefined ? `,"data":${utf8Decode(props, 0, typedArrayLength(props))}` : "";
          const payload = `{"name":${quote(name)},"message":${quote(message)}${tail}}`;
          // In the execution's context: the call's promise, rejected with
          // no handler, is then the execution's (Execution.rejection).
          platform.run(execution, () => execution.deliver(seq, false, payload));
        }
        return;
      }
      case Kind.cancel: {
        const ex = executions[id];
        if (ex === undefined) return;
        delete executions[id];
        platform.ended(ex);
        return;
      }
      default:
        throw new ErrorCtor(`unexpected message kind ${kind} from the host`);
    }
  };

  {
    const ready = head(Kind.ready, 0);
    ready.key(K.version).uint(protocolVersion);
    textField(ready, K.runner, opts.runner);
    const vr = new MapWriter();
    const min = new MapWriter();
    min.key(1).uint(1);
    min.into(vr.key(1));
    const max = new MapWriter();
    max.key(1).uint(protocolVersion);
    max.key(2).uint(protocolMinor);
    max.into(vr.key(2));
    vr.into(ready.key(K.versions));
    if (opts.stripTypes !== undefined) ready.key(K.typeScript).bool(true);
    send(ready);
  }

  return (chunk: Uint8Array) => {
    if (dead) return;
    try {
      // buffered holds used bytes not yet decoded; it grows by doubling, so
      // a large frame arriving in many chunks is copied O(size) times in
      // total, not once per chunk.
      const size = typedArrayLength(chunk);
      if (used + size > typedArrayLength(buffered)) {
        const grown = new Uint8ArrayCtor(mathMax(used + size, 2 * typedArrayLength(buffered), 4096));
        typedArraySet(grown, view(buffered, 0, used));
        buffered = grown;
      }
      typedArraySet(buffered, chunk, used);
      used += size;
      const joined = buffered;
      const total = used;
      let at = 0;
      while (total - at >= 4) {
        const n = ((joined[at] << 24) >>> 0) + (joined[at + 1] << 16) + (joined[at + 2] << 8) + joined[at + 3];
        if (n > maxFrameSize) throw new RangeErrorCtor(`frame of ${n} bytes exceeds the 16 MiB limit`);
        if (total - at - 4 < n) break;
        const m = asMap(decode(joined, at + 4, at + 4 + n));
        at += 4 + n;
        if (m === undefined) throw new ErrorCtor("message is not a CBOR map");
        handle(m);
      }
      if (at > 0) {
        // TypedArray set copies an overlapping source as if through a clone.
        typedArraySet(buffered, view(buffered, at, total), 0);
        used = total - at;
      }
      if (used === 0 && typedArrayLength(buffered) > 1 << 20) buffered = new Uint8ArrayCtor(0); // let a large frame's buffer go
    } catch (error) {
      fault(error instanceof ErrorCtor ? error : new ErrorCtor("runner fault"));
    }
  };
}

export { hasOwn };
