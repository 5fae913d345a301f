// Package codeform turns code as models write it (a module with a default
// export, a function expression, statements whose last expression is the
// value, any of them in a Markdown fence) into a module the runner runs, and
// maps positions in that module back to the code's own lines and columns.
// The client runs and type-checks code through it; a recording runner
// compiles saved programs with ProgramFunction.
package codeform

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf16"

	"github.com/codemode-go/codemode/internal/blank"
	"github.com/codemode-go/codemode/internal/esbuildchild"
	"github.com/codemode-go/codemode/internal/typegen"
	"github.com/evanw/esbuild/pkg/api"
)

// Model-written code (normalizeCode in https://developers.cloudflare.com/agents/tools/codemode/api-reference/) comes in four forms: a module
// with a default export, a function expression (`async () => {…}`), bare
// statements whose last expression is the value, and any of these inside a
// Markdown fence. normalize turns each into a module whose default export
// runs the code with the scope's names in lexical scope and appends the
// code's value as text content. Every code line keeps its line number plus
// one (the wrapper's first line), and the few columns the wrapper shifts are
// recorded, so positions map back exactly.

// valueVar holds the code's value inside the wrapper; scopeVar is the scope.
const (
	scopeVar = "__codemodeScope"
	valueVar = "__codemodeValue"
)

// edit is a change the wrapper made inside the code: at 1-based line and
// 0-based column col (UTF-16 code units, in code coordinates), delta
// ASCII characters were inserted (delta may be 0 for a same-length
// replacement).
type edit struct {
	line, col, delta int
}

// Normalized is model-written code as a runnable module, with the way back
// to the code's own coordinates.
type Normalized struct {
	// Module is the runnable module.
	Module string
	// Lines are the code's lines, as submitted.
	Lines []string
	// widths are the lengths of Lines in UTF-16 code units, counted once:
	// a program's error can name its positions many times over (a stack
	// it made up), and each was a walk over its line.
	widths   []int
	edits    []edit
	captures bool
	made     normalizeArgs // what made the module, for ReadByEsbuild
}

// normalizeArgs are normalize's arguments.
type normalizeArgs struct {
	code, setup string
	names       []string
	carry       *Carry
}

// ReadByEsbuild returns the normalization of the same code with its syntax
// read by esbuild alone, as Normalize made it before blank read it (for
// most code, the same module). The two differ only for code with an early
// error esbuild reports and blank does not look for (a redeclared let, a
// break outside a loop): a client reports such a program's failure as
// esbuild reads it, as it did before.
//
// es runs esbuild (see Normalize).
func (n *Normalized) ReadByEsbuild(es *esbuildchild.Session) *Normalized {
	m := n.made
	return normalize(m.code, m.names, m.setup, m.carry, reader{mode: esbuildOnly, es: es})
}

// Captures reports whether the module resolves to {value, session} (a
// statement-form program of a session that captures; see Carry).
func (n *Normalized) Captures() bool { return n.captures }

// InCode reports whether a 1-based line and column of the module are in the
// code rather than the wrapper (which also follows the code's last line).
func (n *Normalized) InCode(line, col int) bool {
	l := line - 1
	if l < 1 || l > len(n.Lines) {
		return false
	}
	end := n.widths[l-1]
	for _, e := range n.edits {
		if e.line == l {
			end += e.delta
		}
	}
	return col-1 <= end
}

// position maps a 1-based line and column of the module to the submitted
// code. Positions in the wrapper's own text map to the nearest code line. A
// nil n is the identity.
func (n *Normalized) Position(line, col int) (int, int) {
	if n == nil {
		return line, col
	}
	l := line - 1
	switch {
	case l < 1:
		return 1, 1
	case l > len(n.Lines):
		last := len(n.Lines)
		return last, n.widths[last-1] + 1
	}
	c := col
	for _, e := range n.edits {
		if e.line != l || col-1 < e.col {
			continue
		}
		if col-1 < e.col+e.delta {
			c -= col - 1 - e.col
		} else {
			c -= e.delta
		}
	}
	return l, max(c, 1)
}

// DefaultName is the name the module of code with a default export gives
// that export (a constant the wrapper calls), which stacks show as
// default.
const DefaultName = "__codemodeDefault"

// SegmentKind says how the module's places from a Segment up to the next
// map to the code.
type SegmentKind uint8

