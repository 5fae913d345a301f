// DOMException helpers for the web globals. QuickJS-NG and Node.js both have
// DOMException natively; it is captured when the runner loads.

const DOMExceptionCtor = (globalThis as unknown as { DOMException: new (message?: string, name?: string) => Error }).DOMException;

/** domError makes a DOMException (name as in WebIDL: "DataCloneError", "AbortError", …). */
export function domError(message: string, name: string): Error {
  return new DOMExceptionCtor(message, name);
}
