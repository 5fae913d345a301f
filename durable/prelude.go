package durable

import (
	"regexp"
	"strings"

	"github.com/evanw/esbuild/pkg/api"
)

// codemode.step(name, fn) runs fn in the program and records its value, so
// it needs code in the program itself: a tool call cannot carry a closure.
// The durable layer controls the code it passes to client.RunCode, so it
// defines `codemode` in the program's own scope, in front of the agent's
// code, on the code's first line (every line keeps its number; only columns
// on the first line move). The object's step makes two calls to the host
// tools __codemode.step_begin and __codemode.step_end, which the journal
// answers:
//
//	begin {name}                  -> {found: true, value} on replay, else {found: false, token}
//	end   {name}                  -> {}            (replayed: keeps the pass's seq numbers those of the first pass)
//	end   {name, token, value}    -> {value}       (records the value; the program continues with the recorded copy)
//	end   {name, token, failed}   -> {}            (fn threw; the error goes on)
//
// Both calls happen on every pass, so the runner's seq numbers stay those of
// the first pass and later connector calls replay without divergence.
// A connector call inside fn is journaled as usual; on replay fn does not
// run, so such a call would be missing: keep connector calls outside steps
// (they are journaled already).
//
// codemode.search and codemode.describe call the host tools
// __codemode.search and __codemode.describe (see discover in snippet.go).
// codemode.run(name, input) asks __codemode.snippet for the snippet's code
// as a function expression (recorded in the journal at its seq), evaluates
// it and calls it with the program's scope (snippetScope), input and the
// same codemode object: the snippet's calls are the execution's own, so
// their seq numbers continue the caller's. A missing snippet or connector
// resolves to {error}.
const sdkObject = `((__j) => { const __sdk = Object.freeze({ ` + sdkDiscovery + `step: async (name, fn) => { ` +
	`if (typeof name !== "string" || name === "") throw new TypeError("codemode.step: the name must be a non-empty string"); ` +
	`if (typeof fn !== "function") throw new TypeError("codemode.step: the second argument must be a function"); ` +
	`const b = await __j.step_begin({ name }); ` +
	`if (b.found) { await __j.step_end({ name }); return b.value; } ` +
	`let v; try { v = await fn(); } catch (e) { await __j.step_end({ name, token: b.token, failed: true }); throw e; } ` +
	`const r = await __j.step_end({ name, token: b.token, value: v }); return r.value; } }); return __sdk; })(` + sdkNamespace + `)`

// sdkDiscovery are codemode.search, codemode.describe and codemode.run.
const sdkDiscovery = `search: async (query) => { ` +
	`if (typeof query !== "string") throw new TypeError("codemode.search: the query must be a string"); ` +
	`return await __j.search({ query }); }, ` +
	`describe: async (target) => { ` +
	`if (typeof target !== "string" || target === "") throw new TypeError("codemode.describe: the target must be a non-empty string"); ` +
	`return await __j.describe({ target }); }, ` +
	`run: async (name, input) => { ` +
	`if (typeof name !== "string" || name === "") throw new TypeError("codemode.run: the name must be a non-empty string"); ` +
	`const s = await __j.snippet({ name }); if (s.error !== undefined) return { error: s.error }; ` +
	`const f = (0, eval)(s.code); return await f({ ...` + snippetScope + `(), input, codemode: __sdk }); }, `

// snippetScope names the function, defined before codemode, that returns
// the program's scope (its connectors, console and result) for
// codemode.run.
const snippetScope = "__codemodeSnippetScope"

// sdkDeclaration is the codemode object's declaration for the agent.
const sdkDeclaration = `/** The durable runtime's SDK. */
declare const codemode: {
  /**
   * Runs fn once and records its value (JSON); when the execution is replayed after an approval, returns the
   * recorded value without running fn. Wrap non-deterministic work that is not a connector call.
   */
  step<T>(name: string, fn: () => T | Promise<T>): Promise<T>;
  /**
   * Searches the connectors' methods and the saved snippets; at most 50 results, best first. Returns paths,
   * not schemas: pass one to describe for its declarations.
   */
  search(query: string): Promise<SearchOutput>;
  /** TypeScript declarations of a snippet, a connector or a connector.method (in that order of precedence). */
  describe(target: string): Promise<DescribeOutput>;
  /**
   * Runs the saved snippet name with input inside this execution (its calls join this execution's journal).
   * A missing snippet, or one whose connectors are not all configured, resolves to {error} instead of throwing.
   */
  run(name: string, input?: unknown): Promise<unknown>;
};

type SearchResult = {
  path: string;
  connector: string;
  method: string;
  description?: string;
  requiresApproval?: boolean;
  kind: "method" | "snippet";
  score: number;
};

type SearchOutput = {
  results: SearchResult[];
  total: number;
  truncated: boolean;
};

type DescribeOutput = {
  path: string;
  description?: string;
  requiresApproval?: boolean;
  types: string;
  kind: "connector" | "method" | "snippet";
};
`