const (
	// SegmentOutside marks the wrapper's own places.
	SegmentOutside SegmentKind = iota
	// SegmentShift maps the places on the segment's line to its code line,
	// shifted right as far as they lie right of its start, and those on
	// later lines to as many lines below, column for column.
	SegmentShift
	// SegmentSame maps each place to the segment's code line and column.
	SegmentSame
)

// A Segment starts a run of the module's places (1-based line and column,
// UTF-16 code units) that map to the code as its Kind says, from the code
// line and column Line and Col.
type Segment struct {
	ModLine, ModCol int
	Line, Col       int
	Kind            SegmentKind
}

// Segments returns where the module's places lie in the code, each
// starting after the one before it:
// a place maps through the last segment at or before it, as Position maps
// it, and the wrapper's lines (the first, and those after the code) are
// SegmentOutside. (Position maps a wrapper place to the nearest code place
// instead; InCode tells them apart.) A place inside text the wrapper
// inserted maps to where it was inserted.
func (n *Normalized) Segments() []Segment {
	segs := []Segment{{ModLine: 1, ModCol: 1, Kind: SegmentOutside}, {ModLine: 2, ModCol: 1, Line: 1, Col: 1, Kind: SegmentShift}}
	edits := slices.SortedFunc(slices.Values(n.edits), func(a, b edit) int {
		return cmp.Or(cmp.Compare(a.line, b.line), cmp.Compare(a.col, b.col))
	})
	add := func(s Segment) {
		if last := &segs[len(segs)-1]; last.ModLine == s.ModLine && last.ModCol == s.ModCol {
			*last = s // an insertion at a line's start
			return
		}
		segs = append(segs, s)
	}
	for _, e := range edits {
		if e.delta == 0 {
			continue
		}
		add(Segment{ModLine: e.line + 1, ModCol: e.col + 1, Line: e.line, Col: e.col + 1, Kind: SegmentSame})
		add(Segment{ModLine: e.line + 1, ModCol: e.col + 1 + e.delta, Line: e.line, Col: e.col + 1, Kind: SegmentShift})
	}
	add(Segment{ModLine: len(n.Lines) + 2, ModCol: 1, Kind: SegmentOutside})
	return segs
}

// wrapperPrefix is the module's first line for the statement and function
// forms: it puts the scope's names in lexical scope and runs the code in an
// async function whose value is kept.
func wrapperPrefix(names []string, setup, opener string, c *carried) string {
	setScope := ""
	if setup != "" {
		setScope = fmt.Sprintf("%s = %s; ", scopeVar, scopeArg(setup))
	}
	return fmt.Sprintf("export default async (%s: %s) => { %sconst { %s } = %s; %sconst %s = await (async () => {%s%s",
		scopeVar, typegen.ScopeTypeName, setScope, strings.Join(names, ", "), scopeVar, c.open, valueVar, c.opener, opener)
}

// scopeArg is the scope as the code receives it: passed through setup
// when there is one.
func scopeArg(setup string) string {
	if setup == "" {
		return scopeVar
	}
	return "((" + strings.ReplaceAll(setup, "\n", " ") + ") as (s: " + typegen.ScopeTypeName + ") => " + typegen.ScopeTypeName + ")(" + scopeVar + ")"
}

// returnValue makes the code's value the wrapper's: the runner sends it as
// the outcome's value (Outcome.Value), and fails the program when JSON
// cannot hold it (a function, a BigInt, a cycle).
const returnValue = "return " + valueVar + ";"

// Normalize turns model-written code into a module for a scope with the
// given property names (namespaces, console, result and, for an
// input-bearing contract, input).
//
// setup, when not empty, is a TypeScript expression of a function that the
// wrapper applies to the scope before the code sees it (a client's
// scope setup, for a runner too old to take it apart); it is printed on the wrapper's own lines, so the
// code's positions do not move.
//
// es runs esbuild for code blank refuses (esbuild's parser can take time
// exponential in the text: see package esbuildchild). When es fails (its
// context ended), the code is read as if it did not parse; the caller
// finds es.Err when it erases the module with the same session.
func Normalize(code string, names []string, setup string, es *esbuildchild.Session) *Normalized {
	return NormalizeCarry(code, names, setup, nil, es)
}

