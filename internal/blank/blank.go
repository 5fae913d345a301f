// Package blank erases TypeScript without esbuild for the common subset:
// it replaces every character of a program's TypeScript syntax with a
// space, so that every line and column of the JavaScript is the source's.
// The client erases programs with it (esbuild for what it refuses), and
// codeform reads model-written code's top-level statements with it.
package blank

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Type blanking: erasure without esbuild for the common TypeScript subset.
//
// Types replaces every character of a program's TypeScript syntax with a
// space (a type annotation, an `as` or `satisfies` type, a non-null `!`, an
// interface, a type alias, type arguments and parameters, `import type`,
// `export type`, an optional `?`, a definite `!`), so that every line and
// column of the JavaScript is the source's and no source map is needed.
// A statement blanked whole (an interface, a type alias, `import type`)
// starts with a `;` instead, which ends the statement before it as the line
// break did in TypeScript. esbuild's fixed cost per call is most of the
// erasure of a fresh program; blanking costs a scan (RATIONALE.md,
// "Erasure: blanking the common subset, esbuild for the rest").
//
// It is a recursive-descent parser of the subset, driven by the grammar as
// a real parser is (a `/` is a regular expression where an operand is
// expected; a `}` resumes a template), and it is never unsure in silence:
// anything it does not handle with certainty (enums, namespaces,
// decorators, classes, JSX, `declare`, imports and export lists whose names
// may be types, `<T>` casts, generic arrows, instantiation expressions,
// non-ASCII outside strings and comments) makes it refuse, and the program
// goes to esbuild. TestBlankAgreesWithEsbuild and FuzzBlank hold it to
// esbuild's own reading of every program it accepts.

// tokKind is the kind of a token.
type tokKind uint8

const (
	tEOF tokKind = iota
	tName
	tPrivate // #name
	tNum
	tStr
	tTemplate // a template's head, middle, tail or the whole of one
	tRegex
	tPunct
)

type token struct {
	kind       tokKind
	start, end int
	nl         bool // a line terminator comes before it
	subst      bool // a template part that ends with "${"
	// mark and markAfter are where QuickJS counts the token's column
	// from, and the next token's when no space or name comes between
	// (Site.Mark); set by next and the rescans.
	mark, markAfter int
}

// refusal is what a blanker panics with when it is not sure; mismatch,
// when the text does not read as the construct being tried (a speculative
// parse then tries another reading).
type refusal struct{}
type mismatch struct{}

// punctuators, longest first. '>' is always one token: type arguments
// close on it, and an expression joins ">>", ">=" and the like itself.
var punctuators = []string{
	"...", "===", "!==", "**=", "<<=", "&&=", "||=", "??=",
	"=>", "==", "!=", "<=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=",
	"++", "--", "<<", "&&", "||", "??", "?.", "**",
	"{", "}", "(", ")", "[", "]", ";", ",", "<", ">", "+", "-", "*", "/",
	"%", "&", "|", "^", "!", "~", "?", ":", "=", ".", "@",
}

// punctByFirst is punctuators by their first character.
var punctByFirst = func() (t [utf8.RuneSelf][]string) {
	for _, s := range punctuators {
		t[s[0]] = append(t[s[0]], s)
	}
	return t
}()

// inSet reports whether s is one of the space-separated words of set.
func inSet(set, s string) bool {
	for set != "" {
		var w string
		w, set, _ = strings.Cut(set, " ")
		if w == s {
			return true
		}
	}
	return false
}

func isIdentStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '$'
}

func isIdentPart(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }

// skipSpace skips white space and comments from i; it returns where the
// next token starts and whether a line terminator came first.
func (p *blanker) skipSpace(i int) (int, bool) {
	src, nl := p.src, false
	for i < len(src) {
		c := src[i]
		switch {
		case c == '\n' || c == '\r':
			nl = true
			i++
		case c == ' ' || c == '\t' || c == '\v' || c == '\f':
			i++
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			i += 2
			for i < len(src) && src[i] != '\n' && src[i] != '\r' && !isLineSep(src[i:]) {
				i++
			}
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				panic(refusal{})
			}
			body := src[i+2 : i+2+end]
			nl = nl || strings.ContainsAny(body, "\n\r\u2028\u2029")
			i += end + 4
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRuneInString(src[i:])
			if r == '\u2028' || r == '\u2029' {
				nl = true
			} else if !unicode.Is(unicode.Zs, r) { // a byte order mark too: esbuild drops it
				return i, nl
			}
			i += n
		default:
			return i, nl
		}
	}
	return i, nl
}

func isLineSep(s string) bool {
	return strings.HasPrefix(s, "\u2028") || strings.HasPrefix(s, "\u2029")
}

// scan reads the token at or after i. A '/' is scanned as punctuation; the
// parser rescans it where a regular expression can stand. Every byte it
// reads, the space before the token included, counts against the budget, so
// that speculation over a long token (a 50 KB string inside nested
// parentheses read as parameters, then again as an expression) stays linear
// in the program's length: past the budget it refuses, and esbuild reads
// the program once.
func (p *blanker) scan(i int) token {
	t := p.scanToken(i)
	p.charge(t.end - i + 1)
	return t
}

// charge counts n bytes read (by scan, or by a rescan of a token as a
// regular expression or a template's middle) against the budget, and
// refuses past it.
func (p *blanker) charge(n int) {
	if p.steps += n; p.steps > p.budget {
		panic(refusal{})
	}
}

// scanToken is scan without the budget.
func (p *blanker) scanToken(i int) token {
	i, nl := p.skipSpace(i)
	t := token{start: i, nl: nl}
	src := p.src
	if i >= len(src) {
		t.kind, t.end = tEOF, i
		return t
	}
	c := src[i]
	switch {
	case isIdentStart(c):
		t.kind, t.end = tName, p.identEnd(i)
	case c == '#' && i+1 < len(src) && isIdentStart(src[i+1]):
		t.kind, t.end = tPrivate, p.identEnd(i+1)
	case c >= '0' && c <= '9' || c == '.' && i+1 < len(src) && src[i+1] >= '0' && src[i+1] <= '9':
		t.kind, t.end = tNum, p.numberEnd(i)
	case c == '"' || c == '\'':
		t.kind, t.end = tStr, p.stringEnd(i)
	case c == '`':
		t.kind = tTemplate
		t.end, t.subst = p.templateEnd(i + 1)
	default:
		t.kind = tPunct
		if c >= utf8.RuneSelf {
			panic(refusal{})
		}
		for _, s := range punctByFirst[c] {
			if strings.HasPrefix(src[i:], s) && !(s == "?." && i+2 < len(src) && src[i+2] >= '0' && src[i+2] <= '9') {
				t.end = i + len(s)
				return t
			}
		}
		panic(refusal{}) // non-ASCII, a backslash, a hashbang: esbuild's
	}
	return t
}

// identEnd is the end of the identifier at i; one that goes on with an
// escape or a non-ASCII letter is refused.
func (p *blanker) identEnd(i int) int {
	for i < len(p.src) && isIdentPart(p.src[i]) {
		i++
	}
	if i < len(p.src) && (p.src[i] == '\\' || p.src[i] >= utf8.RuneSelf) {
		panic(refusal{})
	}
	return i
}

