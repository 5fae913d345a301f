// A small, strict CBOR (RFC 8949) codec for the wire protocol's messages:
// unsigned integers, byte strings, text strings, arrays, maps and booleans,
// definite lengths only. It is platform-neutral (no TextEncoder), so the same
// bundle loads in QuickJS and Node.js.

export type Value = number | boolean | string | Uint8Array | Value[] | Map<number, Value>;

export class CBORError extends Error {
  constructor(message: string) {
    super(`cbor: ${message}`);
    this.name = "CBORError";
  }
}

export function utf8Encode(text: string): Uint8Array {
  const out: number[] = [];
  for (let i = 0; i < text.length; i++) {
    let c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
        i++;
      }
    }
    if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd; // lone surrogate
    if (c < 0x80) out.push(c);
    else if (c < 0x800) out.push(0xc0 | (c >> 6), 0x80 | (c & 63));
    else if (c < 0x10000) out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    else out.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
  }
  return Uint8Array.from(out);
}

export function utf8Decode(bytes: Uint8Array): string {
  let out = "";
  let chunk: number[] = [];
  const flush = () => {
    out += String.fromCharCode(...chunk);
    chunk = [];
  };
  for (let i = 0; i < bytes.length; ) {
    const b = bytes[i];
    let c: number;
    let n: number;
    if (b < 0x80) [c, n] = [b, 1];
    else if (b >= 0xc2 && b < 0xe0) [c, n] = [b & 31, 2];
    else if (b >= 0xe0 && b < 0xf0) [c, n] = [b & 15, 3];
    else if (b >= 0xf0 && b < 0xf5) [c, n] = [b & 7, 4];
    else throw new CBORError("invalid UTF-8");
    if (i + n > bytes.length) throw new CBORError("truncated UTF-8");
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
      chunk.push(0xd800 + (c >> 10), 0xdc00 + (c & 1023));
    } else chunk.push(c);
    if (chunk.length > 4096) flush();
  }
  flush();
  return out;
}

class Writer {
  private buf = new Uint8Array(256);
  private n = 0;

  private room(k: number): void {
    if (this.n + k <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.n + k) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.n));
    this.buf = next;
  }

  head(major: number, len: number): void {
    if (!Number.isSafeInteger(len) || len < 0) throw new CBORError(`cannot encode length ${len}`);
    const m = major << 5;
    if (len < 24) {
      this.room(1);
      this.buf[this.n++] = m | len;
    } else if (len < 0x100) {
      this.room(2);
      this.buf[this.n++] = m | 24;
      this.buf[this.n++] = len;
    } else if (len < 0x10000) {
      this.room(3);
      this.buf[this.n++] = m | 25;
      this.buf[this.n++] = len >> 8;
      this.buf[this.n++] = len & 255;
    } else if (len < 0x100000000) {
      this.room(5);
      this.buf[this.n++] = m | 26;
      this.buf[this.n++] = (len >>> 24) & 255;
      this.buf[this.n++] = (len >>> 16) & 255;
      this.buf[this.n++] = (len >>> 8) & 255;
      this.buf[this.n++] = len & 255;
    } else {
      this.room(9);
      this.buf[this.n++] = m | 27;
      const hi = Math.floor(len / 0x100000000);
      const lo = len >>> 0;
      for (const part of [hi, lo]) {
        this.buf[this.n++] = (part >>> 24) & 255;
        this.buf[this.n++] = (part >>> 16) & 255;
        this.buf[this.n++] = (part >>> 8) & 255;
        this.buf[this.n++] = part & 255;
      }
    }
  }

  bytes(b: Uint8Array): void {
    this.room(b.length);
    this.buf.set(b, this.n);
    this.n += b.length;
  }

  value(v: Value): void {
    if (typeof v === "number") this.head(0, v);
    else if (typeof v === "boolean") {
      this.room(1);
      this.buf[this.n++] = v ? 0xf5 : 0xf4;
    } else if (typeof v === "string") {
      const b = utf8Encode(v);
      this.head(3, b.length);
      this.bytes(b);
    } else if (v instanceof Uint8Array) {
      this.head(2, v.length);
      this.bytes(v);
    } else if (Array.isArray(v)) {
      this.head(4, v.length);
      for (const x of v) this.value(x);
    } else {
      this.head(5, v.size);
      for (const [k, x] of v) {
        this.head(0, k);
        this.value(x);
      }
    }
  }

  result(): Uint8Array {
    return this.buf.slice(0, this.n);
  }
}

export function encode(v: Value): Uint8Array {
  const w = new Writer();
  w.value(v);
  return w.result();
}

export function decode(bytes: Uint8Array): Value {
  let i = 0;
  const need = (k: number) => {
    if (i + k > bytes.length) throw new CBORError("unexpected end of data");
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
    if (!Number.isSafeInteger(n)) throw new CBORError("length too large");
    return n;
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
        const out = bytes.slice(i, i + n);
        i += n;
        return out;
      }
      case 3: {
        const n = length(info);
        need(n);
        const out = utf8Decode(bytes.subarray(i, i + n));
        i += n;
        return out;
      }
      case 4: {
        const n = length(info);
        const out: Value[] = [];
        for (let j = 0; j < n; j++) out.push(item(depth + 1));
        return out;
      }
      case 5: {
        const n = length(info);
        const out = new Map<number, Value>();
        for (let j = 0; j < n; j++) {
          const k = item(depth + 1);
          if (typeof k !== "number") throw new CBORError("map key is not an unsigned integer");
          if (out.has(k)) throw new CBORError(`duplicate map key ${k}`);
          out.set(k, item(depth + 1));
        }
        return out;
      }
      case 7:
        if (b === 0xf4) return false;
        if (b === 0xf5) return true;
        throw new CBORError(`unsupported simple value ${b}`);
      default:
        throw new CBORError(`unsupported major type ${major}`);
    }
  };
  const v = item(0);
  if (i !== bytes.length) throw new CBORError("trailing bytes");
  return v;
}
