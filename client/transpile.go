package client

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/codemode-go/codemode/internal/blank"
	"github.com/codemode-go/codemode/internal/codeform"
	"github.com/codemode-go/codemode/internal/esbuildchild"
	"github.com/codemode-go/codemode/internal/excerpt"
	"github.com/codemode-go/codemode/internal/wire"
	"github.com/evanw/esbuild/pkg/api"
	"github.com/go-sourcemap/sourcemap"
)

// programFilename is the module name programs run under; stack traces and
// reports name it.
const programFilename = "agent.ts"

// erased is a program after TypeScript erasure: JavaScript, and what it
// takes to map positions in it back to the submitted source. The source map
// is made on first use (an error or a stack to map), not with the
// JavaScript: see sourceMap. An erased program is safe for concurrent use.
type erased struct {
	js      string
	jsMap   []byte               // esbuild's source map for js (nil when blanked)
	source  string               // the TypeScript that was erased
	back    *codeform.Normalized // for model-written code: the way back to its coordinates
	blanked bool                 // js is source with its types blanked: its positions are the source's

	mapOnce sync.Once
	smap    *sourcemap.Consumer // nil when no map could be made
	lines   []string            // submitted source lines

	posOnce sync.Once
	pos     *wire.Positions // see stackPositions
}

// transformOptions are esbuild's options for erasure, with or without an
// external source map. The JavaScript esbuild prints is the same with and
// without the map (TestEraseIsDeterministicWithAndWithoutTheMap), which is
// what lets the map be made later.
func transformOptions(m api.SourceMap) api.TransformOptions {
	return api.TransformOptions{
		Loader:     api.LoaderTS,
		Format:     api.FormatDefault,
		Target:     api.ESNext,
		Sourcemap:  m,
		Sourcefile: programFilename,
		Charset:    api.CharsetUTF8,
		// Neither QuickJS nor Node.js 24 runs decorators: esbuild lowers
		// them (a class with decorators otherwise failed with QuickJS's
		// "unexpected token in expression: '@'").
		Supported: map[string]bool{"decorators": false},
	}
}

// erase strips TypeScript syntax, keeping ES module syntax and every modern
// construct as written (target esnext). A program of the common subset has
// its types blanked (blank.Types), which keeps every position and needs no map;
// any other goes to esbuild, in es's child process, which a deadline stops
// (esbuild can take hours on a short hostile text: package esbuildchild),
// and which prints the source map with the JavaScript (it is parsed when an
// error needs it).
// A syntax error is returned as a *ProgramError named SyntaxError with the
// submitted line and column. back, when not nil, is the normalization that
// made source from model-written code; positions are then reported in the
// code's coordinates. When es fails, the error is erasureFailed's.
func erase(source string, back *codeform.Normalized, es *esbuildchild.Session) (*erased, error) {
	if js, ok := blank.Types(source); ok {
		return &erased{js: js, source: source, back: back, blanked: true}, nil
	}
	return eraseWithEsbuild(source, back, es)
}

// eraseWithEsbuild is erase by esbuild, for what blank.Types refuses.
func eraseWithEsbuild(source string, back *codeform.Normalized, es *esbuildchild.Session) (*erased, error) {
	res, err := es.Transform(source, transformOptions(api.SourceMapExternal))
	if err != nil {
		return nil, erasureFailed(err)
	}
	if len(res.Errors) > 0 {
		var b strings.Builder
		for i, m := range res.Errors {
			if i > 0 {
				b.WriteString("\n")
			}
			if m.Location != nil {
				l, c := back.Position(m.Location.Line, m.Location.Column+1)
				fmt.Fprintf(&b, "%s:%d:%d: ", programFilename, l, c)
			}
			b.WriteString(m.Text)
		}
		stack := ""
		if loc := res.Errors[0].Location; loc != nil {
			l, c := back.Position(loc.Line, loc.Column+1)
			stack = fmt.Sprintf("    at %s:%d:%d", programFilename, l, c)
			b.WriteString(insideFunctionHint(source, back, loc))
		}
		lines := strings.Split(source, "\n")
		if back != nil {
			lines = back.Lines
		}
		return nil, &ProgramError{Name: "SyntaxError", Message: b.String(), Stack: stack, excerpt: excerptIn(lines, stack)}
	}
	return &erased{js: string(res.Code), jsMap: res.Map, source: source, back: back}, nil
}