// numberEnd is the end of the numeric literal at i. Separators, legacy
// octals and malformed literals are refused.
func (p *blanker) numberEnd(i int) int {
	src := p.src
	digits := func(j int, ok func(byte) bool) (int, bool) {
		k := j
		for k < len(src) && ok(src[k]) {
			k++
		}
		return k, k > j
	}
	dec := func(c byte) bool { return c >= '0' && c <= '9' }
	end, some, exact := i, false, true
	if src[i] == '0' && i+1 < len(src) && strings.IndexByte("xXoObB", src[i+1]) >= 0 {
		base := map[byte]string{'x': "0123456789abcdefABCDEF", 'o': "01234567", 'b': "01"}[src[i+1]|0x20]
		end, some = digits(i+2, func(c byte) bool { return strings.IndexByte(base, c) >= 0 })
	} else {
		if src[i] == '0' && i+1 < len(src) && dec(src[i+1]) {
			panic(refusal{})
		}
		end, some = digits(i, dec)
		if end < len(src) && src[end] == '.' {
			exact = false
			var frac bool
			end, frac = digits(end+1, dec)
			some = some || frac
		}
		if some && end < len(src) && (src[end] == 'e' || src[end] == 'E') {
			exact, end = false, end+1
			if end < len(src) && (src[end] == '+' || src[end] == '-') {
				end++
			}
			end, some = digits(end, dec)
		}
	}
	if exact && end < len(src) && src[end] == 'n' {
		end++
	}
	if !some || end < len(src) && (isIdentPart(src[end]) || src[end] == '\\' || src[end] >= utf8.RuneSelf) {
		panic(refusal{})
	}
	return end
}

// stringEnd is the end of the string literal whose quote is at i.
func (p *blanker) stringEnd(i int) int {
	src, q := p.src, p.src[i]
	for i++; i < len(src); i++ {
		switch src[i] {
		case q:
			return i + 1
		case '\\':
			i++
			if i+1 < len(src) && src[i] == '\r' && src[i+1] == '\n' {
				i++
			}
		case '\n', '\r':
			panic(refusal{})
		}
	}
	panic(refusal{})
}

// templateEnd scans template characters from i (after a '`' or a '}'):
// it returns the end of the part and whether it ends with "${".
func (p *blanker) templateEnd(i int) (int, bool) {
	src := p.src
	for ; i < len(src); i++ {
		switch src[i] {
		case '`':
			return i + 1, false
		case '\\':
			i++
		case '$':
			if i+1 < len(src) && src[i+1] == '{' {
				return i + 2, true
			}
		}
	}
	panic(refusal{})
}

// rescanRegex reads the current '/' or '/=' token as a regular expression.
func (p *blanker) rescanRegex() {
	src, i, class := p.src, p.tok.start+1, false
	for ; ; i++ {
		if i >= len(src) || src[i] == '\n' || src[i] == '\r' || isLineSep(src[i:]) {
			panic(refusal{})
		}
		c := src[i]
		if c == '\\' {
			i++
			continue
		}
		if c == '[' {
			class = true
		} else if c == ']' {
			class = false
		} else if c == '/' && !class {
			break
		}
	}
	i++
	flags := i
	for i < len(src) && isIdentPart(src[i]) {
		i++
	}
	if i < len(src) && (src[i] == '\\' || src[i] >= utf8.RuneSelf) || !regexFlags(src[flags:i]) {
		panic(refusal{}) // esbuild refuses a flag it does not know, or one given twice
	}
	p.charge(i - p.tok.start)
	p.tok.kind, p.tok.end = tRegex, i
	p.pos = i
}

// regexFlags reports whether flags are known regular expression flags,
// none twice.
func regexFlags(flags string) bool {
	for i := range len(flags) {
		if !strings.Contains("dgimsuyv", flags[i:i+1]) || strings.Contains(flags[:i], flags[i:i+1]) {
			return false
		}
	}
	return true
}

// rescanTemplate reads the current '}' as the start of a template's
// middle or tail.
func (p *blanker) rescanTemplate() {
	if !p.isP("}") {
		panic(mismatch{})
	}
	p.tok.kind = tTemplate
	p.tok.end, p.tok.subst = p.templateEnd(p.tok.start + 1)
	if p.recording {
		p.tok = p.markAfter(p.tok)
	}
	p.pos = p.tok.end
	p.charge(p.tok.end - p.tok.start)
}

// span is a range of the source to blank; semi, when set, puts a ';' in
// place of its first character (a whole statement blanked: the ';' ends
// the statement before it as a line break did in TypeScript).
type span struct {
	start, end int
	semi       bool
}

// blanker is one pass over a program. Its state is what a speculative
// parse saves and restores (mark, reset).
type blanker struct {
	src    string
	tok    token
	last   token // the token before tok
	lead   token // the token before the statement being read
	prev   int   // the end of the token before tok
	pos    int   // where scanning resumes: tok.end, or ahead after a peek
	spans  []span
	noIn   bool // in a for statement's head: "in" ends an expression
	inCond int  // open conditional consequents and case tests at this level
	depth  int  // blocks and function bodies open
	steps  int  // bytes scanned (scan), speculation and look-ahead included; bounded by budget
	budget int
	tops   []Statement
	target bool // the operand just read may be assigned to (a name or a member)
	level  int  // statements, expressions and types open within each other (enter)

	// Sites (sites.go): recording says whether to record them; fn is the
	// current function, nfn the last one started; newCallee says that the
	// operand being read is new's, whose first arguments are no call.
	recording bool
	sites     []Site
	fn, nfn   int
	newCallee bool
}

type marker struct {
	tok, last    token
	prev, pos, n int
	nsites, fn   int
	noIn         bool
	inCond       int
	depth        int
}

// Types returns source with its TypeScript syntax replaced by spaces, and
// whether it could: false when source has syntax the pass does not handle
// with certainty, or does not parse. The JavaScript has source's length,
// and its line breaks at the same offsets.
//
//	js, ok := blank.Types("const a: number = 1;") // "const a         = 1;", true
//
// # Notes
//   - ok does not say the program compiles: blank reads syntax, not the
//     early errors an engine finds when it compiles (a redeclared let).
//   - A program it refuses may well be valid TypeScript: esbuild erases it.
func Types(source string) (string, bool) {
	if len(source) > MaxSource {
		return "", false
	}
	return (&blanker{src: source, budget: blankBudget(source)}).run()
}

// MaxSource is the longest source, in bytes, Types and Statements read;
// they refuse a longer one (esbuild reads it, in a process a deadline
// stops). Their budget keeps the pass linear, but speculation makes the
// constant large: about 1.5 µs per byte of "a<" repeated, 3 s of host
// CPU for 2 MB before any deadline (review of 2026-12-06). Programs that
// models write are a few kilobytes.
const MaxSource = 256 << 10

// maxLevel is how deep statements, expressions and types may open within
// each other before the pass refuses: each level is a few Go frames, and
// 1.1 million of "a<" overflowed the host's stack, a fatal error no
// recover catches (review of 2026-12-06). Brackets alone are bounded
// before the pass (codeform.MaxNesting, 256); the other shapes are
// chains such as a<a<…, a=>a=>… or nested template substitutions.
const maxLevel = 1000

// enter opens a level (see maxLevel), refusing past it; leave closes it.
func (p *blanker) enter() {
	if p.level++; p.level > maxLevel {
		panic(refusal{})
	}
}

func (p *blanker) leave() { p.level-- }

// Statement is where a top-level statement starts, as Statements reads
// it: Start is the byte offset of its first token's first character, Gap
// where the space and comments before that token start (the end of the
// statement before it; 0 for the first).
type Statement struct {
	Gap, Start int
}

// Statements returns source's top-level statements, in order, as Types
// reads source; ok is false when Types refuses source.
//
//	st, ok := blank.Statements("let a = 1\nif (a) f() // c\na") // [{0 0} {9 10} {20 26}], true
func Statements(source string) (st []Statement, ok bool) {
	if len(source) > MaxSource {
		return nil, false
	}
	p := &blanker{src: source, budget: blankBudget(source)}
	if _, ok := p.run(); !ok {
		return nil, false
	}
	return p.tops, true
}

// blankBudget is how many bytes a pass over source may scan: a program
// scans each byte about twice (a look-ahead, a parenthesis read as
// parameters and again as an expression), and a byte a little more often
// where speculation nests.
func blankBudget(source string) int { return 16*len(source) + 1024 }

