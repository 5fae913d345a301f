// fetch, Headers, Request and Response (https://fetch.spec.whatwg.org/),
// for what code mode supports: bodies are strings, bytes (ArrayBuffer, typed
// arrays, DataView) or URLSearchParams, read whole with text(), json(),
// arrayBuffer() or bytes(); there are no streams (no body property,
// ReadableStream, Blob or FormData). fetch itself is a call to the host
// (namespace "@web", tool "fetch"), which applies the embedder's fetch
// policy; without one, fetch fails with a TypeError.

import { RangeErrorCtor, TypeErrorCtor, Uint8ArrayCtor, apply, charCodeAt, jsonParse, typedArrayLength } from "../intrinsics";
import type { AbortSignal } from "./events";
import { base64Decode, base64Encode, bytesOf, utf8Decode, utf8Encode } from "./text";

const WeakMapCtor = WeakMap;
const wmGet = WeakMap.prototype.get;
const wmSet = WeakMap.prototype.set;
const PromiseCtor = Promise;

/** The host call that performs a fetch: namespace and tool. */
export const fetchNamespace = "@web";
export const fetchTool = "fetch";

function isToken(name: string): boolean {
  if (name.length === 0) return false;
  for (let i = 0; i < name.length; i++) {
    const c = charCodeAt(name, i);
    const ok = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || "!#$%&'*+-.^_`|~".indexOf(name[i]) >= 0;
    if (!ok) return false;
  }
  return true;
}

function lower(name: string): string {
  let out = "";
  for (let i = 0; i < name.length; i++) {
    const c = charCodeAt(name, i);
    out += c >= 65 && c <= 90 ? String.fromCharCode(c + 32) : name[i];
  }
  return out;
}

function normalizeValue(value: string): string {
  let s = 0;
  let e = value.length;
  const ws = (c: number) => c === 9 || c === 10 || c === 13 || c === 32;
  while (s < e && ws(charCodeAt(value, s))) s++;
  while (e > s && ws(charCodeAt(value, e - 1))) e--;
  const v = value.slice(s, e);
  for (let i = 0; i < v.length; i++) {
    const c = charCodeAt(v, i);
    if (c === 0 || c === 10 || c === 13 || c > 255) throw new TypeErrorCtor(`Headers: invalid header value ${JSON.stringify(value)}`);
  }
  return v;
}

const headerLists = new WeakMapCtor<object, [string, string][]>();

function headerList(self: unknown): [string, string][] {
  const l = typeof self === "object" && self !== null ? (apply(wmGet, headerLists, [self]) as [string, string][] | undefined) : undefined;
  if (l === undefined) throw new TypeErrorCtor("Illegal invocation: not a Headers");
  return l;
}

