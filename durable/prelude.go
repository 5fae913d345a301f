package durable

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/codemode-go/codemode/typegen"
	"github.com/evanw/esbuild/pkg/api"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/internal/excerpt"
)

// codemode.step(name, fn) runs fn in the program and records its value, so
// it needs code in the program itself: a tool call cannot carry a closure.
// The durable layer's client makes the codemode object in its scope setup
// (sdkSetup), which replaces the host namespace __codemode in the
// program's scope, and the code it passes to client.RunCode names it
// `codemode` in front of the agent's code, on the code's first line (every
// line keeps its number; only columns on the first line move). The
// object's step makes two calls to the host tools __codemode.step_begin
// and __codemode.step_end, which the journal answers:
//
//	begin {name}                  -> {found: true, value, skip, skipClock, skipDraws, skipBytes} on replay, else {found: false, token}
//	skip  {name}                  -> {}            (replayed: once per call fn made on the pass that recorded it)
//	end   {name}                  -> {}            (replayed: keeps the pass's seq numbers those of the first pass)
//	end   {name, token, value}    -> {value}       (records the value; the program continues with the recorded copy)
//	end   {name, token, failed}   -> {}            (fn threw; the error goes on)
//	end   {name, token, failed, reason} -> {}      (fn's value is not JSON: the program gets a TypeError that says so)
//
// The value goes to the host as the tool call's input, which the runner
// encodes: a value JSON cannot hold (a function, a BigInt, a cycle, a
// Date) fails that call before it leaves the program, so the step ends
// as failed with the reason and the entry is not left executing.
//
// Both calls happen on every pass, so the runner's seq numbers stay those of
// the first pass and later connector calls replay without divergence.
// A connector call inside fn is journaled as usual (and may pause: then fn
// runs again on the approval's pass, its calls replayed). Once the step's
// value is recorded fn no longer runs, so its calls do not happen again:
// the end of such a step is recorded (StepEndMethod) and a replay makes
// one step_skip call per seq they took. Likewise for the clock: a replay
// reads Date.now() once per clock value fn read (the runner answers them
// from the recorded clock), so the program's later reads get the values
// they got on the first pass; and for the random streams: it calls
// Math.random once per call fn made and reads as many crypto bytes as fn
// did (the runner reports both with every tool call, wire 1.3), so the
// values after the step are those of the first pass too. Calls the program makes
// concurrently with fn, outside it, are counted with fn's own: they diverge
// on replay (an error, never a wrong result); await them apart.
//
// codemode.search and codemode.describe call the host tools
// __codemode.search and __codemode.describe (see discover in snippet.go).
// codemode.run(name, input) asks __codemode.snippet for the snippet's code
// as a function expression (recorded in the journal at its seq), evaluates
// it and calls it with the program's scope (snippetScope), input and the
// same codemode object: the snippet's calls are the execution's own, so
// their seq numbers continue the caller's. A missing snippet or connector
// resolves to {error}.
const sdkObject = `((__j: any) => { const __TypeError = TypeError, __Error = Error, __String = String, __stringify = JSON.stringify; ` +
	// at gives err the stack of site, an Error made where the program
	// called step (before its first await): an error the SDK makes later
	// would otherwise have no frame in the program, and the journal's
	// message no place in the agent's code.
	`const __at = (err: any, site: any) => { try { const s = __String(site.stack), i = s.indexOf("\n"); if (i >= 0) err.stack = err.name + ": " + err.message + s.slice(i); } catch {} return err; }; ` +
	`const __sdk: any = Object.freeze({ ` + sdkDiscovery + `step: async (name: any, fn: any) => { ` +
	`if (typeof name !== "string" || name === "") throw new TypeError("codemode.step: the name must be a non-empty string"); ` +
	`if (typeof fn !== "function") throw new TypeError("codemode.step: the second argument must be a function"); ` +
	`const site = new __Error(); const b = await __j.step_begin({ name }); ` +
	`if (b.found) { for (let i = 0; i < (b.skip || 0); i++) await __j.step_skip({ name }); ` +
	`for (let i = 0; i < (b.skipClock || 0); i++) Date.now(); ` +
	`for (let i = 0; i < (b.skipDraws || 0); i++) Math.random(); ` +
	`for (let n = b.skipBytes || 0; n > 0; n -= 65536) crypto.getRandomValues(new Uint8Array(n < 65536 ? n : 65536)); ` +
	`await __j.step_end({ name }); return b.value; } ` +
	`let v: any; try { v = await fn(); } catch (e) { await __j.step_end({ name, token: b.token, failed: true }); throw e; } ` +
	`let r: any; try { r = await __j.step_end({ name, token: b.token, value: v }); } catch (e: any) { ` +
	`const m = e instanceof __TypeError ? __String(e.message) : "", p = "tool input is not JSON: input."; ` +
	`const err = m.slice(0, p.length) === p ? __at(new __TypeError("codemode.step(" + __stringify(name) + ") returned a value that is not JSON: " + m.slice(p.length) + ` +
	`"; return plain data (objects, arrays, strings, finite numbers, booleans, null)"), site) : e; ` +
	`try { await __j.step_end({ name, token: b.token, failed: true, reason: err === e ? "" : err.message }); } catch {} throw err; } ` +
	`return r.value; } }); ` + sdkMissing + `})(__j)`

