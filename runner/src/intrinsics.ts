// Built-ins the runner uses, captured when the runner loads, before any
// program runs. A program shares the runner's realm: it can replace globals
// (JSON.stringify, Array.prototype.push, Promise.prototype.then), define
// setters and getters on prototypes (an index setter on Array.prototype
// catches every [[Set]] of a missing index on any array) and Symbol.species.
// So after load the runner calls built-ins only through the captured
// references below (uncurried: call(f, self, args) never reads a property
// of self), keeps its state in closures and in objects without a prototype,
// appends to arrays by definition rather than assignment, never uses
// the iteration protocol (for-of, spread, array destructuring) on anything,
// and joins strings with + rather than a template literal with
// substitutions, which QuickJS compiles into a call of
// String.prototype.concat (as esbuild lowers one).

const R = Reflect;
export const apply: <T>(f: (...a: never[]) => T, self: unknown, args: ArrayLike<unknown>) => T = R.apply as never;
export const construct = R.construct;
export const defineProperty = R.defineProperty;
export const getPrototypeOf = R.getPrototypeOf;
export const setPrototypeOf = R.setPrototypeOf;
export const getOwnPropertyDescriptor = R.getOwnPropertyDescriptor;
export const ownKeys = R.ownKeys;
export const isExtensible = R.isExtensible;
export const objectIs = Object.is;
export const deleteProperty = R.deleteProperty;
export const objectKeys = Object.keys;
export const objectFreeze = Object.freeze;
export const objectCreate = Object.create;
export const ObjectPrototype = Object.prototype;
export const isArray = Array.isArray;
export const jsonStringify = JSON.stringify;
export const jsonParse = JSON.parse;
export const fromCharCode = String.fromCharCode;
export const numberIsFinite = Number.isFinite;
export const numberIsSafeInteger = Number.isSafeInteger;
export const mathFloor = Math.floor;
export const mathMax = Math.max;
export const mathRandom = Math.random;
export const ErrorCtor = Error;
export const TypeErrorCtor = TypeError;
export const RangeErrorCtor = RangeError;
/** QuickJS's InternalError (its "out of memory"), captured if the engine has one (Node.js has none). */
export const InternalErrorCtor: ErrorConstructor | undefined = (globalThis as { InternalError?: ErrorConstructor }).InternalError;
export const PromiseCtor = Promise;
export const ProxyCtor = Proxy;
export const DateCtor = Date;
export const dateNow = Date.now;
export const Uint8ArrayCtor = Uint8Array;
export const StringCtor = String;

// callBound(f) is Function.prototype.call bound to f: calling it with
// (self, ...args) calls f on self with args and reads no property of
// anything. It replaces a closure with rest arguments and an apply, which
// made an array for every call (about 0.4 µs each in QuickJS).
const callBound = Function.prototype.bind.call(Function.prototype.bind, Function.prototype.call) as unknown as (f: unknown) => unknown;

function uncurry<A extends unknown[], T>(f: (...a: A) => T): (self: unknown, ...args: A) => T {
  return callBound(f) as (self: unknown, ...args: A) => T;
}

// Object.hasOwn where the engine has it (QuickJS, Node.js): one native
// call, where the uncurried hasOwnProperty adds a closure with rest
// arguments and an apply (about 1 µs of a tool call in QuickJS, which
// checks own properties in the namespace's get and the walk of its input).
const objectHasOwn = (Object as unknown as { hasOwn?: (object: unknown, key: PropertyKey) => boolean }).hasOwn;
const hasOwn: (self: unknown, key: PropertyKey) => boolean =
  typeof objectHasOwn === "function" ? objectHasOwn : uncurry(Object.prototype.hasOwnProperty as (key: PropertyKey) => boolean);
export { hasOwn };
export const objectToString = uncurry(Object.prototype.toString as () => string);
export const charCodeAt = uncurry(String.prototype.charCodeAt);
export const stringSlice = uncurry(String.prototype.slice);
export const stringIndexOf = uncurry(String.prototype.indexOf as (search: string, position?: number) => number);
export const stringSplit = uncurry(String.prototype.split as (separator: string) => string[]);
export const arrayJoin = uncurry(Array.prototype.join as (separator: string) => string);
export const arrayIndexOf = uncurry(Array.prototype.indexOf as (item: unknown) => number);
export const dateGetTime = uncurry(Date.prototype.getTime);
export const dateToISOString = uncurry(Date.prototype.toISOString);
export const dateToString = uncurry(Date.prototype.toString);
export const promiseReject = (reason: unknown): Promise<never> => apply(Promise.reject as never, PromiseCtor, [reason]);
export const WeakSetCtor = WeakSet;
export const weakSetAdd = uncurry(WeakSet.prototype.add as (value: object) => WeakSet<object>);
export const weakSetHas = uncurry(WeakSet.prototype.has as (value: object) => boolean);
export const weakSetDelete = uncurry(WeakSet.prototype.delete as (value: object) => boolean);
const TypedArrayPrototype = getPrototypeOf(Uint8Array.prototype) as object;
export const typedArraySet = uncurry((TypedArrayPrototype as { set: (a: ArrayLike<number>, offset?: number) => void }).set);
export const typedArrayLength = uncurry((getOwnPropertyDescriptor(TypedArrayPrototype, "length") as PropertyDescriptor).get as () => number);
export const typedArrayBuffer = uncurry((getOwnPropertyDescriptor(TypedArrayPrototype, "buffer") as PropertyDescriptor).get as () => ArrayBuffer);
export const typedArrayByteOffset = uncurry((getOwnPropertyDescriptor(TypedArrayPrototype, "byteOffset") as PropertyDescriptor).get as () => number);

