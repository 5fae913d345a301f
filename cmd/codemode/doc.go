// Command codemode runs agent-authored TypeScript programs against tools
// declared in a JSON file, on the embedded QuickJS runtime.
//
//	codemode types --tools tools.json [--input-schema schema.json]
//	codemode check --tools tools.json [--input-schema schema.json] program.ts
//	codemode run --tools tools.json [--input JSON] [--input-schema FILE] [--timeout D] [--repeat N] [--json] program.ts
//
// Exit status: 0 on success (check: the program is valid), 1 when a program
// failed, is invalid, or the host refused the run, 2 for a usage error, 3
// when a run with a journal paused for approval, 4 when something the
// command needs is not installed (check's TypeScript 7 compiler).
package main
