// Package durable is code mode with an execution journal: connectors become
// namespaces in the program, every connector call is recorded with its
// sequence number, a method that needs a person's approval pauses the
// execution, and approval replays the same code with the same execution ID,
// returning recorded results for calls already applied. Applied actions with
// a revert can be rolled back in reverse order.
//
// A [Handle] binds a [Store] (durable/sqlite is the embedded default), a
// client.Executor (any driver: QuickJS, Node.js, a runner host) and the
// [Connector]s. Handle.Execute runs code as models write it and returns an
// [Output]: completed, paused (with the pending actions) or error. Program
// failures, replay divergence and rejected actions are outputs; Go errors
// are for the store and the caller's context.
//
// The journal is the truth: every decision (replay a recorded result,
// execute, pause, divergence) reads and writes the store, never an
// in-memory copy, so any process that opens the same journal can approve,
// reject, expire or roll back any run. State changes are conditional store
// transitions (Store.TransitionExecution, Store.TransitionEntry), which a
// shared database implements as UPDATE … WHERE status = … so that concurrent
// hosts never apply an action twice.
//
// The behaviour follows Cloudflare's Code Mode runtime
// (https://developers.cloudflare.com/agents/api-reference/codemode/):
// the handle, the journal's states, the constants and the output shapes are
// that API's, in Go. See RATIONALE.md ("Durable code mode") for the replay
// design, codemode.step and the store choice.
package durable