// NormalizeCarry is Normalize for a program of a session: the module
// declares c's bindings before the code, in the statement and function
// forms, and in the statement form (when c.Capture is not nil) resolves to
// {value, session} (see Carry). A nil c is Normalize.
func NormalizeCarry(code string, names []string, setup string, c *Carry, es *esbuildchild.Session) *Normalized {
	return normalize(code, names, setup, c, reader{mode: blankFirst, es: es})
}

// normalize is NormalizeCarry, reading code's syntax with r.
func normalize(code string, names []string, setup string, c *Carry, r reader) *Normalized {
	made := normalizeArgs{code: code, setup: setup, names: names, carry: c}
	if strings.Contains(code, "```") {
		// Fences wrap the program when the text starts with one or is not
		// code at all (prose around a fence); a fence inside valid code that
		// starts otherwise is data (a template string building Markdown).
		if strings.HasPrefix(strings.TrimSpace(code), "```") {
			code = blankFences(code)
		} else if !r.parses(code) {
			code = blankFences(code)
		}
	}
	n := &Normalized{Lines: strings.Split(code, "\n"), made: made}
	n.widths = make([]int, len(n.Lines))
	for i, l := range n.Lines {
		n.widths[i] = utf16Len(l)
	}
	sc := scan(code)
	carry := c.module(names)
	switch {
	case sc.exportDefault >= 0:
		// A module: its default export is kept as a constant typed by the
		// program contract and called by the wrapper's default export.
		const repl = "const " + DefaultName + ": " + typegen.ProgramTypeName + " ="
		l, c := lineCol(code, sc.exportDefault)
		n.edits = append(n.edits, edit{line: l, col: c, delta: len(repl) - sc.exportDefaultLen})
		body := code[:sc.exportDefault] + repl + code[sc.exportDefault+sc.exportDefaultLen:]
		n.Module = "\n" + body + "\n;\nexport default async (" + scopeVar + ": " + typegen.ScopeTypeName + ") => { " +
			`if (typeof ` + DefaultName + ` !== "function") throw new TypeError("the default export must be a function (the program), not " + (` + DefaultName + ` === null ? "null" : typeof ` + DefaultName + `)); ` +
			"const " + valueVar + " = await " + DefaultName + "(" + scopeArg(setup) + "); " + returnValue + " };\n"
	case sc.exports:
		// A module without a default export: it runs (its top level may
		// throw first), then fails saying what a program is.
		n.Module = "\n" + code + "\n;\nexport default async () => { throw new TypeError(\"the module has no default export: a program is a module whose default export is a function (export default async function ({ codemode }) { … }), a function expression, or statements\"); };\n"
	case sc.isFunction && r.isExpression(trimFinalSemicolon(code, sc)):
		// A function expression: called with the scope, contextually typed
		// by the program contract.
		body := trimFinalSemicolon(code, sc)
		n.Module = wrapperPrefix(names, setup, " return await ((", carry.restoreOnly()) + "\n" + body + "\n) as " + typegen.ProgramTypeName + ")(" + scopeVar + ");\n})(); " + returnValue + carry.tail + " };\n"
	case sc.startsParen && r.isExpression(trimFinalSemicolon(code, sc)):
		// A parenthesized expression, such as (async () => …): called with
		// the scope when it is a function, its value otherwise.
		body := trimFinalSemicolon(code, sc)
		n.Module = wrapperPrefix(names, setup, " const __codemodeFn: any = (", carry.restoreOnly()) + "\n" + body + "\n); return typeof __codemodeFn === \"function\" ? await __codemodeFn(" + scopeVar + ") : await __codemodeFn;\n})(); " + returnValue + carry.tail + " };\n"
	default:
		body := code
		if at, ok := lastExpression(code, sc, r); ok {
			tail := trimFinalSemicolon(code[at:], scan(code[at:]))
			body = code[:at] + "return (" + tail + "\n);"
			l, c := lineCol(code, at)
			n.edits = append(n.edits, edit{line: l, col: c, delta: len("return (")})
		}
		n.Module = wrapperPrefix(names, setup, "", carry) + "\n" + body + "\n})(); " + carry.ret + carry.tail + " };\n"
		n.captures = carry.captures
	}
	return n
}

