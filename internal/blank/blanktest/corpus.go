// Package blanktest gathers the texts the blanker's tests read, for the
// packages that test what they make of it (blank, client, codeform): every
// TypeScript file of the repository and the strings Go tests hold as
// literals.
package blanktest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// WithoutImports marks a corpus text whose imports and export lists were
// replaced by spaces: the runner's and the SDK's sources, which the blanker
// refuses for their imports, then test it on a few thousand lines of real
// TypeScript. Such a text is no program to run.
const WithoutImports = " (imports blanked)"

// Programs is every TypeScript program in the repository at root: the .ts
// files (example and case programs, the runner's and the durable SDK's
// sources, and each of those with its imports blanked: WithoutImports) and
// the programs Go tests hold as string literals (those that export a
// default). Keys name where each came from.
func Programs(t testing.TB, root string) map[string]string {
	t.Helper()
	return walk(t, root, true, func(s string) bool { return strings.Contains(s, "export default") })
}

// Literals is every string literal (or sum of them) the Go tests in the
// repository at root hold: code as models write it in every form, and
// text that is no code at all. Keys name where each came from.
func Literals(t testing.TB, root string) map[string]string {
	t.Helper()
	return walk(t, root, false, func(string) bool { return true })
}

// walk gathers the .ts files (when ts) and the test literals keep accepts.
func walk(t testing.TB, root string, ts bool, keep func(string) bool) map[string]string {
	t.Helper()
	corpus := map[string]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); n == "node_modules" || n == ".tools" || strings.HasPrefix(n, ".") && n != "." && n != ".." {
				return filepath.SkipDir
			}
			return nil
		}
		switch {
		case ts && strings.HasSuffix(path, ".ts") && !strings.HasSuffix(path, ".d.ts"):
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			corpus[path] = string(b)
			if s := moduleSyntax.ReplaceAllStringFunc(string(b), spaces); s != string(b) {
				corpus[path+WithoutImports] = s
			}
		case strings.HasSuffix(path, "_test.go"):
			f, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				return err
			}
			ast.Inspect(f, func(n ast.Node) bool {
				e, ok := n.(ast.Expr)
				if !ok {
					return true
				}
				s, ok := constString(e)
				if ok && keep(s) {
					corpus[fset.Position(e.Pos()).String()] = s
				}
				return !ok
			})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return corpus
}

var moduleSyntax = regexp.MustCompile(`(?ms)^(import|export \{|export \*)[^;]*;`)

// spaces replaces every character of s but line breaks with a space.
func spaces(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' {
			return r
		}
		return ' '
	}, s)
}

// constString is the value of a string literal or a sum of them.
func constString(e ast.Expr) (string, bool) {
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(e.Value)
		return s, err == nil
	case *ast.ParenExpr:
		return constString(e.X)
	case *ast.BinaryExpr:
		if e.Op != token.ADD {
			return "", false
		}
		x, ok := constString(e.X)
		if !ok {
			return "", false
		}
		y, ok := constString(e.Y)
		return x + y, ok
	}
	return "", false
}
