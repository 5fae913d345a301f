package codeform

import (
	"regexp"
	"slices"
	"strings"
)

// Declared returns the names code declares at its top level, in order and
// without repeats: let, const and var bindings (destructuring patterns
// included), functions, async functions and classes. It reads code with the
// same light scanner as Normalize (strings, templates, comments and
// regular expressions are skipped; only statements that start at bracket
// depth 0 count), so it may miss a declaration in code it cannot follow or
// name one that is not there (a binding a wrapper then fails to read); it
// never returns a word that is not an identifier, or a reserved word.
//
// It runs on the host before a program's deadline starts, on code a model
// wrote, so its time is bounded by len(code) times its logarithm: a
// declaration's bindings are read up to the next declaration at most,
// each byte of them a bounded number of times (see bindingNames), and
// patterns nested deeper than maxPatternDepth are not read.
func Declared(code string) []string {
	d := readStatements(code)
	var names []string
	seen := map[string]bool{}
	add := func(n string) {
		if !seen[n] && isIdentifier(n) {
			seen[n] = true
			names = append(names, n)
		}
	}
	for _, rest := range d.heads {
		off := len(code) - len(rest)
		switch w := firstWord(rest); w {
		case "function", "class":
			add(nameAfter(rest[len(w):]))
		case "async":
			if asyncFunction.MatchString(rest) {
				// TrimLeft, not TrimSpace: trimming the code's end again for
				// every statement made this quadratic.
				add(nameAfter(strings.TrimLeft(rest[len(w):], " \t\r\n")[len("function"):]))
			}
		case "let", "const", "var":
			for _, n := range d.bindingNames(off + len(w)) {
				add(n)
			}
		}
	}
	return names
}

// statements is what Declared reads of code's top-level statements.
type statements struct {
	code   string
	starts []int    // candidate statement starts (scanned.starts), in order
	commas []int    // commas at depth 0 (scanned.commas), in order
	heads  []string // the code at each start, leading comments stripped
	// ends[k] is the first start from k on where a statement still going
	// at starts[k] has ended: one that does not continue the line before
	// it (the code before it ends in neither "," nor "=") or that starts
	// a declaration; len(code) past the last.
	ends []int
	// decls[k] is the first start from k on that starts a declaration
	// (its first word is let, const or var); len(code) past the last.
	decls []int
}

// readStatements scans code and fills in the ends and decls of its starts
// in one pass from the right, so that finding where a declaration ends is
// a binary search, not a walk over every line ending in "," after it.
func readStatements(code string) statements {
	sc := scan(code)
	starts := mergeSorted(sc.starts, declarationsAfterBlocks(code, sc.blockEnds))
	n := len(starts)
	d := statements{code: code, starts: starts, commas: sc.commas, heads: make([]string, n), ends: make([]int, n+1), decls: make([]int, n+1)}
	d.ends[n], d.decls[n] = len(code), len(code)
	for k := n - 1; k >= 0; k-- {
		s := starts[k]
		d.heads[k] = stripComments(code[s:])
		d.ends[k], d.decls[k] = d.ends[k+1], d.decls[k+1]
		switch firstWord(d.heads[k]) {
		case "let", "const", "var":
			d.ends[k], d.decls[k] = s, s
			continue
		}
		h := strings.TrimRight(code[:s], " \t\r\n")
		if !strings.HasSuffix(h, ",") && !strings.HasSuffix(h, "=") {
			d.ends[k] = s
		}
	}
	return d
}

// declarationsAfterBlocks returns where a declaration starts on the same
// line as the "}" that closed a block before it (blockEnds, scanned), as
// in "function f() { … } const m = f()": a statement the line starts do
// not see. Only a declaration can follow a "}" there: after an object
// literal, a let, const, var, function, class or async on the same line is
// a syntax error.
func declarationsAfterBlocks(code string, blockEnds []int) []int {
	var starts []int
	for _, b := range blockEnds {
		at := len(code) - len(strings.TrimLeft(code[b:], " \t"))
		switch firstWord(code[at:]) {
		case "let", "const", "var", "function", "class", "async":
			starts = append(starts, at)
		}
	}
	return starts
}

// after returns the index of the first start after offset at.
func (d *statements) after(at int) int {
	k, _ := slices.BinarySearch(d.starts, at+1)
	return k
}

// nameAfter returns the identifier after a function or class keyword
// (skipping a generator's star), or "".
func nameAfter(s string) string {
	s = strings.TrimLeft(stripComments(s), "*")
	return firstWord(s)
}

// maxBindings bounds the bindings read of one declaration.
const maxBindings = 1000

// bindingNames returns the names a let, const or var declaration whose
// bindings start at code[at:] declares: each binding is an identifier or a
// pattern, then a type and an initializer, up to a comma at bracket depth
// 0 before the statement ends. The first binding may be on a later line
// (const\n  x = 1), and so may one after a comma and a line comment.
//
// The bindings are read from the code before the next declaration (stmt
// below) and each step moves at forward past what it read, so reading
// every declaration reads each byte of code a bounded number of times.
// Without that bound, each of many declarations on lines ending in ","
// read the lines of all the others (the adversarial review of
// 2026-12-06: 14 KB of "let a,\n" took 20 s).
func (d *statements) bindingNames(at int) []string {
	code := d.code
	at = len(code) - len(stripComments(code[at:]))
	stmt := code[:d.decls[d.after(at)]]
	var names []string
	for steps := 0; at < len(stmt) && steps < maxBindings; steps++ {
		rest := stripComments(stmt[at:])
		at = len(stmt) - len(rest)
		if rest == "" {
			break
		}
		switch rest[0] {
		case '{', '[':
			// A pattern's bracket is matched within the statement: one
			// that never closes (a bracket in a comment the light reading
			// misplaced) reads to the statement's end.
			end := matchBracket(rest[:d.ends[d.after(at)]-at])
			if end < 1 {
				return names
			}
			names = append(names, patternNames(rest[1:end], 1)...)
			at += end + 1
		default:
			w := firstWord(rest)
			if w == "" {
				return names
			}
			names = append(names, w)
			at += len(w)
		}
		next, ok := d.nextBinding(stmt, at)
		if !ok {
			break
		}
		at = next
	}
	return names
}

