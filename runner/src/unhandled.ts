import { WeakSetCtor, arrayIndexOf, push, weakSetAdd, weakSetDelete, weakSetHas } from "./intrinsics";

// Unhandled rejections: the promises a program let reject with no handler.
// The platform tells the execution of them (Execution.rejection): QuickJS
// through its host promise rejection tracker (drivers/quickjs/rejection.go),
// Node.js through the process's unhandledRejection and rejectionHandled
// events. Both also say when a handler is attached to such a promise later.
// Those still unhandled when the execution ends are a warning line each.

/**
 * maxUnhandled is how many unhandled rejections an execution keeps, with
 * their reasons, for its warning lines; past that they are only counted.
 */
export const maxUnhandled = 10;

/** Unhandled is one execution's unhandled rejections. */
export interface Unhandled {
  /**
   * track notes that promise was rejected while it had no handler
   * (handled false), or that such a promise got a handler later (handled
   * true).
   */
  track(promise: object, reason: unknown, handled: boolean): void;
  /** reasons are the reasons of the kept promises still unhandled, in the order they were rejected. */
  reasons(): unknown[];
  /** more is how many promises past those are still unhandled. */
  more(): number;
}

/**
 * unhandledRejections makes an empty Unhandled. It keeps the first
 * maxUnhandled promises and their reasons (a reference each, until they
 * are handled or the execution is dropped); those past it are held weakly,
 * so that one handled later is uncounted and one that is garbage is
 * collected with its reason: a program that lets a million promises
 * reject holds no more memory for it than ten.
 */
export function unhandledRejections(): Unhandled {
  const promises: object[] = [];
  const reasons: unknown[] = [];
  let past: WeakSet<object> | undefined;
  let more = 0;
  const removeAt = (at: number): void => {
    for (let i = at + 1; i < promises.length; i++) {
      promises[i - 1] = promises[i];
      reasons[i - 1] = reasons[i];
    }
    promises.length = promises.length - 1;
    reasons.length = reasons.length - 1;
  };
  return {
    __proto__: null,
    track(promise: object, reason: unknown, handled: boolean): void {
      const at = arrayIndexOf(promises, promise);
      if (handled) {
        if (at >= 0) removeAt(at);
        else if (past !== undefined && weakSetDelete(past, promise)) more--;
        return;
      }
      if (at >= 0) return;
      if (promises.length < maxUnhandled) {
        push(promises, promise);
        push(reasons, reason);
        return;
      }
      if (past === undefined) past = new WeakSetCtor();
      if (!weakSetHas(past, promise)) {
        weakSetAdd(past, promise);
        more++;
      }
    },
    reasons: () => reasons,
    more: () => more,
  } as unknown as Unhandled;
}