/** Headers is the Fetch Standard's Headers (guard "none": every header may be set). */
export class Headers {
  constructor(init?: unknown) {
    apply(wmSet, headerLists, [this, []]);
    if (init === undefined || init === null) return;
    if (typeof init !== "object") throw new TypeErrorCtor("Headers: init must be an object, an array of pairs or a Headers");
    const iterator = (init as { [Symbol.iterator]?: unknown })[Symbol.iterator];
    if (typeof iterator === "function") {
      for (const pair of init as Iterable<unknown>) {
        const p = [...(pair as Iterable<unknown>)];
        if (p.length !== 2) throw new TypeErrorCtor("Headers: each pair of init must have exactly two items, a name and a value");
        this.append(p[0] as string, p[1] as string);
      }
      return;
    }
    for (const key of Object.keys(init)) this.append(key, (init as Record<string, string>)[key]);
  }
  append(name: string, value: string): void {
    const list = headerList(this);
    const n = `${name}`;
    if (!isToken(n)) throw new TypeErrorCtor(`Headers: invalid header name ${JSON.stringify(n)}`);
    list[list.length] = [lower(n), normalizeValue(`${value}`)];
  }
  delete(name: string): void {
    const list = headerList(this);
    const n = lower(`${name}`);
    let w = 0;
    for (let i = 0; i < list.length; i++) if (list[i][0] !== n) list[w++] = list[i];
    list.length = w;
  }
  get(name: string): string | null {
    const list = headerList(this);
    const n = lower(`${name}`);
    let out: string | null = null;
    for (let i = 0; i < list.length; i++) {
      if (list[i][0] === n) out = out === null ? list[i][1] : `${out}, ${list[i][1]}`;
    }
    return out;
  }
  getSetCookie(): string[] {
    const list = headerList(this);
    const out: string[] = [];
    for (let i = 0; i < list.length; i++) if (list[i][0] === "set-cookie") out[out.length] = list[i][1];
    return out;
  }
  has(name: string): boolean {
    return this.get(name) !== null;
  }
  set(name: string, value: string): void {
    const list = headerList(this);
    const n = `${name}`;
    if (!isToken(n)) throw new TypeErrorCtor(`Headers: invalid header name ${JSON.stringify(n)}`);
    const l = lower(n);
    const v = normalizeValue(`${value}`);
    let w = 0;
    let done = false;
    for (let i = 0; i < list.length; i++) {
      if (list[i][0] !== l) list[w++] = list[i];
      else if (!done) {
        list[w++] = [l, v];
        done = true;
      }
    }
    list.length = w;
    if (!done) list[list.length] = [l, v];
  }
  forEach(callback: (value: string, name: string, headers: Headers) => void, thisArg?: unknown): void {
    const pairs = sortedPairs(this);
    for (let i = 0; i < pairs.length; i++) apply(callback as never, thisArg, [pairs[i][1], pairs[i][0], this]);
  }
  *entries(): IterableIterator<[string, string]> {
    const pairs = sortedPairs(this);
    for (let i = 0; i < pairs.length; i++) yield [pairs[i][0], pairs[i][1]];
  }
  *keys(): IterableIterator<string> {
    const pairs = sortedPairs(this);
    for (let i = 0; i < pairs.length; i++) yield pairs[i][0];
  }
  *values(): IterableIterator<string> {
    const pairs = sortedPairs(this);
    for (let i = 0; i < pairs.length; i++) yield pairs[i][1];
  }
  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }
  get [Symbol.toStringTag](): string {
    return "Headers";
  }
}

/** sortedPairs is the "sort and combine" of the Fetch Standard: by name, values joined with ", " (set-cookie kept apart). */
function sortedPairs(h: Headers): [string, string][] {
  const list = headerList(h);
  const names: string[] = [];
  for (let i = 0; i < list.length; i++) if (names.indexOf(list[i][0]) < 0) names[names.length] = list[i][0];
  names.sort();
  const out: [string, string][] = [];
  for (let i = 0; i < names.length; i++) {
    if (names[i] === "set-cookie") {
      for (let j = 0; j < list.length; j++) if (list[j][0] === "set-cookie") out[out.length] = ["set-cookie", list[j][1]];
    } else out[out.length] = [names[i], h.get(names[i]) as string];
  }
  return out;
}

interface Body {
  bytes: Uint8Array | null;
  used: boolean;
}

const bodies = new WeakMapCtor<object, Body>();

function bodyOf(self: unknown): Body {
  const b = typeof self === "object" && self !== null ? (apply(wmGet, bodies, [self]) as Body | undefined) : undefined;
  if (b === undefined) throw new TypeErrorCtor("Illegal invocation: not a Request or Response");
  return b;
}

/** extractBody turns a body init into bytes and the Content-Type it implies. */
function extractBody(init: unknown): [Uint8Array, string | null] {
  if (typeof init === "string") return [utf8Encode(init), "text/plain;charset=UTF-8"];
  const bytes = bytesOf(init);
  if (bytes !== undefined) return [new Uint8ArrayCtor(bytes), null];
  const G = globalThis as unknown as { URLSearchParams?: new () => object };
  if (typeof init === "object" && init !== null && typeof G.URLSearchParams === "function" && init instanceof G.URLSearchParams) {
    return [utf8Encode(`${init}`), "application/x-www-form-urlencoded;charset=UTF-8"];
  }
  throw new TypeErrorCtor("this runtime supports string, ArrayBuffer, typed array, DataView and URLSearchParams bodies (no streams, Blob or FormData)");
}

