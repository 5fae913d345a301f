// The execution's random streams: ChaCha20 (RFC 8439's block function, with
// the 16-byte-key constants "expand 16-byte k" of Bernstein's original
// ChaCha) keyed by the execution's 16-byte seed. Stream 0 feeds
// crypto.getRandomValues and crypto.randomUUID; block 0 of stream 1 seeds
// Math.random's sfc32, so that reading Math.random (whose state can be
// recovered from its output) tells nothing of the crypto stream. One seed
// gives the same values on every engine, which is what durable replay needs.

import { TypeErrorCtor, Uint8ArrayCtor, apply, getOwnPropertyDescriptor, getPrototypeOf } from "../intrinsics";
import { domError } from "./dom";
import { typedArrayTag } from "./text";

function rotl(v: number, n: number): number {
  return (v << n) | (v >>> (32 - n));
}

/** chachaBlock writes the 16 words of ChaCha20 block (key: 4 words, stream, counter) into out. */
export function chachaBlock(key: number[], stream: number, counter: number, out: number[]): void {
  const x: number[] = [
    0x61707865, 0x3120646e, 0x79622d36, 0x6b206574,
    key[0] | 0, key[1] | 0, key[2] | 0, key[3] | 0,
    key[0] | 0, key[1] | 0, key[2] | 0, key[3] | 0,
    counter | 0, (counter / 4294967296) | 0, stream | 0, 0,
  ];
  const s = x.slice();
  const qr = (a: number, b: number, c: number, d: number) => {
    x[a] = (x[a] + x[b]) | 0; x[d] = rotl(x[d] ^ x[a], 16);
    x[c] = (x[c] + x[d]) | 0; x[b] = rotl(x[b] ^ x[c], 12);
    x[a] = (x[a] + x[b]) | 0; x[d] = rotl(x[d] ^ x[a], 8);
    x[c] = (x[c] + x[d]) | 0; x[b] = rotl(x[b] ^ x[c], 7);
  };
  for (let i = 0; i < 10; i++) {
    qr(0, 4, 8, 12); qr(1, 5, 9, 13); qr(2, 6, 10, 14); qr(3, 7, 11, 15);
    qr(0, 5, 10, 15); qr(1, 6, 11, 12); qr(2, 7, 8, 13); qr(3, 4, 9, 14);
  }
  for (let i = 0; i < 16; i++) out[i] = (x[i] + s[i]) >>> 0;
}

/** chachaStream returns a function filling byte arrays from ChaCha20 stream `stream` keyed by key. */
export function chachaStream(key: number[], stream: number): (out: Uint8Array, offset: number, length: number) => void {
  const block: number[] = [];
  let counter = 0;
  let used = 64;
  return (out, offset, length) => {
    for (let i = 0; i < length; i++) {
      if (used === 64) {
        chachaBlock(key, stream, counter++, block);
        used = 0;
      }
      out[offset + i] = (block[used >> 2] >>> ((used & 3) * 8)) & 0xff;
      used++;
    }
  };
}

/** mathRandomSeed is the sfc32 seed for Math.random derived from key. */
export function mathRandomSeed(key: number[]): number[] {
  const block: number[] = [];
  chachaBlock(key, 1, 0, block);
  return [block[0], block[1], block[2], block[3]];
}

const TypedArrayPrototype = getPrototypeOf(Uint8Array.prototype) as object;
const taBuffer = (getOwnPropertyDescriptor(TypedArrayPrototype, "buffer") as PropertyDescriptor).get as () => ArrayBuffer;
const taByteOffset = (getOwnPropertyDescriptor(TypedArrayPrototype, "byteOffset") as PropertyDescriptor).get as () => number;
const taByteLength = (getOwnPropertyDescriptor(TypedArrayPrototype, "byteLength") as PropertyDescriptor).get as () => number;

const integerArrays = ["Int8Array", "Uint8Array", "Uint8ClampedArray", "Int16Array", "Uint16Array", "Int32Array", "Uint32Array", "BigInt64Array", "BigUint64Array"];

/** Bytes fills out[offset:offset+length] from the running execution's crypto stream. */
export type Bytes = (out: Uint8Array, offset: number, length: number) => void;

/**
 * makeCrypto returns the global crypto object: getRandomValues and
 * randomUUID (https://w3c.github.io/webcrypto/#Crypto-interface) reading
 * bytes() of the running execution.
 */
export function makeCrypto(bytes: () => Bytes): object {
  const hex = "0123456789abcdef";
  const crypto = {
    getRandomValues<T>(array: T): T {
      const tag = typedArrayTag(array);
      let ok = false;
      for (let i = 0; i < integerArrays.length; i++) if (integerArrays[i] === tag) ok = true;
      if (!ok) {
        if (tag === undefined) throw new TypeErrorCtor("crypto.getRandomValues: the argument must be an integer typed array");
        throw domError(`crypto.getRandomValues: a ${tag} is not an integer typed array`, "TypeMismatchError");
      }
      const n = apply(taByteLength, array, []);
      if (n > 65536) {
        throw domError(`crypto.getRandomValues: ${n} bytes requested, more than the 65536 allowed`, "QuotaExceededError");
      }
      const view = new Uint8ArrayCtor(apply(taBuffer, array, []), apply(taByteOffset, array, []), n);
      bytes()(view, 0, n);
      return array;
    },
    randomUUID(): string {
      const b = new Uint8ArrayCtor(16);
      bytes()(b, 0, 16);
      b[6] = (b[6] & 0x0f) | 0x40;
      b[8] = (b[8] & 0x3f) | 0x80;
      let out = "";
      for (let i = 0; i < 16; i++) {
        if (i === 4 || i === 6 || i === 8 || i === 10) out += "-";
        out += hex[b[i] >> 4] + hex[b[i] & 15];
      }
      return out;
    },
  };
  return crypto;
}

