// Package esbuildchild runs esbuild's transform (api.Transform of
// github.com/evanw/esbuild/pkg/api) in a child process that a context
// stops, for text a program wrote.
//
// esbuild's TypeScript parser takes time exponential in some short inputs
// and api.Transform cannot be interrupted: since esbuild 0.25.7 an arrow
// function's return type inside a conditional is found by parsing the
// arrow's body speculatively, and each nested `a ? (b): c =>` doubles the
// work ("a ? (b): c => " repeated 20 times, 286 bytes, held a core for 14 s;
// the same speculation without a memo is described in
// https://github.com/oven-sh/bun/pull/34252). A goroutine cannot be stopped
// from outside; a process can. A Session starts the program's own
// executable again, which this package's init hook turns into an esbuild
// server before main runs; the process is killed when the Session's
// context ends, and exits when the Session is closed.
//
// The child runs with GOMAXPROCS=1 (a hostile program holds at most one
// core until its deadline), exits when its memory passes DefaultMaxMemory
// (esbuild's printer can also take gigabytes for a short text), has an
// environment holding only its markers, and reads nothing but its standard
// input. It is not confined otherwise: it runs no program, only esbuild's
// parser and printer over the text.
//
// What an embedder should know: the child is the whole program started
// again, so the init functions of every package the program links run in
// it before the hook does (with an empty environment; what they print
// goes to the child's standard output, kept with its standard error for
// error messages, never into the channel, which is descriptors 3 and 4 on
// Unix), and a program whose executable cannot be started again (deleted,
// or not a Go main program) cannot erase what blank refuses: such a run
// fails with an error naming the executable. The child also exits when
// its parent does.
package esbuildchild
