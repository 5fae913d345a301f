// structuredClone (https://html.spec.whatwg.org/multipage/structured-data.html):
// the serializable ECMAScript values (primitives except symbols, their
// wrapper objects, Date, RegExp, ArrayBuffer, typed arrays, DataView, Map,
// Set, Error and its standard subclasses, arrays and other objects by their
// own enumerable string-keyed properties), with cycles and shared references
// kept. Anything else (functions, symbols, promises, WeakMaps, proxies of
// functions) is a DataCloneError. Transfer is not supported.

import {
  ErrorCtor, ObjectPrototype, TypeErrorCtor, apply, construct, data, defineProperty, getOwnPropertyDescriptor,
  getPrototypeOf, hasOwn, isArray, objectCreate, objectKeys,
} from "../intrinsics";
import { domError } from "./dom";
import { typedArrayTag } from "./text";

const getter = (proto: object, key: PropertyKey) => (getOwnPropertyDescriptor(proto, key) as PropertyDescriptor).get as () => unknown;
const abByteLength = getter(ArrayBuffer.prototype, "byteLength");
const dvByteLength = getter(DataView.prototype, "byteLength");
const dvByteOffset = getter(DataView.prototype, "byteOffset");
const dvBuffer = getter(DataView.prototype, "buffer");
const TypedArrayPrototype = getPrototypeOf(Uint8Array.prototype) as object;
const taBuffer = getter(TypedArrayPrototype, "buffer");
const taByteOffset = getter(TypedArrayPrototype, "byteOffset");
const taLength = getter(TypedArrayPrototype, "length");
const mapSize = getter(Map.prototype, "size");
const setSize = getter(Set.prototype, "size");
const regexpSource = getter(RegExp.prototype, "source");
const regexpFlags = getter(RegExp.prototype, "flags");
const dateGetTime = Date.prototype.getTime;
const boolValueOf = Boolean.prototype.valueOf;
const numValueOf = Number.prototype.valueOf;
const strValueOf = String.prototype.valueOf;
const bigintValueOf = BigInt.prototype.valueOf;
const symbolValueOf = Symbol.prototype.valueOf;
const mapForEach = Map.prototype.forEach;
const mapSet = Map.prototype.set;
const mapGet = Map.prototype.get;
const setForEach = Set.prototype.forEach;
const setAdd = Set.prototype.add;
const abSlice = ArrayBuffer.prototype.slice;
const MapCtor = Map;
const SetCtor = Set;
const DateCtor = Date;
const RegExpCtor = RegExp;
const ArrayBufferCtor = ArrayBuffer;
const DataViewCtor = DataView;
const ObjectCtor = Object;
const promiseThen = Promise.prototype.then;
const weakMapHas = WeakMap.prototype.has;
const weakSetHas = WeakSet.prototype.has;
const weakRefDeref = WeakRef.prototype.deref;
const globals = globalThis as unknown as Record<string, new (...a: unknown[]) => unknown>;
const typedArrayCtors: Record<string, new (b: ArrayBuffer, o: number, n: number) => unknown> = objectCreate(null);
for (const name of ["Int8Array", "Uint8Array", "Uint8ClampedArray", "Int16Array", "Uint16Array", "Int32Array", "Uint32Array",
  "Float16Array", "Float32Array", "Float64Array", "BigInt64Array", "BigUint64Array"]) {
  if (typeof globals[name] === "function") typedArrayCtors[name] = globals[name] as never;
}
const errorCtors: Record<string, ErrorConstructor> = objectCreate(null);
for (const name of ["Error", "EvalError", "RangeError", "ReferenceError", "SyntaxError", "TypeError", "URIError"]) {
  errorCtors[name] = globals[name] as unknown as ErrorConstructor;
}

/** is reports whether calling f with self succeeds (a brand check through an internal slot). */
function is(f: (...a: never[]) => unknown, self: unknown): boolean {
  try {
    apply(f, self, []);
    return true;
  } catch {
    return false;
  }
}

function uncloneable(what: string): Error {
  return domError(`structuredClone: ${what} could not be cloned`, "DataCloneError");
}