// run blanks the program; when it refuses, p.tok is where.
func (p *blanker) run() (js string, ok bool) {
	defer func() {
		if r := recover(); r != nil {
			switch r.(type) {
			case refusal, mismatch:
				js, ok = "", false
			default:
				panic(r)
			}
		}
	}()
	p.pos = 0
	p.next()
	for p.tok.kind != tEOF {
		p.tops = append(p.tops, Statement{Gap: p.prev, Start: p.tok.start})
		p.statementListItem()
	}
	return p.output()
}

// output applies the spans; a span over non-ASCII text is refused (a
// column would move in UTF-16 units).
func (p *blanker) output() (string, bool) {
	if len(p.spans) == 0 {
		return p.src, true
	}
	b := []byte(p.src)
	for _, s := range p.spans {
		for i := s.start; i < s.end; i++ {
			switch c := b[i]; {
			case c >= utf8.RuneSelf:
				return "", false
			case c != '\n' && c != '\r':
				b[i] = ' '
			}
		}
		if s.semi {
			b[s.start] = ';'
		}
	}
	return string(b), true
}

func (p *blanker) next() {
	p.last, p.prev = p.tok, p.tok.end
	p.tok = p.scan(p.pos)
	if p.recording { // the marks are only read by Sites
		p.tok = p.withMark(p.tok, p.last)
	}
	p.pos = p.tok.end
}

// peek is the token after the current one (scanned as punctuation).
func (p *blanker) peek() token { return p.scan(p.tok.end) }

func (p *blanker) text() string { return p.src[p.tok.start:p.tok.end] }

func (p *blanker) isP(s string) bool { return p.tok.kind == tPunct && p.text() == s }

func (p *blanker) isName(s string) bool { return p.tok.kind == tName && p.text() == s }

func (p *blanker) expectP(s string) {
	if !p.isP(s) {
		panic(mismatch{})
	}
	p.next()
}

func (p *blanker) eatP(s string) bool {
	if p.isP(s) {
		p.next()
		return true
	}
	return false
}

// blankFrom blanks from start to the end of the last token read.
func (p *blanker) blankFrom(start int) {
	if p.prev > start {
		p.spans = append(p.spans, span{start: start, end: p.prev})
	}
}

// blankTok blanks the current token and reads the next.
func (p *blanker) blankTok() {
	p.spans = append(p.spans, span{start: p.tok.start, end: p.tok.end})
	p.next()
}

func (p *blanker) mark() marker {
	return marker{p.tok, p.last, p.prev, p.pos, len(p.spans), len(p.sites), p.fn, p.noIn, p.inCond, p.depth}
}

func (p *blanker) reset(m marker) {
	p.tok, p.last, p.prev, p.pos, p.spans = m.tok, m.last, m.prev, m.pos, p.spans[:m.n]
	p.noIn, p.inCond, p.depth = m.noIn, m.inCond, m.depth
	p.sites, p.fn = p.sites[:m.nsites], m.fn
}

// try runs f; when the text does not read as f expects, it restores the
// state and returns false. A refusal goes on up.
func (p *blanker) try(f func()) (ok bool) {
	m := p.mark()
	defer func() {
		if r := recover(); r != nil {
			if _, is := r.(mismatch); !is {
				panic(r)
			}
			p.reset(m)
			ok = false
		}
	}()
	f()
	return true
}

// nested runs f inside brackets or a function: "in" and a conditional's
// ':' mean again what they mean outside a for head or a conditional.
func (p *blanker) nested(f func()) {
	noIn, inCond := p.noIn, p.inCond
	p.noIn, p.inCond = false, 0
	f()
	p.noIn, p.inCond = noIn, inCond
}

// semicolon ends a statement: a ';', or a line break, a '}' or the end
// before the next token (automatic semicolon insertion).
func (p *blanker) semicolon() {
	if p.eatP(";") {
		return
	}
	if !p.tok.nl && !p.isP("}") && p.tok.kind != tEOF {
		panic(mismatch{})
	}
}

// reserved are the words that are no identifier in a module.
var reserved = map[string]bool{
	"break": true, "case": true, "catch": true, "class": true, "const": true, "continue": true,
	"debugger": true, "default": true, "delete": true, "do": true, "else": true, "enum": true,
	"export": true, "extends": true, "false": true, "finally": true, "for": true, "function": true,
	"if": true, "import": true, "in": true, "instanceof": true, "new": true, "null": true,
	"return": true, "super": true, "switch": true, "this": true, "throw": true, "true": true,
	"try": true, "typeof": true, "var": true, "void": true, "while": true, "with": true,
	"yield": true, "let": true, "static": true, "implements": true, "interface": true,
	"package": true, "private": true, "protected": true, "public": true, "await": true,
}

// identifier reads a binding or label name.
func (p *blanker) identifier() {
	if p.tok.kind != tName || reserved[p.text()] {
		panic(mismatch{})
	}
	p.next()
}

// Types. A type is read to find where it ends, the way TypeScript's parser
// reads it (a '[' or '<' after a line break starts no index or argument
// list; a '|' or '&' after one continues a union); object, tuple and
// parenthesized types are skipped as balanced brackets.

// typ reads a type: a function type, or a conditional type.
func (p *blanker) typ() {
	p.enter()
	defer p.leave()
	if p.isP("<") { // a generic function type
		p.typeParams()
		p.fnTypeRest()
		return
	}
	if p.isName("new") || p.isName("abstract") && p.peek().kind == tName {
		if p.isName("abstract") {
			p.next()
		}
		p.next()
		if p.isP("<") {
			p.typeParams()
		}
		p.fnTypeRest()
		return
	}
	p.unionType()
	if p.isName("extends") && !p.tok.nl {
		p.next()
		p.unionType()
		p.expectP("?")
		p.typ()
		p.expectP(":")
		p.typ()
	}
}

// fnTypeRest reads "(params) => type".
func (p *blanker) fnTypeRest() {
	p.params()
	p.expectP("=>")
	p.returnType()
}

func (p *blanker) unionType() {
	p.eatP("|")
	p.intersectionType()
	for p.eatP("|") {
		p.intersectionType()
	}
}

func (p *blanker) intersectionType() {
	p.eatP("&")
	p.operatorType()
	for p.eatP("&") {
		p.operatorType()
	}
}

func (p *blanker) operatorType() {
	switch {
	case p.isName("keyof") || p.isName("readonly"):
		p.next()
		p.operatorType()
		return
	case p.isName("unique"):
		p.next()
		p.expectName("symbol")
		return
	case p.isName("infer"):
		panic(refusal{}) // where TypeScript and esbuild allow it is theirs to say
	}
	p.primaryType()
	for p.isP("[") && !p.tok.nl {
		p.next()
		if !p.isP("]") {
			p.typ()
		}
		p.expectP("]")
	}
}

// primaryType reads a type reference, a literal type, an object, tuple or
// parenthesized type (a function type when "=>" follows its parentheses),
// a template literal type, typeof or import().
func (p *blanker) primaryType() {
	switch p.tok.kind {
	case tStr, tNum:
		p.next()
		return
	case tTemplate:
		p.templateType()
		return
	case tName:
		p.typeReference()
		return
	}
	switch {
	case p.isP("-"):
		p.next()
		if p.tok.kind != tNum {
			panic(mismatch{})
		}
		p.next()
	case p.isP("{"):
		p.objectType()
	case p.isP("["):
		p.tupleType()
	case p.isP("("):
		if !p.try(p.fnTypeRest) {
			p.next()
			p.typ()
			p.expectP(")")
		}
	default:
		panic(mismatch{})
	}
}