/** view is bytes[start:end] as a new Uint8Array over the same memory (no copy; no species lookup, unlike subarray). */
export function view(bytes: Uint8Array, start: number, end: number): Uint8Array {
  return new Uint8ArrayCtor(typedArrayBuffer(bytes), typedArrayByteOffset(bytes) + start, end - start);
}

// The platform's own UTF-8 decoder where the runner loads on one that has
// it (Node.js: native, about 20x faster than a loop in JavaScript on 1 MB),
// captured before any program runs. fatal: invalid UTF-8 throws, as the
// wire's decoder must; ignoreBOM: a leading U+FEFF is kept, as it is text.
// QuickJS has no TextDecoder when the runner loads, and decodes in the loop.
const PlatformTextDecoder = (globalThis as { TextDecoder?: new (label: string, opts: object) => { decode(b: Uint8Array): string } }).TextDecoder;
const platformDecoder = typeof PlatformTextDecoder === "function" ? new PlatformTextDecoder("utf-8", { fatal: true, ignoreBOM: true }) : undefined;
const platformDecode = platformDecoder !== undefined ? uncurry((PlatformTextDecoder as unknown as { prototype: { decode: (b: Uint8Array) => string } }).prototype.decode) : undefined;

/** decodeUTF8Native decodes bytes with the platform's TextDecoder (throws on invalid UTF-8), or returns undefined where there is none. */
export function decodeUTF8Native(bytes: Uint8Array): string | undefined {
  return platformDecode === undefined ? undefined : platformDecode(platformDecoder, bytes);
}

/** data is a property descriptor for value that reads nothing from Object.prototype. */
export function data(value: unknown, enumerable = true): PropertyDescriptor {
  return { __proto__: null, value, writable: true, enumerable, configurable: true } as PropertyDescriptor;
}

/**
 * pushed is push's descriptor, reused: making a fresh one doubled the cost
 * of a push in QuickJS (1.5 against 0.8 µs). Defining an index of one of
 * the runner's own arrays runs no program code, so nothing can see it
 * between uses; its value is let go after each.
 */
const pushed = data(undefined);

/** push appends value to list by definition, which no setter can observe. */
export function push<T>(list: T[], value: T): void {
  pushed.value = value;
  defineProperty(list, list.length, pushed);
  pushed.value = undefined;
}

/** record returns an object without a prototype: reading a missing key gives undefined, not a program's getter. */
export function record<T>(): Record<string | number, T> {
  return objectCreate(null) as Record<string | number, T>;
}

/** join is Array.prototype.join as it was when the runner loaded. */
export function join(items: string[], separator: string): string {
  return arrayJoin(items, separator);
}

/** TextBuffer accumulates text; take returns it all and empties the buffer. */
export interface TextBuffer {
  add(text: string): void;
  take(): string;
}

/**
 * textBuffer returns an empty TextBuffer. It exists because this QuickJS
 * concatenates by copying: `s += x` in a loop costs the square of the
 * length (20,000 appends of 26 characters took 3.7 s), so the buffer
 * appends only to a short tail (up to 4,096 characters) and joins the full
 * tails once, in take.
 */
export function textBuffer(): TextBuffer {
  let parts: string[] = [];
  let tail = "";
  return {
    __proto__: null,
    add(text: string): void {
      tail += text;
      if (tail.length >= 4096) {
        push(parts, tail);
        tail = "";
      }
    },
    take(): string {
      let out = tail;
      if (parts.length > 0) {
        push(parts, tail);
        out = arrayJoin(parts, "");
        parts = [];
      }
      tail = "";
      return out;
    },
  } as unknown as TextBuffer;
}

/**
 * quoted holds the JSON text of short strings quote was given (object keys
 * and values of tool input repeat), at most quotedMax of them, emptied when
 * full: JSON.stringify of a string builds a wrapper object and a property
 * list each time (about 1.3 µs in QuickJS, against 0.2 µs for the lookup).
 */
let quoted = record<string>();
let quotedCount = 0;
const quotedMax = 1024;
const quotedLength = 32;

/** quote is the JSON text of a string (JSON.stringify reads nothing of a primitive). */
export function quote(text: string): string {
  if (text.length > quotedLength) return jsonStringify(text);
  const known = quoted[text];
  if (known !== undefined) return known;
  if (quotedCount >= quotedMax) {
    quoted = record<string>();
    quotedCount = 0;
  }
  const q: string = jsonStringify(text);
  quoted[text] = q;
  quotedCount++;
  return q;
}