// sdkMissing returns the codemode object behind a proxy whose other
// methods throw a TypeError that names where the tools are: an agent used
// to plain code mode writes codemode.getWeather(…) for a tool that durable
// runs put on its connector (the CLI's tools file on "tools"), and would
// otherwise get a bare "not a function".
const sdkMissing = `return new Proxy(__sdk, { get: (t: any, p: any) => { ` +
	`if (typeof p !== "string" || p in t || p === "then" || p === "toJSON") return t[p]; ` +
	`return () => { const cs = Object.keys(` + snippetScope + `()).filter((k: string) => k !== "console" && k !== "result"); ` +
	`throw new TypeError("codemode." + p + " is not a function: in durable runs codemode has step, search, describe and run, " + ` +
	`(cs.length === 0 ? "and there are no tools" : "and the tools are on " + cs.map((c: string) => "\x60" + c + "\x60").join(", ") + (cs.length === 1 ? " (" + cs[0] + "." + p + ")" : ""))); }; } }); `

// sdkDiscovery are codemode.search, codemode.describe and codemode.run.
const sdkDiscovery = `search: async (query: any) => { ` +
	`if (typeof query !== "string") throw new TypeError("codemode.search: the query must be a string"); ` +
	`return await __j.search({ query }); }, ` +
	`describe: async (target: any) => { ` +
	`if (typeof target !== "string" || target === "") throw new TypeError("codemode.describe: the target must be a non-empty string"); ` +
	`return await __j.describe({ target }); }, ` +
	`run: async (name: any, input: any) => { ` +
	`if (typeof name !== "string" || name === "") throw new TypeError("codemode.run: the name must be a non-empty string"); ` +
	`const s = await __j.snippet({ name }); if (s.error !== undefined) return { error: s.error }; ` +
	`const f = (0, eval)(s.code); return await f({ ...` + snippetScope + `(), input, codemode: __sdk }); }, `

// snippetScope names the function, defined before codemode, that returns
// the program's scope (its connectors, console and result) for
// codemode.run.
const snippetScope = "__codemodeSnippetScope"

// sdkSetup is the handle's client's scope setup (client.Client.WithScopeSetup):
// it makes the codemode object from the journal's host namespace and puts
// it in the namespace's place, so the program's scope (the __codemode
// binding, and __codemodeScope, which the statement and function forms
// can name) holds the codemode object and never the host tools: a program
// cannot call step_begin or step_end itself to forge a journal record.
// The setup runs before the agent's code, on the wrapper's own lines.
const sdkSetup = `(__s: any): any => { const { ` + sdkNamespace + `: __j, ...__rest } = __s; const ` + snippetScope + ` = () => __rest; ` +
	`return { ...__rest, ` + sdkNamespace + `: ` + sdkObject + ` }; }`

// sdkDeclaration is the codemode object's declaration for the agent (the
// one typegen prints for a contract WithDurableSDK).
var sdkDeclaration = typegen.DurableSDKDeclaration()