// insideFunctionHint explains esbuild's error at loc when it is the name after
// "namespace" or "module", or what follows "import", in model-written code
// (back is not nil): the statement and function forms run inside a
// function, where TypeScript allows no namespace and JavaScript no import
// declaration; a module can hold either, and a program's namespaces and
// globals need no import. It returns "" otherwise.
func insideFunctionHint(source string, back *codeform.Normalized, loc *api.Location) string {
	if back == nil || loc.Line < 1 {
		return ""
	}
	lines := strings.SplitN(source, "\n", loc.Line+1)
	if loc.Line > len(lines) {
		return ""
	}
	line := lines[loc.Line-1]
	before := strings.TrimRight(line[:min(max(loc.Column, 0), len(line))], " \t")
	switch {
	case strings.HasSuffix(before, "namespace") || strings.HasSuffix(before, "module"):
		return " (a namespace is declared only at a module's top level; statements and functions run inside a function: " +
			"write the program as a module, the namespace beside `export default async function (scope) { … }`)"
	case before == "import" || strings.HasSuffix(before, " import") || strings.HasSuffix(before, ";import"):
		return " (an import declaration stands only at a module's top level, and statements and functions run inside a function; " +
			"the program's namespaces (codemode, …), console, result and the globals of its runtime are in scope without an import: remove it)"
	}
	return ""
}

// erasureFailed is the error of an erasure whose esbuild process failed:
// the *ProgramError of the erasure's deadline when that ended it (the
// session's context has it as its cause: see Client.run), a RangeError
// *ProgramError when the process crashed on the program (out of stack or
// memory), and err itself otherwise (the caller's context ended, or the
// executable could not be started again).
func erasureFailed(err error) error {
	if errors.Is(err, esbuildchild.ErrEnded) {
		return &ProgramError{Name: "RangeError", Message: "the program's TypeScript could not be erased: esbuild's process ended on it (" + err.Error() + ")"}
	}
	return fmt.Errorf("codemode: erasing the program's TypeScript: %w", err)
}

// earlyError returns, for a blanked program the engine ended with a
// SyntaxError, esbuild's error for the source, or nil when esbuild finds
// none (the error was the program's own: JSON.parse, a RegExp) or the
// program was not blanked. blank reads syntax, not the early errors the
// engine finds when it compiles (a redeclared let, await outside an async
// function); esbuild finds most of those, and the program fails with
// esbuild's message and position, as it did before blanking. A source
// esbuild refuses ran nothing: the engine could not compile it either.
// For model-written code, the error is that of the module made with
// esbuild reading the code's syntax (codeform.Normalized.ReadByEsbuild),
// as before blank read it.
// esbuild runs in es; when es fails (the run's erasure deadline passed),
// the engine's own error stands.
func (e *erased) earlyError(out *Outcome, es *esbuildchild.Session) error {
	if !e.blanked || out.Kind != ProgramFailed || out.Error == nil || out.Error.Name != "SyntaxError" {
		return nil
	}
	_, err := eraseWithEsbuild(e.source, e.back, es)
	if err != nil && e.back != nil && es.Err() == nil {
		old := e.back.ReadByEsbuild(es)
		_, err = eraseWithEsbuild(old.Module, old, es)
	}
	if es.Err() != nil {
		return nil
	}
	return err
}

// prepare parses the source map and splits the submitted lines, once (a
// blanked program has no map). Without a map, positions stay as the
// engine reported them.
func (e *erased) prepare() {
	e.mapOnce.Do(func() {
		if e.back != nil {
			e.lines = e.back.Lines
		} else {
			e.lines = strings.Split(e.source, "\n")
		}
		if e.blanked || len(e.jsMap) == 0 {
			return
		}
		if sm, err := sourcemap.Parse(programFilename, e.jsMap); err == nil {
			e.smap = sm
		}
	})
}

// sourceMap returns the map from the erased JavaScript to the erased
// TypeScript, or nil.
func (e *erased) sourceMap() *sourcemap.Consumer {
	e.prepare()
	return e.smap
}

// original returns the submitted source's lines (for model-written code,
// the code's).
func (e *erased) original() []string {
	e.prepare()
	return e.lines
}

var position = regexp.MustCompile(regexp.QuoteMeta(programFilename) + `:(\d+)(?::(\d+))?`)

// mapPosition maps a 1-based line and column of the erased JavaScript to the
// submitted source.
func (e *erased) mapPosition(line, col int) (int, int, bool) {
	l, c, ok := e.smapSource(line, col)
	if !ok {
		return 0, 0, false
	}
	l, c = e.back.Position(l, c)
	return l, c, true
}