function consume(self: unknown): Promise<Uint8Array> {
  let b: Body;
  try {
    b = bodyOf(self);
  } catch (error) {
    return PromiseCtor.reject(error);
  }
  if (b.used) return PromiseCtor.reject(new TypeErrorCtor("the body has already been read (bodyUsed); clone() before reading it twice"));
  b.used = true;
  return PromiseCtor.resolve(b.bytes === null ? new Uint8ArrayCtor(0) : b.bytes);
}

/** BodyMixin holds the methods Request and Response share. */
class BodyMixin {
  get bodyUsed(): boolean {
    return bodyOf(this).used;
  }
  arrayBuffer(): Promise<ArrayBuffer> {
    return consume(this).then((b) => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer);
  }
  bytes(): Promise<Uint8Array> {
    return consume(this).then((b) => new Uint8ArrayCtor(b));
  }
  text(): Promise<string> {
    return consume(this).then((b) => decodeText(b));
  }
  json(): Promise<unknown> {
    return consume(this).then((b) => jsonParse(decodeText(b)));
  }
}

function decodeText(b: Uint8Array): string {
  let start = 0;
  if (typedArrayLength(b) >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) start = 3;
  return utf8Decode(start === 0 ? b : b.subarray(start), false, false)[0];
}

const methods = ["DELETE", "GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH"];

interface RequestState {
  url: string;
  method: string;
  headers: Headers;
  signal: AbortSignal;
  redirect: string;
}

const requestStates = new WeakMapCtor<object, RequestState>();

function requestState(self: unknown): RequestState {
  const s = typeof self === "object" && self !== null ? (apply(wmGet, requestStates, [self]) as RequestState | undefined) : undefined;
  if (s === undefined) throw new TypeErrorCtor("Illegal invocation: not a Request");
  return s;
}

interface RequestInit {
  method?: string;
  headers?: unknown;
  body?: unknown;
  signal?: AbortSignal | null;
  redirect?: string;
}

/** newAbortSignal makes a signal that never aborts, for requests without one. */
let newAbortSignal: () => AbortSignal = () => {
  throw new TypeErrorCtor("no AbortController");
};
/** setSignalFactory sets how a Request without a signal gets one. */
export function setSignalFactory(f: () => AbortSignal): void {
  newAbortSignal = f;
}

function parseURL(url: string): string {
  const G = globalThis as unknown as { URL?: new (u: string) => { href: string } };
  if (typeof G.URL !== "function") return url;
  try {
    return new G.URL(url).href;
  } catch {
    throw new TypeErrorCtor(`fetch: ${JSON.stringify(url)} is not an absolute URL (there is no base URL here)`);
  }
}