// nextBinding finds the comma after the binding that ends at stmt[at:]
// (its type and initializer) before the statement ends, and returns where
// the next binding starts, or false when the statement ends first.
func (d *statements) nextBinding(stmt string, at int) (int, bool) {
	end := min(d.ends[d.after(at)], len(stmt))
	rest := stripComments(stmt[at:end])
	if strings.HasPrefix(rest, ":") {
		// A type: commas inside its angle brackets are not the list's.
		at = skipType(stmt[:end], end-len(rest)+1)
	}
	// The first comma at or after at (commas are in order).
	if i, _ := slices.BinarySearch(d.commas, at); i < len(d.commas) && d.commas[i] < end {
		return d.commas[i] + 1, true
	}
	return 0, false
}

// skipType skips a type annotation from code[at:] to the "=" or "," that
// follows it at depth 0 (angle brackets count as brackets), or to the end
// of code.
func skipType(code string, at int) int {
	depth := 0
	for i := at; i < len(code); i++ {
		switch c := code[i]; c {
		case '(', '[', '{', '<':
			depth++
		case ')', ']', '}':
			depth = max(depth-1, 0)
		case '>':
			if i > 0 && code[i-1] != '=' {
				depth = max(depth-1, 0)
			}
		case '"', '\'', '`':
			if j := strings.IndexByte(code[i+1:], c); j >= 0 {
				i += j + 1
			}
		case '=', ',':
			if depth == 0 && (c == ',' || i+1 >= len(code) || code[i+1] != '>') {
				return i
			}
		}
	}
	return len(code)
}

// matchBracket returns the offset of the bracket closing s[0], skipping
// quoted strings, or len(s)-1 when it never closes.
func matchBracket(s string) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			if depth--; depth == 0 {
				return i
			}
		case '"', '\'', '`':
			if j := strings.IndexByte(s[i+1:], c); j >= 0 {
				i += j + 1
			}
		}
	}
	return max(len(s)-1, 0)
}

// maxPatternDepth bounds how deep patternNames reads nested patterns:
// each level reads the whole text inside it again, so an unbounded depth
// (brackets that never close nest as deep as the text is long) would make
// the time quadratic.
const maxPatternDepth = 16

// patternNames returns the names an object or array pattern's inside
// binds: each element is a name, a rest element, "key: target" or a nested
// pattern, with an optional default after "=". depth is the pattern's (1
// for a binding's); patterns deeper than maxPatternDepth are not read.
func patternNames(s string, depth int) []string {
	if depth > maxPatternDepth {
		return nil
	}
	var names []string
	for _, el := range splitTop(s) {
		el = strings.TrimSpace(stripComments(el))
		if i := topIndex(el, '='); i >= 0 {
			el = strings.TrimSpace(el[:i])
		}
		if i := topIndex(el, ':'); i >= 0 {
			el = strings.TrimSpace(el[i+1:])
		}
		el = strings.TrimSpace(strings.TrimPrefix(el, "..."))
		switch {
		case el == "":
		case el[0] == '{' || el[0] == '[':
			end := matchBracket(el)
			if end > 0 {
				names = append(names, patternNames(el[1:end], depth+1)...)
			}
		default:
			names = append(names, firstWord(el))
		}
	}
	return names
}

// splitTop splits s at commas outside brackets and quotes.
func splitTop(s string) []string {
	var parts []string
	start := 0
	eachTop(s, func(i int) bool {
		if s[i] == ',' {
			parts = append(parts, s[start:i])
			start = i + 1
		}
		return true
	})
	return append(parts, s[start:])
}

// topIndex is the offset of the first c in s outside brackets and quotes
// ("=" not part of "=>" or "=="), or -1.
func topIndex(s string, c byte) int {
	at := -1
	eachTop(s, func(i int) bool {
		if s[i] == c && !(c == '=' && i+1 < len(s) && (s[i+1] == '>' || s[i+1] == '=')) {
			at = i
			return false
		}
		return true
	})
	return at
}

// eachTop calls f with the offset of each byte of s outside brackets and
// quoted strings (brackets themselves excluded), in order, until f
// returns false.
func eachTop(s string, f func(i int) bool) {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth = max(depth-1, 0)
		case '"', '\'', '`':
			if j := strings.IndexByte(s[i+1:], c); j >= 0 {
				i += j + 1
			}
		default:
			if depth == 0 && !f(i) {
				return
			}
		}
	}
}

// identifier is an ASCII JavaScript identifier (non-ASCII names are left
// out: a session does not carry them).
var identifier = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)

// reservedWords cannot name a binding.
var reservedWords = []string{"break", "case", "catch", "class", "const", "continue", "debugger", "default", "delete",
	"do", "else", "enum", "export", "extends", "false", "finally", "for", "function", "if", "import", "in",
	"instanceof", "new", "null", "return", "super", "switch", "this", "throw", "true", "try", "typeof", "var",
	"void", "while", "with", "yield", "let", "static", "implements", "interface", "package", "private",
	"protected", "public", "await", "arguments", "eval", "undefined", "NaN", "Infinity"}

// isIdentifier reports whether s can name a binding of a program.
func isIdentifier(s string) bool {
	return identifier.MatchString(s) && !slices.Contains(reservedWords, s)
}
