// Package runner holds the JavaScript guest of code mode: the runner, written
// in TypeScript under src/ and bundled by esbuild (go generate) into one
// self-contained script, [Source], that defines the global CodeModeRunner.
//
// The runner builds each execution's scope (tools, console, result writer),
// calls the program's default export, numbers tool calls per execution in the
// order the program issues them (seq 1, 2, …), rejects tool input that is not
// JSON before it leaves the guest, keeps result content transactional and
// serialises thrown values with bounded name, message and stack without
// trusting them (throwing getters, throwing toString, Proxies). Its QuickJS
// entry (CodeModeRunner.quickjs) is driven by the Go runner in drivers/quickjs,
// one engine instance per execution.
//
// Edit src/*.ts, then run `go generate ./runner` and commit runner.js;
// TestSourceIsFresh fails while the committed bundle is stale.
package runner

import _ "embed"

//go:generate go run ./internal/generate

// Source is the bundled runner: an ES2020 script that assigns the global
// CodeModeRunner. It is what drivers receive as the runner source.
//
//go:embed runner.js
var Source string
