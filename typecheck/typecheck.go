package typecheck

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/codemode-go/codemode/internal/excerpt"
	"github.com/codemode-go/codemode/internal/typegen"
	"github.com/codemode-go/codemode/internal/typescript"
)

// ErrNotInstalled is returned by New when no TypeScript 7 compiler is found.
// Its message says how to install one.
var ErrNotInstalled = typescript.ErrNotInstalled

// File is one declaration file of the virtual project.
//
// Name is a clean relative path with forward slashes ending in .d.ts. Every
// file given is part of the project: a top-level file ("codemode.d.ts") and
// a file in a subdirectory ("node_modules/@types/node/fs.d.ts") alike. A
// multi-file set such as @types/node is given as its files under
// node_modules/, where imports between them ("undici-types") resolve as
// TypeScript resolves a package, and its `declare module "node:fs"` blocks
// declare what a program may import.
//
// These files and TypeScript's own library are all the checker reads: a
// program's imports, `/// <reference>` directives and `import()` types
// never load a file from the host's disk (see Options.ImportDir).
//
// The project's library is TypeScript's es2025, unless a top-level file
// has the directive `/// <reference no-default-lib="true"/>`: then the
// declarations bring the whole library themselves (as the QuickJS driver
// does, to leave out what QuickJS lacks), and only the library files they
// reference are loaded.
type File struct {
	Name string
	Text string
	// Checker, for a file whose Text typegen.Declarations printed (a
	// contract's TypeDefinitions), is what typegen.ForChecker printed from
	// the same surface (the contract's CheckerDeclarations). The checker
	// then declares the namespaces without Object.prototype members and
	// checks a valid program again against exact tool inputs (see
	// Checker.Check). Nil: the file is used as it is written.
	Checker *typegen.CheckerDeclarations
}

// Diagnostic is one compiler error in submitted-source coordinates.
type Diagnostic struct {
	File    string `json:"file"`    // "agent.ts"
	Line    int    `json:"line"`    // 1-based
	Column  int    `json:"column"`  // 1-based, in UTF-16 code units
	Code    int    `json:"code"`    // the TS error number, e.g. 2322
	Message string `json:"message"` // the compiler's message
}

// Result is the outcome of a check: Valid, or the first 8
// diagnostics and a Report of at most 8,000 characters with an excerpt
// (the line before and after, a caret under the column) for each.
type Result struct {
	Valid       bool         `json:"valid"`
	Diagnostics []Diagnostic `json:"diagnostics,omitempty"`
	Report      string       `json:"report,omitempty"`
}

// Limits of a Result: a report the agent can read in one go, bounded so a
// program with thousands of errors does not flood its context.
const (
	maxDiagnostics = 8
	maxReport      = 8000
)

// Options configures a Checker.
type Options struct {
	// Tsc is the TypeScript 7 compiler executable. Empty: New looks for the
	// project-local compiler (.tools/node_modules/.bin/tsc in the working
	// directory or a parent), then $CODEMODE_TSC, then tsc on PATH, and
	// uses the first that is TypeScript 7.
	Tsc string
	// ImportDir, when set, is an absolute folder whose TypeScript files
	// (*.ts, including *.d.ts) join every project, so that programs may
	// import them by absolute path ("/srv/lib/helpers"). Empty (the
	// default): a program can import only the modules the declaration files
	// declare; an import of any other file or package is the compiler's
	// TS2307 "Cannot find module" naming the specifier as the program wrote
	// it, and the file is never read.
	ImportDir string
}

// Checker checks programs with one long-lived TypeScript server. It is safe
// for concurrent use; checks run one at a time, and one waiting for its turn
// gives up when its context ends. A check whose context ends before the
// server answers stops the server (a program's types can keep the compiler
// busy far longer than any deadline: the next check would otherwise wait
// behind it); the next check starts another.
type Checker struct {
	tsc       string
	root      string
	importDir string

	turn     chan struct{} // one token: held by the check (or Close) running
	srv      *server
	projects map[string]*project
	digests  map[string][sha256.Size]byte // declaration text -> its SHA-256, see digest
	closed   bool
}