// lineCol returns the 1-based line and the 0-based column of offset, in
// UTF-16 code units as source maps, QuickJS and the TypeScript compiler
// count them.
func lineCol(s string, offset int) (int, int) {
	line := 1 + strings.Count(s[:offset], "\n")
	start := strings.LastIndexByte(s[:offset], '\n') + 1
	return line, utf16Len(s[start:offset])
}

// utf16Len is the length of s in UTF-16 code units (a byte that is not
// UTF-8 counts as one, as the replacement character it decodes to).
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// blankFences keeps only the first Markdown code fence's contents, blanking
// the fence lines and everything outside them so line numbers stay those of
// the submitted text. Code without a fence is returned as it is. normalize
// applies it only to code that is not valid TypeScript as submitted.
func blankFences(code string) string {
	lines := strings.Split(code, "\n")
	open, end := -1, -1
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
	if open < 0 {
		return code
	}
	if end < 0 {
		end = len(lines)
	}
	for i := range lines {
		if i <= open || i >= end {
			lines[i] = ""
		}
	}
	return strings.Join(lines, "\n")
}

// trimFinalSemicolon replaces a top-level semicolon that ends the code (only
// space and comments after it) with a space, so the code can sit inside
// parentheses; columns do not move.
func trimFinalSemicolon(code string, sc scanned) string {
	if sc.lastSemicolon < 0 || sc.afterLastSemicolon {
		return code
	}
	return code[:sc.lastSemicolon] + " " + code[sc.lastSemicolon+1:]
}

// transform erases code as TypeScript with esbuild and reports whether it
// parsed (false too when the session failed: see Normalize).
func (r reader) transform(code string) (string, bool) {
	res, err := r.es.Transform(code, api.TransformOptions{Loader: api.LoaderTS, Target: api.ESNext})
	return string(res.Code), err == nil && len(res.Errors) == 0
}

// parses reports whether code parses as TypeScript.
func (r reader) parses(code string) bool {
	if r.mode == blankFirst {
		if _, ok := blank.Types(code); ok {
			return true
		}
	}
	_, ok := r.transform(code)
	return ok
}

// reader is how normalize reads code's syntax. esbuild's fixed cost per
// call was most of the normalization of a fresh program (two to eleven
// calls for statements ending with an expression); blank reads the common
// subset in a scan, and refuses what it is not sure of (RATIONALE.md,
// "Erasure").
type reader struct {
	mode readMode
	es   *esbuildchild.Session // runs esbuild
}

// readMode says which readers a reader uses.
type readMode uint8

const (
	blankFirst  readMode = iota // blank where it accepts the text, esbuild for the rest
	esbuildOnly                 // esbuild alone (what the tests hold blankFirst to)
)

// isExpression reports whether code parses as one expression.
func (r reader) isExpression(code string) bool {
	return r.parses("(\n" + code + "\n);")
}

// statementStarts returns a check of whether one of code's top-level
// statements starts at an offset (a candidate of scan: a line's first
// token, or just after a top-level semicolon); ok is false when code does
// not parse. blank reads where code's statements start; esbuild, for code
// blank refuses, tells whether putting a semicolon there leaves the
// program's meaning (its erased JavaScript) unchanged. Each is made on
// first use.
func (r reader) statementStarts(code string) func(at int) (start, ok bool) {
	var tops []blank.Statement
	blanked, read := false, false
	var whole string
	return func(at int) (bool, bool) {
		if !read && r.mode == blankFirst {
			tops, blanked = blank.Statements(code)
			// A string first may be a directive, which esbuild prints
			// otherwise than the same string after a semicolon: esbuild
			// decides.
			blanked = blanked && !(len(tops) > 0 && strings.IndexByte(`"'`, code[tops[0].Start]) >= 0)
		}
		read = true
		if blanked {
			i, _ := slices.BinarySearchFunc(tops, at, func(s blank.Statement, at int) int { return cmp.Compare(s.Start, at) })
			return i < len(tops) && tops[i].Gap <= at, true
		}
		if whole == "" {
			js, ok := r.transform(code)
			if !ok {
				return false, false
			}
			whole = dropEmptyStatements(js)
		}
		split, ok := r.transform(code[:at] + ";" + code[at:])
		return ok && dropEmptyStatements(split) == whole, true
	}
}