/** Request is the Fetch Standard's Request, for what fetch here supports. */
export class Request extends BodyMixin {
  constructor(input: unknown, init?: RequestInit) {
    super();
    if (arguments.length === 0) throw new TypeErrorCtor("Request: 1 argument required, but only 0 present");
    const i: RequestInit = init === undefined || init === null ? {} : init;
    let from: RequestState | undefined;
    let fromBody: Body | undefined;
    if (typeof input === "object" && input !== null && apply(wmGet, requestStates, [input]) !== undefined) {
      from = requestState(input);
      fromBody = bodyOf(input);
    }
    const url = from !== undefined ? from.url : parseURL(`${input}`);
    let method = from !== undefined ? from.method : "GET";
    if (i.method !== undefined) {
      const m = `${i.method}`;
      if (!isToken(m)) throw new TypeErrorCtor(`Request: invalid method ${JSON.stringify(m)}`);
      const up = m.toUpperCase();
      method = methods.indexOf(up) >= 0 ? up : m;
      if (up === "CONNECT" || up === "TRACE" || up === "TRACK") throw new TypeErrorCtor(`Request: the method ${m} is forbidden`);
    }
    const headers = new Headers(i.headers !== undefined ? i.headers : from !== undefined ? from.headers : undefined);
    let bytes: Uint8Array | null = null;
    if (i.body !== undefined && i.body !== null) {
      if (method === "GET" || method === "HEAD") throw new TypeErrorCtor(`Request: a ${method} request cannot have a body`);
      const [b, type] = extractBody(i.body);
      bytes = b;
      if (type !== null && !headers.has("content-type")) headers.set("content-type", type);
    } else if (fromBody !== undefined && i.body === undefined) {
      if (fromBody.used) throw new TypeErrorCtor("Request: the input request's body has already been read");
      bytes = fromBody.bytes;
    }
    const signal = i.signal !== undefined && i.signal !== null ? i.signal : from !== undefined ? from.signal : newAbortSignal();
    const redirect = i.redirect !== undefined ? `${i.redirect}` : from !== undefined ? from.redirect : "follow";
    if (redirect !== "follow" && redirect !== "error" && redirect !== "manual") throw new TypeErrorCtor(`Request: invalid redirect mode ${JSON.stringify(redirect)}`);
    apply(wmSet, requestStates, [this, { __proto__: null, url, method, headers, signal, redirect }]);
    apply(wmSet, bodies, [this, { __proto__: null, bytes, used: false }]);
  }
  get url(): string { return requestState(this).url; }
  get method(): string { return requestState(this).method; }
  get headers(): Headers { return requestState(this).headers; }
  get signal(): AbortSignal { return requestState(this).signal; }
  get redirect(): string { return requestState(this).redirect; }
  get cache(): string { requestState(this); return "default"; }
  get credentials(): string { requestState(this); return "same-origin"; }
  get mode(): string { requestState(this); return "cors"; }
  get referrer(): string { requestState(this); return "about:client"; }
  get destination(): string { requestState(this); return ""; }
  clone(): Request {
    const b = bodyOf(this);
    if (b.used) throw new TypeErrorCtor("Request.clone: the body has already been read");
    return new Request(this);
  }
  get [Symbol.toStringTag](): string {
    return "Request";
  }
}

interface ResponseState {
  status: number;
  statusText: string;
  headers: Headers;
  type: string;
  url: string;
  redirected: boolean;
}

const responseStates = new WeakMapCtor<object, ResponseState>();

function responseState(self: unknown): ResponseState {
  const s = typeof self === "object" && self !== null ? (apply(wmGet, responseStates, [self]) as ResponseState | undefined) : undefined;
  if (s === undefined) throw new TypeErrorCtor("Illegal invocation: not a Response");
  return s;
}

const nullBodyStatus = [101, 103, 204, 205, 304];

/** Response is the Fetch Standard's Response, for what fetch here supports. */
export class Response extends BodyMixin {
  constructor(body?: unknown, init?: { status?: number; statusText?: string; headers?: unknown }) {
    super();
    const i = init === undefined || init === null ? {} : init;
    const status = i.status === undefined ? 200 : Number(i.status);
    if (!(status >= 200 && status <= 599 && status === Math.trunc(status))) throw new RangeErrorCtor(`Response: status ${i.status} is not in the range 200 to 599`);
    const statusText = i.statusText === undefined ? "" : `${i.statusText}`;
    const headers = new Headers(i.headers);
    let bytes: Uint8Array | null = null;
    if (body !== undefined && body !== null) {
      if (nullBodyStatus.indexOf(status) >= 0) throw new TypeErrorCtor(`Response: a ${status} response cannot have a body`);
      const [b, type] = extractBody(body);
      bytes = b;
      if (type !== null && !headers.has("content-type")) headers.set("content-type", type);
    }
    apply(wmSet, responseStates, [this, { __proto__: null, status, statusText, headers, type: "default", url: "", redirected: false }]);
    apply(wmSet, bodies, [this, { __proto__: null, bytes, used: false }]);
  }
  static json(data: unknown, init?: { status?: number; statusText?: string; headers?: unknown }): Response {
    const text = JSON.stringify(data);
    if (text === undefined) throw new TypeErrorCtor("Response.json: the data is not serialisable to JSON");
    const r = new Response(text, init);
    r.headers.set("content-type", "application/json");
    return r;
  }
  static error(): Response {
    const r = new Response(null, { status: 200 });
    const s = responseState(r);
    s.status = 0;
    s.type = "error";
    return r;
  }
  static redirect(url: unknown, status = 302): Response {
    if ([301, 302, 303, 307, 308].indexOf(status) < 0) throw new RangeErrorCtor(`Response.redirect: ${status} is not a redirect status`);
    const r = new Response(null, { status });
    r.headers.set("location", parseURL(`${url}`));
    return r;
  }
  get status(): number { return responseState(this).status; }
  get ok(): boolean {
    const s = responseState(this).status;
    return s >= 200 && s <= 299;
  }
  get statusText(): string { return responseState(this).statusText; }
  get headers(): Headers { return responseState(this).headers; }
  get type(): string { return responseState(this).type; }
  get url(): string { return responseState(this).url; }
  get redirected(): boolean { return responseState(this).redirected; }
  clone(): Response {
    const s = responseState(this);
    const b = bodyOf(this);
    if (b.used) throw new TypeErrorCtor("Response.clone: the body has already been read");
    const r = new Response(null, { status: 200 });
    apply(wmSet, responseStates, [r, { __proto__: null, status: s.status, statusText: s.statusText, headers: new Headers(s.headers), type: s.type, url: s.url, redirected: s.redirected }]);
    apply(wmSet, bodies, [r, { __proto__: null, bytes: b.bytes, used: false }]);
    return r;
  }
  get [Symbol.toStringTag](): string {
    return "Response";
  }
}

