// URL and URLSearchParams: whatwg-url (the WHATWG URL Standard's reference
// implementation), bundled apart (./url-entry.ts) and kept as source text,
// compiled and evaluated on the first read of either global, so that
// executions that do not use them pay nothing but the text's bytes in the
// snapshot.

import { TypeErrorCtor, apply, data, defineProperty } from "../intrinsics";

declare const __CODEMODE_URL_BUNDLE__: string;

const FunctionCtor = Function;

type URLClasses = { URL: unknown; URLSearchParams: unknown };

/**
 * installURL defines URL and URLSearchParams on global as accessors that,
 * on first read, evaluate the bundle and replace themselves with data
 * properties (writable, configurable, not enumerable: WebIDL's interface
 * objects). encoder and decoder are the TextEncoder and TextDecoder the
 * bundle uses.
 */
export function installURL(global: Record<string, unknown>, encoder: unknown, decoder: unknown): void {
  let classes: URLClasses | undefined;
  const load = (): URLClasses => {
    if (classes === undefined) {
      const f = new FunctionCtor("TextEncoder", "TextDecoder", __CODEMODE_URL_BUNDLE__ + "\nreturn __codemodeURL;");
      const c = apply(f as never, undefined, [encoder, decoder]) as URLClasses;
      if (typeof c !== "object" || c === null) throw new TypeErrorCtor("URL: the bundle did not load");
      classes = c;
    }
    return classes;
  };
  const names = ["URL", "URLSearchParams"] as const;
  for (let i = 0; i < names.length; i++) {
    const name = names[i];
    defineProperty(global, name, {
      __proto__: null,
      configurable: true,
      enumerable: false,
      get() {
        const value = load()[name];
        defineProperty(global, name, data(value, false));
        return value;
      },
      set(value: unknown) {
        defineProperty(global, name, data(value, false));
      },
    } as PropertyDescriptor);
  }
}
