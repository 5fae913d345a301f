// A small, strict CBOR (RFC 8949) codec for the wire protocol's messages:
// unsigned integers, floats, byte strings, text strings, arrays, maps and
// booleans, definite lengths only. It is platform-neutral (no TextEncoder),
// so the same bundle loads in QuickJS and Node.js, and it runs beside
// programs: it calls built-ins only through ./intrinsics and builds maps as
// objects without a prototype.

import {
  ErrorCtor, Uint8ArrayCtor, apply, charCodeAt, data, defineProperty, fromCharCode, hasOwn, join, numberIsSafeInteger,
  push, record, typedArrayLength, typedArraySet, decodeUTF8Native, view,
} from "./intrinsics";

/** A decoded map: unsigned-integer keys, no prototype. */
export interface CBORMap { [key: number]: Value }
export type Value = number | boolean | string | Uint8Array | Value[] | CBORMap;

export class CBORError extends ErrorCtor {
  constructor(message: string) {
    super(`cbor: ${message}`);
    defineProperty(this, "name", data("CBORError", false));
  }
}

// Scratch for floats, made at load.
const f64 = new Float64Array(1);
const f64Bytes = new Uint8ArrayCtor(f64.buffer);
const f32 = new Float32Array(1);
const f32Bytes = new Uint8ArrayCtor(f32.buffer);
const little = new Uint8ArrayCtor(new Uint16Array([1]).buffer)[0] === 1;

