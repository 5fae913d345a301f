package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/codemode-go/codemode/internal/cloexec"
)

func main() {
	// Descriptors codemode inherited without close-on-exec are not passed on
	// to MCP servers, tool commands and the sandbox.
	cloexec.MarkFrom(3)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// command is one entry of the command table: its name, the arguments its
// usage line shows after the flags, a one-line summary, and what runs it,
// returning the exit status.
type command struct {
	name, args, summary string
	run                 func(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error)
}

// commands returns the command table, in the order help lists it (a
// function, not a variable: the commands' own help reads the table).
func commands() []command {
	return []command{
		{"run", "PROGRAM.ts", "run a program over the tools (with --journal: a recorded execution that may pause for approval)", cmdRun},
		{"check", "PROGRAM.ts", "type-check a program against the tools' declarations", cmdCheck},
		{"types", "", "print the declarations programs are written against", cmdTypes},
		{"search", "QUERY", "tools (and, with --journal, snippets) ranked for QUERY, as codemode.search answers", cmdSearch},
		{"describe", "TARGET", "TypeScript of a namespace, a namespace.tool or a snippet, as codemode.describe answers", cmdDescribe},
		{"mcp", "serve", "serve the code tool over MCP (stdio, or --http)", cmdMCP},
		{"login", "--config FILE NAME | --mcp URL", "sign in to a remote MCP server that asks for OAuth; later runs and mcp serve use the saved token", cmdLogin},
		{"openapi", "serve", "serve one OpenAPI document over MCP: search and execute", cmdOpenAPI},
		{"executions", "", "recent executions of --journal: status, age, pending actions", cmdExecutions},
		{"show", "ID", "one execution: its code, tool log and value", cmdShow},
		{"pending", "[ID]", "actions awaiting approval", cmdPending},
		{"approve", "ID [SEQ...]", "approve the pending actions of ID and continue it (--shown DIGEST: only if they are still the actions shown; SEQs: only if they are exactly the actions it awaits; without --shown, only actions whose arguments pending prints in full); refused, the run left paused, when the tools flags configure the connectors otherwise than the run's", cmdApprove},
		{"reject", "ID SEQ", "reject the pending action SEQ; ends the execution", cmdReject},
		{"resume", "ID", "continue a running execution whose host died (its lease ended) from the journal; refused, the run left as it is, when the tools flags configure the connectors otherwise than the run's", cmdResume},
		{"happened", "ID SEQ", "answer an uncertain action: it happened (record --result) and the execution continues", cmdHappened},
		{"rollback", "ID", "revert the applied actions that have a revert, newest first; refused, nothing reverted, when the tools flags configure the connectors otherwise than the run's", cmdRollback},
		{"expire", "[ID]", "end one execution, or those paused or orphaned for longer than --max-age (never a live pass)", cmdExpire},
		{"delete", "ID", "remove an execution from the journal", cmdDelete},
		{"prune", "", "keep only the --keep newest ended executions", cmdPrune},
		{"snippets", "", "saved snippets of --journal", cmdSnippets},
		{"snippet", "save NAME --from ID | delete NAME", "save a completed execution's code as a snippet, or delete one", cmdSnippet},
		{"journal", "serve", "serve the journal page: executions, approvals, rollbacks", cmdJournal},
		{"runner", "serve", "serve QuickJS or Node.js runtimes to other hosts (drivers/remote)", cmdRunner},
	}
}

// lookup returns the command named name.
func lookup(name string) (command, bool) {
	for _, c := range commands() {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// usage is the command list, for codemode help and a bad command line.
func usage() string {
	var b strings.Builder
	b.WriteString("usage: codemode COMMAND [flags] [arguments]\n\n")
	for _, c := range commands() {
		fmt.Fprintf(&b, "  %-11s %-33s %s\n", c.name, c.args, c.summary)
	}
	b.WriteString(`
The tools come from --tools FILE (its tools on codemode), --mcp CMD|URL (an MCP
server's tools on codemode), --config FILE (mcpServers JSON, a namespace per
server) and --openapi NAME=SPEC (an OpenAPI document, on NAME); a program calls
them the same way plain and with --journal. --journal FILE.db (or
postgres://..., default $CODEMODE_JOURNAL) records every call, pauses at calls
that need a person's approval (exit status 3) and keeps snippets. --runtime R is
quickjs (the embedded sandbox, default), node (a Node.js 24 child process; not
a sandbox) or the address of a runner host (token in $CODEMODE_RUNNER_TOKEN).

codemode COMMAND --help lists a command's flags; codemode version prints the
build. Exit status: 0 done, 1 a program failed or was refused, 2 a bad command
line, 3 paused for approval, 4 something the command needs is not installed
(check's TypeScript 7 compiler; the message says how to install it).
`)
	return b.String()
}

// version is "codemode VERSION (go VERSION, vcs REVISION[+dirty])" from the
// build information (debug.ReadBuildInfo): the module's version for `go
// install …@v1.2.3`, "(devel)" for a build from a checkout, with the
// commit it was built from.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "codemode (no build information)"
	}
	v := "codemode " + info.Main.Version + " (" + info.GoVersion
	rev, dirty := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev != "" {
		v += ", vcs " + rev[:min(12, len(rev))]
		if dirty {
			v += "+dirty"
		}
	}
	return v + ")"
}

// usageError is a bad command line: exit status 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// notInstalled is something the command needs that is not installed (check's
// TypeScript 7 compiler, @types/node for check --runtime node): exit status
// 4, apart from a bad command line, so that a script tells "install it"
// from "fix the arguments". Its message says how to install it.
type notInstalled struct{ err error }

func (e notInstalled) Error() string { return e.err.Error() }

func (e notInstalled) Unwrap() error { return e.err }

// errHelp reports that -h or --help was asked for and the help printed.
var errHelp = errors.New("help")

func cli(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	stderr = &lockedWriter{w: stderr}
	if len(args) == 0 {
		fmt.Fprint(stderr, usage())
		return 2
	}
	switch args[0] {
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage())
		return 0
	case "version", "--version":
		fmt.Fprintln(stdout, version())
		return 0
	}
	c, ok := lookup(args[0])
	if !ok {
		return fail(usageError{fmt.Sprintf("unknown command %q (codemode help lists them)", args[0])}, stderr)
	}
	status, err := c.run(ctx, args[1:], stdout, stderr)
	if err != nil {
		return fail(err, stderr)
	}
	return status
}

