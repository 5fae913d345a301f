// TextEncoder, TextDecoder (UTF-8 only, as the WinterTC Minimum Common API
// requires: https://encoding.spec.whatwg.org/), atob and btoa
// (https://html.spec.whatwg.org/multipage/webappapis.html#atob).

import { RangeErrorCtor, TypeErrorCtor, Uint8ArrayCtor, apply, charCodeAt, defineProperty, fromCharCode, getOwnPropertyDescriptor, getPrototypeOf, quote, typedArrayLength, typedArraySet } from "../intrinsics";
import { domError } from "./dom";

const stringFromCodes = (codes: number[]): string => apply(fromCharCode as never, undefined, codes) as string;
const ArrayBufferCtor = ArrayBuffer;
const isView = ArrayBuffer.isView;
const abByteLength = (getOwnPropertyDescriptor(ArrayBuffer.prototype, "byteLength") as PropertyDescriptor).get as () => number;
const sabByteLength = (getOwnPropertyDescriptor(SharedArrayBuffer.prototype, "byteLength") as PropertyDescriptor).get as () => number;
const TypedArrayPrototype = getPrototypeOf(Uint8Array.prototype) as object;
const taBuffer = (getOwnPropertyDescriptor(TypedArrayPrototype, "buffer") as PropertyDescriptor).get as () => ArrayBuffer;
const taByteOffset = (getOwnPropertyDescriptor(TypedArrayPrototype, "byteOffset") as PropertyDescriptor).get as () => number;
const taByteLength = (getOwnPropertyDescriptor(TypedArrayPrototype, "byteLength") as PropertyDescriptor).get as () => number;
const taTag = (getOwnPropertyDescriptor(TypedArrayPrototype, Symbol.toStringTag) as PropertyDescriptor).get as () => string | undefined;
const dvBuffer = (getOwnPropertyDescriptor(DataView.prototype, "buffer") as PropertyDescriptor).get as () => ArrayBuffer;
const dvByteOffset = (getOwnPropertyDescriptor(DataView.prototype, "byteOffset") as PropertyDescriptor).get as () => number;
const dvByteLength = (getOwnPropertyDescriptor(DataView.prototype, "byteLength") as PropertyDescriptor).get as () => number;
const taSubarray = (TypedArrayPrototype as { subarray: (a: number, b: number) => Uint8Array }).subarray;
const taSlice = (TypedArrayPrototype as { slice: (a: number, b: number) => Uint8Array }).slice;

function isArrayBuffer(v: unknown): boolean {
  try {
    apply(abByteLength, v, []);
    return true;
  } catch {
    return false;
  }
}

function isSharedArrayBuffer(v: unknown): boolean {
  try {
    apply(sabByteLength, v, []);
    return true;
  } catch {
    return false;
  }
}

/** isTypedArray reports whether v is a typed array (by its internal slot, not its prototype). */
export function typedArrayTag(v: unknown): string | undefined {
  return apply(taTag, v, []);
}

/**
 * bytesOf returns a Uint8Array over the bytes of a BufferSource (an
 * ArrayBuffer, a typed array or a DataView), sharing its memory, or
 * undefined for anything else.
 */
export function bytesOf(v: unknown): Uint8Array | undefined {
  if (typeof v !== "object" || v === null) return undefined;
  if (isArrayBuffer(v) || isSharedArrayBuffer(v)) return new Uint8ArrayCtor(v as ArrayBuffer);
  if (!isView(v)) return undefined;
  if (typedArrayTag(v) !== undefined) {
    return new Uint8ArrayCtor(apply(taBuffer, v, []), apply(taByteOffset, v, []), apply(taByteLength, v, []));
  }
  return new Uint8ArrayCtor(apply(dvBuffer, v, []), apply(dvByteOffset, v, []), apply(dvByteLength, v, []));
}

/** utf8Encode encodes text as UTF-8, each lone surrogate as U+FFFD. */
export function utf8Encode(text: string): Uint8Array {
  const n = text.length;
  // Count first, so that the result is allocated once.
  let size = 0;
  for (let i = 0; i < n; i++) {
    const c = charCodeAt(text, i);
    if (c < 0x80) size += 1;
    else if (c < 0x800) size += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < n && (charCodeAt(text, i + 1) & 0xfc00) === 0xdc00) {
      size += 4;
      i++;
    } else size += 3;
  }
  const out = new Uint8ArrayCtor(size);
  encodeInto(text, out);
  return out;
}

