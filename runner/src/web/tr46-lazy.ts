// What the URL bundle imports as "tr46" (UTS #46, IDNA processing): a fast
// path for the hosts programs nearly always use, and the real tr46 (its
// Unicode mapping table and regular expressions, the bulk of the URL code)
// loaded on first need through __codemodeLoadTR46, which the runner passes
// in when it evaluates the URL bundle (./url.ts).
//
// The fast path is the URL Standard's own note on "domain to ASCII"
// (https://url.spec.whatwg.org/#concept-domain-to-ascii, step 2): when
// beStrict is false, the domain is ASCII and no label starts with an ASCII
// case-insensitive "xn--", UTS #46 processing is equivalent to ASCII
// lowercasing. whatwg-url calls toASCII with beStrict false from the host
// parser (checkHyphens, useSTD3ASCIIRules and verifyDNSLength all false).

declare const __codemodeLoadTR46: () => { toASCII(domain: string, options: unknown): string | null };

interface Options {
  checkHyphens?: boolean;
  useSTD3ASCIIRules?: boolean;
  verifyDNSLength?: boolean;
}

/** asciiLowercase returns domain ASCII-lowercased, or undefined when the fast path does not apply. */
function asciiLowercase(domain: string): string | undefined {
  let out = "";
  let labelStart = 0;
  for (let i = 0; i <= domain.length; i++) {
    const c = i < domain.length ? domain.charCodeAt(i) : 0x2e;
    if (c > 0x7f) return undefined;
    if (c === 0x2e) {
      if (i - labelStart >= 4) {
        const prefix = domain.slice(labelStart, labelStart + 4).toLowerCase();
        if (prefix === "xn--") return undefined;
      }
      labelStart = i + 1;
    }
    out += c >= 0x41 && c <= 0x5a ? String.fromCharCode(c + 0x20) : i < domain.length ? domain[i] : "";
  }
  return out;
}

/** toASCII is UTS #46 ToASCII as tr46 exports it. */
export function toASCII(domain: string, options: Options = {}): string | null {
  if (!options.checkHyphens && !options.useSTD3ASCIIRules && !options.verifyDNSLength) {
    const fast = asciiLowercase(domain);
    if (fast !== undefined) return fast;
  }
  return __codemodeLoadTR46().toASCII(domain, options);
}