// fail prints err and returns the exit status: 0 for help, 2 for a bad
// command line, 4 for something not installed, else 1.
func fail(err error, stderr io.Writer) int {
	if errors.Is(err, errHelp) {
		return 0
	}
	fmt.Fprintf(stderr, "codemode: %s\n", escapeControls(oneLine(err.Error())))
	var u usageError
	var missing notInstalled
	switch {
	case errors.As(err, &u):
		return 2
	case errors.As(err, &missing):
		return exitNotInstalled
	}
	return 1
}

// oneLine renders an error message on one line: no repeated "codemode: "
// prefix, and line breaks (a validation report) joined with "; ".
func oneLine(msg string) string {
	msg = strings.ReplaceAll(strings.TrimPrefix(msg, "codemode: "), ": codemode: ", ": ")
	var parts []string
	for _, l := range strings.Split(msg, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			parts = append(parts, l)
		}
	}
	return strings.ReplaceAll(strings.Join(parts, "; "), ":; ", ": ")
}

// parse parses flags anywhere among the arguments (`run prog.ts --json` is
// the same as `run --json prog.ts`) and returns the positional arguments.
// -h or --help prints the command's flags and returns errHelp.
func parse(fs *flag.FlagSet, args []string, stdout io.Writer) ([]string, error) {
	fs.SetOutput(io.Discard)
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				hint := ""
				if c, ok := lookup(fs.Name()); ok && c.args != "" {
					hint = " " + c.args
				}
				fmt.Fprintf(stdout, "usage: codemode %s [flags]%s\n\nflags:\n", fs.Name(), hint)
				fs.SetOutput(stdout)
				fs.PrintDefaults()
				return nil, errHelp
			}
			return nil, usageError{fmt.Sprintf("%s: %v%s (see codemode %s --help)", fs.Name(), err, durationHint(fs, err), fs.Name())}
		}
		if fs.NArg() == 0 {
			return positional, nil
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// durationHint says what a duration flag takes, for flag's error about a
// value it could not parse (`invalid value "5" for flag -timeout: parse
// error`); "" for an error about any other flag.
func durationHint(fs *flag.FlagSet, err error) string {
	_, rest, ok := strings.Cut(err.Error(), " for flag -")
	if !ok {
		return ""
	}
	name, _, _ := strings.Cut(rest, ":")
	f := fs.Lookup(name)
	if f == nil {
		return ""
	}
	if g, ok := f.Value.(flag.Getter); ok {
		if _, ok := g.Get().(time.Duration); ok {
			return " (a duration: a number and a unit, such as 30s, 500ms or 2m)"
		}
	}
	return ""
}

// subcommand checks that args start with the only subcommand of command
// (serve) and returns the rest; help is printed for -h.
func subcommand(command, sub string, args []string, stdout io.Writer) ([]string, error) {
	if len(args) > 0 && args[0] == sub {
		return args[1:], nil
	}
	if len(args) > 0 && (args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
		fmt.Fprintf(stdout, "usage: codemode %s %s [flags] (codemode %s %s --help lists them)\n", command, sub, command, sub)
		return nil, errHelp
	}
	return nil, usageError{fmt.Sprintf("%s: the only subcommand is %s (codemode %s %s --help)", command, sub, command, sub)}
}

// maxProgramSize is the largest program file run accepts, in bytes.
const maxProgramSize = 8 << 20

// readProgram reads a program file of at most maxProgramSize bytes.
func readProgram(path string) (string, error) {
	if fi, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("program %s: no such file", path)
	} else if err != nil {
		return "", fmt.Errorf("program: %w", err)
	} else if !fi.Mode().IsRegular() || fi.Size() > maxProgramSize {
		return "", fmt.Errorf("%s: not a regular file of at most %d bytes", path, maxProgramSize)
	}
	b, err := os.ReadFile(path)
	return string(b), err
}

// defaultCacheDir is codemode/quickjs under the user's cache folder, or
// empty when there is none.
func defaultCacheDir() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "codemode", "quickjs")
}
