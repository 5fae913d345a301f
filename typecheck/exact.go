package typecheck

import (
	"regexp"
	"strings"
)

// Tool inputs are closed (additionalProperties: false), and the host
// rejects an input with a property its schema does not declare. TypeScript
// reports such a property only on a fresh object literal
// (`codemode.getWeather({ location, extra })`), not on a variable
// (`const arg = { location, extra }; codemode.getWeather(arg)`). For the
// checker only, exactTools makes each tool method generic in its argument's
// type I and requires I to have no property the input type T lacks, at any
// depth, through arrays and discriminated unions (the branch I belongs to):
//
//	getWeather(input: T): R
//	getWeather<CodeModeI extends T>(input: CodeModeI & CodeModeExact<CodeModeI, T>): R
//
// CodeModeExact is `unknown` when there is nothing extra (or the argument
// is `any`), and otherwise an object with one property, excessMarker, whose
// type lists the paths of the extra properties ("input.items[].extra"),
// which the argument lacks: the error names them. CodeModeExcess
// distributes over the members of a union input and keeps those the
// argument is assignable to, so a discriminated union's branch is checked
// against its own properties. The declarations the agent sees are
// unchanged.
const exactHelpers = `
type CodeModeExcess<I, T, P extends string> =
  T extends object
    ? [I] extends [T]
      ? T extends readonly (infer V)[]
        ? I extends readonly (infer E)[] ? CodeModeExcess<E, V, ` + "`${P}[]`" + `> : never
        : { [K in keyof I]-?: K extends keyof T ? CodeModeExcess<I[K], T[K], ` + "`${P}.${K & string}`" + `> : ` + "`${P}.${K & string}`" + ` }[keyof I]
      : never
    : never;
type CodeModeExact<I, T> = 0 extends 1 & I ? unknown : CodeModeExactMark<CodeModeExcess<I, T, "input">>;
type CodeModeExactFlat<I, T> = 0 extends 1 & I ? unknown : CodeModeExactMark<` + "`input.${Exclude<keyof I, keyof T> & string}`" + `>;
type CodeModeExactMark<X> = [X] extends [never] ? unknown : { "` + excessMarker + `": X };
`

// excessMarker is the property whose absence the checker reports.
const excessMarker = "codemode: properties the tool's input does not declare"

var (
	toolsBlock = regexp.MustCompile(`(?m)^interface \w*Tools \{`)
	methodHead = regexp.MustCompile(`^\n(\s+)([A-Za-z_$][\w$]*)\(input: `)
	markedKey  = regexp.MustCompile(`"` + regexp.QuoteMeta(excessMarker) + `": ((?:"[^"]*"(?: \| )?)+)`)
	quoted     = regexp.MustCompile(`"([^"]*)"`)
)

// exactDeclarations returns the declarations with exactTools applied to
// each top-level file, and the names of the tool methods it rewrote.
func exactDeclarations(files []File) ([]File, []string) {
	out := make([]File, len(files))
	var names []string
	for i, f := range files {
		out[i] = f
		if strings.Contains(f.Name, "/") {
			continue
		}
		if text, rewritten := exactTools(f.Text); len(rewritten) > 0 {
			out[i].Text = text + exactHelpers
			names = append(names, rewritten...)
		}
	}
	return out, names
}

// mentionsAny reports whether source has one of names as a whole word. A
// program that names no tool method calls none, and needs no exact pass.
func mentionsAny(source string, names []string) bool {
	for _, n := range names {
		for i := 0; ; {
			j := strings.Index(source[i:], n)
			if j < 0 {
				break
			}
			j += i
			if (j == 0 || !isWordByte(source[j-1])) && (j+len(n) == len(source) || !isWordByte(source[j+len(n)])) {
				return true
			}
			i = j + 1
		}
	}
	return false
}

