// Package wire is the framed CBOR protocol spoken between a code-mode host
// (package client) and a runner (the JavaScript guest in package runner, or
// the Go runner inside drivers/quickjs). Every message is one frame: a 4-byte
// big-endian payload length followed by a CBOR-encoded [Message]. The runner
// speaks first with a ready message carrying the range of versions it speaks
// ([Supported], negotiated by [Negotiate]); after that the
// host sends execute, tool-result and cancel messages and the runner answers
// with tool-call, program-output and execution-result messages, all correlated
// by execution id. The package knows nothing of tools, schemas or programs: it
// moves and checks messages. docs/runner-protocol.md describes every message kind.
package wire
