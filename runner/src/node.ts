// The Node.js entry of the runner: the bootstrap in drivers/node hands it
// the platform's pieces (AsyncLocalStorage, crypto, the host's timers), and
// it installs per-execution Date, Math.random and timers on the global
// object, then serves the wire protocol. Programs share this realm and
// process (Node.js is for trusted code); the runner still keeps its state
// where they cannot reach it, and bounds each execution's timers.

import { ErrorCtor, RangeErrorCtor, apply, data, dateNow, DateCtor, defineProperty, push } from "./intrinsics";
import { installClock, installErrors, type Execution, type ModuleBox } from "./core";
import { startRunner, type Channel, type RunnerLimits } from "./wire";
import { cpuMeter } from "./cpu";
import { installNodeWeb } from "./web/index";
import { installV8Stacks } from "./stack";

export interface NodeDeps {
  channel: Channel;
  importModule(source: string, filename: string, execution: number, compiled?: unknown): Promise<ModuleBox>;
  /** compileModule compiles a stripped program's module before it runs (see RunnerOptions). */
  compileModule?(source: string, filename: string, execution: number): unknown;
  /** compileSetup compiles a scope setup (see RunnerOptions). */
  compileSetup(text: string): unknown;
  /** stripTypes erases a program's TypeScript types in place (see RunnerOptions); absent, the host erases them. */
  stripTypes?(source: string): string;
  runner: string;
  limits: RunnerLimits;
  /** storage is a new AsyncLocalStorage. */
  storage: { run<T>(store: unknown, f: () => T): T; getStore(): unknown };
  /** randomBytes is node:crypto's. */
  randomBytes(n: number): Uint8Array;
  /** cpuNow is the CPU time this thread has used, in milliseconds (process.threadCpuUsage). */
  cpuNow(): number;
  /** setImmediate is the host's own. */
  setImmediate(f: () => void): void;
  /**
   * onRejections registers the process's unhandledRejection listener
   * (unhandled, with the reason and the promise) and its
   * rejectionHandled listener (handled, with the promise).
   */
  onRejections(unhandled: (reason: unknown, promise: unknown) => void, handled: (promise: unknown) => void): void;
  global: Record<string, unknown>;
}

interface Tracked {
  ex: Execution;
  timers: Set<unknown>;
}

