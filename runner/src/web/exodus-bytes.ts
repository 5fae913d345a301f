// What whatwg-url needs of @exodus/bytes, for UTF-8 only: the URL and
// URLSearchParams classes always encode as UTF-8 (whatwg-url passes another
// encoding only from its basicURLParse option, which the classes never
// set), so the legacy encodings' tables stay out of the bundle.

/**
 * percentEncodeAfterEncoding is the URL Standard's "percent-encode after
 * encoding" (https://url.spec.whatwg.org/#string-percent-encode-after-encoding)
 * with UTF-8: C0 controls, bytes above 0x7E and the ASCII characters in set
 * are percent-encoded; with spaceAsPlus a space becomes "+".
 */
export function percentEncodeAfterEncoding(encoding: string, input: string, set: string, spaceAsPlus = false): string {
  if (`${encoding}`.toLowerCase() !== "utf-8") throw new RangeError(`percentEncodeAfterEncoding: only UTF-8 is supported, not ${encoding}`);
  const bytes = new TextEncoder().encode(input);
  const hex = "0123456789ABCDEF";
  let out = "";
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (spaceAsPlus && b === 0x20) out += "+";
    else if (b < 0x20 || b > 0x7e || set.indexOf(String.fromCharCode(b)) >= 0) out += "%" + hex[b >> 4] + hex[b & 15];
    else out += String.fromCharCode(b);
  }
  return out;
}