/** structuredClone returns a deep copy of value (see the file comment). */
export function structuredClone(value: unknown, options?: { transfer?: unknown[] }): unknown {
  if (arguments.length === 0) throw new TypeErrorCtor("structuredClone: 1 argument required, but only 0 present");
  if (options !== undefined && options !== null && options.transfer !== undefined && (options.transfer as unknown[]).length > 0) {
    throw uncloneable("a transfer list (transfer is not supported here)");
  }
  const memory = new MapCtor<unknown, unknown>();
  const remember = <T>(from: unknown, to: T): T => {
    apply(mapSet as never, memory, [from, to]);
    return to;
  };
  const cloneBuffer = (buffer: unknown): ArrayBuffer => {
    const seen = apply(mapGet as never, memory, [buffer]);
    if (seen !== undefined) return seen as ArrayBuffer;
    return remember(buffer, apply(abSlice as never, buffer, [0]) as ArrayBuffer);
  };
  const clone = (v: unknown): unknown => {
    switch (typeof v) {
      case "symbol":
        throw uncloneable("a symbol");
      case "function":
        throw uncloneable(`a function${(v as { name?: string }).name ? ` (${(v as { name?: string }).name})` : ""}`);
      case "object":
        break;
      default:
        return v;
    }
    if (v === null) return v;
    const seen = apply(mapGet as never, memory, [v]);
    if (seen !== undefined) return seen;
    if (is(boolValueOf as never, v)) return remember(v, ObjectCtor(apply(boolValueOf as never, v, [])));
    if (is(numValueOf as never, v)) return remember(v, ObjectCtor(apply(numValueOf as never, v, [])));
    if (is(strValueOf as never, v)) return remember(v, ObjectCtor(apply(strValueOf as never, v, [])));
    if (is(bigintValueOf as never, v)) return remember(v, ObjectCtor(apply(bigintValueOf as never, v, [])));
    if (is(symbolValueOf as never, v)) throw uncloneable("a Symbol object");
    if (is(dateGetTime as never, v)) return remember(v, new DateCtor(apply(dateGetTime as never, v, []) as number));
    if (is(regexpFlags as never, v) && is(regexpSource as never, v) && v !== RegExpCtor.prototype) {
      return remember(v, new RegExpCtor(apply(regexpSource as never, v, []) as string, apply(regexpFlags as never, v, []) as string));
    }
    if (is(abByteLength as never, v)) return cloneBuffer(v);
    const tag = typedArrayTag(v);
    if (tag !== undefined) {
      const Ctor = typedArrayCtors[tag];
      if (Ctor === undefined) throw uncloneable(`a ${tag}`);
      const buffer = cloneBuffer(apply(taBuffer as never, v, []));
      return remember(v, new Ctor(buffer, apply(taByteOffset as never, v, []) as number, apply(taLength as never, v, []) as number));
    }
    if (is(dvByteLength as never, v)) {
      const buffer = cloneBuffer(apply(dvBuffer as never, v, []));
      return remember(v, new DataViewCtor(buffer, apply(dvByteOffset as never, v, []) as number, apply(dvByteLength as never, v, []) as number));
    }
    if (is(mapSize as never, v)) {
      const out = remember(v, new MapCtor());
      const entries: unknown[] = [];
      apply(mapForEach as never, v, [(val: unknown, key: unknown) => {
        entries[entries.length] = key;
        entries[entries.length] = val;
      }]);
      for (let i = 0; i < entries.length; i += 2) apply(mapSet as never, out, [clone(entries[i]), clone(entries[i + 1])]);
      return out;
    }
    if (is(setSize as never, v)) {
      const out = remember(v, new SetCtor());
      const items: unknown[] = [];
      apply(setForEach as never, v, [(val: unknown) => {
        items[items.length] = val;
      }]);
      for (let i = 0; i < items.length; i++) apply(setAdd as never, out, [clone(items[i])]);
      return out;
    }
    if (v instanceof ErrorCtor) {
      const e = v as Error;
      let name = "Error";
      try {
        const n = e.name;
        if (typeof n === "string" && errorCtors[n] !== undefined) name = n;
      } catch {
        // keep "Error"
      }
      const out = remember(v, construct(errorCtors[name], []) as Error);
      const msg = getOwnPropertyDescriptor(e, "message");
      if (msg !== undefined) defineProperty(out, "message", data(`${e.message}`, false));
      const stack = e.stack;
      if (typeof stack === "string") defineProperty(out, "stack", data(stack, false));
      if (hasOwn(e, "cause")) defineProperty(out, "cause", data(clone((e as { cause?: unknown }).cause), false));
      return out;
    }
    if (is(promiseThen as never, v) && getPrototypeOf(v) !== null && (v instanceof Promise)) throw uncloneable("a Promise");
    if (is(weakMapHas as never, v)) throw uncloneable("a WeakMap");
    if (is(weakSetHas as never, v)) throw uncloneable("a WeakSet");
    if (is(weakRefDeref as never, v)) throw uncloneable("a WeakRef");
    if (isArray(v)) {
      const list = v as unknown[];
      const out = remember(v, new Array(list.length));
      const keys = objectKeys(list);
      for (let i = 0; i < keys.length; i++) defineProperty(out, keys[i], data(clone(list[keys[i] as unknown as number])));
      return out;
    }
    const out = remember(v, objectCreate(ObjectPrototype) as Record<string, unknown>);
    const keys = objectKeys(v as object);
    for (let i = 0; i < keys.length; i++) defineProperty(out, keys[i], data(clone((v as Record<string, unknown>)[keys[i]])));
    return out;
  };
  return clone(value);
}