export function startNodeRunner(deps: NodeDeps): (chunk: Uint8Array) => void {
  const g = deps.global;
  const storage = deps.storage;
  const getStore = storage.getStore;
  const storageRun = storage.run;
  const realSetTimeout = g.setTimeout as (f: () => void, ms: number) => unknown;
  const realClearTimeout = g.clearTimeout as (h: unknown) => void;
  const realSetInterval = g.setInterval as (f: () => void, ms: number) => unknown;
  const realClearInterval = g.clearInterval as (h: unknown) => void;
  const randomBytes = deps.randomBytes;
  const SetCtor = Set;
  const setAdd = Set.prototype.add;
  const setDelete = Set.prototype.delete;
  const setForEach = Set.prototype.forEach;
  const setClear = Set.prototype.clear;
  const sizeGetter = (Reflect.getOwnPropertyDescriptor(Set.prototype, "size") as PropertyDescriptor).get as () => number;
  const WeakMapCtor = WeakMap;
  const weakGet = WeakMap.prototype.get;
  const weakSet = WeakMap.prototype.set;
  const owners = new WeakMapCtor<Execution, Tracked>();
  // rejectedIn is the execution each promise Node.js reported unhandled
  // belongs to: the one current where it was rejected (Node.js 24 runs the
  // listener in that context; the runner rejects a tool call's promise in
  // its execution's), which the later rejectionHandled does not say.
  const rejectedIn = new WeakMapCtor<object, Execution>();
  const cpu = cpuMeter(deps.cpuNow, deps.setImmediate);
  const timerOwners = new WeakMapCtor<object, Tracked>();

  const current = (): Tracked | undefined => {
    const ex = apply(getStore, storage, []) as Execution | undefined;
    return ex === undefined ? undefined : (apply(weakGet, owners, [ex]) as Tracked | undefined);
  };

  const limitError = (t: Tracked, what: string): Error => {
    const max = t.ex.limits.maxTimers;
    return new RangeErrorCtor(`${what}: ${max} timers are pending, the execution's limit (maxTimers); clearTimeout frees one`);
  };

  // wrap makes a timer function that counts the execution's pending timers.
  const wrap = (real: (f: () => void, ms: number) => unknown, what: string, once: boolean) =>
    function (this: unknown, callback: unknown, ms?: unknown, ...args: unknown[]): unknown {
      const t = current();
      if (t === undefined || typeof callback !== "function") {
        const all: unknown[] = [callback, ms];
        for (let i = 0; i < args.length; i++) push(all, args[i]);
        return apply(real as never, g, all);
      }
      if (t.ex.finished()) throw new ErrorCtor(`${what} was called after the program finished`);
      if (apply(sizeGetter, t.timers, []) >= t.ex.limits.maxTimers) {
        const error = limitError(t, what);
        t.ex.fail(error);
        throw error;
      }
      let handle: unknown;
      // A throw from the callback fails the execution, as on QuickJS;
      // uncaught, it went to the process's uncaughtException handler and
      // the program went on.
      const fire = function (this: unknown) {
        if (once) apply(setDelete, t.timers, [handle]);
        cpu.resumed(t.ex);
        try {
          return apply(callback as never, this, args);
        } catch (error) {
          t.ex.fail(error);
          return undefined;
        }
      };
      handle = apply(real as never, g, [fire, ms]);
      apply(setAdd, t.timers, [handle]);
      if (typeof handle === "object" && handle !== null) apply(weakSet, timerOwners, [handle, t]);
      return handle;
    };

  const unwrapClear = (real: (h: unknown) => void) =>
    function (handle: unknown): void {
      if (typeof handle === "object" && handle !== null) {
        const t = apply(weakGet, timerOwners, [handle]) as Tracked | undefined;
        if (t !== undefined) apply(setDelete, t.timers, [handle]);
      }
      apply(real as never, g, [handle]);
    };

  defineProperty(g, "setTimeout", data(wrap(realSetTimeout, "setTimeout", true), false));
  defineProperty(g, "setInterval", data(wrap(realSetInterval, "setInterval", false), false));
  defineProperty(g, "clearTimeout", data(unwrapClear(realClearTimeout), false));
  defineProperty(g, "clearInterval", data(unwrapClear(realClearInterval), false));
  deps.onRejections((reason, promise) => {
    try {
      const ex = apply(getStore, storage, []) as Execution | undefined;
      if (ex === undefined || typeof promise !== "object" || promise === null) return;
      apply(weakSet, rejectedIn, [promise, ex]);
      ex.rejection(promise, reason, false);
    } catch {
      // a listener must not throw: it would be an uncaught exception
    }
  }, (promise) => {
    try {
      if (typeof promise !== "object" || promise === null) return;
      const ex = apply(weakGet, rejectedIn, [promise]) as Execution | undefined;
      if (ex !== undefined) ex.rejection(promise, undefined, true);
    } catch {
      // as above
    }
  });
  installClock(g, () => apply(getStore, storage, []) as Execution | undefined);
  installV8Stacks(() => {
    const ex = apply(getStore, storage, []) as Execution | undefined;
    return ex === undefined ? undefined : ex.frames();
  });
  installErrors(g);
  installNodeWeb(g, {
    current: () => apply(getStore, storage, []) as Execution | undefined,
    setTimeout: (f, ms) => apply(realSetTimeout as never, g, [f, ms]),
    reportError: (error) => {
      const ex = apply(getStore, storage, []) as Execution | undefined;
      if (ex !== undefined) ex.write("stderr", ["Uncaught (in an event listener)", error]);
    },
  });

  return startRunner({
    channel: deps.channel,
    importModule: deps.importModule,
    compileModule: deps.compileModule,
    compileSetup: deps.compileSetup,
    stripTypes: deps.stripTypes,
    runner: deps.runner,
    limits: deps.limits,
    platform: {
      run: (ex, f) => apply(storageRun as never, storage, [ex, f]),
      randomSeed() {
        const b = randomBytes(16);
        const out: number[] = [];
        for (let i = 0; i < 4; i++) push(out, ((b[4 * i] << 24) | (b[4 * i + 1] << 16) | (b[4 * i + 2] << 8) | b[4 * i + 3]) >>> 0);
        return out;
      },
      now: () => apply(dateNow, DateCtor, []),
      setTimer: (f, ms) => apply(realSetTimeout as never, g, [f, ms]),
      clearTimer: (h) => apply(realClearTimeout as never, g, [h]),
      // Node.js emits unhandledRejection after each turn's microtasks, before
      // the immediates of that turn of its event loop.
      afterTurn: (f) => deps.setImmediate(f),
      cpu,
      started(ex) {
        apply(weakSet, owners, [ex, { __proto__: null, ex, timers: new SetCtor() }]);
      },
      // An ended execution's timers are stopped: nothing of it runs later.
      ended(ex) {
        const t = apply(weakGet, owners, [ex]) as Tracked | undefined;
        if (t === undefined) return;
        apply(setForEach, t.timers, [(h: unknown) => {
          apply(realClearTimeout as never, g, [h]);
          apply(realClearInterval as never, g, [h]);
        }]);
        apply(setClear, t.timers, []);
      },
    },
  });
}
