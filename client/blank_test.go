package client

import (
	"go/ast"
	"go/parser"
	gotoken "go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/evanw/esbuild/pkg/api"
)

// blankCorpus is every TypeScript program in the repository: the .ts
// files (example and case programs, the runner's and the durable SDK's
// sources) and the programs Go tests hold as string literals (those that
// export a default). Keys name where each came from.
func blankCorpus(t testing.TB) map[string]string {
	t.Helper()
	corpus := map[string]string{}
	fset := gotoken.NewFileSet()
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); n == "node_modules" || n == ".tools" || strings.HasPrefix(n, ".") && n != ".." {
				return filepath.SkipDir
			}
			return nil
		}
		switch {
		case strings.HasSuffix(path, ".ts") && !strings.HasSuffix(path, ".d.ts"):
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			corpus[path] = string(b)
			if s := moduleSyntax.ReplaceAllStringFunc(string(b), spaces); s != string(b) {
				corpus[path+withoutImports] = s
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
				if ok && strings.Contains(s, "export default") {
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
	for i, s := range erasePrograms {
		corpus["erasePrograms/"+strconv.Itoa(i)] = s
	}
	return corpus
}

// withoutImports marks a corpus text whose imports and export lists were
// replaced by spaces: the runner's and the SDK's sources, which blank
// refuses for their imports, then test it on a few thousand lines of real
// TypeScript. Such a text is no program to run.
const withoutImports = " (imports blanked)"

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
		if e.Kind != gotoken.STRING {
			return "", false
		}
		s, err := strconv.Unquote(e.Value)
		return s, err == nil
	case *ast.ParenExpr:
		return constString(e.X)
	case *ast.BinaryExpr:
		if e.Op != gotoken.ADD {
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

// blankAgrees checks what blank made of source against esbuild: the same
// length with line breaks at the same offsets; and JavaScript esbuild reads
// as the program it reads from source (it prints the same code, or the
// same minified code when its layout differs), or, for a
// source it refuses (an early error such as a redeclared let, which the
// pass does not look for), JavaScript it refuses too.
func blankAgrees(t testing.TB, source, js string) {
	t.Helper()
	if len(js) != len(source) {
		t.Fatalf("length %d, want %d", len(js), len(source))
	}
	for i := range len(source) {
		if (source[i] == '\n' || source[i] == '\r') != (js[i] == '\n' || js[i] == '\r') {
			t.Fatalf("a line break moved at offset %d", i)
		}
	}
	fromJS := api.Transform(js, api.TransformOptions{Loader: api.LoaderJS, Target: api.ESNext, Charset: api.CharsetUTF8})
	fromTS := api.Transform(source, transformOptions(api.SourceMapNone))
	switch {
	case len(fromTS.Errors) > 0 && len(fromJS.Errors) > 0:
	case len(fromTS.Errors) > 0:
		t.Fatalf("esbuild refuses the source (%s) and reads the blanked program:\n%s\n--- blanked:\n%s", fromTS.Errors[0].Text, source, js)
	case len(fromJS.Errors) > 0:
		t.Fatalf("the blanked program is no JavaScript: %v\n%s\n--- blanked:\n%s", fromJS.Errors[0].Text, source, js)
	case dropEmpty(string(fromJS.Code)) != dropEmpty(string(fromTS.Code)) && minified(js, api.LoaderJS) != minified(source, api.LoaderTS):
		t.Fatalf("esbuild reads the blanked program otherwise:\n%s\n--- blanked:\n%s\n--- esbuild from the blanked:\n%s\n--- esbuild from the source:\n%s", source, js, fromJS.Code, fromTS.Code)
	}
}

func TestBlankAgreesWithEsbuild(t *testing.T) {
	corpus := blankCorpus(t)
	names := make([]string, 0, len(corpus))
	for k := range corpus {
		names = append(names, k)
	}
	sort.Strings(names)
	accepted, valid, fast := 0, 0, 0
	for _, name := range names {
		src := corpus[name]
		r := api.Transform(src, transformOptions(api.SourceMapNone))
		if len(r.Errors) == 0 {
			valid++ // a whole program, not a fragment or a syntax error
		}
		b := &blanker{src: src, budget: blankBudget(src)}
		js, ok := b.run()
		if !ok {
			at := src[b.tok.start:min(len(src), b.tok.start+30)]
			t.Logf("refused: %s at %d %q", name, b.tok.start, at)
			continue
		}
		accepted++
		if len(r.Errors) == 0 {
			fast++
		}
		t.Run(name, func(t *testing.T) { blankAgrees(t, src, js) })
	}
	t.Logf("%d texts: %d blanked; of the %d programs esbuild erases, %d blanked", len(corpus), accepted, valid, fast)
}

// minified is the program esbuild prints from source minified: a form in
// which its printer's layout choices (an array on one line or several,
// which it makes from more than the syntax) and empty statements do not
// show.
func minified(source string, loader api.Loader) string {
	r := api.Transform(source, api.TransformOptions{Loader: loader, Target: api.ESNext, Charset: api.CharsetUTF8,
		MinifyWhitespace: true, MinifySyntax: true})
	return string(r.Code)
}

// dropEmpty drops the lines esbuild prints for empty statements: the ';'
// that stands for a blanked statement.
func dropEmpty(js string) string {
	lines := strings.Split(js, "\n")
	kept := lines[:0]
	for _, l := range lines {
		if strings.TrimSpace(l) != ";" {
			kept = append(kept, l)
		}
	}
	return strings.Join(kept, "\n")
}

// FuzzBlank: whatever the pass accepts, esbuild reads the blanked text as
// JavaScript of the same length with line breaks at the same offsets, and
// as the program it reads from the TypeScript (blankAgrees).
func FuzzBlank(f *testing.F) {
	for _, tc := range blankCases {
		f.Add(tc.source)
	}
	for _, s := range blankCorpus(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, source string) {
		if js, ok := blank(source); ok {
			blankAgrees(t, source, js)
		}
	})
}
