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
func Declared(code string) []string {
	sc := scan(code)
	var names []string
	seen := map[string]bool{}
	add := func(n string) {
		if !seen[n] && isIdentifier(n) {
			seen[n] = true
			names = append(names, n)
		}
	}
	for _, at := range sc.starts {
		rest := stripComments(code[at:])
		off := len(code) - len(rest)
		switch w := firstWord(rest); w {
		case "function", "class":
			add(nameAfter(rest[len(w):]))
		case "async":
			if asyncFunction.MatchString(rest) {
				add(nameAfter(strings.TrimSpace(rest[len(w):])[len("function"):]))
			}
		case "let", "const", "var":
			for _, n := range bindingNames(code, off+len(w), sc) {
				add(n)
			}
		}
	}
	return names
}

// nameAfter returns the identifier after a function or class keyword
// (skipping a generator's star), or "".
func nameAfter(s string) string {
	s = strings.TrimLeft(stripComments(s), "*")
	return firstWord(s)
}

// bindingNames returns the names a let, const or var declaration whose
// bindings start at code[at:] declares: each binding is an identifier or a
// pattern, then a type and an initializer, up to a comma at bracket depth 0
// before the statement ends.
func bindingNames(code string, at int, sc scanned) []string {
	var names []string
	// A pattern's bracket is matched within the statement: one that never
	// closes (a bracket in a comment the light reading misplaced) would
	// otherwise read to the end of the code for every declaration.
	stmtEnd := statementEnd(code, at, sc)
	for steps := 0; at < len(code) && steps < 1000; steps++ {
		rest := stripComments(code[at:])
		at = len(code) - len(rest)
		if rest == "" {
			break
		}
		switch rest[0] {
		case '{', '[':
			end := matchBracket(rest[:max(min(len(rest), stmtEnd-at), 1)])
			if end < 1 {
				return names
			}
			names = append(names, patternNames(rest[1:end])...)
			at += end + 1
		default:
			w := firstWord(rest)
			if w == "" {
				return names
			}
			names = append(names, w)
			at += len(w)
		}
		next, ok := nextBinding(code, at, sc)
		if !ok {
			break
		}
		at = next
	}
	return names
}

// nextBinding finds the comma after the binding that ends at code[at:]
// (its type and initializer) and returns where the next binding starts, or
// false when the statement ends first.
func nextBinding(code string, at int, sc scanned) (int, bool) {
	end := statementEnd(code, at, sc)
	rest := stripComments(code[at:])
	if strings.HasPrefix(rest, ":") {
		// A type: commas inside its angle brackets are not the list's.
		at = skipType(code, len(code)-len(rest)+1, end)
	}
	// The first comma at or after at (commas are in order).
	if i, _ := slices.BinarySearch(sc.commas, at); i < len(sc.commas) && sc.commas[i] < end {
		return sc.commas[i] + 1, true
	}
	return 0, false
}

// statementEnd is where the statement around at ends: the next statement
// start after it that is not a continuation of a line ending in "," or "=".
func statementEnd(code string, at int, sc scanned) int {
	i, _ := slices.BinarySearch(sc.starts, at) // starts are in order
	for _, s := range sc.starts[i:] {
		if s <= at {
			continue
		}
		h := strings.TrimRight(code[:s], " \t\r\n")
		if strings.HasSuffix(h, ",") || strings.HasSuffix(h, "=") {
			continue
		}
		return s
	}
	return len(code)
}

// skipType skips a type annotation from code[at:] to the "=" or "," that
// follows it at depth 0 (angle brackets count as brackets), at most to end.
func skipType(code string, at, end int) int {
	depth := 0
	for i := at; i < end && i < len(code); i++ {
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
	return end
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

// patternNames returns the names an object or array pattern's inside
// binds: each element is a name, a rest element, "key: target" or a nested
// pattern, with an optional default after "=".
func patternNames(s string) []string {
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
				names = append(names, patternNames(el[1:end])...)
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
