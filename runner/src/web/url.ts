// URL and URLSearchParams: whatwg-url (the WHATWG URL Standard's reference
// implementation), bundled apart (./url-entry.ts) and evaluated when the
// runner is installed, so it is part of the engine snapshot every execution
// starts from: a program that uses URL pays nothing for it (evaluating the
// bundle on first use instead cost every such execution 40-160 ms, and
// grew the snapshot by the bundle's text anyway). Its IDNA library, tr46,
// with a Unicode mapping table and large regular expressions, is the
// exception: ./tr46-lazy.ts answers plain ASCII hosts itself and loads tr46
// only for the rest.

import { TypeErrorCtor, apply, data, defineProperty } from "../intrinsics";

declare const __CODEMODE_URL_BUNDLE__: string;
declare const __CODEMODE_TR46_BUNDLE__: string;

const FunctionCtor = Function;

type URLClasses = { URL: unknown; URLSearchParams: unknown };

/**
 * installURL evaluates the URL bundle and defines URL and URLSearchParams on
 * global as data properties (writable, configurable, not enumerable:
 * WebIDL's interface objects). encoder and decoder are the TextEncoder and
 * TextDecoder the bundle uses.
 */
export function installURL(global: Record<string, unknown>, encoder: unknown, decoder: unknown): void {
  let tr46: unknown;
  const loadTR46 = (): unknown => {
    if (tr46 === undefined) {
      const f = new FunctionCtor(__CODEMODE_TR46_BUNDLE__ + "\nreturn __codemodeTR46;");
      const t = apply(f as never, undefined, []);
      if (typeof t !== "object" || t === null) throw new TypeErrorCtor("URL: the IDNA bundle did not load");
      tr46 = t;
    }
    return tr46;
  };
  const f = new FunctionCtor("TextEncoder", "TextDecoder", "__codemodeLoadTR46", __CODEMODE_URL_BUNDLE__ + "\nreturn __codemodeURL;");
  const classes = apply(f as never, undefined, [encoder, decoder, loadTR46]) as URLClasses;
  if (typeof classes !== "object" || classes === null) throw new TypeErrorCtor("URL: the bundle did not load");
  defineProperty(global, "URL", data(classes.URL, false));
  defineProperty(global, "URLSearchParams", data(classes.URLSearchParams, false));
}
