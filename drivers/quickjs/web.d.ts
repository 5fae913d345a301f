// The web platform globals of the QuickJS sandbox: the WinterTC Minimum
// Common API without I/O, and fetch through the host's policy. Shapes follow
// TypeScript's lib.dom.d.ts for what the runtime provides (runner/src/web).

/** https://webidl.spec.whatwg.org/#idl-DOMException */
interface DOMException extends Error {
    readonly code: number;
    readonly message: string;
    readonly name: string;
}
declare var DOMException: {
    prototype: DOMException;
    new (message?: string, name?: string): DOMException;
};

/** performance.now(): milliseconds, with sub-millisecond precision. */
declare var performance: { now(): number };
declare function queueMicrotask(callback: () => void): void;

declare function setInterval<A extends unknown[]>(callback: (...args: A) => void, ms?: number, ...args: A): number;
declare function clearInterval(id: number | undefined): void;

/** Encodes strings as UTF-8. */
interface TextEncoder {
    readonly encoding: "utf-8";
    encode(input?: string): Uint8Array<ArrayBuffer>;
    encodeInto(source: string, destination: Uint8Array): { read: number; written: number };
}
declare var TextEncoder: { prototype: TextEncoder; new (): TextEncoder };

type AllowSharedBufferSource = ArrayBufferLike | ArrayBufferView;

interface TextDecodeOptions { stream?: boolean }
interface TextDecoderOptions { fatal?: boolean; ignoreBOM?: boolean }
/** Decodes UTF-8 (the only encoding this runtime has: another label is a RangeError). */
interface TextDecoder {
    readonly encoding: string;
    readonly fatal: boolean;
    readonly ignoreBOM: boolean;
    decode(input?: AllowSharedBufferSource, options?: TextDecodeOptions): string;
}
declare var TextDecoder: { prototype: TextDecoder; new (label?: string, options?: TextDecoderOptions): TextDecoder };

/** Decodes base64 into a binary string (one character per byte). */
declare function atob(data: string): string;
/** Encodes a binary string (characters up to U+00FF) as base64. */
declare function btoa(data: string): string;

interface URL {
    hash: string;
    host: string;
    hostname: string;
    href: string;
    toString(): string;
    readonly origin: string;
    password: string;
    pathname: string;
    port: string;
    protocol: string;
    search: string;
    readonly searchParams: URLSearchParams;
    username: string;
    toJSON(): string;
}
declare var URL: {
    prototype: URL;
    new (url: string | URL, base?: string | URL): URL;
    canParse(url: string | URL, base?: string | URL): boolean;
    parse(url: string | URL, base?: string | URL): URL | null;
};

interface URLSearchParams {
    readonly size: number;
    append(name: string, value: string): void;
    delete(name: string, value?: string): void;
    get(name: string): string | null;
    getAll(name: string): string[];
    has(name: string, value?: string): boolean;
    set(name: string, value: string): void;
    sort(): void;
    toString(): string;
    forEach(callbackfn: (value: string, key: string, parent: URLSearchParams) => void, thisArg?: any): void;
    [Symbol.iterator](): URLSearchParamsIterator<[string, string]>;
    entries(): URLSearchParamsIterator<[string, string]>;
    keys(): URLSearchParamsIterator<string>;
    values(): URLSearchParamsIterator<string>;
}
interface URLSearchParamsIterator<T> extends IteratorObject<T, BuiltinIteratorReturn, unknown> {
    [Symbol.iterator](): URLSearchParamsIterator<T>;
}
declare var URLSearchParams: {
    prototype: URLSearchParams;
    new (init?: string[][] | Record<string, string> | string | URLSearchParams): URLSearchParams;
};

interface StructuredSerializeOptions { transfer?: never[] }
/**
 * A deep copy of value: primitives, Boolean/Number/String/BigInt objects,
 * Date, RegExp, ArrayBuffer, typed arrays, DataView, Map, Set, errors,
 * arrays and plain objects, with cycles. Functions, symbols and other
 * objects throw a DOMException "DataCloneError".
 */
declare function structuredClone<T = any>(value: T, options?: StructuredSerializeOptions): T;

/** Random values from the execution's seeded ChaCha20 stream (replayed under durable execution). */
interface Crypto {
    getRandomValues<T extends Int8Array | Uint8Array | Uint8ClampedArray | Int16Array | Uint16Array | Int32Array | Uint32Array | BigInt64Array | BigUint64Array>(array: T): T;
    randomUUID(): `${string}-${string}-${string}-${string}-${string}`;
}
declare var crypto: Crypto;

