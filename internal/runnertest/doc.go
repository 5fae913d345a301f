// Package runnertest holds the tests every runner must pass at the wire
// level, with no client in between: a driver is connected, execute
// messages carry per-execution limits, seeds and clocks, and the test reads
// the runner's tool calls, output and result as they arrive. Each driver's
// tests call [Run]. The programs include the attacks of an adversarial
// review on the runner's own state (prototype setters, replaced built-ins,
// Object.prototype.toJSON), each of which must leave the runner's messages
// intact.
package runnertest