// statementKeywords start statements that are not expression statements.
var statementKeywords = []string{"const", "let", "var", "function", "class", "if", "for", "while", "do", "switch",
	"try", "return", "throw", "import", "export", "interface", "type", "enum", "declare", "namespace", "break",
	"continue", "debugger", "with", "abstract", "module"}

// lastExpression finds where the code's last top-level statement starts when
// it is an expression statement. A candidate start is a line start, or a
// point after a semicolon or a closing brace at bracket depth 0 (a block's
// end: `for (…) { … } xs`); it is a real statement boundary when one of the
// code's top-level statements starts there (reader.statementStarts).
func lastExpression(code string, sc scanned, r reader) (int, bool) {
	starts := r.statementStarts(code)
	attempts := 0
	candidates := mergeSorted(sc.starts, sc.blockEnds)
	for i := len(candidates) - 1; i >= 0; i-- {
		at := candidates[i]
		tail := code[at:]
		t := stripComments(tail) // its start only: trimming the end again for every line made this quadratic
		if t == "" || t[0] == ';' {
			continue // nothing, or an empty statement (`{ … };` ends with one), which has no value
		}
		if slices.Contains(statementKeywords, firstWord(tail)) || strings.HasPrefix(t, "{") || asyncFunction.MatchString(t) {
			return 0, false // a declaration or another statement: no value
		}
		if strings.IndexByte(continuations, t[0]) >= 0 && continues(code[:at]) {
			continue // a line that continues the statement before it
		}
		// Checked a bounded number of times, so that the work (esbuild's,
		// for code blank refuses) stays linear in the code's size.
		if attempts++; attempts > maxExpressionAttempts {
			return 0, false
		}
		start, ok := starts(at)
		if !ok {
			return 0, false
		}
		if !start {
			continue
		}
		if !r.isExpression(trimFinalSemicolon(tail, scan(tail))) {
			return 0, false
		}
		return at, true
	}
	return 0, false
}

// mergeSorted returns the offsets of a and b (each in increasing order)
// in increasing order, without repeats.
func mergeSorted(a, b []int) []int {
	merged := make([]int, 0, len(a)+len(b))
	for len(a) > 0 || len(b) > 0 {
		var next int
		if len(b) == 0 || len(a) > 0 && a[0] <= b[0] {
			next, a = a[0], a[1:]
		} else {
			next, b = b[0], b[1:]
		}
		if len(merged) == 0 || merged[len(merged)-1] != next {
			merged = append(merged, next)
		}
	}
	return merged
}

// continuations are the first characters of a line that continues the
// statement on the lines before it (JavaScript inserts no semicolon before
// them): member access, calls, indexing, tagged templates and binary
// operators.
const continuations = ".,?:=+-*/%&|^<>([`"

// continues reports whether a line starting with a continuation character
// surely continues the statement at the end of head: head is not empty and
// ends neither with a semicolon nor with "}", after which a block statement
// may have ended (that case is left to the esbuild check).
func continues(head string) bool {
	h := strings.TrimRight(head, " \t\r\n")
	return h != "" && !strings.HasSuffix(h, ";") && !strings.HasSuffix(h, "}")
}

// maxExpressionAttempts bounds the checks lastExpression makes.
const maxExpressionAttempts = 8

// asyncFunction matches an async function declaration.
var asyncFunction = regexp.MustCompile(`^async\s+function\b`)

// dropEmptyStatements removes the lines esbuild prints for empty statements.
func dropEmptyStatements(js string) string {
	lines := strings.Split(js, "\n")
	return strings.Join(slices.DeleteFunc(lines, func(l string) bool { return strings.TrimSpace(l) == ";" }), "\n")
}

// firstWord returns the identifier that starts s after space and comments.
func firstWord(s string) string {
	s = stripComments(s)
	end := 0
	for end < len(s) && (isIdentByte(s[end])) {
		end++
	}
	return s[:end]
}

// stripComments blanks leading comments of s (only those before the first
// token matter to callers).
func stripComments(s string) string {
	for {
		t := strings.TrimLeft(s, " \t\r\n")
		switch {
		case strings.HasPrefix(t, "//"):
			i := strings.IndexByte(t, '\n')
			if i < 0 {
				return ""
			}
			s = t[i:]
		case strings.HasPrefix(t, "/*"):
			i := strings.Index(t[2:], "*/")
			if i < 0 {
				return ""
			}
			s = t[i+4:]
		default:
			return t
		}
	}
}