/** encodeInto writes as much of text as fits into out; it returns [code units read, bytes written]. */
function encodeInto(text: string, out: Uint8Array): [number, number] {
  const n = text.length;
  const room = typedArrayLength(out);
  let w = 0;
  let i = 0;
  for (; i < n; i++) {
    let c = charCodeAt(text, i);
    if (c < 0x80) {
      if (w + 1 > room) break;
      out[w++] = c;
      continue;
    }
    if (c < 0x800) {
      if (w + 2 > room) break;
      out[w++] = 0xc0 | (c >> 6);
      out[w++] = 0x80 | (c & 0x3f);
      continue;
    }
    if (c >= 0xd800 && c <= 0xdfff) {
      const next = i + 1 < n ? charCodeAt(text, i + 1) : 0;
      if (c <= 0xdbff && (next & 0xfc00) === 0xdc00) {
        if (w + 4 > room) break;
        const cp = 0x10000 + ((c - 0xd800) << 10) + (next - 0xdc00);
        out[w++] = 0xf0 | (cp >> 18);
        out[w++] = 0x80 | ((cp >> 12) & 0x3f);
        out[w++] = 0x80 | ((cp >> 6) & 0x3f);
        out[w++] = 0x80 | (cp & 0x3f);
        i++;
        continue;
      }
      c = 0xfffd;
    }
    if (w + 3 > room) break;
    out[w++] = 0xe0 | (c >> 12);
    out[w++] = 0x80 | ((c >> 6) & 0x3f);
    out[w++] = 0x80 | (c & 0x3f);
  }
  return [i, w];
}

/**
 * utf8Decode decodes bytes[start:end] per the Encoding Standard's UTF-8
 * decoder: each maximal invalid subpart becomes U+FFFD, or with fatal a
 * TypeError. With stream, an incomplete sequence at the end is not decoded;
 * its length is returned as the second element.
 */
export function utf8Decode(bytes: Uint8Array, fatal: boolean, stream: boolean): [string, number] {
  const n = typedArrayLength(bytes);
  let out = "";
  let chunk: number[] = [];
  let i = 0;
  const flush = () => {
    out += stringFromCodes(chunk);
    chunk = [];
  };
  const bad = () => {
    if (fatal) throw new TypeErrorCtor("TextDecoder: the data is not valid UTF-8");
    chunk[chunk.length] = 0xfffd;
  };
  while (i < n) {
    if (chunk.length >= 8192) flush();
    const b = bytes[i];
    if (b < 0x80) {
      chunk[chunk.length] = b;
      i++;
      continue;
    }
    let need: number;
    let cp: number;
    let lower = 0x80;
    let upper = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) {
      need = 1;
      cp = b & 0x1f;
    } else if (b >= 0xe0 && b <= 0xef) {
      if (b === 0xe0) lower = 0xa0;
      if (b === 0xed) upper = 0x9f;
      need = 2;
      cp = b & 0xf;
    } else if (b >= 0xf0 && b <= 0xf4) {
      if (b === 0xf0) lower = 0x90;
      if (b === 0xf4) upper = 0x8f;
      need = 3;
      cp = b & 0x7;
    } else {
      bad();
      i++;
      continue;
    }
    let j = i + 1;
    let ok = true;
    for (let k = 0; k < need; k++, j++) {
      if (j >= n) {
        if (stream) {
          flush();
          return [out, n - i];
        }
        ok = false;
        break;
      }
      const c = bytes[j];
      if (c < lower || c > upper) {
        ok = false;
        break;
      }
      lower = 0x80;
      upper = 0xbf;
      cp = (cp << 6) | (c & 0x3f);
    }
    if (!ok) {
      bad();
      i = j;
      continue;
    }
    if (cp >= 0x10000) {
      cp -= 0x10000;
      chunk[chunk.length] = 0xd800 + (cp >> 10);
      chunk[chunk.length] = 0xdc00 + (cp & 0x3ff);
    } else chunk[chunk.length] = cp;
    i = j;
  }
  flush();
  return [out, 0];
}

const utf8Labels = ["unicode-1-1-utf-8", "unicode11utf8", "unicode20utf8", "utf-8", "utf8", "x-unicode20utf8"];