// typeReference reads a name (dotted), typeof a name, or import("m"),
// with type arguments.
func (p *blanker) typeReference() {
	switch {
	case p.isName("typeof"):
		p.next()
		if p.isName("import") {
			p.importType()
		} else {
			p.entityName()
		}
	case p.isName("import"):
		p.importType()
	case p.isName("asserts") || p.isName("is") || p.isName("class") || p.isName("function"):
		panic(refusal{})
	case keywordTypes[p.text()]:
		p.next() // takes no type arguments: "a<string<0>>(b)" is a comparison
		return
	default:
		p.entityName()
	}
	if p.isP("<") && !p.tok.nl {
		p.typeArgs()
	}
}

// keywordTypes are the types TypeScript reads as keywords, with no dotted
// name or type arguments after them.
var keywordTypes = map[string]bool{
	"any": true, "unknown": true, "number": true, "bigint": true, "boolean": true, "string": true,
	"symbol": true, "object": true, "never": true, "undefined": true, "void": true, "null": true,
	"this": true, "true": true, "false": true,
}

func (p *blanker) importType() {
	p.next()
	p.expectP("(")
	if p.tok.kind != tStr {
		panic(refusal{})
	}
	p.next()
	p.expectP(")")
	for p.eatP(".") {
		p.anyName()
	}
}

// entityName reads "a.b.c" (the dots may follow line breaks, as in
// TypeScript).
func (p *blanker) entityName() {
	p.anyName()
	for p.eatP(".") {
		p.anyName()
	}
}

// anyName reads an identifier or a keyword used as a name.
func (p *blanker) anyName() {
	if p.tok.kind != tName {
		panic(mismatch{})
	}
	p.next()
}

func (p *blanker) templateType() {
	for p.tok.subst {
		p.next()
		p.typ()
		p.rescanTemplate()
	}
	p.next()
}

// typeArgs reads "<T, U>".
func (p *blanker) typeArgs() {
	p.expectP("<")
	for {
		p.typ()
		if !p.eatP(",") {
			break
		}
	}
	p.expectP(">")
}

// typeParams reads "<T extends U = V, ...>".
func (p *blanker) typeParams() {
	p.expectP("<")
	for {
		if p.isName("const") || p.isName("in") || p.isName("out") {
			panic(refusal{})
		}
		p.identifier()
		if p.isName("extends") {
			p.next()
			p.typ()
		}
		if p.eatP("=") {
			p.typ()
		}
		if !p.eatP(",") || p.isP(">") {
			break
		}
	}
	p.expectP(">")
}

// returnType reads a return type, which may be a type predicate.
func (p *blanker) returnType() {
	if p.isName("asserts") && p.peek().kind == tName {
		p.next()
		p.next()
		if p.isName("is") && !p.tok.nl {
			p.next()
			p.typ()
		}
		return
	}
	if p.tok.kind == tName {
		if k := p.peek(); k.kind == tName && !k.nl && p.src[k.start:k.end] == "is" {
			p.next()
			p.next()
			p.typ()
			return
		}
	}
	p.typ()
}

// objectType reads an object type literal or a mapped type.
func (p *blanker) objectType() {
	p.expectP("{")
	p.nested(func() {
		if p.mappedType() {
			return
		}
		for !p.isP("}") {
			p.typeMember()
			if !p.eatP(";") && !p.eatP(",") && !p.tok.nl && !p.isP("}") {
				panic(mismatch{})
			}
		}
	})
	p.expectP("}")
}

// mappedType reads "[+-]readonly [K in T as U]+-?: V;" when that is what
// follows '{', and reports whether it was.
func (p *blanker) mappedType() bool {
	return p.try(func() {
		if p.eatP("+") || p.eatP("-") {
			p.expectName("readonly")
		} else {
			p.eatName("readonly")
		}
		p.expectP("[")
		p.identifier()
		p.expectName("in")
		p.typ()
		if p.isName("as") {
			p.next()
			p.typ()
		}
		p.expectP("]")
		if p.eatP("+") || p.eatP("-") {
			p.expectP("?")
		} else {
			p.eatP("?")
		}
		if p.eatP(":") {
			p.typ()
		}
		p.eatP(";")
		p.eatP(",")
		if !p.isP("}") {
			panic(mismatch{})
		}
	})
}

// typeMember reads a property, method, call, construct or index
// signature, or an accessor.
func (p *blanker) typeMember() {
	if p.isP("(") || p.isP("<") || p.isName("new") && (p.peekIs("(") || p.peekIs("<")) {
		p.eatName("new")
		p.signatureRest()
		return
	}
	if p.tok.kind == tName && !p.peekIs("?") && !p.peekIs(":") && !p.peekIs("(") && !p.peekIs("<") &&
		!p.peekIs(";") && !p.peekIs(",") && !p.peekIs("}") {
		switch p.text() {
		case "readonly", "get", "set":
			p.next()
		}
	}
	if p.isP("[") && p.try(func() {
		p.next()
		p.identifier()
		p.expectP(":")
		p.typ()
		p.expectP("]")
	}) {
		p.expectP(":")
		p.typ()
		return
	}
	if p.eatP("[") { // a computed key: a name such as Symbol.iterator
		p.entityName()
		p.expectP("]")
	} else {
		p.propertyKey()
	}
	p.eatP("?")
	if p.isP("(") || p.isP("<") {
		p.signatureRest()
	} else if p.eatP(":") {
		p.typ()
	}
}

// signatureRest reads "<T>(params): R" of a signature.
func (p *blanker) signatureRest() {
	if p.isP("<") {
		p.typeParams()
	}
	p.params()
	if p.eatP(":") {
		p.returnType()
	}
}

// tupleType reads "[a, b?, ...c]", with or without element names.
func (p *blanker) tupleType() {
	p.expectP("[")
	p.nested(func() {
		for !p.isP("]") {
			p.eatP("...")
			if p.tok.kind == tName && (p.peekIs(":") || p.peekIs("?") && p.scanIs(p.peek().end, ":")) {
				p.next()
				p.eatP("?")
				p.expectP(":")
			}
			p.typ()
			p.eatP("?")
			if !p.eatP(",") {
				break
			}
		}
	})
	p.expectP("]")
}

// scanIs reports whether the token at or after i is the punctuator s.
func (p *blanker) scanIs(i int, s string) bool {
	k := p.scan(i)
	return k.kind == tPunct && p.src[k.start:k.end] == s
}

// Expressions. Precedence does not matter to blanking, so a binary
// expression is read as operands between operators.

var binaryOps = map[string]bool{
	"+": true, "-": true, "*": true, "/": true, "%": true, "**": true, "<<": true, "&": true,
	"|": true, "^": true, "&&": true, "||": true, "??": true, "==": true, "!=": true,
	"===": true, "!==": true, "<": true, "<=": true,
}

// assignOps are the assignment operators (">>=" and ">>>=" are refused
// where '>' is read: greater).
var assignOps = map[string]bool{
	"=": true, "+=": true, "-=": true, "*=": true, "/=": true, "%=": true, "**=": true, "<<=": true,
	"&=": true, "|=": true, "^=": true, "&&=": true, "||=": true, "??=": true,
}

// expression reads a comma expression.
func (p *blanker) expression() {
	p.assign()
	for p.eatP(",") {
		p.assign()
	}
}