// smapSource maps a 1-based line and column of the erased JavaScript to the
// TypeScript that was erased (for model-written code, the wrapped module).
func (e *erased) smapSource(line, col int) (int, int, bool) {
	if e.blanked {
		return line, col, true
	}
	sm := e.sourceMap()
	if sm == nil {
		return 0, 0, false
	}
	_, _, l, sc, ok := sm.Source(line, max(col-1, 0))
	if !ok {
		// Fall back to the first mapped column on the line.
		_, _, l, sc, ok = sm.Source(line, 0)
		if !ok {
			return 0, 0, false
		}
	}
	return l, sc + 1, true
}

// maxMappedPositions bounds the positions mapText maps in one text. The
// program makes its error's text, and the host maps it after the run,
// outside any deadline: a text of made-up frames could otherwise make it
// map millions. Real stacks are short (Error.stackTraceLimit, 10 by
// default in V8).
const maxMappedPositions = 100

// mapText rewrites each "agent.ts:L:C" in text to submitted coordinates.
// For model-written code, stack lines that point into the wrapper RunCode
// added are dropped, and the wrapper's name for a default export is shown
// as "default". Only the first maxMappedPositions (100) positions are
// mapped: stack lines after the first 100 are kept whether or not they
// point into the wrapper, and the positions after the first 100 are left
// as they are.
func (e *erased) mapText(text string) string {
	if e.blanked && e.back == nil {
		return text // the positions are the source's
	}
	if e.back != nil {
		lines := strings.Split(text, "\n")
		kept := lines[:0]
		var firstDropped string
		frames, checked := 0, 0
		for _, l := range lines {
			if checked >= maxMappedPositions {
				kept = append(kept, l)
				continue
			}
			if m := position.FindStringSubmatch(l); m != nil && strings.HasPrefix(strings.TrimSpace(l), "at ") {
				checked++
				line, _ := strconv.Atoi(m[1])
				col := 1
				if m[2] != "" {
					col, _ = strconv.Atoi(m[2])
				}
				if ml, mc, ok := e.smapSource(line, col); ok && !e.back.InCode(ml, mc) {
					// A frame of the code's function after the code (the end
					// of its last statement) may stand in when no frame is in
					// the code; the wrapper's own frames (default) and its
					// start say nothing about the code.
					if firstDropped == "" && ml > 1 && !strings.Contains(l, "at default (") {
						firstDropped = l
					}
					continue
				}
				frames++
			}
			kept = append(kept, l)
		}
		if frames == 0 && firstDropped != "" {
			// Every frame is in the wrapper (QuickJS placed the error at the
			// end of the code's last statement): keep the first, which maps
			// to the nearest code position.
			kept = append(kept, firstDropped)
		}
		text = strings.ReplaceAll(strings.Join(kept, "\n"), codeform.DefaultName, "default")
	}
	mapped := 0
	return position.ReplaceAllStringFunc(text, func(s string) string {
		if mapped >= maxMappedPositions {
			return s
		}
		mapped++
		m := position.FindStringSubmatch(s)
		line, _ := strconv.Atoi(m[1])
		col := 1
		if m[2] != "" {
			col, _ = strconv.Atoi(m[2])
		}
		l, c, ok := e.mapPosition(line, col)
		if !ok {
			return s
		}
		return fmt.Sprintf("%s:%d:%d", programFilename, l, c)
	})
}

// excerptAt renders the excerpt around the first "agent.ts:L:C" in text,
// which is already in submitted coordinates.
func (e *erased) excerptAt(text string) string {
	return excerptIn(e.original(), text)
}

// excerptIn renders the excerpt of lines (the submitted source's) around
// the first "agent.ts:L:C" in text, or "" when text names no position in
// them. In a stack, the first frame in the program decides: one that names
// the file without a position (a driver could not tell where the program
// failed) gives no excerpt, rather than the line of a frame below it.
func excerptIn(lines []string, text string) string {
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "at ") && strings.Contains(l, programFilename) {
			text = l
			break
		}
	}
	m := position.FindStringSubmatch(text)
	if m == nil || m[2] == "" {
		return ""
	}
	line, err1 := strconv.Atoi(m[1])
	col, err2 := strconv.Atoi(m[2])
	if err1 != nil || err2 != nil || line < 1 || line > len(lines) {
		return ""
	}
	at := fmt.Sprintf("  at %s:%d:%d\n", programFilename, line, col)
	return strings.TrimRight(at+excerpt.Lines(lines, line, col), "\n")
}
