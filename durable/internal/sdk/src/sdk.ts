// The durable SDK: the scope setup of a durable handle's client
// (client.Extension.Setup). It runs inside the program, before the code,
// and gives the program's codemode namespace a journaled step and run.
//
// codemode.step(name, fn) runs fn in the program and records its value, so
// it needs code in the program itself: a tool call cannot carry a closure.
// It makes two calls to the host tools of the hidden namespace __codemode,
// which the journal answers:
//
//   step_begin {name}               -> {found: true, value, skip, skipClock, skipDraws, skipBytes} on replay, else {found: false, token}
//   step_skip  {name}               -> {}        (replayed: once per call fn made on the pass that recorded it)
//   step_end   {name}               -> {}        (replayed: keeps the pass's seq numbers those of the first pass)
//   step_end   {name, token, value} -> {value}   (records the value; the program continues with the recorded copy)
//   step_end   {name, token, failed}           -> {}  (fn threw; the error goes on)
//   step_end   {name, token, failed, reason}   -> {}  (fn's value is not JSON: the program gets a TypeError that says so)
//
// Both calls happen on every pass, so the runner's seq numbers stay those
// of the first pass and later tool calls replay without divergence. Once a
// step's value is recorded fn no longer runs, so the calls it made do not
// happen again: a replay makes one step_skip call per seq they took, reads
// the clock once per value fn read and draws the random streams as fn did,
// so the program's later calls and values are those of the first pass.
//
// codemode.run(name, input) asks __codemode.snippet for the saved program's
// code as a function expression (recorded in the journal at its seq),
// evaluates it and calls it with the program's scope, input and this same
// codemode: the saved program's calls are the execution's own.
//
// The setup takes __codemode out of the scope it returns, so a program can
// never call the journal's tools itself to forge a record.
//
// step and run are defined on the runner's own codemode namespace (define,
// the setup's second argument), so that a tool call goes through no
// wrapper; a runner without define gets a Proxy over the namespace.
(scope: any, define?: any): any => {
  const { __codemode: journal, ...rest } = scope;
  const tools = rest.codemode;
  const TypeErrorCtor = TypeError, ErrorCtor = Error, StringCtor = String, stringify = JSON.stringify;
  const setPrototypeOf = Object.setPrototypeOf, defineProperty = Object.defineProperty;
  const evaluate = eval;
  const ProxyCtor = Proxy;

  // at makes site, an Error made where the program called step (before its
  // first await), the TypeError with message: an error made later would
  // have no frame in the program, and the report no place in the code. The
  // stack is site's own, never copied: the runner writes the stack a
  // program reads at the code's own lines (runner/src/stack.ts), and a
  // copied text would be placed a second time in the report.
  const at = (site: any, message: string): any => {
    try {
      setPrototypeOf(site, TypeErrorCtor.prototype);
      defineProperty(site, "message", { value: message, writable: true, enumerable: false, configurable: true });
      return site;
    } catch {
      return new TypeErrorCtor(message);
    }
  };

  // replay skips what a recorded step's function did on the pass that
  // recorded it: its calls, its clock reads and its random draws.
  const replay = async (name: string, b: any): Promise<any> => {
    for (let i = 0; i < (b.skip || 0); i++) await journal.step_skip({ name });
    for (let i = 0; i < (b.skipClock || 0); i++) Date.now();
    for (let i = 0; i < (b.skipDraws || 0); i++) Math.random();
    for (let n = b.skipBytes || 0; n > 0; n -= 65536) crypto.getRandomValues(new Uint8Array(n < 65536 ? n : 65536));
    await journal.step_end({ name });
    return b.value;
  };

  // notJSON is the TypeError for a step whose value the runner refused as
  // tool input, or the error itself.
  const notJSON = (name: string, e: any, site: any): any => {
    const m = e instanceof TypeErrorCtor ? StringCtor(e.message) : "", p = "tool input is not JSON: input.";
    if (m.slice(0, p.length) !== p) return e;
    return at(site, "codemode.step(" + stringify(name) + ") returned a value that is not JSON: " + m.slice(p.length) +
      "; return plain data (objects, arrays, strings, finite numbers, booleans, null)");
  };

  const step = async (name: any, fn: any): Promise<any> => {
    if (typeof name !== "string" || name === "") throw new TypeErrorCtor("codemode.step: the name must be a non-empty string");
    if (typeof fn !== "function") throw new TypeErrorCtor("codemode.step: the second argument must be a function");
    const site = new ErrorCtor();
    const b = await journal.step_begin({ name });
    if (b.found) return await replay(name, b);
    let v: any;
    try {
      v = await fn();
    } catch (e) {
      await journal.step_end({ name, token: b.token, failed: true });
      throw e;
    }
    let r: any;
    try {
      r = await journal.step_end({ name, token: b.token, value: v });
    } catch (e: any) {
      const err = notJSON(name, e, site);
      try {
        await journal.step_end({ name, token: b.token, failed: true, reason: err === e ? "" : err.message });
      } catch {}
      throw err;
    }
    return r.value;
  };

  let sdk: any;
  const run = async (name: any, input: any): Promise<any> => {
    if (typeof name !== "string" || name === "") throw new TypeErrorCtor("codemode.run: the name must be a non-empty string");
    const s = await journal.snippet({ name });
    if (s.error !== undefined) return { error: s.error };
    const f = (0, evaluate)(s.code);
    return await f({ ...rest, input, codemode: sdk });
  };

  if (typeof define === "function") {
    define("codemode", "step", step);
    define("codemode", "run", run);
    sdk = tools;
  } else {
    sdk = new ProxyCtor(tools, {
      get: (t: any, p: any) => (p === "step" ? step : p === "run" ? run : t[p]),
      has: (t: any, p: any) => p === "step" || p === "run" || p in t,
    });
  }
  return { ...rest, codemode: sdk };
}