// assign reads an assignment expression. An arrow function ends it: no
// operator, as or satisfies applies to one.
func (p *blanker) assign() {
	p.enter()
	defer p.leave()
	var stores []Site // assignment targets, recorded after the value (Sites)
	defer func() {
		for i := len(stores) - 1; i >= 0; i-- {
			p.sites = append(p.sites, stores[i])
		}
	}()
	from, pattern := len(p.sites), p.isP("{") || p.isP("[")
	if p.unary() {
		return
	}
	assignable := true // the operand just read is an assignment's left side, not an operator's right
	for {
		switch {
		case p.tok.kind == tPunct && assignOps[p.text()]:
			if !p.target || !assignable {
				panic(refusal{}) // an invalid assignment target: esbuild's error, an early error to the engine
			}
			if s, ok := p.assignTarget(from, p.text(), pattern); ok {
				stores = append(stores, s)
			}
			p.next()
		case p.tok.kind == tPunct && binaryOps[p.text()]:
			op := p.text()
			p.next()
			if op != "&&" && op != "||" && op != "??" && op != "**" {
				p.site(SiteBinary, p.tok, "")
			}
			assignable = false
		case p.isP(">"):
			p.greater()
			p.site(SiteBinary, p.tok, "")
			assignable = false
		case p.isName("instanceof") || p.isName("in") && !p.noIn:
			p.next()
			p.site(SiteBinary, p.tok, "")
			assignable = false
		case p.isP("?"):
			p.next()
			p.inCond++
			p.assign()
			p.inCond--
			p.expectP(":")
			assignable = true
		case (p.isName("as") || p.isName("satisfies")) && !p.tok.nl:
			p.asType()
			p.target = false
			continue
		default:
			return
		}
		from, pattern = len(p.sites), p.isP("{") || p.isP("[")
		if p.unary() {
			return
		}
	}
}

// greater reads '>' and what joins it: ">=", ">>", ">>=", ">>>", ">>>=".
func (p *blanker) greater() {
	p.next()
	for n := 0; n < 2 && p.isP(">") && p.tok.start == p.prev; n++ {
		p.next()
	}
	if p.tok.start == p.prev && p.tok.kind == tPunct && p.text()[0] == '=' {
		if p.text() != "=" {
			panic(refusal{})
		}
		p.next()
	}
}

// asType blanks "as T" or "satisfies T". What follows must end the
// expression or bind more loosely than a relational operator (TypeScript
// reads "a < b as T + 1" as "((a < b) as T) + 1"), and a line break after
// the type must not let the next line continue the expression without it.
func (p *blanker) asType() {
	start := p.tok.start
	p.next()
	if p.isName("const") {
		p.next()
	} else {
		p.typ()
	}
	p.blankFrom(start)
	if p.tok.nl {
		p.statementFollows()
		return
	}
	switch {
	case p.tok.kind == tEOF, p.isName("as"), p.isName("satisfies"):
	case p.tok.kind == tPunct && inSet(") ] } , ; : && || ?? == != === !==", p.text()):
	default:
		panic(refusal{})
	}
}

// statementFollows checks the token after blanked text at the end of an
// expression or declaration, on a new line: in TypeScript a statement
// ended before it; in the JavaScript it must start one too.
func (p *blanker) statementFollows() {
	t := p.tok
	switch {
	case t.kind == tEOF, t.kind == tStr, t.kind == tNum:
	case t.kind == tName:
		switch p.text() {
		case "in", "instanceof", "as", "satisfies", "of", "extends", "is":
			panic(refusal{})
		}
	case t.kind == tPunct && inSet("} { ; ! ~ ++ --", p.text()):
	default:
		panic(refusal{})
	}
}

// unary reads prefix operators and an operand with its postfix parts; it
// reports whether the operand was an arrow function.
func (p *blanker) unary() bool {
	prefixes, update := 0, false // update: the last prefix is ++ or --, which needs a target
	for {
		switch {
		case p.tok.kind == tPunct && inSet("! ~ + - ++ --", p.text()):
			if update {
				panic(refusal{}) // "++-x", "++ ++x": no target
			}
			update = p.isP("++") || p.isP("--")
			prefixes++
			p.next()
		case p.tok.kind == tName && (p.text() == "typeof" || p.text() == "void" || p.text() == "delete" || p.text() == "await"):
			if update {
				panic(refusal{})
			}
			prefixes++
			p.next()
		case p.isName("yield"):
			p.next()
			p.eatP("*")
			if p.tok.nl || p.tok.kind == tEOF || p.tok.kind == tPunct && inSet(") ] } , ; :", p.text()) {
				p.target = false
				return false
			}
		case p.isP("<"):
			panic(refusal{}) // a <T> cast or a generic arrow
		default:
			arrow := p.postfix()
			if update && !p.target {
				panic(refusal{}) // "++f()": an invalid update target
			}
			if prefixes > 0 {
				p.target = false
			}
			return arrow
		}
	}
}

// postfix reads an operand and its member accesses, calls, tagged
// templates, non-null assertions, type arguments and ++ or --; it reports
// whether the operand was an arrow function.
func (p *blanker) postfix() bool {
	newArgs := p.newCallee // the first arguments are new's: no call
	p.newCallee = false
	importCall := p.isName("import")
	if p.primary() {
		p.target = false
		return true // an arrow function: its body ended the expression
	}
	optional := false // an optional chain: no target
	for {
		switch {
		case p.isP("."):
			p.next()
			if p.tok.kind != tName && p.tok.kind != tPrivate {
				panic(mismatch{})
			}
			p.site(SiteRead, p.tok, p.text())
			p.next()
			p.target = !optional
		case p.isP("?."):
			p.next()
			optional, p.target = true, false
			switch {
			case p.isP("("):
				p.arguments(true)
			case p.isP("["):
				p.index() // an optional read fails on no null or undefined: no site
			case p.tok.kind == tName || p.tok.kind == tPrivate:
				p.next()
			default:
				panic(refusal{})
			}
		case p.isP("["):
			t := p.tok
			p.index()
			p.site(SiteRead, t, "")
			p.target = !optional
		case p.isP("("):
			p.arguments(!newArgs && !importCall)
			newArgs, importCall = false, false
			p.target = false
		case p.tok.kind == tTemplate:
			p.site(SiteCall, p.tok, "")
			p.template()
			p.target = false
		case p.isP("!") && !p.tok.nl:
			p.blankTok()
			p.target = false
		case p.isP("<"):
			p.target = false
			if !p.callTypeArgs() {
				return false
			}
		case (p.isP("++") || p.isP("--")) && !p.tok.nl:
			if !p.target {
				panic(refusal{}) // "f()++": an invalid update target
			}
			p.next()
			p.target = false
			return false
		default:
			return false
		}
	}
}

func (p *blanker) index() {
	p.next()
	p.nested(p.expression)
	p.expectP("]")
}

// arguments reads a call's arguments; call says whether to record a
// SiteCall (not for new's arguments or import()).
func (p *blanker) arguments(call bool) {
	p.expectP("(")
	if call {
		p.site(SiteCall, p.tok, "")
	}
	p.nested(func() {
		for !p.isP(")") {
			p.eatP("...")
			p.assign()
			if !p.eatP(",") {
				break
			}
		}
	})
	p.expectP(")")
}

// callTypeArgs blanks type arguments before a call's parentheses and
// reports whether it did. TypeScript reads "a < b > (c)" as a call too;
// type arguments followed by anything else (an instantiation expression,
// or a comparison TypeScript tells apart by what follows) are refused, and
// so is a '<' this pass cannot read as type arguments while a '>' and a
// '(' follow it: it may be type syntax this pass does not know.
func (p *blanker) callTypeArgs() bool {
	start := p.tok.start
	if p.try(func() { p.typeArgs() }) {
		if !p.isP("(") {
			panic(refusal{})
		}
		p.blankFrom(start)
		return true
	}
	p.noCallAhead()
	return false
}

