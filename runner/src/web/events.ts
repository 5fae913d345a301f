// Event, EventTarget (https://dom.spec.whatwg.org/#events, without a tree:
// no capture or bubble phases), AbortController and AbortSignal
// (https://dom.spec.whatwg.org/#aborting-ongoing-activities), including
// AbortSignal.abort, AbortSignal.timeout and AbortSignal.any.
//
// State lives in WeakMaps captured when the runner loads, never on the
// objects a program sees.

import { TypeErrorCtor, apply } from "../intrinsics";
import { domError } from "./dom";

const WeakMapCtor = WeakMap;
const wmGet = WeakMap.prototype.get;
const wmSet = WeakMap.prototype.set;

interface EventState {
  type: string;
  bubbles: boolean;
  cancelable: boolean;
  composed: boolean;
  canceled: boolean;
  stop: boolean;
  stopNow: boolean;
  dispatching: boolean;
  target: EventTarget | null;
  current: EventTarget | null;
  timeStamp: number;
  inPassive: boolean;
}

interface Listener {
  type: string;
  callback: unknown;
  capture: boolean;
  once: boolean;
  passive: boolean;
  removed: boolean;
}

const eventStates = new WeakMapCtor<object, EventState>();
const targetStates = new WeakMapCtor<object, Listener[]>();

function eventState(self: unknown): EventState {
  const s = typeof self === "object" && self !== null ? (apply(wmGet, eventStates, [self]) as EventState | undefined) : undefined;
  if (s === undefined) throw new TypeErrorCtor("Illegal invocation: not an Event");
  return s;
}

function listeners(self: unknown): Listener[] {
  const s = typeof self === "object" && self !== null ? (apply(wmGet, targetStates, [self]) as Listener[] | undefined) : undefined;
  if (s === undefined) throw new TypeErrorCtor("Illegal invocation: not an EventTarget");
  return s;
}

let eventClock = (): number => 0;
/**
 * setEventClock sets what Event.timeStamp reads: performance.now as the
 * runner installed it, the execution's recorded clock, so that a durable
 * replay sees the value the first pass saw (the wall clock, before, was
 * neither relative to the time origin nor recorded).
 */
export function setEventClock(now: () => number): void {
  eventClock = now;
}

/** Event is the DOM's Event. */
export class Event {
  static readonly NONE = 0;
  static readonly CAPTURING_PHASE = 1;
  static readonly AT_TARGET = 2;
  static readonly BUBBLING_PHASE = 3;
  constructor(type: unknown, init?: { bubbles?: boolean; cancelable?: boolean; composed?: boolean }) {
    if (arguments.length === 0) throw new TypeErrorCtor("Event: 1 argument required, but only 0 present");
    const i = init === undefined || init === null ? {} : init;
    apply(wmSet, eventStates, [this, {
      __proto__: null, type: `${type}`, bubbles: !!i.bubbles, cancelable: !!i.cancelable, composed: !!i.composed,
      canceled: false, stop: false, stopNow: false, dispatching: false, target: null, current: null,
      timeStamp: eventClock(), inPassive: false,
    }]);
  }
  get type(): string { return eventState(this).type; }
  get target(): EventTarget | null { return eventState(this).target; }
  get srcElement(): EventTarget | null { return eventState(this).target; }
  get currentTarget(): EventTarget | null { return eventState(this).current; }
  get eventPhase(): number {
    const s = eventState(this);
    return s.dispatching ? 2 : 0;
  }
  get bubbles(): boolean { return eventState(this).bubbles; }
  get cancelable(): boolean { return eventState(this).cancelable; }
  get composed(): boolean { return eventState(this).composed; }
  get defaultPrevented(): boolean { return eventState(this).canceled; }
  get returnValue(): boolean { return !eventState(this).canceled; }
  get cancelBubble(): boolean { return eventState(this).stop; }
  set cancelBubble(v: boolean) { if (v) eventState(this).stop = true; }
  get isTrusted(): boolean { eventState(this); return false; }
  get timeStamp(): number { return eventState(this).timeStamp; }
  composedPath(): EventTarget[] {
    const s = eventState(this);
    return s.dispatching && s.current !== null ? [s.current] : [];
  }
  preventDefault(): void {
    const s = eventState(this);
    if (s.cancelable && !s.inPassive) s.canceled = true;
  }
  stopPropagation(): void { eventState(this).stop = true; }
  stopImmediatePropagation(): void {
    const s = eventState(this);
    s.stop = true;
    s.stopNow = true;
  }
}

/** reportError is where a listener's exception goes (the runner's console.error). */
let reportError: (error: unknown) => void = () => {};
/** setReportError sets where listeners' exceptions are reported. */
export function setReportError(f: (error: unknown) => void): void {
  reportError = f;
}