func isIdentByte(b byte) bool {
	return b == '_' || b == '$' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b >= 0x80
}

// scanned is what a light tokenizer learns about code: top-level statement
// candidates, a top-level `export default`, whether the code starts as a
// function expression, and its last top-level semicolon.
type scanned struct {
	starts             []int // candidate statement starts at depth 0
	blockEnds          []int // just after each "}" that closes to depth 0: a statement may start there, on the same line
	exportDefault      int   // offset of a top-level "export default", or -1
	exportDefaultLen   int   // its length in bytes ("export default" plus the space between)
	isFunction         bool  // the first token starts a function expression
	startsParen        bool  // the first token is "(" (a parenthesized expression, or an arrow's parameters)
	exports            bool  // a line starts with a top-level export: the code is a module
	lastSemicolon      int   // offset of the last top-level ";", or -1
	afterLastSemicolon bool  // a token follows the last top-level ";"
	unterminated       bool  // a template literal ran to the end of the code
	commas             []int // offsets of commas at depth 0, outside template substitutions
	maxDepth           int   // the deepest the brackets nest
}

// MaxNesting returns how deep code's brackets ((, [ and {) nest, in a few
// linear passes over code, for a bound to check before anything slower
// reads it. Where a "/" divides and where it starts a regular expression
// cannot be told without parsing (`of / (` divides after a variable named
// of; `if (x) /"/` is a regular expression after a parenthesis), so a
// program could hide its brackets inside what one reading takes for a
// regular expression, string or comment, or cancel them with closing
// brackets in literals that reading takes for code (the adversarial
// review of 2026-12-06 did both). So code is read five ways (nestingReadings)
// and a bracket counts against the program unless the readings clear it:
// an opening one counts where any reading takes it for code, a closing
// one only where every reading does. To hide a bracket a program must
// mislead all five readings at once.
func MaxNesting(code string) int {
	marks := make([]uint8, len(code))
	all := uint8(0)
	for k, r := range nestingReadings() {
		s := newScanner(code, r)
		s.marks, s.bit = marks, 1<<k
		s.run()
		all |= s.bit
	}
	depth, deepest := 0, 0
	for i, m := range marks {
		switch code[i] {
		case '(', '[', '{':
			if m != 0 {
				depth++
				deepest = max(deepest, depth)
			}
		case ')', ']', '}':
			if m == all {
				depth = max(depth-1, 0)
			}
		}
	}
	return deepest
}

// nestingReadings are the readings of "/" MaxNesting combines: a division
// after "}" (an expression ended) or a regular expression (a block ended);
// a regular expression after ")" too (an if, for or while head); and a
// division after the word of, a member name and a postfix ++ or --, which
// the others take for a keyword or an operator before a regular
// expression; and a division after TypeScript's ">" of type arguments
// (`f<T> / x`) and "!" of a non-null assertion (`a! / x`).
func nestingReadings() []braceSlash {
	return []braceSlash{slashAfterBraceDivides, slashAfterBraceIsRegex, slashAfterParenIsRegex, slashAfterNamesDivides, slashAfterTypeDivides}
}

// ExportDefault returns the byte offset and length of code's top-level
// `export default` (from the first letter of export to the last of
// default), as Normalize finds it when it takes code for a module, or -1
// and 0 when code has none. The words inside strings, comments, templates,
// regular expressions and nested blocks do not count.
func ExportDefault(code string) (offset, length int) {
	sc := scan(code)
	return sc.exportDefault, sc.exportDefaultLen
}

// scan tokenizes TypeScript loosely: comments, string, template and regular
// expression literals and bracket depth, enough to find top-level
// positions. It never fails; unbalanced input gives fewer candidates.
func scan(code string) scanned {
	sc := newScanner(code, slashAfterBraceDivides).run()
	if sc.unterminated {
		// A "/" after "}" began a regular expression (after a block), not a
		// division, and a backtick inside it opened no template.
		sc = newScanner(code, slashAfterBraceIsRegex).run()
	}
	return sc
}

// braceSlash says how a scanner reads a "/" where a division and a regular
// expression can both stand: right after "}", and for MaxNesting's
// readings after ")", "of", a member name or a postfix ++/--.
type braceSlash uint8