// noCallAhead is for a '<' this pass could not read as type arguments:
// TypeScript (and esbuild) may read more types than it does, so it refuses
// when a '>' follows at the same depth before the expression can have
// ended and what comes after that '>' could follow type arguments (a '(',
// a template, a line break, or a token that starts no expression or is a
// binary operator), not only a comparison's right side. A '>' joined to
// '>' or '=' closes no type arguments in an expression.
func (p *blanker) noCallAhead() {
	depth := 0
	for t := p.peek(); t.kind != tEOF; t = p.scan(t.end) {
		s := p.src[t.start:t.end]
		switch {
		case t.kind == tTemplate:
			panic(refusal{}) // its "}" would be read as a bracket
		case t.kind != tPunct:
		case s == "(" || s == "[" || s == "{":
			depth++
		case s == ")" || s == "]" || s == "}":
			if depth--; depth < 0 {
				return
			}
		case s == ";" && depth == 0:
			return
		case s == ">" && depth == 0:
			if n := p.scan(t.end); !(n.start == t.end && n.kind == tPunct && (p.src[n.start] == '>' || p.src[n.start] == '=')) && !p.comparisonFollows(n) {
				panic(refusal{})
			}
		}
	}
}

// comparisonFollows reports whether n, after a '>', can only be a
// comparison's right side: TypeScript reads type arguments before a '<',
// '>', '+' or '-', and before a token on the same line that starts an
// expression and is no binary operator, as a comparison.
func (p *blanker) comparisonFollows(n token) bool {
	if n.nl {
		return false
	}
	s := p.src[n.start:n.end]
	switch n.kind {
	case tNum, tStr:
		return true
	case tName:
		return !inSet("in instanceof as satisfies", s)
	case tPunct:
		return inSet("< > + - ! ~", s)
	}
	return false
}

// template reads a template literal from its first part.
func (p *blanker) template() {
	for p.tok.subst {
		p.next()
		p.nested(p.expression)
		p.rescanTemplate()
	}
	p.next()
}

// primary reads an operand; it reports whether that was an arrow
// function, which nothing may follow in the same expression.
func (p *blanker) primary() bool {
	switch p.tok.kind {
	case tNum, tStr, tRegex:
		p.next()
		p.target = false
		return false
	case tTemplate:
		p.template()
		p.target = false
		return false
	case tName:
		return p.namePrimary()
	}
	switch {
	case p.isP("/") || p.isP("/="):
		p.rescanRegex()
		p.next()
	case p.isP("("):
		if p.arrow(p.tok) {
			return true
		}
		p.next()
		p.nested(p.expression)
		p.expectP(")")
	case p.isP("["):
		p.arrayLiteral()
	case p.isP("{"):
		p.objectLiteral()
	default:
		panic(mismatch{})
	}
	p.target = false // a parenthesized name is one, but esbuild decides
	return false
}

// namePrimary reads an operand that starts with a name or keyword; it
// notes whether that was a name an assignment may target.
func (p *blanker) namePrimary() bool {
	target := false
	switch s := p.text(); s {
	case "function":
		p.function()
	case "async":
		if k := p.peek(); !k.nl && p.src[k.start:k.end] == "function" {
			p.next()
			p.function()
		} else if async := p.tok; !k.nl && (k.kind == tName || p.src[k.start:k.end] == "(") && p.try(func() {
			p.next()
			if !p.arrow(async) {
				panic(mismatch{})
			}
		}) {
			return true
		} else {
			p.next()
		}
	case "new":
		p.next()
		if p.eatP(".") {
			p.expectName("target") // new.target
		} else {
			p.site(SiteNew, p.tok, "")
			p.newCallee = true
			p.unary()
			p.newCallee = false
		}
	case "class", "enum", "interface", "import", "package", "private", "protected", "public",
		"implements", "static", "let", "yield", "await", "with":
		if s == "import" {
			p.next()
			if !p.isP("(") {
				panic(refusal{}) // import.meta: esbuild checks the name
			}
			return false
		}
		panic(refusal{})
	case "super":
		panic(refusal{}) // only in a method, which esbuild checks
	case "this", "null", "true", "false":
		p.next()
	default:
		if reserved[s] {
			panic(mismatch{})
		}
		if k := p.peek(); !k.nl && p.src[k.start:k.end] == "=>" {
			return p.arrow(p.tok)
		}
		p.site(SiteName, p.tok, s)
		p.next()
		target = s != "arguments" && s != "eval" // strict mode forbids assigning those
	}
	p.target = target
	return false
}

// arrow reads an arrow function from its parameters, a name or a
// parenthesized list, and reports whether there was one; it restores the
// state when there was not. start is the function's first token: its
// parameters, or the "async" before them, where QuickJS places the
// function (a frame that failed before the function's first recorded step
// names it).
func (p *blanker) arrow(start token) bool {
	n := len(p.sites)
	restore := p.startFunction(start)
	defer restore()
	if !p.arrowRest() {
		p.sites = p.sites[:n]
		return false
	}
	return true
}

// arrowRest is arrow after the function's start is recorded.
func (p *blanker) arrowRest() bool {
	if p.tok.kind == tName {
		p.identifier()
	} else if !p.try(func() {
		p.params()
		if p.isP(":") {
			if p.inCond > 0 {
				panic(refusal{}) // "a ? (b): c => d : e"
			}
			p.blankReturnType(true)
		}
		if !p.isP("=>") || p.tok.nl {
			panic(mismatch{})
		}
	}) {
		return false
	}
	if !p.isP("=>") || p.tok.nl {
		panic(mismatch{})
	}
	p.next()
	if p.isP("{") {
		p.functionBody()
	} else {
		p.assign() // in a conditional's consequent still: TypeScript reads it so
	}
	return true
}

// blankReturnType blanks ": T" before a function body or "=>"; an arrow's
// may not span lines (no line break may come before "=>").
func (p *blanker) blankReturnType(arrow bool) {
	start := p.tok.start
	p.next()
	p.returnType()
	if arrow && strings.ContainsAny(p.src[start:p.prev], "\n\r") {
		panic(refusal{})
	}
	p.blankFrom(start)
}

// function reads a function declaration or expression from "function".
func (p *blanker) function() {
	start := p.tok
	if p.last.kind == tName && p.src[p.last.start:p.last.end] == "async" {
		start = p.last
	}
	p.next()
	p.eatP("*")
	if !p.isP("(") && !p.isP("<") {
		p.identifier()
	}
	p.functionRest(start)
}

// functionRest reads type parameters, parameters, a return type and the
// body; a signature without a body (an overload) is refused.
func (p *blanker) functionRest(start token) {
	defer p.startFunction(start)()
	if p.isP("<") {
		start := p.tok.start
		p.typeParams()
		p.blankFrom(start)
	}
	p.params()
	if p.isP(":") {
		p.blankReturnType(false)
	}
	if !p.isP("{") {
		panic(refusal{})
	}
	p.functionBody()
}

func (p *blanker) functionBody() {
	p.expectP("{")
	p.depth++
	defer func() { p.depth-- }()
	p.nested(func() {
		for !p.isP("}") {
			if p.tok.kind == tEOF {
				panic(mismatch{})
			}
			p.statementListItem()
		}
	})
	p.next()
}

// params reads a parenthesized parameter list.
func (p *blanker) params() {
	p.expectP("(")
	p.nested(func() {
		for !p.isP(")") {
			if p.isName("this") {
				panic(refusal{}) // esbuild drops a this parameter, comma and all
			}
			rest := p.eatP("...")
			p.binding()
			if !rest && p.isP("?") {
				p.blankTok()
			}
			p.blankAnnotation()
			if p.eatP("=") {
				p.assign()
			}
			if !p.eatP(",") {
				break
			}
		}
	})
	p.expectP(")")
}

// binding reads a binding name or a destructuring pattern.
func (p *blanker) binding() {
	p.enter()
	defer p.leave()
	switch {
	case p.isP("{"):
		p.objectPattern()
	case p.isP("["):
		p.arrayPattern()
	default:
		p.identifier()
	}
}