function flatten(options: unknown): { capture: boolean; once: boolean; passive: boolean; signal: unknown } {
  if (typeof options === "boolean") return { capture: options, once: false, passive: false, signal: undefined };
  if (typeof options !== "object" || options === null) return { capture: false, once: false, passive: false, signal: undefined };
  const o = options as { capture?: unknown; once?: unknown; passive?: unknown; signal?: unknown };
  return { capture: !!o.capture, once: !!o.once, passive: !!o.passive, signal: o.signal };
}

/** EventTarget is the DOM's EventTarget, for targets without parents. */
export class EventTarget {
  constructor() {
    apply(wmSet, targetStates, [this, []]);
  }
  addEventListener(type: unknown, callback: unknown, options?: unknown): void {
    const list = listeners(this);
    if (arguments.length < 2) throw new TypeErrorCtor(`EventTarget.addEventListener: 2 arguments required, but only ${arguments.length} present`);
    const o = flatten(options);
    if (o.signal !== undefined && !isAbortSignal(o.signal)) throw new TypeErrorCtor("EventTarget.addEventListener: options.signal is not an AbortSignal");
    if (callback === null || callback === undefined) return;
    if (typeof callback !== "function" && typeof callback !== "object") throw new TypeErrorCtor("EventTarget.addEventListener: the listener is not an object or a function");
    if (o.signal !== undefined && signalState(o.signal).aborted) return;
    const t = `${type}`;
    for (let i = 0; i < list.length; i++) {
      if (list[i].type === t && list[i].callback === callback && list[i].capture === o.capture) return;
    }
    const l: Listener = { __proto__: null, type: t, callback, capture: o.capture, once: o.once, passive: o.passive, removed: false } as unknown as Listener;
    list[list.length] = l;
    if (o.signal !== undefined) {
      const target = this;
      addAbortAlgorithm(o.signal as AbortSignal, () => apply(removeListener, target, [t, callback, o.capture]));
    }
  }
  removeEventListener(type: unknown, callback: unknown, options?: unknown): void {
    apply(removeListener, this, [`${type}`, callback, flatten(options).capture]);
  }
  dispatchEvent(event: Event): boolean {
    const list = listeners(this);
    const s = eventState(event);
    if (s.dispatching) throw domError("EventTarget.dispatchEvent: the event is already being dispatched", "InvalidStateError");
    s.dispatching = true;
    s.target = this;
    s.current = this;
    const snapshot: Listener[] = [];
    for (let i = 0; i < list.length; i++) snapshot[i] = list[i];
    for (let i = 0; i < snapshot.length; i++) {
      const l = snapshot[i];
      if (l.removed || l.type !== s.type) continue;
      if (l.once) apply(removeListener, this, [l.type, l.callback, l.capture]);
      if (l.passive) s.inPassive = true;
      try {
        if (typeof l.callback === "function") apply(l.callback as never, this, [event]);
        else {
          const handle = (l.callback as { handleEvent?: unknown }).handleEvent;
          if (typeof handle !== "function") throw new TypeErrorCtor("the event listener has no handleEvent method");
          apply(handle as never, l.callback, [event]);
        }
      } catch (error) {
        reportError(error);
      }
      s.inPassive = false;
      if (s.stopNow) break;
    }
    s.dispatching = false;
    s.current = null;
    s.stop = false;
    s.stopNow = false;
    return !s.canceled;
  }
}

function removeListener(this: EventTarget, type: string, callback: unknown, capture: boolean): void {
  const list = listeners(this);
  for (let i = 0; i < list.length; i++) {
    const l = list[i];
    if (l.type === type && l.callback === callback && l.capture === capture) {
      l.removed = true;
      for (let j = i; j + 1 < list.length; j++) list[j] = list[j + 1];
      list.length--;
      return;
    }
  }
}

interface SignalState {
  aborted: boolean;
  reason: unknown;
  algorithms: (() => void)[];
  onabort: unknown;
  dependent: boolean;
  sources: AbortSignal[];
  dependents: AbortSignal[];
}

const signalStates = new WeakMapCtor<object, SignalState>();
let constructingSignal = false;

function isAbortSignal(v: unknown): boolean {
  return typeof v === "object" && v !== null && apply(wmGet, signalStates, [v]) !== undefined;
}

function signalState(self: unknown): SignalState {
  const s = typeof self === "object" && self !== null ? (apply(wmGet, signalStates, [self]) as SignalState | undefined) : undefined;
  if (s === undefined) throw new TypeErrorCtor("Illegal invocation: not an AbortSignal");
  return s;
}

/** addAbortAlgorithm runs f when signal aborts (at once if it has). */
export function addAbortAlgorithm(signal: AbortSignal, f: () => void): void {
  const s = signalState(signal);
  if (s.aborted) return;
  s.algorithms[s.algorithms.length] = f;
}

function newSignal(): AbortSignal {
  constructingSignal = true;
  try {
    return new AbortSignal();
  } finally {
    constructingSignal = false;
  }
}

