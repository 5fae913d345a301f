// Built-ins the runner uses, captured when the runner loads, before any
// program runs: a program that replaces JSON.stringify or
// Array.prototype.join must not be able to forge or break what the runner
// sends to the host.
export const jsonStringify = JSON.stringify;
export const jsonParse = JSON.parse;
const apply = Reflect.apply;
const arrayJoin = Array.prototype.join;

/** join is Array.prototype.join as it was when the runner loaded. */
export function join(items: string[], separator: string): string {
  return apply(arrayJoin, items, [separator]) as string;
}