func (p *blanker) objectPattern() {
	p.next()
	p.nested(func() {
		for !p.isP("}") {
			if p.eatP("...") {
				p.identifier()
			} else if p.tok.kind == tName && !p.peekIs(":") {
				p.site(SiteRead, p.tok, p.text())
				p.identifier()
				if p.eatP("=") {
					p.assign()
				}
			} else {
				name := ""
				if p.tok.kind == tName {
					name = p.text()
				}
				p.site(SiteRead, p.tok, name)
				p.propertyKey()
				p.expectP(":")
				p.bindingElement()
			}
			if !p.eatP(",") {
				break
			}
		}
	})
	p.expectP("}")
}

func (p *blanker) arrayPattern() {
	p.elements(func() {
		if p.eatP("...") {
			p.binding()
		} else {
			p.bindingElement()
		}
	})
}

// elements reads the elements of an array literal or pattern, holes
// included, each with elem, from its "[" to its "]".
func (p *blanker) elements(elem func()) {
	p.next()
	p.nested(func() {
		for !p.isP("]") {
			if p.eatP(",") {
				continue
			}
			elem()
			if !p.eatP(",") {
				break
			}
		}
	})
	p.expectP("]")
}

func (p *blanker) bindingElement() {
	p.binding()
	if p.eatP("=") {
		p.assign()
	}
}

func (p *blanker) peekIs(s string) bool {
	k := p.peek()
	return k.kind == tPunct && p.src[k.start:k.end] == s
}

func (p *blanker) arrayLiteral() {
	p.elements(func() {
		p.eatP("...")
		p.assign()
	})
}

// objectLiteral reads an object literal: properties, shorthands (with
// initializers, for a destructuring assignment), spreads and methods.
func (p *blanker) objectLiteral() {
	p.next()
	p.nested(func() {
		for !p.isP("}") {
			p.property()
			if !p.eatP(",") {
				break
			}
		}
	})
	p.expectP("}")
}

func (p *blanker) property() {
	start := p.tok
	if p.eatP("...") {
		p.assign()
		return
	}
	if p.tok.kind == tName && (p.peekIs(",") || p.peekIs("}") || p.peekIs("=")) {
		p.site(SiteName, p.tok, p.text())
		p.identifier() // a shorthand
		if p.eatP("=") {
			p.assign()
		}
		return
	}
	if p.tok.kind == tName && !p.peekIs("(") && !p.peekIs(":") && !p.peekIs("<") {
		switch p.text() {
		case "async":
			p.next()
			p.eatP("*")
		case "get", "set":
			p.next()
		default:
			panic(mismatch{})
		}
	} else {
		p.eatP("*")
	}
	p.propertyKey()
	if p.eatP(":") {
		p.assign()
		return
	}
	p.functionRest(start)
}

// propertyKey reads a name, string, number or computed key.
func (p *blanker) propertyKey() {
	switch p.tok.kind {
	case tName, tStr, tNum:
		p.next()
		return
	}
	if !p.isP("[") {
		panic(mismatch{})
	}
	p.next()
	p.nested(p.assign)
	p.expectP("]")
}

// Statements.

// statementListItem reads a statement or a declaration, blanking a type
// alias, an interface, "import type" and "export type" whole.
func (p *blanker) statementListItem() {
	start := p.tok.start
	p.lead = p.last
	switch {
	case p.isName("type") || p.isName("interface"):
		if k := p.peek(); k.kind == tName && !k.nl {
			p.typeDeclaration(start)
			return
		}
	case p.isName("import") && p.depth > 0:
		// import() or import.meta: an expression statement
	case p.isName("import"):
		if k := p.peek(); k.kind == tPunct && (p.src[k.start:k.end] == "(" || p.src[k.start:k.end] == ".") {
			break
		}
		p.next()
		if !p.isName("type") || !p.typeOnlyClause() {
			panic(refusal{}) // esbuild drops imports only types use
		}
		p.typeClause(true)
		p.blankStatement(start)
		return
	case p.isName("export") && p.depth == 0:
		p.export(start)
		return
	case p.isName("function"):
		p.function()
		return
	case p.isName("async"):
		if k := p.peek(); !k.nl && p.src[k.start:k.end] == "function" {
			p.next()
			p.function()
			return
		}
	case p.isName("const") || p.isName("let") && p.letDeclares():
		p.next()
		if p.isName("enum") {
			panic(refusal{})
		}
		p.declarations()
		p.semicolon()
		return
	case p.tok.kind == tName && p.declaresOther():
		panic(refusal{})
	}
	p.statement()
}

// declaresOther reports a statement that starts with a word TypeScript
// may read as a declaration the pass leaves to esbuild: a class, enum,
// namespace, module, declare, abstract or using declaration, or such a
// word used as a name (esbuild and TypeScript disagree at the edges).
func (p *blanker) declaresOther() bool {
	switch p.text() {
	case "class", "enum", "namespace", "module", "declare", "abstract", "using", "global", "type", "interface":
		return true
	}
	return false
}

// letDeclares reports whether "let" starts a declaration.
func (p *blanker) letDeclares() bool {
	k := p.peek()
	s := p.src[k.start:k.end]
	return k.kind == tName || s == "[" || s == "{"
}

// typeDeclaration blanks a type alias or an interface.
func (p *blanker) typeDeclaration(start int) {
	alias := p.isName("type")
	p.next()
	p.identifier()
	if p.isP("<") {
		p.typeParams()
	}
	if alias {
		p.expectP("=")
		p.typ()
		p.semicolon()
	} else {
		if p.isName("extends") {
			p.next()
			for {
				p.typeReference()
				if !p.eatP(",") {
					break
				}
			}
		}
		p.objectType()
	}
	p.blankStatement(start)
}

// blankStatement blanks a statement from start to the last token read,
// with a ';' in place of its first character unless it comes first in
// the module or a block or after a ';' or a case's ':' (where a ';' ends
// nothing, and would end a directive prologue esbuild keeps going).
func (p *blanker) blankStatement(start int) {
	l := p.lead
	if l.kind == tStr {
		panic(refusal{}) // perhaps a directive: esbuild would read the next as one too
	}
	first := l.end == 0 || l.kind == tPunct && inSet("{ ; :", p.src[l.start:l.end])
	p.spans = append(p.spans, span{start: start, end: p.prev, semi: !first})
}

// typeClause reads the rest of "import type" or "export type": a default
// name, a namespace or a list of names, then (for an import, or an export
// of a namespace, always) from a module specifier.
func (p *blanker) typeClause(isImport bool) {
	from := isImport
	switch {
	case p.eatP("*"):
		if isImport || p.isName("as") { // "import type * as n", "export type * from"
			p.expectName("as")
			p.identifier()
		}
		from = true
	case p.isP("{"):
		p.next()
		for !p.isP("}") {
			p.moduleName()
			if p.isName("as") {
				p.next()
				p.moduleName()
			}
			if !p.eatP(",") {
				break
			}
		}
		p.expectP("}")
	case isImport:
		p.identifier()
	default:
		panic(mismatch{})
	}
	if from || p.isName("from") {
		p.expectName("from")
		if p.tok.kind != tStr {
			panic(mismatch{})
		}
		p.next()
	}
	p.semicolon()
}

func (p *blanker) moduleName() {
	if p.tok.kind != tStr {
		p.anyName()
		return
	}
	p.next()
}

// typeOnlyClause reports, at "type" after import or export, whether a
// type-only clause follows ("import type, { a }" and "import type from"
// import a binding named type), and reads the word.
func (p *blanker) typeOnlyClause() bool {
	k := p.peek()
	s := p.src[k.start:k.end]
	if k.nl || !(s == "{" || s == "*" || k.kind == tName && s != "from") {
		return false
	}
	p.next()
	return true
}