func isWordByte(c byte) bool {
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// exactTools rewrites the methods `name(input: T): …` of every
// `interface …Tools {` block in text, as described at exactHelpers, and
// returns the names of those it rewrote. A method it cannot parse is left
// as it is: it is then only as strict as TypeScript.
func exactTools(text string) (string, []string) {
	var b strings.Builder
	var names []string
	at := 0
	for _, loc := range toolsBlock.FindAllStringIndex(text, -1) {
		if loc[0] < at {
			continue
		}
		end := matching(text, loc[1]-1)
		if end < 0 {
			break
		}
		b.WriteString(text[at:loc[1]])
		body := text[loc[1]:end]
		depth := 0
		last := 0
		for i := 0; i < len(body); {
			if n := skip(body, i); n > i {
				i = n
				continue
			}
			switch body[i] {
			case '{', '(', '[':
				depth++
			case '}', ')', ']':
				depth--
			case '\n':
				if depth != 0 {
					break
				}
				m := methodHead.FindStringSubmatchIndex(body[i:])
				if m == nil {
					break
				}
				typeStart := i + m[1]
				close := matching(body, typeStart-len("(input: "))
				if close < 0 {
					break
				}
				t := body[typeStart:close]
				b.WriteString(body[last:i])
				b.WriteString("\n" + body[i+m[2]:i+m[3]] + body[i+m[4]:i+m[5]])
				exact := "CodeModeExact"
				if flat(t) {
					exact = "CodeModeExactFlat"
				}
				b.WriteString("<CodeModeI extends " + t + ">(input: CodeModeI & " + exact + "<CodeModeI, " + t + ">)")
				last = close + 1
				names = append(names, body[i+m[4]:i+m[5]])
				i = close + 1
				continue
			}
			i++
		}
		b.WriteString(body[last:])
		at = end
	}
	b.WriteString(text[at:])
	return b.String(), names
}

// flat reports whether an input type's text is one object of primitive
// properties (no nested object, array, union or generic), which
// CodeModeExactFlat checks with one key comparison instead of a
// recursive walk: a tool call costs the checker about half as much.
func flat(t string) bool {
	body := t
	for i := 0; i < len(body); {
		if n := skip(body, i); n > i {
			if body[i] != '/' {
				return false // a string literal type: keep to the general walk
			}
			body = body[:i] + body[n:]
			continue
		}
		i++
	}
	return strings.HasPrefix(strings.TrimSpace(body), "{") && strings.Count(body, "{") == 1 && !strings.ContainsAny(body, "[|<&(")
}

// matching returns the index of the bracket closing the one at open, or -1;
// it skips comments and string literals.
func matching(s string, open int) int {
	depth := 0
	for i := open; i < len(s); {
		if n := skip(s, i); n > i {
			i = n
			continue
		}
		switch s[i] {
		case '{', '(', '[':
			depth++
		case '}', ')', ']':
			depth--
			if depth == 0 {
				return i
			}
		}
		i++
	}
	return -1
}

// skip returns the index after the comment or string literal starting at
// i, or i when there is none.
func skip(s string, i int) int {
	switch {
	case strings.HasPrefix(s[i:], "/*"):
		if j := strings.Index(s[i+2:], "*/"); j >= 0 {
			return i + 2 + j + 2
		}
		return len(s)
	case strings.HasPrefix(s[i:], "//"):
		if j := strings.IndexByte(s[i:], '\n'); j >= 0 {
			return i + j
		}
		return len(s)
	case s[i] == '"' || s[i] == '\'' || s[i] == '`':
		for j := i + 1; j < len(s); j++ {
			switch s[j] {
			case '\\':
				j++
			case s[i]:
				return j + 1
			}
		}
		return len(s)
	}
	return i
}

// excessResult keeps, of the exact pass's diagnostics, those about
// undeclared input properties, with a message of its own naming them.
func excessResult(source string, own []lspDiagnostic) *Result {
	var ds []Diagnostic
	for _, d := range own {
		m := markedKey.FindStringSubmatch(d.Message)
		if m == nil {
			continue
		}
		var paths []string
		for _, q := range quoted.FindAllStringSubmatch(m[1], -1) {
			paths = append(paths, q[1])
		}
		ds = append(ds, Diagnostic{
			File: "agent.ts", Line: d.Range.Start.Line + 1, Column: d.Range.Start.Character + 1, Code: code(d.Code),
			Message: "the argument has properties the tool's input does not declare: " + strings.Join(paths, ", ") + " (tool inputs are closed; the host rejects unknown properties)",
		})
	}
	if len(ds) == 0 {
		return &Result{Valid: true}
	}
	if len(ds) > MaxDiagnostics {
		ds = ds[:MaxDiagnostics]
	}
	return &Result{Diagnostics: ds, Report: report(source, ds)}
}