// exportDefault finds a top-level `export default` at the start of a line.
var exportDefault = regexp.MustCompile(`(?m)^export\s+default\s`)

// prepare returns the code to run for the agent's code: the same program
// with codemode defined (see sdkObject). scope names the properties the
// program's function receives besides codemode (the connectors, console,
// result). The code keeps its form (a module with a default export, a
// function expression, or statements whose last expression is the value).
func prepare(code string, scope []string) string {
	code = unfence(code)
	if loc := exportDefault.FindStringIndex(code); loc != nil {
		// A module: its default export is called with a scope that has codemode.
		return code[:loc[0]] + "const __codemodeProgram = " + code[loc[1]:] +
			"\n;export default async (__s: any) => { const { " + sdkNamespace + ": __j, ...__rest } = __s; const " + snippetScope + " = () => __rest; " +
			"return await __codemodeProgram({ ...__rest, codemode: " + strings.Replace(sdkObject, "("+sdkNamespace+")", "(__j)", 1) + " }); };\n"
	}
	prefix := "const " + snippetScope + " = () => ({ " + strings.Join(scope, ", ") + " }); const codemode = " + sdkObject + "; "
	if !mayBeFunction(code) {
		// Statements (or an expression that is not a function, which the
		// statement form returns as it is): no parse needed.
		return prefix + code
	}
	if expr, ok := asExpression(code); ok {
		// A function expression (or another expression): called with the
		// scope when it is a function, as client.RunCode does.
		return prefix + "const __codemodeFn: any = (" + expr + "\n); " +
			"return typeof __codemodeFn === \"function\" ? await __codemodeFn({ " + strings.Join(append(scope, "codemode"), ", ") + " }) : await __codemodeFn;\n"
	}
	return prefix + code
}

// mayBeFunction reports whether code, after leading space and comments,
// starts as a function expression can (async, function, or a
// parenthesis): only then is it parsed (asExpression), which costs far more
// than running a small program.
func mayBeFunction(code string) bool {
	s := code
	for {
		s = strings.TrimLeft(s, " \t\r\n")
		switch {
		case strings.HasPrefix(s, "//"):
			i := strings.IndexByte(s, '\n')
			if i < 0 {
				return false
			}
			s = s[i+1:]
		case strings.HasPrefix(s, "/*"):
			i := strings.Index(s[2:], "*/")
			if i < 0 {
				return false
			}
			s = s[i+4:]
		default:
			return strings.HasPrefix(s, "async") || strings.HasPrefix(s, "function") || strings.HasPrefix(s, "(")
		}
	}
}

// asExpression reports whether code (without a final semicolon) is one
// expression, and returns it.
func asExpression(code string) (string, bool) {
	t := strings.TrimRight(code, " \t\r\n")
	t = strings.TrimSuffix(t, ";")
	if strings.TrimSpace(t) == "" {
		return "", false
	}
	r := api.Transform("(\n"+t+"\n);", api.TransformOptions{Loader: api.LoaderTS, Target: api.ESNext})
	return t, len(r.Errors) == 0
}

// unfence keeps only the first Markdown code fence's contents when the code
// starts with a fence, blanking the fence lines and everything outside them
// so line numbers stay those of the submitted text.
func unfence(code string) string {
	if !strings.HasPrefix(strings.TrimSpace(code), "```") {
		return code
	}
	lines := strings.Split(code, "\n")
	open, end := -1, len(lines)
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			if open < 0 {
				open = i
			} else {
				end = i
				break
			}
		}
	}
	for i := range lines {
		if i <= open || i >= end {
			lines[i] = ""
		}
	}
	return strings.Join(lines, "\n")
}