function asciiTrimLower(label: string): string {
  let s = 0;
  let e = label.length;
  const ws = (c: number) => c === 9 || c === 10 || c === 12 || c === 13 || c === 32;
  while (s < e && ws(charCodeAt(label, s))) s++;
  while (e > s && ws(charCodeAt(label, e - 1))) e--;
  let out = "";
  for (let i = s; i < e; i++) {
    const c = charCodeAt(label, i);
    out += fromCharCode(c >= 65 && c <= 90 ? c + 32 : c);
  }
  return out;
}

interface DecoderState {
  fatal: boolean;
  ignoreBOM: boolean;
  pending: Uint8Array | undefined;
  bomSeen: boolean;
}

const decoderStates = new WeakMap<object, DecoderState>();
const wmGet = WeakMap.prototype.get;
const wmSet = WeakMap.prototype.set;

function decoderState(self: unknown): DecoderState {
  const s = typeof self === "object" && self !== null ? (apply(wmGet, decoderStates, [self]) as DecoderState | undefined) : undefined;
  if (s === undefined) throw new TypeErrorCtor("Illegal invocation: not a TextDecoder");
  return s;
}

/** TextEncoder encodes strings as UTF-8 (https://encoding.spec.whatwg.org/#interface-textencoder). */
export class TextEncoder {
  get encoding(): string {
    return "utf-8";
  }
  encode(input: unknown = ""): Uint8Array {
    return utf8Encode(`${input}`);
  }
  encodeInto(source: unknown, destination: Uint8Array): { read: number; written: number } {
    if (typedArrayTag(destination) !== "Uint8Array") throw new TypeErrorCtor("TextEncoder.encodeInto: destination must be a Uint8Array");
    const [read, written] = encodeInto(`${source}`, destination);
    return { read, written };
  }
}

/** TextDecoder decodes UTF-8 (https://encoding.spec.whatwg.org/#interface-textdecoder); other encodings are a RangeError. */
export class TextDecoder {
  constructor(label: unknown = "utf-8", options?: { fatal?: boolean; ignoreBOM?: boolean }) {
    const l = asciiTrimLower(`${label}`);
    let known = false;
    for (let i = 0; i < utf8Labels.length; i++) if (utf8Labels[i] === l) known = true;
    if (!known) throw new RangeErrorCtor(`TextDecoder: the encoding ${quote(`${label}`)} is not supported (this runtime decodes UTF-8 only)`);
    const o = options === undefined || options === null ? {} : options;
    apply(wmSet, decoderStates, [this, { __proto__: null, fatal: !!o.fatal, ignoreBOM: !!o.ignoreBOM, pending: undefined, bomSeen: false }]);
  }
  get encoding(): string {
    decoderState(this);
    return "utf-8";
  }
  get fatal(): boolean {
    return decoderState(this).fatal;
  }
  get ignoreBOM(): boolean {
    return decoderState(this).ignoreBOM;
  }
  decode(input?: unknown, options?: { stream?: boolean }): string {
    const s = decoderState(this);
    const stream = options !== undefined && options !== null && !!options.stream;
    let bytes: Uint8Array;
    if (input === undefined) bytes = new Uint8ArrayCtor(0);
    else {
      const b = bytesOf(input);
      if (b === undefined) throw new TypeErrorCtor("TextDecoder.decode: input must be an ArrayBuffer, a typed array or a DataView");
      bytes = b;
    }
    if (s.pending !== undefined) {
      const joined = new Uint8ArrayCtor(typedArrayLength(s.pending) + typedArrayLength(bytes));
      typedArraySet(joined, s.pending);
      typedArraySet(joined, bytes, typedArrayLength(s.pending));
      bytes = joined;
      s.pending = undefined;
    }
    let start = 0;
    if (!s.ignoreBOM && !s.bomSeen) {
      const n = typedArrayLength(bytes);
      if (n >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) start = 3;
      else if (stream && n < 3 && (n === 0 || (bytes[0] === 0xef && (n === 1 || bytes[1] === 0xbb)))) {
        // Not enough bytes to know yet.
        s.pending = n === 0 ? undefined : apply(taSlice, bytes, [0, n]);
        return "";
      }
      if (n > 0) s.bomSeen = true;
    }
    const view = start === 0 ? bytes : apply(taSubarray, bytes, [start, typedArrayLength(bytes)]);
    let text: string;
    let rest: number;
    try {
      [text, rest] = utf8Decode(view, s.fatal, stream);
    } catch (error) {
      s.bomSeen = false;
      throw error;
    }
    if (rest > 0) {
      const n = typedArrayLength(view);
      s.pending = apply(taSlice, view, [n - rest, n]);
    }
    if (!stream) s.bomSeen = false;
    return text;
  }
}