const (
	slashAfterBraceDivides braceSlash = iota // `}` ends an expression: a division
	slashAfterBraceIsRegex                   // `}` ends a block: a regular expression
	slashAfterParenIsRegex                   // `)` and `}` end a statement's head or block: a regular expression
	slashAfterNamesDivides                   // `of`, a member name and postfix ++/-- end an operand: a division
	slashAfterTypeDivides                    // `>` closes type arguments, `!` asserts non-null (TypeScript): a division
)

// scanner is one pass of scan over code.
type scanner struct {
	code       string
	afterBrace braceSlash
	sc         scanned
	i          int
	depth      int
	templates  []int  // bracket depth at each open template substitution
	prevWord   string // previous token when an identifier or keyword
	regexOK    bool   // a "/" here starts a regular expression
	lineStart  bool
	first      bool
	lastWordAt int
	afterDot   bool // the previous token is "." (a member name follows)
	// marks, for MaxNesting, has bit set at each bracket this reading
	// takes for code.
	marks []uint8
	bit   uint8
}

func newScanner(code string, afterBrace braceSlash) *scanner {
	return &scanner{code: code, afterBrace: afterBrace, sc: scanned{exportDefault: -1, lastSemicolon: -1},
		regexOK: true, lineStart: true, first: true}
}

// run scans the whole code.
func (s *scanner) run() scanned {
	code := s.code
	for s.i < len(code) {
		c := code[s.i]
		if skipped, ok := s.space(c); !ok {
			return s.sc // an unterminated comment
		} else if skipped {
			continue
		}
		atLineStart := s.lineStart
		if s.depth == 0 && s.lineStart {
			s.sc.starts = append(s.sc.starts, s.i)
		}
		s.lineStart = false
		if s.sc.lastSemicolon >= 0 && s.depth == 0 {
			s.sc.afterLastSemicolon = true
		}
		switch {
		case isIdentByte(c):
			s.word(atLineStart)
		case c == '"' || c == '\'':
			s.str(c)
		case c == '`' || (c == '}' && len(s.templates) > 0 && s.templates[len(s.templates)-1] == s.depth):
			s.template(c)
		case c == '/' && s.regexOK:
			s.regex()
		default:
			s.punct(c)
		}
		s.first = false
	}
	return s.sc
}

// space skips a newline, a blank or a comment at s.i, reporting whether
// it did; ok is false for a comment that never ends.
func (s *scanner) space(c byte) (skipped, ok bool) {
	code := s.code
	switch {
	case c == '\n':
		s.lineStart = true
		s.i++
	case c == ' ' || c == '\t' || c == '\r':
		s.i++
	case c == '/' && s.i+1 < len(code) && code[s.i+1] == '/':
		for s.i < len(code) && code[s.i] != '\n' {
			s.i++
		}
	case c == '/' && s.i+1 < len(code) && code[s.i+1] == '*':
		end := strings.Index(code[s.i+2:], "*/")
		if end < 0 {
			return false, false
		}
		s.i += end + 4
	default:
		return false, true
	}
	return true, true
}

// regexAfterWords are the keywords after which a "/" starts a regular
// expression.
var regexAfterWords = []string{"return", "typeof", "case", "do", "else", "in", "of", "new", "delete", "void", "throw", "yield", "await", "instanceof", "extends", "default"}

// word reads an identifier or keyword, noting the function form's first
// word, a top-level export and export default.
func (s *scanner) word(atLineStart bool) {
	code, start := s.code, s.i
	for s.i < len(code) && isIdentByte(code[s.i]) {
		s.i++
	}
	w := code[start:s.i]
	if s.first {
		s.sc.isFunction = w == "async" || w == "function"
	}
	if s.depth == 0 && w == "export" && atLineStart {
		s.sc.exports = true
	}
	if s.depth == 0 && w == "default" && s.prevWord == "export" && s.sc.exportDefault < 0 {
		s.sc.exportDefault = s.lastWordAt
		s.sc.exportDefaultLen = s.i - s.lastWordAt
	}
	s.prevWord, s.lastWordAt = w, start
	s.regexOK = slices.Contains(regexAfterWords, w) && (s.afterBrace != slashAfterNamesDivides || !s.afterDot && w != "of")
	s.afterDot = false
}

