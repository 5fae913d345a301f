// The CPU time limit (wire limits key 32, cpuMs) where executions share one
// thread (Node.js): an approximation, which the Go driver docs say. Each
// execution is charged the thread's CPU time from the moment it resumes (it
// starts, a tool result arrives, one of its timers fires) until the end of
// the event loop's turn, when the meter checks it; an execution resumed in
// the same turn as another is charged for both. Waiting costs nothing. A
// program that never yields the turn (for(;;){}) is never checked: only the
// deadline, which the host enforces, ends it.

import { ErrorCtor, apply, data, defineProperty, push } from "./intrinsics";
import type { Execution } from "./core";

/** CPUMeter charges executions for the turns they run in. */
export interface CPUMeter {
  /** track starts charging ex against limitMs milliseconds of CPU time, from this turn on. */
  track(ex: Execution, limitMs: number): void;
  /** resumed says that ex runs in this turn (a tool result, a timer). */
  resumed(ex: Execution): void;
}

/** duration renders milliseconds as Go's time.Duration does for whole units ("200ms", "5s"). */
export function duration(ms: number): string {
  return ms % 1000 === 0 ? (ms / 1000) + "s" : ms + "ms";
}

interface Charge {
  ex: Execution;
  limitMs: number;
  usedMs: number;
  /** mark is the thread's CPU time when ex resumed in this turn; -1 when it has not. */
  mark: number;
}

/**
 * cpuMeter makes a meter over cpuNow (the thread's CPU time used, in
 * milliseconds) and afterTurn (runs a function once this turn's work,
 * promise jobs included, is done: setImmediate).
 */
export function cpuMeter(cpuNow: () => number, afterTurn: (f: () => void) => void): CPUMeter {
  const WeakMapCtor = WeakMap;
  const weakGet = WeakMap.prototype.get;
  const weakSet = WeakMap.prototype.set;
  const charges = new WeakMapCtor<Execution, Charge>();
  let open: Charge[] = [];

  const settle = () => {
    const now = cpuNow();
    const due = open;
    open = [];
    for (let i = 0; i < due.length; i++) {
      const c = due[i];
      c.usedMs += now - c.mark;
      c.mark = -1;
      if (c.usedMs >= c.limitMs && !c.ex.finished()) {
        const e = new ErrorCtor("the execution's CPU time limit of " + duration(c.limitMs) + " was exceeded (its own work, not counting waits for tool calls and timers)");
        defineProperty(e, "name", data("TimeoutError", false));
        defineProperty(e, "stack", data("", false));
        c.ex.fail(e, "cpu-limit");
      }
    }
  };

  const resume = (c: Charge) => {
    if (c.mark >= 0 || c.ex.finished()) return;
    c.mark = cpuNow();
    if (open.length === 0) afterTurn(settle);
    push(open, c);
  };

  return {
    track(ex, limitMs) {
      const c: Charge = { __proto__: null, ex, limitMs, usedMs: 0, mark: -1 } as unknown as Charge;
      apply(weakSet, charges, [ex, c]);
      resume(c);
    },
    resumed(ex) {
      const c = apply(weakGet, charges, [ex]) as Charge | undefined;
      if (c !== undefined) resume(c);
    },
  };
}
