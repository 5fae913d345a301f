// Package client is what embedders use: a [Runtime] is a connected
// execution environment made by any driver (package drivers), and a [Client]
// binds one runtime to one program contract (package contract) to run
// agent-authored TypeScript programs
// (https://github.com/torkbot/code-mode#outcomes-cancellation-and-telemetry and
// https://github.com/torkbot/code-mode#runtime-lifecycle).
//
// Client.Run validates program input on the host, erases TypeScript (the
// common subset by blanking its types in place, the rest with esbuild in a
// child process the run's deadline stops, with a source map, so stack
// traces name the submitted line and column), sends one execution to the
// runtime, routes each tool call to its
// handler with host-side validation of input and output, and returns an
// [Outcome]: success with ordered content, or program-failed with the
// error. Transport failures and cancellation are Go errors, not outcomes.
// Telemetry callbacks observe every step and cannot change it.
//
// A tool handler's error reaches the program as a rejected call with an Error
// named "Error"; an error value with an ErrorName() string method names it
// instead (connector/openapi's HTTPError is an "HTTPError"), so programs can
// tell failures apart by name; an ErrorProperties() map[string]any method
// gives that Error own properties of its own, JSON values beside name and
// message (an HTTPError's status, method, path and body), where the runner
// speaks wire 1.7 and they encode in 16 KiB. [Halt] ends the whole
// execution instead. A handler (or Middleware) that panics fails its call
// alone: the program reads "tool <namespace>.<tool> panicked: <value>",
// and the embedder's telemetry gets a [*PanicError] holding the panic's
// Go stack, which the program never sees.
package client
