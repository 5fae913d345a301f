package blank

import (
	"sort"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/internal/blank/blanktest"
	"github.com/evanw/esbuild/pkg/api"
)

// blankCorpus is every TypeScript program in the repository
// (blanktest.Programs).
func blankCorpus(t testing.TB) map[string]string {
	t.Helper()
	return blanktest.Programs(t, "../..")
}

// esbuildOptions are the client's options for erasure by esbuild, without
// a source map.
var esbuildOptions = api.TransformOptions{Loader: api.LoaderTS, Target: api.ESNext, Charset: api.CharsetUTF8}

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
	fromTS := api.Transform(source, esbuildOptions)
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
		r := api.Transform(src, esbuildOptions)
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
		if js, ok := Types(source); ok {
			blankAgrees(t, source, js)
		}
	})
}