const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const alphabetCodes: number[] = [];
for (let i = 0; i < 64; i++) alphabetCodes[i] = charCodeAt(alphabet, i);
const decodeTable: number[] = [];
for (let i = 0; i < 128; i++) decodeTable[i] = -1;
for (let i = 0; i < 64; i++) decodeTable[alphabetCodes[i]] = i;

/** base64Encode encodes bytes as base64 (with padding). */
export function base64Encode(bytes: Uint8Array): string {
  const n = typedArrayLength(bytes);
  let out = "";
  let chunk: number[] = [];
  let i = 0;
  for (; i + 2 < n; i += 3) {
    const v = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
    chunk[chunk.length] = alphabetCodes[v >> 18];
    chunk[chunk.length] = alphabetCodes[(v >> 12) & 63];
    chunk[chunk.length] = alphabetCodes[(v >> 6) & 63];
    chunk[chunk.length] = alphabetCodes[v & 63];
    if (chunk.length >= 8192) {
      out += stringFromCodes(chunk);
      chunk = [];
    }
  }
  if (i < n) {
    const v = (bytes[i] << 16) | (i + 1 < n ? bytes[i + 1] << 8 : 0);
    chunk[chunk.length] = alphabetCodes[v >> 18];
    chunk[chunk.length] = alphabetCodes[(v >> 12) & 63];
    chunk[chunk.length] = i + 1 < n ? alphabetCodes[(v >> 6) & 63] : 61;
    chunk[chunk.length] = 61;
  }
  return out + stringFromCodes(chunk);
}

/** base64Decode is the forgiving-base64 decode of text, or undefined on failure (https://infra.spec.whatwg.org/#forgiving-base64-decode). */
export function base64Decode(text: string): Uint8Array | undefined {
  const codes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = charCodeAt(text, i);
    if (c === 9 || c === 10 || c === 12 || c === 13 || c === 32) continue;
    codes[codes.length] = c;
  }
  let n = codes.length;
  if (n % 4 === 0 && n > 0 && codes[n - 1] === 61) {
    n--;
    if (codes[n - 1] === 61) n--;
  }
  if (n % 4 === 1) return undefined;
  const out = new Uint8ArrayCtor((n * 3) >> 2);
  let acc = 0;
  let bits = 0;
  let w = 0;
  for (let i = 0; i < n; i++) {
    const c = codes[i];
    const v = c < 128 ? decodeTable[c] : -1;
    if (v < 0) return undefined;
    acc = (acc << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[w++] = (acc >> bits) & 0xff;
    }
  }
  return out;
}

/** btoa encodes a binary string (code units up to U+00FF) as base64. */
export function btoa(data: unknown): string {
  if (arguments.length === 0) throw new TypeErrorCtor("btoa: 1 argument required, but only 0 present");
  const s = `${data}`;
  const bytes = new Uint8ArrayCtor(s.length);
  for (let i = 0; i < s.length; i++) {
    const c = charCodeAt(s, i);
    if (c > 0xff) throw domError("btoa: the string contains characters outside of the Latin1 range (encode it as UTF-8 bytes first)", "InvalidCharacterError");
    bytes[i] = c;
  }
  return base64Encode(bytes);
}

/** atob decodes base64 into a binary string (one code unit per byte). */
export function atob(data: unknown): string {
  if (arguments.length === 0) throw new TypeErrorCtor("atob: 1 argument required, but only 0 present");
  const bytes = base64Decode(`${data}`);
  if (bytes === undefined) throw domError("atob: the string to be decoded is not correctly encoded", "InvalidCharacterError");
  let out = "";
  let chunk: number[] = [];
  const n = typedArrayLength(bytes);
  for (let i = 0; i < n; i++) {
    chunk[chunk.length] = bytes[i];
    if (chunk.length >= 8192) {
      out += stringFromCodes(chunk);
      chunk = [];
    }
  }
  return out + stringFromCodes(chunk);
}

export { ArrayBufferCtor };