// export reads an export declaration; export lists, which may name types
// esbuild drops, and the other forms are refused.
func (p *blanker) export(start int) {
	p.next()
	switch {
	case p.isName("type") || p.isName("interface"):
		if k := p.peek(); k.kind == tName && !k.nl && p.src[k.start:k.end] != "from" {
			if p.peekName() {
				p.typeDeclaration(start)
				return
			}
		}
		if p.isName("type") && p.typeOnlyClause() {
			p.typeClause(false)
			p.blankStatement(start)
			return
		}
	case p.isName("default"):
		p.next()
		if p.isName("function") || p.isName("async") && p.peekWord("function") {
			p.eatName("async")
			p.function()
			return
		}
		if p.tok.kind == tName && (p.declaresOther() || p.isName("interface")) {
			panic(refusal{})
		}
		p.assign()
		p.semicolon()
		return
	case p.isName("const") || p.isName("let") || p.isName("var"):
		p.next()
		if p.isName("enum") {
			panic(refusal{})
		}
		p.declarations()
		p.semicolon()
		return
	case p.isName("function") || p.isName("async") && p.peekWord("function"):
		p.eatName("async")
		p.function()
		return
	}
	panic(refusal{})
}

// peekName reports whether "type" or "interface" is followed by a name
// and then by '=', '<', '{' or "extends": a declaration, not a clause.
func (p *blanker) peekName() bool {
	k := p.scan(p.peek().end)
	s := p.src[k.start:k.end]
	return s == "=" || s == "<" || s == "{" || s == "extends"
}

func (p *blanker) peekWord(s string) bool {
	k := p.peek()
	return !k.nl && k.kind == tName && p.src[k.start:k.end] == s
}

func (p *blanker) eatName(s string) {
	if p.isName(s) {
		p.next()
	}
}

// declarations reads a declaration list after const, let or var.
func (p *blanker) declarations() {
	for {
		p.declarator()
		if !p.eatP(",") {
			return
		}
	}
}

// blankAnnotation blanks a type annotation (": T") where one stands,
// reporting whether one did.
func (p *blanker) blankAnnotation() bool {
	if !p.isP(":") {
		return false
	}
	start := p.tok.start
	p.next()
	p.typ()
	p.blankFrom(start)
	return true
}

// declarator reads a binding, a definite '!', a type and an initializer.
func (p *blanker) declarator() {
	name := p.tok.kind == tName
	p.binding()
	if name && p.isP("!") && !p.tok.nl && p.peekIs(":") {
		p.blankTok()
	}
	if p.blankAnnotation() {
		if p.tok.nl && !p.isP("=") && !p.isP(",") {
			p.statementFollows()
		}
	}
	if p.eatP("=") {
		p.assign()
	}
}

// statement reads a statement (no declaration but var).
func (p *blanker) statement() {
	p.enter()
	defer p.leave()
	if p.tok.kind == tName {
		if p.keywordStatement() {
			return
		}
		if k := p.peek(); k.kind == tPunct && p.src[k.start:k.end] == ":" && !reserved[p.text()] {
			p.next() // a label
			p.next()
			p.statement()
			return
		}
	}
	switch {
	case p.isP("{"):
		p.block()
	case p.isP(";"):
		p.next()
	case p.isP("@"):
		panic(refusal{})
	default:
		p.site(SiteStatement, p.tok, "")
		p.expression()
		p.semicolon()
	}
}

func (p *blanker) block() {
	p.enter()
	defer p.leave()
	p.expectP("{")
	p.depth++
	defer func() { p.depth-- }()
	for !p.isP("}") {
		if p.tok.kind == tEOF {
			panic(mismatch{})
		}
		p.statementListItem()
	}
	p.next()
}

// keywordStatement reads a statement that starts with a keyword, and
// reports whether there was one.
func (p *blanker) keywordStatement() bool {
	switch p.text() {
	case "var":
		p.next()
		p.declarations()
		p.semicolon()
	case "if":
		p.next()
		p.parenthesized()
		p.statement()
		if p.isName("else") {
			p.next()
			p.statement()
		}
	case "for":
		p.forStatement()
	case "while":
		p.next()
		p.parenthesized()
		p.statement()
	case "do":
		p.next()
		p.statement()
		p.expectName("while")
		p.parenthesized()
		p.eatP(";") // after do-while, a ';' is optional even on one line
	case "return", "throw":
		if p.isName("throw") {
			p.next()
			p.site(SiteThrow, p.tok, "")
		} else {
			p.next()
		}
		if !p.tok.nl && !p.isP(";") && !p.isP("}") && p.tok.kind != tEOF {
			p.expression()
		}
		p.semicolon()
	case "break", "continue":
		p.next()
		if p.tok.kind == tName && !p.tok.nl {
			p.identifier()
		}
		p.semicolon()
	case "switch":
		p.switchStatement()
	case "try":
		p.tryStatement()
	case "debugger":
		p.next()
		p.semicolon()
	case "import":
		if !p.peekIs("(") && !p.peekIs(".") {
			panic(refusal{})
		}
		return false
	case "with", "class", "enum", "export", "const", "let", "function":
		panic(refusal{}) // not a statement here, or not in a module
	default:
		return false
	}
	return true
}

func (p *blanker) expectName(s string) {
	if !p.isName(s) {
		panic(mismatch{})
	}
	p.next()
}

func (p *blanker) parenthesized() {
	p.expectP("(")
	p.nested(p.expression)
	p.expectP(")")
}

// forStatement reads for, for-in, for-of and for await.
//
// A compiler emits a for-in or for-of head's binding after the iterated
// expression, and a for statement's update after its body (QuickJS moves
// them so: js_parse_for_in_of, and "move the `next` code here" in
// js_parse_statement_or_decl); Sites lists them in that order.
func (p *blanker) forStatement() {
	p.next()
	p.eatName("await")
	p.expectP("(")
	update := -1 // where the update's sites start
	p.nested(func() {
		head := len(p.sites)
		p.noIn = true
		switch {
		case p.isP(";"):
		case p.isName("const") || p.isName("var") || p.isName("let") && p.letDeclares():
			p.next()
			p.forDeclarations()
		default:
			p.expression()
		}
		p.noIn = false
		if p.isName("of") || p.isName("in") {
			binding := len(p.sites)
			p.next()
			p.assign()
			p.rotate(head, binding, len(p.sites))
			return
		}
		p.expectP(";")
		if !p.isP(";") {
			p.expression()
		}
		p.expectP(";")
		update = len(p.sites)
		if !p.isP(")") {
			p.expression()
		}
	})
	p.expectP(")")
	body := len(p.sites)
	p.statement()
	if update >= 0 {
		p.rotate(update, body, len(p.sites))
	}
}

// forDeclarations reads a for statement's declarations; a typed binding
// before "of" or "in" is refused (TypeScript forbids it).
func (p *blanker) forDeclarations() {
	n := len(p.spans)
	p.declarations()
	if len(p.spans) > n && (p.isName("of") || p.isName("in")) {
		panic(refusal{})
	}
}

func (p *blanker) switchStatement() {
	p.next()
	p.parenthesized()
	p.expectP("{")
	p.depth++
	defer func() { p.depth-- }()
	p.nested(func() {
		for !p.isP("}") {
			if p.isName("case") {
				p.next()
				p.inCond++ // "case (a): b => c" stays esbuild's
				p.expression()
				p.inCond--
			} else {
				p.expectName("default")
			}
			p.expectP(":")
			for !p.isP("}") && !p.isName("case") && !p.isName("default") {
				if p.tok.kind == tEOF {
					panic(mismatch{})
				}
				p.statementListItem()
			}
		}
	})
	p.next()
}

// tryStatement reads try, catch (with a typed binding) and finally.
func (p *blanker) tryStatement() {
	p.next()
	p.block()
	if p.isName("catch") {
		p.next()
		if p.eatP("(") {
			p.binding()
			p.blankAnnotation()
			p.expectP(")")
		}
		p.block()
	}
	if p.isName("finally") {
		p.next()
		p.block()
	}
}