/** signalAbort aborts signal with reason (a DOMException "AbortError" when undefined). */
export function signalAbort(signal: AbortSignal, reason: unknown): void {
  const s = signalState(signal);
  if (s.aborted) return;
  s.aborted = true;
  s.reason = reason === undefined ? domError("This operation was aborted", "AbortError") : reason;
  const toAbort: AbortSignal[] = [];
  for (let i = 0; i < s.dependents.length; i++) {
    const d = signalState(s.dependents[i]);
    if (!d.aborted) {
      d.aborted = true;
      d.reason = s.reason;
      toAbort[toAbort.length] = s.dependents[i];
    }
  }
  runAbortSteps(signal);
  for (let i = 0; i < toAbort.length; i++) runAbortSteps(toAbort[i]);
}

function runAbortSteps(signal: AbortSignal): void {
  const s = signalState(signal);
  const algorithms = s.algorithms;
  s.algorithms = [];
  for (let i = 0; i < algorithms.length; i++) {
    try {
      algorithms[i]();
    } catch (error) {
      reportError(error);
    }
  }
  const event = new Event("abort");
  if (typeof s.onabort === "function") {
    try {
      apply(s.onabort as never, signal, [event]);
    } catch (error) {
      reportError(error);
    }
  }
  signal.dispatchEvent(event);
}

/** timer is the runner's setTimeout, for AbortSignal.timeout. */
let timer: (f: () => void, ms: number) => void = () => {
  throw new TypeErrorCtor("AbortSignal.timeout: no timers here");
};
/** setSignalTimer sets the timer AbortSignal.timeout uses. */
export function setSignalTimer(f: (f: () => void, ms: number) => void): void {
  timer = f;
}

/** AbortSignal is the DOM's AbortSignal. */
export class AbortSignal extends EventTarget {
  constructor() {
    if (!constructingSignal) throw new TypeErrorCtor("Illegal constructor: use new AbortController().signal or AbortSignal.abort()/timeout()/any()");
    super();
    apply(wmSet, signalStates, [this, { __proto__: null, aborted: false, reason: undefined, algorithms: [], onabort: null, dependent: false, sources: [], dependents: [] }]);
  }
  static abort(reason?: unknown): AbortSignal {
    const signal = newSignal();
    const s = signalState(signal);
    s.aborted = true;
    s.reason = reason === undefined ? domError("This operation was aborted", "AbortError") : reason;
    return signal;
  }
  static timeout(ms: unknown): AbortSignal {
    const n = Number(ms);
    if (!Number.isFinite(n) || n < 0 || n > Number.MAX_SAFE_INTEGER) throw new TypeErrorCtor("AbortSignal.timeout: the delay must be a non-negative finite number of milliseconds");
    const signal = newSignal();
    timer(() => signalAbort(signal, domError("The operation was aborted due to timeout", "TimeoutError")), Math.trunc(n));
    return signal;
  }
  static any(signals: Iterable<AbortSignal>): AbortSignal {
    const list: AbortSignal[] = [];
    for (const s of signals) {
      signalState(s);
      list[list.length] = s;
    }
    const result = newSignal();
    const rs = signalState(result);
    for (let i = 0; i < list.length; i++) {
      const s = signalState(list[i]);
      if (s.aborted) {
        rs.aborted = true;
        rs.reason = s.reason;
        return result;
      }
    }
    rs.dependent = true;
    for (let i = 0; i < list.length; i++) {
      const s = signalState(list[i]);
      const sources = s.dependent ? s.sources : [list[i]];
      for (let j = 0; j < sources.length; j++) {
        const src = signalState(sources[j]);
        rs.sources[rs.sources.length] = sources[j];
        src.dependents[src.dependents.length] = result;
      }
    }
    return result;
  }
  get aborted(): boolean { return signalState(this).aborted; }
  get reason(): unknown { return signalState(this).reason; }
  get onabort(): unknown { return signalState(this).onabort; }
  set onabort(f: unknown) { signalState(this).onabort = typeof f === "function" || typeof f === "object" ? f : null; }
  throwIfAborted(): void {
    const s = signalState(this);
    if (s.aborted) throw s.reason;
  }
}

const controllerSignals = new WeakMapCtor<object, AbortSignal>();

/** AbortController is the DOM's AbortController. */
export class AbortController {
  constructor() {
    apply(wmSet, controllerSignals, [this, newSignal()]);
  }
  get signal(): AbortSignal {
    const s = typeof this === "object" && this !== null ? (apply(wmGet, controllerSignals, [this]) as AbortSignal | undefined) : undefined;
    if (s === undefined) throw new TypeErrorCtor("Illegal invocation: not an AbortController");
    return s;
  }
  abort(reason?: unknown): void {
    signalAbort(this.signal, reason);
  }
}