// prepare returns the code to run for the agent's code: the same program
// with codemode defined (see sdkObject). scope names the properties the
// program's function receives besides codemode (the connectors, console,
// result), and how the code moved (shift.restore maps positions back).
// The code keeps its form (a module with a default export, a
// function expression, or statements whose last expression is the value).
func prepare(code string, scope []string) (string, shift) {
	code = unfence(code)
	if at, n := client.ExportDefault(code); at >= 0 {
		// A module (wherever its export default stands, as RunCode finds
		// it): its default export is called with a scope that has codemode.
		// The lines a multi-line "export\ndefault" held are kept.
		decl := "const __codemodeProgram = " + strings.Repeat("\n", strings.Count(code[at:at+n], "\n"))
		line := 1 + strings.Count(code[:at], "\n")
		col := at - (strings.LastIndexByte(code[:at], '\n') + 1)
		return code[:at] + decl + code[at+n:] +
				"\n;export default async (__s: any) => { const { " + sdkNamespace + ": __sdk, ...__rest } = __s; " +
				"return await __codemodeProgram({ ...__rest, codemode: __sdk }); };\n",
			shift{line: line, col: col, by: len(decl) - n}
	}
	prefix := "const codemode = " + sdkNamespace + "; " // the codemode object (sdkSetup)
	if !mayBeFunction(code) {
		// Statements (or an expression that is not a function, which the
		// statement form returns as it is): no parse needed.
		return prefix + code, shift{line: 1, by: len(prefix)}
	}
	if expr, ok := asExpression(code); ok {
		// A function expression (or another expression): called with the
		// scope when it is a function, as client.RunCode does.
		const decl = "const __codemodeFn: any = ("
		return prefix + decl + expr + "\n); " +
				"return typeof __codemodeFn === \"function\" ? await __codemodeFn({ " + strings.Join(append(scope, "codemode"), ", ") + " }) : await __codemodeFn;\n",
			shift{line: 1, by: len(prefix) + len(decl)}
	}
	return prefix + code, shift{line: 1, by: len(prefix)}
}

// shift is how prepare moved the agent's code: on line (1-based), the
// text after column col (0-based) moved right by by characters. Every
// other position is the code's own.
type shift struct{ line, col, by int }

// position matches "agent.ts:LINE:COLUMN", the positions the client gives
// (its module name for programs) in syntax errors and stack traces.
var position = regexp.MustCompile(`agent\.ts:(\d+):(\d+)`)

// restore maps the positions in an error message or stack from the
// prepared program back to the agent's code.
func (s shift) restore(text string) string {
	if s.by == 0 || !strings.Contains(text, "agent.ts:") {
		return text
	}
	return position.ReplaceAllStringFunc(text, func(m string) string {
		sub := position.FindStringSubmatch(m)
		line, _ := strconv.Atoi(sub[1])
		col, err := strconv.Atoi(sub[2])
		if err != nil || line != s.line || col <= s.col+s.by {
			return m
		}
		return fmt.Sprintf("agent.ts:%d:%d", line, col-s.by)
	})
}

// agent maps a position (1-based line and column) in the prepared program
// to the agent's code of n lines; ok is false for a position in the code
// prepare added (the prelude, or the wrapper around a module or a function).
func (s shift) agent(line, col, n int) (int, int, bool) {
	if line < 1 || line > n || col < 1 {
		return 0, 0, false
	}
	if line != s.line || col <= s.col {
		return line, col, true
	}
	if col <= s.col+s.by {
		return 0, 0, false
	}
	return line, col - s.by, true
}

// describe is the message of a failed program for the journal and the
// agent: the error's name and message with positions in the agent's code,
// then where the program failed, "  at agent.ts:LINE:COLUMN" and the
// agent's own lines around it (the client's excerpt, of the prepared
// program, would show the prelude). The place is the client's excerpt
// position when the message has one (a tool validation failure, at the
// call), else the stack's first frame in the agent's code; a message that
// names its place already (a syntax error) is kept as a plain run gives it.
func (s shift) describe(pe *client.ProgramError, code string) string {
	msg := pe.Error()
	var at []string
	if i := strings.Index(msg, "\n  at agent.ts:"); i >= 0 {
		at = position.FindAllString(msg[i:], 1)
		msg = msg[:i]
	}
	msg = s.restore(msg)
	if len(at) == 0 && position.MatchString(msg) {
		return msg // a syntax error names its place, as a plain run's does
	}
	lines := strings.Split(unfence(code), "\n")
	for _, m := range append(at, position.FindAllString(pe.Stack, -1)...) {
		sub := position.FindStringSubmatch(m)
		line, _ := strconv.Atoi(sub[1])
		col, _ := strconv.Atoi(sub[2])
		if l, c, ok := s.agent(line, col, len(lines)); ok {
			return fmt.Sprintf("%s\n  at agent.ts:%d:%d\n%s", msg, l, c, strings.TrimRight(excerpt.Lines(lines, l, c), "\n"))
		}
	}
	return msg
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