type project struct {
	dir     string
	version int
	opened  bool
}

// New starts a checker. It returns ErrNotInstalled (wrapped) when no
// compiler is found.
func New(opts Options) (*Checker, error) {
	tsc := opts.Tsc
	if tsc == "" {
		wd, _ := os.Getwd()
		var err error
		if tsc, err = typescript.Find(wd); err != nil {
			return nil, err
		}
	}
	if opts.ImportDir != "" && !filepath.IsAbs(opts.ImportDir) {
		return nil, fmt.Errorf("typecheck: Options.ImportDir %q is not an absolute path", opts.ImportDir)
	}
	root, err := os.MkdirTemp("", "codemode-typecheck-")
	if err != nil {
		return nil, err
	}
	importDir := opts.ImportDir
	if importDir != "" {
		importDir = filepath.Clean(importDir)
	}
	c := &Checker{tsc: tsc, root: root, importDir: importDir, projects: map[string]*project{}, digests: map[string][sha256.Size]byte{}, turn: make(chan struct{}, 1)}
	if err := c.ensureServer(); err != nil {
		os.RemoveAll(root)
		return nil, err
	}
	return c, nil
}

func (c *Checker) ensureServer() error {
	if c.srv != nil && c.srv.alive() {
		return nil
	}
	c.stopServer()
	s, err := startServer(c.tsc, c.root)
	if err != nil {
		return err
	}
	c.srv = s
	return nil
}

// stopServer stops the server, if there is one; the projects are opened
// again in the next.
func (c *Checker) stopServer() {
	if c.srv == nil {
		return
	}
	c.srv.close()
	c.srv = nil
	for _, p := range c.projects {
		p.opened = false
	}
}

// Close stops the server and removes the virtual projects. It waits for a
// check that is running.
func (c *Checker) Close() error {
	c.turn <- struct{}{}
	defer func() { <-c.turn }()
	c.closed = true
	if c.srv != nil {
		c.srv.close()
		c.srv = nil
	}
	return os.RemoveAll(c.root)
}

// tsconfig is the project configuration; the verbs are the library list,
// the given files below the top level and the include patterns. It is
// strict, except that a catch variable is any rather than unknown:
// `catch (e) { e.message }` runs, so the checker must not reject it.
//
// noResolve keeps the compiler to the files listed: an import, a
// `/// <reference>` or an `import("…")` type of the program still resolves,
// but a file it reaches is not added to the project, so the program sees
// only "Cannot find module" and never the file's contents (a program that
// imported "/home/me/.aws/credentials.json" or a .ts file holding a secret
// read it back in the compiler's report before). Imports between the given
// files bind because every given file is listed.
const tsconfig = `{
  "compilerOptions": {
    "strict": true,
    "useUnknownInCatchVariables": false,
    "exactOptionalPropertyTypes": true,
    "noEmit": true,
    "target": "es2024",
    "lib": %s,
    "types": [],
    "module": "esnext",
    "moduleResolution": "bundler",
    "isolatedModules": true,
    "verbatimModuleSyntax": false,
    "skipLibCheck": true,
    "noResolve": true,
    "resolveJsonModule": false
  },
  "files": %s,
  "include": %s
}
`

// checkSource asserts that the program's default export is an AgentProgram.
const checkSource = `import program from "./agent";
const checked: AgentProgram = program;
void checked;
`

