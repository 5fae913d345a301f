package typecheck

import (
	"regexp"
	"strings"

	"github.com/codemode-go/codemode/internal/typegen"
)

// Tool inputs are closed (additionalProperties: false), and the host
// rejects an input with a property its schema does not declare. TypeScript
// reports such a property only on a fresh object literal
// (`codemode.getWeather({ location, extra })`), not on a variable
// (`const arg = { location, extra }; codemode.getWeather(arg)`). For the
// checker only, a declaration file printed by typegen carries
// typegen.CheckerDeclarations (File.Checker), whose Exact text makes each
// tool method generic in its argument's type and requires it to have no
// property the input type lacks; the checker's error then names the extra
// paths under typegen.ExcessMarker. The declarations the agent sees are
// unchanged.

var (
	markedKey = regexp.MustCompile(`"` + regexp.QuoteMeta(typegen.ExcessMarker) + `": ((?:"[^"]*"(?: \| )?)+)`)
	quoted    = regexp.MustCompile(`"([^"]*)"`)
)

// exactDeclarations returns the declarations with each file that carries
// checker declarations replaced by their exact text, and the names of the
// tool methods made exact.
func exactDeclarations(files []File) ([]File, []string) {
	out := make([]File, len(files))
	var names []string
	for i, f := range files {
		out[i] = f
		if f.Checker != nil && len(f.Checker.Methods) > 0 {
			out[i].Text = f.Checker.Exact
			names = append(names, f.Checker.Methods...)
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
	if len(ds) > maxDiagnostics {
		ds = ds[:maxDiagnostics]
	}
	return &Result{Diagnostics: ds, Report: report(source, ds)}
}
