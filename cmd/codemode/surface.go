package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/codemode-go/codemode/drivers/node"
	"github.com/codemode-go/codemode/typecheck"
)

// registerSurfaceJournal registers types' and check's --journal: when set
// (it defaults to $CODEMODE_JOURNAL) they show and check the declarations
// of runs with a journal (codemode.run beside the tools); the journal
// itself is not opened.
func registerSurfaceJournal(fs *flag.FlagSet) *journalFlags {
	jf := &journalFlags{}
	fs.StringVar(&jf.path, "journal", os.Getenv(journalEnv), "use the declarations of runs with this journal (codemode.run); the journal is not opened (default $"+journalEnv+")")
	return jf
}

// openSurface opens what types and check need: the contract and, for a
// journal's declarations, a durable handle over a journal of its own in a
// temporary folder (the real one is not opened); rf, when set, boots the
// runtime whose declarations a check uses.
func openSurface(ctx context.Context, command string, cf *contractFlags, jf *journalFlags, rf *runtimeFlags, stderr io.Writer) (*session, error) {
	o := sessionOptions{command: command, cf: cf, rf: rf, timeout: 30 * time.Second}
	if jf.path == "" {
		return openSession(ctx, o, stderr)
	}
	dir, err := os.MkdirTemp("", "codemode-surface-")
	if err != nil {
		return nil, err
	}
	o.jf = &journalFlags{path: filepath.Join(dir, "journal.db"), name: "default"}
	s, err := openSession(ctx, o, stderr)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	s.closes = append([]func(){func() { os.RemoveAll(dir) }}, s.closes...)
	return s, nil
}

// newChecker starts the TypeScript checker. Without a TypeScript 7
// compiler the command cannot do its work: a notInstalled (exit 4) saying
// how to install one.
func newChecker() (*typecheck.Checker, error) {
	checker, err := typecheck.New(typecheck.Options{})
	if errors.Is(err, typecheck.ErrNotInstalled) {
		return nil, notInstalled{err}
	}
	if err != nil {
		return nil, fmt.Errorf("starting the type checker: %w", err)
	}
	return checker, nil
}

// checkerError rewords a missing @types/node (--runtime node) as what to
// install (exit 4).
func checkerError(err error) error {
	if errors.Is(err, node.ErrTypesNotInstalled) {
		return notInstalled{fmt.Errorf("check --runtime node needs @types/node: npm install --prefix .tools @types/node@%s (here or in a parent folder)", node.TypesVersion)}
	}
	return err
}

// report prints a check's result ("valid", or the report with the
// program's file name; with asJSON the result as one JSON line, each
// diagnostic's file the program's path) and returns the exit status: 1 for
// an invalid program.
func report(res *typecheck.Result, path string, asJSON bool, stdout io.Writer) (int, error) {
	status := 0
	if !res.Valid {
		status = exitError
	}
	named := func(text string) string { return strings.ReplaceAll(text, "agent.ts:", filepath.Base(path)+":") }
	if asJSON {
		r := *res
		r.Report = named(r.Report)
		r.Diagnostics = append([]typecheck.Diagnostic(nil), res.Diagnostics...)
		for i := range r.Diagnostics {
			r.Diagnostics[i].File = path
		}
		return status, printJSON(stdout, r)
	}
	if res.Valid {
		fmt.Fprintln(stdout, "valid")
		return 0, nil
	}
	fmt.Fprintln(stdout, named(res.Report))
	return status, nil
}