func (c *Checker) project(files []File) (*project, error) {
	h := sha256.New()
	sorted := append([]File(nil), files...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	for _, f := range sorted {
		d := c.digest(f.Text)
		h.Write([]byte(f.Name))
		h.Write([]byte{0})
		h.Write(d[:])
		if f.Checker != nil {
			// The project declares NoPrototype too (noPrototype).
			d := c.digest(f.Checker.NoPrototype)
			h.Write([]byte{1})
			h.Write(d[:])
		}
	}
	key := hex.EncodeToString(h.Sum(nil))[:16]
	if p := c.projects[key]; p != nil {
		return p, nil
	}
	dir := filepath.Join(c.root, key)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	lib := `["es2025"]`
	for _, f := range sorted {
		if !strings.Contains(f.Name, "/") && noDefaultLib.MatchString(f.Text) {
			lib = "[]"
		}
	}
	listed := []string{}
	for _, f := range sorted {
		if strings.Contains(f.Name, "/") {
			listed = append(listed, f.Name)
		}
	}
	include := []string{"*.ts"}
	if c.importDir != "" {
		include = append(include, filepath.ToSlash(filepath.Join(c.importDir, "**", "*.ts")))
	}
	filesJSON, _ := json.Marshal(listed)
	includeJSON, _ := json.Marshal(include)
	write := map[string]string{"tsconfig.json": fmt.Sprintf(tsconfig, lib, filesJSON, includeJSON), "check.ts": checkSource, "agent.ts": "export {};\n"}
	write["codemode-no-prototype.d.ts"] = noPrototype(files)
	for _, f := range sorted {
		if err := checkName(f.Name); err != nil {
			return nil, err
		}
		write[f.Name] = f.Text
	}
	for name, text := range write {
		full := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return nil, fmt.Errorf("typecheck: writing %s: %w", name, err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			return nil, fmt.Errorf("typecheck: writing %s: %w", name, err)
		}
	}
	p := &project{dir: dir}
	c.projects[key] = p
	return p, nil
}

// noDefaultLib matches TypeScript's directive that a file replaces the
// default library, which TypeScript 7 no longer honours by itself.
// libDirective matches a program's triple-slash directives that would
// change the checker's library: `/// <reference lib="dom" />` would declare
// document, which no runtime has, and types= or no-default-lib= likewise
// (https://www.typescriptlang.org/docs/handbook/triple-slash-directives.html).
// Check turns each into an ordinary comment of the same length, so
// positions stay, and the program is checked against the runtime's library
// alone.
var libDirective = regexp.MustCompile(`(?m)^([ \t]*)///([ \t]*<reference[ \t]+(?:lib|types|no-default-lib)[ \t]*=)`)

var noDefaultLib = regexp.MustCompile(`(?m)^/// <reference no-default-lib="true"\s*/>`)

// reserved are the project's own files, which declarations must not replace.
var reserved = map[string]bool{"tsconfig.json": true, "check.ts": true, "agent.ts": true, "codemode-no-prototype.d.ts": true}

// checkName accepts a declaration file name: a clean relative path with
// forward slashes ending in .d.ts ("codemode.d.ts",
// "node_modules/@types/node/fs.d.ts").
func checkName(name string) error {
	if !strings.HasSuffix(name, ".d.ts") || strings.Contains(name, `\`) || path.Clean(name) != name || !filepath.IsLocal(filepath.FromSlash(name)) || reserved[name] {
		return fmt.Errorf("typecheck: declaration file name %q must be a clean relative path (forward slashes) ending in .d.ts", name)
	}
	return nil
}

// maxDigests bounds the memo of declaration digests.
const maxDigests = 4096

// digest returns the SHA-256 of a declaration text, remembered so that a
// large set given again (@types/node is about 3 MB in 80 files) is not
// hashed on every check: looking a string up hashes it with the runtime's
// much faster map hash, and comparing it with the remembered one is
// immediate when both share their bytes, as the driver's cached files do.
func (c *Checker) digest(text string) [sha256.Size]byte {
	if d, ok := c.digests[text]; ok {
		return d
	}
	if len(c.digests) >= maxDigests {
		clear(c.digests)
	}
	d := sha256.Sum256([]byte(text))
	c.digests[text] = d
	return d
}

// noPrototype declares, for the checker only, that the tool namespaces have
// no Object.prototype members (typegen.CheckerDeclarations.NoPrototype of
// each file that carries them): at run time a namespace is a
// null-prototype object, so codemode.toString() cannot run and must not
// type-check.
func noPrototype(files []File) string {
	var b strings.Builder
	for _, f := range files {
		if f.Checker != nil {
			b.WriteString(f.Checker.NoPrototype)
		}
	}
	return b.String()
}

type lspDiagnostic struct {
	Range struct {
		Start struct{ Line, Character int } `json:"start"`
	} `json:"range"`
	Severity int    `json:"severity"`
	Code     any    `json:"code"`
	Message  string `json:"message"`
}

// Check type-checks source (a TypeScript ES module) against the declaration
// files. It has no side effects beyond the checker's own temporary project.
// Cancelling ctx stops the check and returns context.Cause(ctx).
func (c *Checker) Check(ctx context.Context, declarations []File, source string) (*Result, error) {
	select {
	case c.turn <- struct{}{}:
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
	defer func() { <-c.turn }()
	res, err := c.check(ctx, declarations, source)
	if err != nil && ctx.Err() != nil {
		c.stopServer() // it may still be computing the abandoned check
	}
	return res, err
}

// check is Check with the turn held.
func (c *Checker) check(ctx context.Context, declarations []File, source string) (*Result, error) {
	if c.closed {
		return nil, errors.New("typecheck: checker closed")
	}
	if err := c.ensureServer(); err != nil {
		return nil, err
	}
	p, err := c.project(declarations)
	if err != nil {
		return nil, err
	}
	checked := libDirective.ReplaceAllString(source, "$1// $2")
	own, err := c.checkIn(ctx, p, checked)
	if err != nil {
		return nil, err
	}
	contract, err := c.diagnostics(ctx, fileURI(filepath.Join(p.dir, "check.ts")))
	if err != nil {
		return nil, err
	}
	res := result(source, own, contract)
	if !res.Valid {
		return res, nil
	}
	// Second pass, for a valid program only: against declarations whose
	// tool methods are exact (File.Checker), so that an argument that is
	// not a fresh object literal cannot carry properties the tool's input
	// does not declare. Only those diagnostics are taken from it;
	// the first pass keeps TypeScript's own messages for every other error,
	// and for an object literal's unknown property.
	exact, tools := exactDeclarations(declarations)
	if !mentionsAny(source, tools) {
		return res, nil
	}
	if p, err = c.project(exact); err != nil {
		return nil, err
	}
	if own, err = c.checkIn(ctx, p, checked); err != nil {
		return nil, err
	}
	return excessResult(source, own), nil
}

// checkIn checks source as project p's agent.ts and returns its compiler
// errors (check.ts's, the default export against AgentProgram, are read
// after it).
func (c *Checker) checkIn(ctx context.Context, p *project, source string) ([]lspDiagnostic, error) {
	agent := filepath.Join(p.dir, "agent.ts")
	if err := os.WriteFile(agent, []byte(source), 0o644); err != nil {
		return nil, err
	}
	p.version++
	uri := fileURI(agent)
	checkURI := fileURI(filepath.Join(p.dir, "check.ts"))
	if !p.opened {
		if err := c.srv.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "typescript", "version": p.version, "text": source}}); err != nil {
			return nil, err
		}
		if err := c.srv.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": checkURI, "languageId": "typescript", "version": 1, "text": checkSource}}); err != nil {
			return nil, err
		}
		p.opened = true
	} else if err := c.srv.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": p.version}, "contentChanges": []map[string]any{{"text": source}}}); err != nil {
		return nil, err
	}
	return c.diagnostics(ctx, uri)
}

func (c *Checker) diagnostics(ctx context.Context, uri string) ([]lspDiagnostic, error) {
	raw, err := c.srv.call(ctx, "textDocument/diagnostic", map[string]any{"textDocument": map[string]any{"uri": uri}})
	if err != nil {
		return nil, err
	}
	var report struct {
		Items []lspDiagnostic `json:"items"`
	}
	if err := json.Unmarshal(raw, &report); err != nil {
		return nil, fmt.Errorf("typecheck: decoding diagnostics: %w", err)
	}
	var errs []lspDiagnostic
	for _, d := range report.Items {
		if d.Severity == 1 {
			errs = append(errs, d)
		}
	}
	return errs, nil
}

func code(v any) int {
	switch x := v.(type) {
	case float64:
		return int(x)
	case string:
		var n int
		fmt.Sscanf(x, "%d", &n)
		return n
	}
	return 0
}

// result turns compiler diagnostics into a Result. Errors in agent.ts are
// reported where they are; errors in check.ts mean the default export is
// missing or is not an AgentProgram, reported at the export (or line 1).
func result(source string, own, contract []lspDiagnostic) *Result {
	var ds []Diagnostic
	for _, d := range own {
		ds = append(ds, Diagnostic{File: "agent.ts", Line: d.Range.Start.Line + 1, Column: d.Range.Start.Character + 1, Code: code(d.Code), Message: forProgram(code(d.Code), d.Message)})
	}
	line, col := defaultExportPosition(source)
	for _, d := range contract {
		msg := d.Message
		switch code(d.Code) {
		case 1192, 2306, 2305:
			msg = "the program has no default export; it must `export default` a function (scope: AgentProgramScope) => …"
		default:
			msg = "the default export is not assignable to AgentProgram: " + msg
		}
		ds = append(ds, Diagnostic{File: "agent.ts", Line: line, Column: col, Code: code(d.Code), Message: msg})
	}
	if len(ds) == 0 {
		return &Result{Valid: true}
	}
	if len(ds) > maxDiagnostics {
		ds = ds[:maxDiagnostics]
	}
	return &Result{Diagnostics: ds, Report: report(source, ds)}
}

// forProgram rewrites the compiler's message msg of diagnostic code for
// the program's author, who can change the program and nothing else: where
// the compiler suggests installing type definitions or changing the
// compiler's lib (a name the runtime lacks: Buffer, require, process,
// document), it says the runtime does not define the name, and it says
// what a program may import.
func forProgram(code int, msg string) string {
	switch code {
	case 2307:
		return msg + " A program can import only the modules its runtime declares, never a file or package from the host."
	case 1232:
		return msg + " A program's namespaces and globals are in scope without an import; statements and a function expression run inside a function, where no import can stand."
	case 2580, 2581, 2582, 2584, 2591, 2592, 2593:
		// "Cannot find name 'Buffer'. Do you need to install type
		// definitions for node? Try `npm i --save-dev @types/node` …"
		if name, _, ok := strings.Cut(msg, ". Do you need to "); ok {
			return name + ": the program's runtime does not define it; use the names it declares (its namespaces, console, result and the globals of its environment)."
		}
	}
	return msg
}

func defaultExportPosition(source string) (int, int) {
	for i, l := range strings.Split(source, "\n") {
		if c := strings.Index(l, "export default"); c >= 0 {
			return i + 1, c + 1
		}
	}
	return 1, 1
}

func report(source string, ds []Diagnostic) string {
	lines := strings.Split(source, "\n")
	var b strings.Builder
	for _, d := range ds {
		var one strings.Builder
		fmt.Fprintf(&one, "%s:%d:%d - error TS%d: %s\n", d.File, d.Line, d.Column, d.Code, d.Message)
		one.WriteString(excerpt.Lines(lines, d.Line, max(d.Column, 1)))
		one.WriteString("\n")
		if b.Len()+one.Len() > maxReport {
			b.WriteString("… more errors omitted\n")
			break
		}
		b.WriteString(one.String())
	}
	return strings.TrimRight(b.String(), "\n")
}