// str reads a string literal quoted by q.
func (s *scanner) str(q byte) {
	code := s.code
	s.i++
	for s.i < len(code) && code[s.i] != q && code[s.i] != '\n' {
		if code[s.i] == '\\' {
			s.i++
		}
		s.i++
	}
	s.i++
	s.prevWord, s.regexOK = "", false
}

// template reads a template literal's text, from its backtick or from the
// "}" that closes a substitution, to its end or its next substitution.
func (s *scanner) template(c byte) {
	code := s.code
	if c == '}' {
		s.templates = s.templates[:len(s.templates)-1]
	}
	s.i++
	closed := false
	for s.i < len(code) {
		if code[s.i] == '\\' {
			s.i += 2
			continue
		}
		if code[s.i] == '`' {
			s.i++
			closed = true
			break
		}
		if code[s.i] == '$' && s.i+1 < len(code) && code[s.i+1] == '{' {
			s.i += 2
			s.templates = append(s.templates, s.depth)
			closed = true
			break
		}
		s.i++
	}
	if !closed {
		s.sc.unterminated = true
	}
	s.prevWord, s.regexOK = "", len(s.templates) > 0 && code[s.i-1] == '{'
}

// regex reads a regular expression literal and its flags.
func (s *scanner) regex() {
	code := s.code
	s.i++
	inClass := false
	for s.i < len(code) && code[s.i] != '\n' {
		if code[s.i] == '\\' {
			s.i += 2
			continue
		}
		if code[s.i] == '[' {
			inClass = true
		} else if code[s.i] == ']' {
			inClass = false
		} else if code[s.i] == '/' && !inClass {
			s.i++
			break
		}
		s.i++
	}
	for s.i < len(code) && isIdentByte(code[s.i]) {
		s.i++
	}
	s.prevWord, s.regexOK = "", false
}

// punct reads one punctuation byte: brackets change the depth, and a
// top-level semicolon ends a statement.
func (s *scanner) punct(c byte) {
	switch c {
	case '(', '[', '{':
		s.depth++
		s.sc.maxDepth = max(s.sc.maxDepth, s.depth)
		s.mark()
	case ')', ']', '}':
		if c == '}' && s.depth == 1 {
			s.sc.blockEnds = append(s.sc.blockEnds, s.i+1)
		}
		s.depth = max(s.depth-1, 0)
		s.mark()
	case ',':
		if s.depth == 0 && len(s.templates) == 0 {
			s.sc.commas = append(s.sc.commas, s.i)
		}
	case ';':
		if s.depth == 0 {
			s.sc.lastSemicolon = s.i
			s.sc.afterLastSemicolon = false
			s.sc.starts = append(s.sc.starts, s.i+1)
		}
	}
	if s.first && c == '(' {
		s.sc.isFunction = arrowAfterParens(s.code, s.i)
		s.sc.startsParen = true
	}
	s.i++
	s.regexOK = s.regexAfter(c)
	s.afterDot = c == '.'
	s.prevWord = ""
}

// mark notes, for MaxNesting, that this reading takes the bracket at s.i
// for code.
func (s *scanner) mark() {
	if s.marks != nil {
		s.marks[s.i] |= s.bit
	}
}

// regexAfter reports whether a "/" after the punctuation c (just read)
// starts a regular expression in this reading.
func (s *scanner) regexAfter(c byte) bool {
	switch c {
	case ']':
		return false
	case ')':
		return s.afterBrace == slashAfterParenIsRegex
	case '}':
		return s.afterBrace == slashAfterBraceIsRegex || s.afterBrace == slashAfterParenIsRegex
	case '+', '-':
		postfix := s.i >= 2 && s.code[s.i-2] == c
		return !postfix || s.afterBrace != slashAfterNamesDivides
	case '>', '!':
		return s.afterBrace != slashAfterTypeDivides
	}
	return true
}

// arrowAfterParens reports whether the parenthesis at open closes and is
// followed by "=>" (or a return type annotation), as an arrow function's
// parameter list is.
func arrowAfterParens(code string, open int) bool {
	depth := 0
	for i := open; i < len(code); i++ {
		switch code[i] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				rest := strings.TrimSpace(stripComments(code[i+1:]))
				return strings.HasPrefix(rest, "=>") || strings.HasPrefix(rest, ":")
			}
		}
	}
	return false
}
