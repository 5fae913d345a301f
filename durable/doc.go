// Package durable is code mode with an execution journal: every tool call
// of a program is recorded with its sequence number, a call whose tool's
// policy needs a person's approval pauses the execution, and approval
// replays the same code with the same execution ID, returning recorded
// results for calls already applied. Applied calls whose tool has a revert
// can be rolled back in reverse order.
//
// A [Handle] wraps any contract: the tools of a *contract.Contract (Go
// functions, tools-file commands, MCP servers' and OpenAPI documents'
// tools alike) keep their namespaces, and each one's contract.Policy says
// whether it needs approval, how it replays and how it is undone. The same
// program runs plain (package client) and durable unchanged. A Handle binds
// a journal store ([OpenStore]: SQLite, the embedded default, or
// PostgreSQL, shared by replicas; the SPI is package durable/store), a
// client.Executor (any driver: QuickJS, Node.js, a runner host) and the
// contract. [Handle.Execute] runs code as models write it and answers with
// a codetool.Answer: completed, paused (with the pending actions) or
// error. Program failures, replay divergence and rejected actions are
// answers; Go errors are for the store and the caller's context.
//
// The journal is the truth: every decision (replay a recorded result,
// execute, pause, divergence) reads and writes the store, never an
// in-memory copy, so any process that opens the same journal can approve,
// reject, expire or roll back any run. State changes are conditional store
// transitions (store.Store.TransitionExecution, TransitionEntry), which a
// shared database implements as UPDATE … WHERE status = … so that
// concurrent hosts never apply an action twice.
//
// A host may die anywhere in a pass. A pass holds a lease on its execution
// (Options.Lease), renewed while it runs; a running execution whose lease
// ended is orphaned, and [Handle.Resume] (or Approve, or
// [Handle.ResumeOrphans] on a serving replica) takes it over and replays it
// from the journal. An action whose outcome the crash left unknown is put
// to a person as an uncertain pause ([Handle.Resolve]: it happened;
// Approve: run it again; Reject: fail the run), unless its tool is a read
// or idempotent, which simply runs again. See RATIONALE.md ("Crash
// recovery").
//
// The behaviour follows Cloudflare's Code Mode runtime
// (https://developers.cloudflare.com/agents/api-reference/codemode/):
// the handle, the journal's states, the constants and the answer shapes
// are that API's, in Go. See RATIONALE.md ("Durable code mode") for the
// replay design, codemode.step and the store choice.
package durable
