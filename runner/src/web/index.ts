// The web platform globals of the QuickJS sandbox: the WinterTC Minimum
// Common API (https://min-common-api.proposal.wintertc.org/) minus I/O, and
// fetch through the host. On Node.js most exist natively; there the runner
// installs only fetch (through the host's policy) and crypto's random
// functions (from the execution's seed).

import { TypeErrorCtor, apply, data, defineProperty, getPrototypeOf, objectCreate } from "../intrinsics";
import type { Execution } from "../core";
import { structuredClone } from "./clone";
import { AbortController, AbortSignal, Event, EventTarget, setEventClock, setReportError, setSignalTimer } from "./events";
import { Headers, Request, Response, fetchNamespace, fetchTool, makeFetch, setSignalFactory } from "./fetch";
import { makeCrypto, type Bytes } from "./random";
import { TextDecoder, TextEncoder, atob, btoa } from "./text";
import { installURL } from "./url";

/** WebDeps are what the web globals need from the runner. */
export interface WebDeps {
  /** current is the running execution, if any. */
  current(): Execution | undefined;
  /** setTimeout is the runner's own (counted against the execution's timers). */
  setTimeout(f: () => void, ms: number): unknown;
  /** reportError writes an exception no one catches (an event listener's) to the program's stderr. */
  reportError(error: unknown): void;
}

function executionOf(deps: WebDeps, what: string): Execution {
  const ex = deps.current();
  if (ex === undefined) throw new TypeErrorCtor(`${what} is only available while a program runs`);
  return ex;
}

function cryptoBytes(deps: WebDeps): () => Bytes {
  return () => executionOf(deps, "crypto").randomBytes();
}

function hostFetch(deps: WebDeps) {
  return () => {
    const ex = executionOf(deps, "fetch");
    return (input: unknown) => ex.hostCall(fetchNamespace, fetchTool, input);
  };
}

function define(global: Record<string, unknown>, name: string, value: unknown): void {
  defineProperty(global, name, data(value, false));
}

/** installWeb puts the web globals on the QuickJS global object. */
export function installWeb(global: Record<string, unknown>, deps: WebDeps): void {
  setReportError(deps.reportError);
  // performance.now as installClock left it: the execution's recorded clock.
  const perf = global.performance as { now: () => number };
  const perfNow = perf.now;
  setEventClock(() => apply(perfNow, perf, []));
  setSignalTimer((f, ms) => {
    deps.setTimeout(f, ms);
  });
  setSignalFactory(() => new AbortController().signal);
  define(global, "TextEncoder", TextEncoder);
  define(global, "TextDecoder", TextDecoder);
  define(global, "atob", atob);
  define(global, "btoa", btoa);
  define(global, "structuredClone", structuredClone);
  define(global, "Event", Event);
  define(global, "EventTarget", EventTarget);
  define(global, "AbortController", AbortController);
  define(global, "AbortSignal", AbortSignal);
  define(global, "Headers", Headers);
  define(global, "Request", Request);
  define(global, "Response", Response);
  define(global, "fetch", makeFetch(hostFetch(deps), { Request, Response }));
  const cryptoObject = makeCrypto(cryptoBytes(deps));
  define(global, "crypto", cryptoObject);
  installURL(global, TextEncoder, TextDecoder);
}

/**
 * installNodeWeb replaces Node.js's fetch with the host's (Node.js's
 * Request, Response and Headers stay) and crypto with one whose
 * getRandomValues and randomUUID read the execution's seeded stream
 * (subtle stays Node.js's).
 */
export function installNodeWeb(global: Record<string, unknown>, deps: WebDeps): void {
  setReportError(deps.reportError);
  const classes = { Request: global.Request as typeof Request, Response: global.Response as typeof Response };
  define(global, "fetch", makeFetch(hostFetch(deps), classes));
  const real = global.crypto as Record<string, unknown>;
  const ours = makeCrypto(cryptoBytes(deps)) as Record<string, unknown>;
  const crypto = objectCreate(getPrototypeOf(real)) as Record<string, unknown>;
  const realGet = real.getRandomValues as (a: unknown) => unknown;
  const realUUID = real.randomUUID as () => string;
  defineProperty(crypto, "subtle", data(real.subtle, false));
  // Outside an execution (the runner's own code), Node.js's.
  defineProperty(crypto, "getRandomValues", data(function getRandomValues(a: unknown) {
    return deps.current() === undefined ? realGet.call(real, a) : (ours.getRandomValues as (a: unknown) => unknown)(a);
  }, false));
  defineProperty(crypto, "randomUUID", data(function randomUUID() {
    return deps.current() === undefined ? realUUID.call(real) : (ours.randomUUID as () => string)();
  }, false));
  defineProperty(global, "crypto", { __proto__: null, value: crypto, writable: true, enumerable: true, configurable: true } as PropertyDescriptor);
}