interface EventInit { bubbles?: boolean; cancelable?: boolean; composed?: boolean }
interface Event {
    readonly bubbles: boolean;
    cancelBubble: boolean;
    readonly cancelable: boolean;
    readonly composed: boolean;
    readonly currentTarget: EventTarget | null;
    readonly defaultPrevented: boolean;
    readonly eventPhase: number;
    readonly isTrusted: boolean;
    readonly returnValue: boolean;
    readonly srcElement: EventTarget | null;
    readonly target: EventTarget | null;
    readonly timeStamp: number;
    readonly type: string;
    composedPath(): EventTarget[];
    preventDefault(): void;
    stopImmediatePropagation(): void;
    stopPropagation(): void;
    readonly NONE: 0;
    readonly CAPTURING_PHASE: 1;
    readonly AT_TARGET: 2;
    readonly BUBBLING_PHASE: 3;
}
declare var Event: {
    prototype: Event;
    new (type: string, eventInitDict?: EventInit): Event;
    readonly NONE: 0;
    readonly CAPTURING_PHASE: 1;
    readonly AT_TARGET: 2;
    readonly BUBBLING_PHASE: 3;
};

interface EventListener { (evt: Event): void }
interface EventListenerObject { handleEvent(object: Event): void }
type EventListenerOrEventListenerObject = EventListener | EventListenerObject;
interface EventListenerOptions { capture?: boolean }
interface AddEventListenerOptions extends EventListenerOptions { once?: boolean; passive?: boolean; signal?: AbortSignal }
interface EventTarget {
    addEventListener(type: string, callback: EventListenerOrEventListenerObject | null, options?: AddEventListenerOptions | boolean): void;
    dispatchEvent(event: Event): boolean;
    removeEventListener(type: string, callback: EventListenerOrEventListenerObject | null, options?: EventListenerOptions | boolean): void;
}
declare var EventTarget: { prototype: EventTarget; new (): EventTarget };

interface AbortSignal extends EventTarget {
    readonly aborted: boolean;
    onabort: ((this: AbortSignal, ev: Event) => any) | null;
    readonly reason: any;
    throwIfAborted(): void;
}
declare var AbortSignal: {
    prototype: AbortSignal;
    abort(reason?: any): AbortSignal;
    any(signals: AbortSignal[]): AbortSignal;
    /** A signal that aborts with a DOMException "TimeoutError" after ms milliseconds (a timer of the execution). */
    timeout(milliseconds: number): AbortSignal;
};
interface AbortController {
    readonly signal: AbortSignal;
    abort(reason?: any): void;
}
declare var AbortController: { prototype: AbortController; new (): AbortController };

type HeadersInit = [string, string][] | Record<string, string> | Headers;
interface Headers {
    append(name: string, value: string): void;
    delete(name: string): void;
    get(name: string): string | null;
    getSetCookie(): string[];
    has(name: string): boolean;
    set(name: string, value: string): void;
    forEach(callbackfn: (value: string, key: string, parent: Headers) => void, thisArg?: any): void;
    [Symbol.iterator](): HeadersIterator<[string, string]>;
    entries(): HeadersIterator<[string, string]>;
    keys(): HeadersIterator<string>;
    values(): HeadersIterator<string>;
}
interface HeadersIterator<T> extends IteratorObject<T, BuiltinIteratorReturn, unknown> {
    [Symbol.iterator](): HeadersIterator<T>;
}
declare var Headers: { prototype: Headers; new (init?: HeadersInit): Headers };

/** What a body can be here: text, bytes or form parameters (no streams, Blob or FormData). */
type BodyInit = string | ArrayBuffer | ArrayBufferView | URLSearchParams;
/** A body is read whole, once (bodyUsed); there is no body stream. */
interface Body {
    readonly bodyUsed: boolean;
    arrayBuffer(): Promise<ArrayBuffer>;
    bytes(): Promise<Uint8Array<ArrayBuffer>>;
    json(): Promise<any>;
    text(): Promise<string>;
}
type RequestRedirect = "error" | "follow" | "manual";
interface RequestInit {
    body?: BodyInit | null;
    headers?: HeadersInit;
    method?: string;
    redirect?: RequestRedirect;
    signal?: AbortSignal | null;
}
type RequestInfo = Request | string;
interface Request extends Body {
    readonly headers: Headers;
    readonly method: string;
    readonly redirect: RequestRedirect;
    readonly signal: AbortSignal;
    readonly url: string;
    clone(): Request;
}
declare var Request: { prototype: Request; new (input: RequestInfo | URL, init?: RequestInit): Request };
interface ResponseInit {
    headers?: HeadersInit;
    status?: number;
    statusText?: string;
}
type ResponseType = "basic" | "cors" | "default" | "error" | "opaque" | "opaqueredirect";
interface Response extends Body {
    readonly headers: Headers;
    readonly ok: boolean;
    readonly redirected: boolean;
    readonly status: number;
    readonly statusText: string;
    readonly type: ResponseType;
    readonly url: string;
    clone(): Response;
}
declare var Response: {
    prototype: Response;
    new (body?: BodyInit | null, init?: ResponseInit): Response;
    error(): Response;
    json(data: any, init?: ResponseInit): Response;
    redirect(url: string | URL, status?: number): Response;
};
/**
 * Fetches through the host: the embedder's fetch policy decides which
 * origins and methods are allowed and adds its own headers (credentials the
 * program never sees). Without a policy, or for a request it denies, the
 * promise rejects with a TypeError naming the policy.
 */
declare function fetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response>;
