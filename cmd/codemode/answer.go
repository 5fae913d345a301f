package main

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/contract"

	"github.com/codemode-go/codemode/internal/termtext"
)

// Exit statuses of run and approve: 0 completed, 1 error (and any failure
// of the command), 3 paused awaiting approval; of any command, 4 when
// something it needs is not installed (notInstalled). A bad command line is
// 2 (usageError).
const (
	exitCompleted    = 0
	exitError        = 1
	exitPaused       = 3
	exitNotInstalled = 4
)

// exitStatus is an answer's exit status.
func exitStatus(a codetool.Answer) int {
	switch a.Status {
	case codetool.StatusCompleted:
		return exitCompleted
	case codetool.StatusPaused:
		return exitPaused
	}
	return exitError
}

// answerPrinter prints answers: as one JSON line with --json, else for a
// person (the approve and reject commands of a pause). Both name the
// program's file in an error's positions.
type answerPrinter struct {
	asJSON bool
	path   string        // the program's file, or "" (approve)
	jf     *journalFlags // for a pause's hints; nil for plain runs
	cf     *contractFlags
	// logsShown: the console output was printed as the program wrote it
	// (liveOutput), not to be printed again from the answer.
	logsShown bool
}

// print prints a and returns its exit status.
func (p answerPrinter) print(a codetool.Answer, stdout, stderr io.Writer) (int, error) {
	if p.asJSON {
		a.Error = p.named(a.Error)
		b, err := a.MarshalJSON()
		if err != nil {
			return 0, err
		}
		_, err = fmt.Fprintf(stdout, "%s\n", b)
		return exitStatus(a), err
	}
	if !p.logsShown {
		p.printLogs(a.Logs, stderr)
	}
	switch a.Status {
	case codetool.StatusCompleted:
		printContent(stdout, a.Content)
		if text, ok := valueText(a.Value); ok {
			fmt.Fprintln(stdout, text)
		}
	case codetool.StatusPaused:
		p.printPause(a, stdout)
	default:
		what := "program failed"
		if p.jf != nil {
			what = "execution " + a.ExecutionID + " failed"
		}
		fmt.Fprintf(stderr, "%s: %s\n", what, escapeControls(p.named(a.Error)))
	}
	return exitStatus(a), nil
}

// printLogs prints the console lines of an answer on stderr, control
// characters escaped. A durable run's lines each start with "console: ",
// continuation lines too, so that a program cannot print a line that
// passes for the pause's own (a fake action and its approve command).
func (p answerPrinter) printLogs(logs []string, stderr io.Writer) {
	for _, l := range logs {
		l = escapeControls(l)
		if p.jf != nil {
			l = "console: " + strings.ReplaceAll(l, "\n", "\nconsole: ")
		}
		fmt.Fprintln(stderr, l)
	}
}

// printPause lists a pause's pending actions and the commands that decide
// them, with the journal and tools flags the run was given.
func (p answerPrinter) printPause(a codetool.Answer, stdout io.Writer) {
	fmt.Fprintf(stdout, "paused: execution %s waits for %s\n", a.ExecutionID, awaitsWhat(a.Pending))
	tools := unknownTools
	if p.cf != nil {
		tools = p.cf.given()
	}
	awaiting{journal: journalHint(p.jf), tools: tools}.print(stdout, a.ExecutionID, a.Pending)
}

// named shows positions in the program's file name instead of the name
// programs run under ("agent.ts:3:5" becomes "report.ts:3:5"), with or
// without --json, as check names it: the user gave that file.
func (p answerPrinter) named(text string) string {
	if p.path == "" {
		return text
	}
	return strings.ReplaceAll(text, "agent.ts:", filepath.Base(p.path)+":")
}

// valueText renders a value for a person: a JSON string as its text, any
// other JSON as it is; ok is false for none (null).
func valueText(v json.RawMessage) (string, bool) {
	if len(v) == 0 || string(v) == "null" {
		return "", false
	}
	var s string
	if json.Unmarshal(v, &s) == nil {
		return escapeControls(s), true
	}
	return escapeControls(string(v)), true
}

// printContent prints a program's result content for a person: text as
// it is (control characters escaped), an image as a line naming it.
func printContent(stdout io.Writer, content []contract.Content) {
	for _, c := range content {
		switch c.Type {
		case "text":
			fmt.Fprintln(stdout, escapeControls(c.Text))
		case "image":
			fmt.Fprintf(stdout, "[image %s, %d base64 characters]\n", escapeControls(c.MimeType), len(c.Data))
		}
	}
}

// escapeControls escapes the control characters a program wrote (terminal
// escapes, carriage returns) so it cannot repaint the terminal of the
// person reading (termtext.Escape).
func escapeControls(s string) string { return termtext.Escape(s) }

// shellQuote quotes a word for a shell command line when it needs it: a
// word of letters, digits and @%+=:,./_- only (not empty, and not
// beginning with =, which zsh expands to a command's path) is left as
// it is; any other is put in single quotes, so that no shell reads more
// than the one word in it (a newline runs the next line as a command,
// braces expand into several words, brackets glob, and zsh refuses an
// unmatched glob such as http://[::1]).
func shellQuote(value string) string {
	if value != "" && value[0] != '=' && strings.Trim(value, shellSafe) == "" {
		return value
	}
	return "'" + strings.ReplaceAll(value, "'", `'\''`) + "'"
}

// shellSafe are the characters no shell gives a meaning to inside a word.
const shellSafe = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%+=:,./_-"

// action renders a call as connector.method(args), args cut to max
// characters, control characters escaped.
func action(connector, method string, args json.RawMessage, max int) string {
	return escapeControls(connector + "." + method + "(" + cut(string(args), max) + ")")
}

// cut shortens s to at most max runes, marking the cut with "…", and puts
// it on one line.
func cut(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) <= max {
		return s
	}
	return string(r[:max-1]) + "…"
}

// printJSON writes v as one line of JSON, "<", ">" and "&" as they are
// (json.Marshal would write \u003c, \u003e and \u0026).
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
