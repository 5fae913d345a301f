// Package typecheck type-checks agent programs against a contract's
// declarations before they run (validate() has no side effects and
// run() never checks: https://github.com/torkbot/code-mode#schemas-tools-and-checking). It keeps one TypeScript 7 compiler running as a
// language server (`tsc --lsp --stdio`), reused across checks and restarted
// if it dies, and checks each program in a virtual project: the program as
// agent.ts, the contract's declarations, the runtime's type-definition
// files, and a strict configuration (strict, exactOptionalPropertyTypes,
// noEmit). A Result is Valid, or carries at most 8 diagnostics in the
// submitted source's coordinates and a report with excerpts.
//
// A program valid in that project is checked a second time against
// checker-only declarations whose tool methods are exact
// (typegen.CheckerDeclarations, given as File.Checker beside the contract's
// declarations), so that an argument held in a variable cannot carry
// properties the tool's closed input does not declare; only those
// diagnostics come from the second pass. It costs a second check of valid
// programs that name a tool method. Files without File.Checker are used as
// written, without that pass.
package typecheck
