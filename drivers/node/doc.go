// Package node is a driver that runs programs in one long-lived Node.js
// child process per runtime, with the runner attached to file descriptors 3
// and 4 (a pipe each way) and executions multiplexed on them. Each execution is a
// fresh root ES module (node:vm SourceTextModule, named after the program
// file); `import` of node: built-ins and of packages installed under the
// working directory goes through Node's own resolution.
//
// This driver is NOT a sandbox: programs run with the full rights of the
// Node.js process. Use it for trusted programs and for conformance tests; the
// QuickJS driver (drivers/quickjs) is the sandbox. Options.Permission turns
// on Node.js's permission model (file system, child processes, workers,
// addons, WASI) as a guard against mistakes in trusted code; it does not
// make the driver a sandbox: Node.js 24's model has no network permission,
// there is no memory or CPU limit per execution, every execution shares one
// process and its globals, and Node.js does not promise the model holds
// against code written to escape it. An unhandled rejection or
// an uncaught exception in a program does not take the process down (a
// rejection still unhandled at the execution's end is a warning line on its
// stderr, as on QuickJS), but a program that never yields blocks every
// execution on the runtime.
//
// The runner strips a program's TypeScript types itself, with Node.js's
// module.stripTypeScriptTypes (blanks in place of types, so every line and
// column stays where it was), and says so in its ready message (wire 1.4):
// a client then sends modules as written and skips its own erasure with
// esbuild, which costs several times more. A program blanks cannot erase
// (an enum, a namespace, a parameter property), that does not parse, or
// that does not compile once stripped is refused before anything of it
// runs, and the client erases it and sends it again. Modules with imports,
// classes or exports other than the default, and model-written code
// (Client.RunCode), are erased by the client as before.
//
// The checker's declarations of the runtime (Driver.TypeDefinitionFiles)
// are those of an installed @types/node 24 package; another Node.js driver
// (a sandboxed one, say) reuses them from a Driver that is never connected:
// New(Options{TypesDir: dir}).TypeDefinitionFiles(ctx).
package node