/** HostCall calls the host (namespace @web), or returns undefined when the execution may not fetch. */
export type HostCall = (input: unknown) => Promise<unknown> | undefined;

/** FetchOutput is the host's answer to a fetch call. */
interface FetchOutput {
  url: string;
  status: number;
  statusText: string;
  headers: [string, string][];
  body: string;
  redirected: boolean;
}

/**
 * makeFetch returns the global fetch: it reads the request whole, hands it
 * to the host (call) and builds the Response; classes are the global
 * Request, Response and Headers (ours, or Node.js's own).
 */
export function makeFetch(call: () => HostCall, classes: { Request: typeof Request; Response: typeof Response }): (input: unknown, init?: RequestInit) => Promise<Response> {
  const RequestC = classes.Request;
  const ResponseC = classes.Response;
  return async function fetch(input: unknown, init?: RequestInit): Promise<Response> {
    const request = new RequestC(input as string, init as never);
    const signal = request.signal;
    if (signal.aborted) throw signal.reason;
    const headers: [string, string][] = [];
    request.headers.forEach((value: string, name: string) => {
      headers[headers.length] = [name, value];
    });
    const body = request.method === "GET" || request.method === "HEAD" ? null : new Uint8ArrayCtor(await request.arrayBuffer());
    const message: Record<string, unknown> = { url: request.url, method: request.method, headers, redirect: request.redirect };
    if (body !== null && typedArrayLength(body) > 0) message.body = base64Encode(body);
    const pending = call()(message);
    if (pending === undefined) {
      throw new TypeErrorCtor(`fetch ${request.url}: the host's fetch policy allows no requests (fetch is off unless the embedder sets client.RunOptions.Fetch, or codemode --allow-fetch)`);
    }
    const answer = await new PromiseCtor<unknown>((resolve, reject) => {
      // Ours or Node.js's AbortSignal: both are EventTargets.
      signal.addEventListener("abort", () => reject(signal.reason), { once: true });
      pending.then(resolve, (error: { name?: string; message?: string }) => {
        // The host names a denial or a network failure TypeError, as the Fetch Standard does.
        reject(error !== null && typeof error === "object" && error.name === "TypeError" ? new TypeErrorCtor(error.message) : error);
      });
    });
    const out = answer as FetchOutput;
    const bytes = out.body === "" ? null : base64Decode(out.body);
    const response = new ResponseC(nullBodyStatus.indexOf(out.status) >= 0 || request.method === "HEAD" ? null : bytes, {
      status: out.status < 200 ? 200 : out.status,
      statusText: out.statusText,
      headers: out.headers,
    });
    const s = apply(wmGet, responseStates, [response]) as ResponseState | undefined;
    if (s !== undefined) {
      s.status = out.status;
      s.url = out.url;
      s.redirected = out.redirected;
      s.type = "basic";
    } else {
      // Node.js's own Response: its url and redirected are read-only getters.
      Object.defineProperty(response, "url", { value: out.url });
      Object.defineProperty(response, "redirected", { value: out.redirected });
    }
    return response;
  };
}
