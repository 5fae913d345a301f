// Package quickjs is the embedded default driver: QuickJS-NG compiled to a
// WASI reactor (github.com/aperturerobotics/go-quickjs-wasi-reactor) and
// hosted by wazero. It is a sandbox: engines get no file system, arguments,
// environment or network, and no module loader, so qjs:std and qjs:os cannot
// be imported; the only way out of a program is a tool call.
//
// The runner role is played in Go: each execution gets its own engine
// instance, taken from a pool of instances restored from a memory snapshot of
// an engine with the runner installed, so a deadline, memory or stack limit
// that kills an engine fails only that execution and the runtime carries on.
// RATIONALE.md at the module root records the design and the alternatives.
package quickjs