/** utf8Length is the UTF-8 size of text (a lone surrogate counts as U+FFFD). */
function utf8Length(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = charCodeAt(text, i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (charCodeAt(text, i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

export function utf8Decode(bytes: Uint8Array, start: number, end: number): string {
  let native: string | undefined;
  try {
    native = decodeUTF8Native(view(bytes, start, end));
  } catch {
    throw new CBORError("invalid UTF-8");
  }
  if (native !== undefined) return native;
  let out = "";
  let chunk: number[] = [];
  const flush = () => {
    out += apply(fromCharCode as never, undefined, chunk) as string;
    chunk = [];
  };
  for (let i = start; i < end; ) {
    const b = bytes[i];
    let c: number;
    let n: number;
    if (b < 0x80) { c = b; n = 1; }
    else if (b >= 0xc2 && b < 0xe0) { c = b & 31; n = 2; }
    else if (b >= 0xe0 && b < 0xf0) { c = b & 15; n = 3; }
    else if (b >= 0xf0 && b < 0xf5) { c = b & 7; n = 4; }
    else throw new CBORError("invalid UTF-8");
    if (i + n > end) throw new CBORError("truncated UTF-8");
    for (let k = 1; k < n; k++) {
      const x = bytes[i + k];
      if ((x & 0xc0) !== 0x80) throw new CBORError("invalid UTF-8");
      c = (c << 6) | (x & 63);
    }
    if ((n === 3 && (c < 0x800 || (c >= 0xd800 && c <= 0xdfff))) || (n === 4 && (c < 0x10000 || c > 0x10ffff))) {
      throw new CBORError("invalid UTF-8");
    }
    i += n;
    if (c >= 0x10000) {
      c -= 0x10000;
      push(chunk, 0xd800 + (c >> 10));
      push(chunk, 0xdc00 + (c & 1023));
    } else push(chunk, c);
    if (chunk.length > 4096) flush();
  }
  flush();
  return out;
}

/** Writer encodes CBOR into a growing buffer. */
export class Writer {
  buf: Uint8Array = new Uint8ArrayCtor(256);
  n = 0;

  room(k: number): void {
    const size = typedArrayLength(this.buf);
    if (this.n + k <= size) return;
    let next = size * 2;
    while (next < this.n + k) next *= 2;
    const grown = new Uint8ArrayCtor(next);
    typedArraySet(grown, this.buf);
    this.buf = grown;
  }

  head(major: number, len: number): void {
    if (!numberIsSafeInteger(len) || len < 0) throw new CBORError(`cannot encode length ${len}`);
    const m = major << 5;
    this.room(9);
    const b = this.buf;
    if (len < 24) {
      b[this.n++] = m | len;
    } else if (len < 0x100) {
      b[this.n++] = m | 24;
      b[this.n++] = len;
    } else if (len < 0x10000) {
      b[this.n++] = m | 25;
      b[this.n++] = len >> 8;
      b[this.n++] = len & 255;
    } else if (len < 0x100000000) {
      b[this.n++] = m | 26;
      b[this.n++] = (len >>> 24) & 255;
      b[this.n++] = (len >>> 16) & 255;
      b[this.n++] = (len >>> 8) & 255;
      b[this.n++] = len & 255;
    } else {
      b[this.n++] = m | 27;
      const hi = (len / 0x100000000) >>> 0;
      const lo = len >>> 0;
      b[this.n++] = (hi >>> 24) & 255;
      b[this.n++] = (hi >>> 16) & 255;
      b[this.n++] = (hi >>> 8) & 255;
      b[this.n++] = hi & 255;
      b[this.n++] = (lo >>> 24) & 255;
      b[this.n++] = (lo >>> 16) & 255;
      b[this.n++] = (lo >>> 8) & 255;
      b[this.n++] = lo & 255;
    }
  }

  uint(v: number): void {
    this.head(0, v);
  }

  bool(v: boolean): void {
    this.room(1);
    this.buf[this.n++] = v ? 0xf5 : 0xf4;
  }

  /** float writes v as a float64 (major type 7, 0xfb). */
  float(v: number): void {
    this.room(9);
    f64[0] = v;
    // Big-endian, whatever the platform's order.
    this.buf[this.n++] = 0xfb;
    for (let i = 0; i < 8; i++) this.buf[this.n++] = f64Bytes[little ? 7 - i : i];
  }

  text(s: string): void {
    const size = utf8Length(s);
    this.head(3, size);
    this.room(size);
    const b = this.buf;
    for (let i = 0; i < s.length; i++) {
      let c = charCodeAt(s, i);
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
        const d = charCodeAt(s, i + 1);
        if ((d & 0xfc00) === 0xdc00) {
          c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
          i++;
        }
      }
      if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd; // lone surrogate
      if (c < 0x80) b[this.n++] = c;
      else if (c < 0x800) {
        b[this.n++] = 0xc0 | (c >> 6);
        b[this.n++] = 0x80 | (c & 63);
      } else if (c < 0x10000) {
        b[this.n++] = 0xe0 | (c >> 12);
        b[this.n++] = 0x80 | ((c >> 6) & 63);
        b[this.n++] = 0x80 | (c & 63);
      } else {
        b[this.n++] = 0xf0 | (c >> 18);
        b[this.n++] = 0x80 | ((c >> 12) & 63);
        b[this.n++] = 0x80 | ((c >> 6) & 63);
        b[this.n++] = 0x80 | (c & 63);
      }
    }
  }

  /** textAsBytes writes s as a byte string of its UTF-8 (JSON text travels so). */
  textAsBytes(s: string): void {
    const start = this.n;
    this.text(s);
    // Same length head, major type 2 instead of 3.
    this.buf[start] = (this.buf[start] & 31) | (2 << 5);
  }

  bytes(v: Uint8Array): void {
    const size = typedArrayLength(v);
    this.head(2, size);
    this.room(size);
    typedArraySet(this.buf, v, this.n);
    this.n += size;
  }

  /** result returns the bytes written, preceded by room bytes of prefix left zero. */
  result(prefix = 0): Uint8Array {
    const out = new Uint8ArrayCtor(prefix + this.n);
    for (let i = 0; i < this.n; i++) out[prefix + i] = this.buf[i];
    return out;
  }
}

/**
 * MapWriter writes one CBOR map: each field writes its key and value into
 * a body, counted, and end puts the head before it. Empty values are left
 * out by the callers, as the Go encoder's omitempty does.
 */
export class MapWriter {
  readonly w = new Writer();
  count = 0;

  key(k: number): Writer {
    this.count++;
    this.w.uint(k);
    return this.w;
  }

  /** into writes this map as a value of out. */
  into(out: Writer): void {
    out.head(5, this.count);
    out.room(this.w.n);
    for (let i = 0; i < this.w.n; i++) out.buf[out.n++] = this.w.buf[i];
  }
}

/** decode reads one CBOR item from bytes[start:end]. */
export function decode(bytes: Uint8Array, start: number, end: number): Value {
  let i = start;
  const need = (k: number) => {
    if (i + k > end) throw new CBORError("unexpected end of data");
  };
  const length = (info: number): number => {
    if (info < 24) return info;
    let k: number;
    if (info === 24) k = 1;
    else if (info === 25) k = 2;
    else if (info === 26) k = 4;
    else if (info === 27) k = 8;
    else throw new CBORError("indefinite or reserved length");
    need(k);
    let n = 0;
    for (let j = 0; j < k; j++) n = n * 256 + bytes[i++];
    if (!numberIsSafeInteger(n)) throw new CBORError("length too large");
    return n;
  };
  const float = (k: number): number => {
    need(k);
    if (k === 8) {
      for (let j = 0; j < 8; j++) f64Bytes[little ? 7 - j : j] = bytes[i + j];
      i += 8;
      return f64[0];
    }
    if (k === 4) {
      for (let j = 0; j < 4; j++) f32Bytes[little ? 3 - j : j] = bytes[i + j];
      i += 4;
      return f32[0];
    }
    // Half precision (RFC 8949, Appendix D).
    const h = (bytes[i] << 8) | bytes[i + 1];
    i += 2;
    const exp = (h >> 10) & 31;
    const mant = h & 1023;
    const v = exp === 0 ? mant * 2 ** -24 : exp !== 31 ? (mant + 1024) * 2 ** (exp - 25) : mant === 0 ? Infinity : NaN;
    return h & 0x8000 ? -v : v;
  };
  const item = (depth: number): Value => {
    if (depth > 16) throw new CBORError("nested too deeply");
    need(1);
    const b = bytes[i++];
    const major = b >> 5;
    const info = b & 31;
    switch (major) {
      case 0:
        return length(info);
      case 2: {
        const n = length(info);
        need(n);
        const out = new Uint8ArrayCtor(n);
        typedArraySet(out, view(bytes, i, i + n));
        i += n;
        return out;
      }
      case 3: {
        const n = length(info);
        need(n);
        const out = utf8Decode(bytes, i, i + n);
        i += n;
        return out;
      }
      case 4: {
        const n = length(info);
        const out: Value[] = [];
        for (let j = 0; j < n; j++) push(out, item(depth + 1));
        return out;
      }
      case 5: {
        const n = length(info);
        const out = record<Value>() as CBORMap;
        for (let j = 0; j < n; j++) {
          need(1);
          if (bytes[i] >> 5 !== 0) throw new CBORError("map key is not an unsigned integer");
          const k = item(depth + 1);
          if (typeof k !== "number") throw new CBORError("map key is not an unsigned integer");
          if (hasOwn(out, k)) throw new CBORError(`duplicate map key ${k}`);
          out[k] = item(depth + 1);
        }
        return out;
      }
      case 7:
        if (b === 0xf4) return false;
        if (b === 0xf5) return true;
        if (b === 0xf9) return float(2);
        if (b === 0xfa) return float(4);
        if (b === 0xfb) return float(8);
        throw new CBORError(`unsupported simple value ${b}`);
      default:
        throw new CBORError(`unsupported major type ${major}`);
    }
  };
  const v = item(0);
  if (i !== end) throw new CBORError("trailing bytes");
  return v;
}

export { join };
