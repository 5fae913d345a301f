// Package typescript finds the TypeScript 7 compiler that package
// typecheck runs, and that tests run directly.
package typescript

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// ErrNotInstalled is returned by Find when no TypeScript 7 compiler is
// found (typecheck.ErrNotInstalled).
var ErrNotInstalled = errors.New("typecheck: no TypeScript 7 compiler found (looked for $CODEMODE_TSC, .tools/node_modules/.bin/tsc here and in parent folders, and tsc on PATH); install one with: npm install --prefix .tools typescript@7.0.2, or point CODEMODE_TSC at one")

// Find looks for $CODEMODE_TSC, then the project-local compiler
// (.tools/node_modules/.bin/tsc in dir or a parent), then tsc on PATH, and
// returns the first that is TypeScript 7 (the native binary behind npm's
// shim when there is one), or an error wrapping ErrNotInstalled when none
// is (saying why $CODEMODE_TSC, when set, was not used). The setting comes
// first because whoever set it chose that compiler: a .tools folder in
// some parent of the folder codemode was started in (an agent host starts
// `codemode mcp serve` in a workspace it opened) must not run instead. A
// relative dir is taken from the working directory, so that "." looks in
// its parents too.
func Find(dir string) (string, error) {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	var candidates []string
	if env := os.Getenv("CODEMODE_TSC"); env != "" {
		candidates = append(candidates, env)
	}
	for d := dir; ; d = filepath.Dir(d) {
		candidates = append(candidates, filepath.Join(d, ".tools", "node_modules", ".bin", "tsc"))
		if filepath.Dir(d) == d {
			break
		}
	}
	if p, err := exec.LookPath("tsc"); err == nil {
		candidates = append(candidates, p)
	}
	env := os.Getenv("CODEMODE_TSC")
	var envProblem string
	for _, c := range candidates {
		out, err := exec.Command(c, "--version").Output()
		if err == nil && strings.HasPrefix(strings.TrimSpace(string(out)), "Version 7.") {
			return nativeBinary(c), nil
		}
		if c == env && envProblem == "" {
			switch {
			case err != nil:
				envProblem = fmt.Sprintf("$CODEMODE_TSC (%s) does not run: %v%s", env, err, stderrLine(err))
			default:
				first, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
				if len(first) > 100 {
					first = first[:100]
				}
				envProblem = fmt.Sprintf("$CODEMODE_TSC (%s) is not TypeScript 7: --version printed %q", env, first)
			}
		}
	}
	if envProblem != "" {
		return "", fmt.Errorf("%w; %s", ErrNotInstalled, envProblem)
	}
	return "", ErrNotInstalled
}

// nativeBinary returns the native compiler behind npm's Node.js shim, when
// it can be found next to it, so the server runs without Node.js.
func nativeBinary(tsc string) string {
	real, err := filepath.EvalSymlinks(tsc)
	if err != nil {
		return tsc
	}
	modules := filepath.Dir(filepath.Dir(filepath.Dir(real))) // node_modules
	matches, _ := filepath.Glob(filepath.Join(modules, "@typescript", "typescript-*", "lib", "tsc"))
	if len(matches) == 1 {
		return matches[0]
	}
	return tsc
}

// stderrLine is the first line the command wrote to its standard error
// when err is its exit, as " (line)", or "": a tsc script whose "node" is
// not on PATH says so there (env: 'node': No such file or directory).
func stderrLine(err error) string {
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		return ""
	}
	first, _, _ := strings.Cut(strings.TrimSpace(string(exit.Stderr)), "\n")
	if first == "" {
		return ""
	}
	if len(first) > 200 {
		first = first[:200]
	}
	return " (" + first + ")"
}
