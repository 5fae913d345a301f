package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/durable"
	"github.com/codemode-go/codemode/durable/store"
	"github.com/codemode-go/codemode/internal/callend"
	"github.com/codemode-go/codemode/internal/termtext"
)

// journalCommand is the set-up of a command over recorded executions: its
// flags, parsed, and, once open is called, the session over the journal.
type journalCommand struct {
	name string
	fs   *flag.FlagSet
	jf   journalFlags
	cf   *contractFlags // approve and rollback: the tools the runs used
	rf   *runtimeFlags  // approve: where the replay runs
	// timeout is approve's replay deadline.
	timeout time.Duration
	args    []string
}

// newJournalCommand registers the journal flags of command on a new flag
// set; the caller registers its own before parsing.
func newJournalCommand(name string) *journalCommand {
	j := &journalCommand{name: name, fs: flag.NewFlagSet(name, flag.ContinueOnError), timeout: 30 * time.Second}
	j.jf.register(j.fs)
	return j
}

// withTools registers the tools flags (approve, rollback).
func (j *journalCommand) withTools() *journalCommand {
	j.cf = &contractFlags{}
	j.cf.register(j.fs)
	return j
}

// withRuntime registers the runtime flags and the replay's deadline
// (approve).
func (j *journalCommand) withRuntime() *journalCommand {
	j.rf = &runtimeFlags{oneShot: true}
	j.rf.register(j.fs)
	j.fs.DurationVar(&j.timeout, "timeout", j.timeout, "the replay's deadline")
	j.fs.DurationVar(&j.jf.lease, "lease", 15*time.Second, "how long the replay holds the execution without renewing (renewed every third of it)")
	return j
}

// parse parses args and checks that the positional arguments number
// between least and most.
func (j *journalCommand) parse(args []string, least, most int, stdout, stderr io.Writer) error {
	positional, err := parse(j.fs, args, stdout)
	if err != nil {
		return err
	}
	j.jf.parsed(j.fs, stderr)
	if len(positional) < least || len(positional) > most {
		return usageError{fmt.Sprintf("%s: wrong arguments %q (see codemode %s --help)", j.name, positional, j.name)}
	}
	if j.rf != nil {
		if err := j.rf.check(j.name); err != nil {
			return err
		}
	}
	if j.timeout <= 0 {
		return usageError{j.name + ": --timeout must be positive"}
	}
	j.args = positional
	return nil
}

// open opens the journal (which must exist) and the handle; with tools
// flags but no tools, it says which tools the execution id ran with.
func (j *journalCommand) open(ctx context.Context, id string, stderr io.Writer) (*session, error) {
	if j.jf.path == "" {
		return nil, usageError{j.name + ": --journal FILE.db is required (or set $" + journalEnv + ")"}
	}
	j.jf.mustExist = true
	if j.cf != nil && !j.cf.any() {
		return nil, j.missingTools(ctx, id, stderr)
	}
	return openSession(ctx, sessionOptions{command: j.name, cf: j.cf, jf: &j.jf, rf: j.rf, timeout: j.timeout}, stderr)
}

// missingTools is the error of approve, rollback, resume or happened
// without the tools: a refusal when a Go program's own tools ran the
// execution (no tools given here would be its), else a usage error naming
// the namespaces the execution ran with.
func (j *journalCommand) missingTools(ctx context.Context, id string, stderr io.Writer) error {
	what := map[string]string{"approve": "the replay calls them", "resume": "the replay calls them",
		"happened": "the execution continues with them", "rollback": "their reverts undo the actions"}[j.name]
	hint := fmt.Sprintf("%s: give the tools %s ran with: --tools FILE, --mcp CMD|URL, --config FILE or --openapi NAME=SPEC (%s)", j.name, id, what)
	s, err := openSession(ctx, sessionOptions{command: j.name, jf: &j.jf}, stderr)
	if err != nil {
		return err
	}
	defer s.close()
	e, err := s.handle.Execution(ctx, id)
	if err != nil {
		return usageError{hint}
	}
	if durable.StartedByGoProgram(e.Configuration) {
		return fmt.Errorf("%s: execution %s was started by a Go program with tools of its own (durable.New without Options.Configuration): "+
			"%s from that program (its Handle's Approve, ApproveShown, Resolve, Resume or Rollback); the command line refuses, as tools given here would be others under the same names",
			j.name, id, map[string]string{"approve": "approve it", "resume": "resume it", "happened": "answer it", "rollback": "roll it back"}[j.name])
	}
	if len(e.Connectors) > 0 {
		hint += "; it recorded the namespace(s) " + strings.Join(e.Connectors, ", ")
	}
	if flags, note := recordedFlags(e.Configuration); flags != "" {
		hint += ", and ran with" + flags + " " + note
	}
	return usageError{hint}
}

// stepEndAction is the ACTION of a codemode.step's end in show's tool
// log, from the step's or its end's arguments ({"name", "begin"?}).
func stepEndAction(args json.RawMessage) string {
	var a struct {
		Name  string `json:"name"`
		Begin uint64 `json:"begin"`
	}
	_ = json.Unmarshal(args, &a) // a journal's own entry; a name missing shows as ""
	name, _ := json.Marshal(a.Name)
	if a.Begin == 0 {
		return escapeControls("end of codemode.step(" + string(name) + ")")
	}
	return escapeControls(fmt.Sprintf("end of codemode.step(%s) begun at #%d", name, a.Begin))
}

// unrecordedStepEnd reports the number a settled codemode.step (l) took
// for its end when the journal has no entry for it: the next one, when no
// entry has it (durable records a step's end only when its function made
// calls or read the clock or random numbers; one that made no calls ended
// at once).
func unrecordedStepEnd(l store.Entry, taken map[uint64]bool) (uint64, bool) {
	if l.Connector != "codemode" || l.Method != "step" || l.State == store.EntryExecuting || taken[l.Seq+1] {
		return 0, false
	}
	return l.Seq + 1, true
}

// notFound rewords a missing execution for a person, naming the runtime
// name it is under when the journal has it under another (st lists them).
func notFound(ctx context.Context, st store.Store, err error, id, name string) error {
	if !errors.Is(err, store.ErrNotFound) {
		return err
	}
	for _, other := range otherRuntimes(ctx, st, name) {
		if _, err := st.Execution(ctx, other, id); err == nil {
			return fmt.Errorf("no execution %s under the runtime name %q; it is under %q (give --name %s)", id, name, other, shellQuote(other))
		}
	}
	return fmt.Errorf("no execution %s in runtime %q (codemode executions lists them)", id, name)
}

// cmdExecutions is `codemode executions`: the newest executions.
func cmdExecutions(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	j := newJournalCommand("executions")
	limit := j.fs.Int("limit", 20, "show the N newest executions (0: all)")
	if err := j.parse(args, 0, 0, stdout, stderr); err != nil {
		return 0, err
	}
	if *limit < 0 {
		return 0, usageError{"executions: --limit must be at least 0"}
	}
	s, err := j.open(ctx, "", stderr)
	if err != nil {
		return 0, err
	}
	defer s.close()
	list, err := s.handle.Executions(ctx, *limit)
	if err != nil {
		return 0, err
	}
	if j.jf.asJSON {
		if list == nil {
			list = []*store.Execution{}
		}
		return 0, printJSON(stdout, list)
	}
	if len(list) == 0 {
		if others := otherRuntimes(ctx, s.store, j.jf.name); len(others) > 0 {
			fmt.Fprintf(stdout, "no executions under the runtime name %q; the journal has runs under: %s (give %s)\n", j.jf.name, escapeControls(strings.Join(others, ", ")), escapeControls(giveName(others)))
			return 0, nil
		}
		if j.jf.name != "default" {
			fmt.Fprintf(stdout, "no executions under the runtime name %q (--name) in %s\n", j.jf.name, redactDSN(j.jf.path))
			return 0, nil
		}
	}
	printExecutions(stdout, list, time.Now(), journalHint(&j.jf))
	return 0, nil
}

// giveName is the --name flag that reaches others, the runtime names
// otherRuntimes found: the one name, or NAME for one of several.
func giveName(others []string) string {
	if len(others) == 1 {
		return "--name " + shellQuote(others[0])
	}
	return "--name NAME"
}

// otherRuntimes is the runtime names other than name that have executions
// in st, when st can list them (store.RuntimeLister): where a person
// looking under the wrong --name finds their runs. A failure to list them
// leaves them unsaid.
func otherRuntimes(ctx context.Context, st store.Store, name string) []string {
	l, ok := st.(store.RuntimeLister)
	if !ok {
		return nil
	}
	names, err := l.Runtimes(ctx)
	if err != nil {
		return nil
	}
	return slices.DeleteFunc(names, func(n string) bool { return n == name })
}

// cmdShow is `codemode show ID`: one execution.
func cmdShow(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	j := newJournalCommand("show")
	full := j.fs.Bool("full", false, "show every argument of the pending actions in full")
	if err := j.parse(args, 1, 1, stdout, stderr); err != nil {
		return 0, err
	}
	s, err := j.open(ctx, j.args[0], stderr)
	if err != nil {
		return 0, err
	}
	defer s.close()
	e, err := s.handle.Execution(ctx, j.args[0])
	if err != nil {
		return 0, notFound(ctx, s.store, err, j.args[0], j.jf.name)
	}
	if j.jf.asJSON {
		return 0, printJSON(stdout, e)
	}
	printExecution(stdout, e, time.Now(), journalHint(&j.jf))
	if e.Status == store.StatusPaused {
		var p []codetool.Pending
		for _, l := range e.Log {
			if l.State == store.EntryPending {
				p = append(p, codetool.Pending{Seq: l.Seq, Connector: l.Connector, Method: l.Method, Args: l.Args, Uncertain: l.Uncertain})
			}
		}
		fmt.Fprintf(stdout, "\nawaiting %s:\n", awaitsWhat(p))
		awaiting{journal: journalHint(&j.jf), tools: unknownTools, full: *full}.forRun(e).print(stdout, e.ID, p)
	}
	return 0, nil
}

// cmdPending is `codemode pending [ID]`: the actions awaiting approval.
func cmdPending(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	j := newJournalCommand("pending")
	full := j.fs.Bool("full", false, "show every argument in full (long strings are folded otherwise, and approval is offered only for what is shown in full)")
	if err := j.parse(args, 0, 1, stdout, stderr); err != nil {
		return 0, err
	}
	id := ""
	if len(j.args) == 1 {
		id = j.args[0]
	}
	s, err := j.open(ctx, id, stderr)
	if err != nil {
		return 0, err
	}
	defer s.close()
	if id != "" {
		if _, err := s.handle.Execution(ctx, id); err != nil {
			return 0, notFound(ctx, s.store, err, id, j.jf.name)
		}
	}
	p, err := s.handle.Pending(ctx, id)
	if err != nil {
		return 0, err
	}
	if j.jf.asJSON {
		if p == nil {
			p = []store.PendingAction{}
		}
		return 0, printJSON(stdout, p)
	}
	if len(p) == 0 && id == "" {
		if others := otherRuntimes(ctx, s.store, j.jf.name); len(others) > 0 {
			fmt.Fprintf(stdout, "no actions await approval under the runtime name %q; the journal has runs under: %s (give %s)\n",
				j.jf.name, escapeControls(strings.Join(others, ", ")), escapeControls(giveName(others)))
			return 0, nil
		}
	}
	printPending(ctx, stdout, s.handle, p, time.Now(), awaiting{journal: journalHint(&j.jf), tools: unknownTools, full: *full})
	return 0, nil
}

// printer is the answer printer of a journal command.
func (j *journalCommand) printer() answerPrinter {
	return answerPrinter{asJSON: j.jf.asJSON, jf: &j.jf, cf: j.cf}
}

// age renders how long ago ms (Unix milliseconds) was: 42s, 5m, 3h, 2d.
func age(ms int64, now time.Time) string {
	d := now.Sub(time.UnixMilli(ms))
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", max(0, int(d.Seconds())))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

// detail is what a person most needs to know about an execution: its
// pending actions, its error, or its result; journal is journalHint's
// flags, for a command it suggests.
func detail(e *store.Execution, journal string) string {
	switch e.Status {
	case store.StatusPaused:
		var parts []string
		for _, l := range e.Log {
			if l.State == store.EntryPending {
				parts = append(parts, fmt.Sprintf("#%d %s%s", l.Seq, uncertainMark(l.Uncertain), action(l.Connector, l.Method, l.Args, 60)))
			}
		}
		return "awaits approval: " + strings.Join(parts, ", ")
	case store.StatusCompleted:
		return "value: " + escapeControls(cut(string(e.Value), 70))
	case store.StatusRunning:
		if e.Orphaned(time.Now().UnixMilli()) {
			return "orphaned: its host died (" + resumeHint(e, journal) + ")"
		}
		return ""
	case store.StatusRolledBack:
		return fmt.Sprintf("%d action(s) reverted", countReverted(e))
	}
	return escapeControls(cut(e.Error, 80))
}

func calls(e *store.Execution) int {
	n := 0
	for _, l := range e.Log {
		if !l.IsStep() {
			n++
		}
	}
	return n
}

// resumeHint says how a person continues e, orphaned by its host's death:
// from the Go program that started it (the command line refuses to), or
// with codemode resume and the flags its recorded configuration names.
func resumeHint(e *store.Execution, journal string) string {
	if durable.StartedByGoProgram(e.Configuration) {
		return "resume it from the Go program that started it (durable.Handle.Resume)"
	}
	tools, _ := recordedFlags(e.Configuration)
	return "continue it: codemode resume" + journal + cmp.Or(tools, unknownTools) + " " + e.ID
}

// printExecutions prints list as a table; journal is journalHint's flags.
func printExecutions(w io.Writer, list []*store.Execution, now time.Time, journal string) {
	if len(list) == 0 {
		fmt.Fprintln(w, "no executions")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTATUS\tAGE\tUPDATED\tCALLS\tDETAIL")
	for _, e := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\n", e.ID, e.Status, age(e.CreatedAt, now), age(e.UpdatedAt, now), calls(e), detail(e, journal))
	}
	tw.Flush()
}

// printIndented prints text's lines indented by two spaces, control
// characters escaped, so that an excerpt's caret stays under its column.
func printIndented(w io.Writer, text string) {
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		fmt.Fprintln(w, "  "+escapeControls(l))
	}
}

// printExecution prints e for show; journal is journalHint's flags.
func printExecution(w io.Writer, e *store.Execution, now time.Time, journal string) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "execution\t%s\n", e.ID)
	fmt.Fprintf(tw, "status\t%s\n", e.Status)
	fmt.Fprintf(tw, "created\t%s (%s ago)\n", time.UnixMilli(e.CreatedAt).Format(time.RFC3339), age(e.CreatedAt, now))
	fmt.Fprintf(tw, "updated\t%s (%s ago)\n", time.UnixMilli(e.UpdatedAt).Format(time.RFC3339), age(e.UpdatedAt, now))
	fmt.Fprintf(tw, "program runs\t%d (the first, then a replay from the start after each approval)\n", e.Passes)
	if e.Status == store.StatusRunning {
		lease := fmt.Sprintf("held by %s until %s", e.LeaseOwner, time.UnixMilli(e.LeaseUntil).Format(time.RFC3339))
		if e.Orphaned(now.UnixMilli()) {
			lease = "ended: the pass's host died; " + resumeHint(e, journal)
		}
		fmt.Fprintf(tw, "lease\t%s\n", lease)
	}
	fmt.Fprintf(tw, "connectors\t%s\n", strings.Join(e.Connectors, ", "))
	if e.Error != "" {
		first, _, _ := strings.Cut(e.Error, "\n") // the whole error, with its excerpt, follows the table
		fmt.Fprintf(tw, "error\t%s\n", escapeControls(strings.TrimSpace(first)))
	}
	if e.Status == store.StatusCompleted || len(e.Value) > 0 {
		fmt.Fprintf(tw, "value\t%s\n", escapeControls(cut(string(e.Value), 500)))
	}
	tw.Flush()
	if strings.Contains(strings.TrimSpace(e.Error), "\n") {
		fmt.Fprintln(w, "\nerror:")
		printIndented(w, e.Error)
	}
	fmt.Fprintln(w, "\ncode:")
	for _, l := range termtext.Lines(e.Code) {
		// The lines the engine reads: a statement after a carriage return
		// or U+2028 in a comment shows on its own line, as it runs.
		fmt.Fprintln(w, "  "+l)
	}
	fmt.Fprintln(w, "\ntool log:")
	if len(e.Log) == 0 {
		fmt.Fprintln(w, "  (no calls)")
	} else {
		tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "  #\tSTATE\tEND\tACTION\tRESULT")
		var ended []string // the ends shown other than completed, in order
		taken := map[uint64]bool{}
		for _, l := range e.Log {
			taken[l.Seq] = true
		}
		for _, l := range e.Log {
			if l.Connector == "codemode" && l.Method == "step_end" {
				// A step takes a number for its end too, after its
				// function's calls: shown, so that no number seems lost.
				fmt.Fprintf(tw, "  %d\t%s\t-\t%s\t\n", l.Seq, l.State, stepEndAction(l.Args))
				continue
			}
			res := escapeControls(cut(string(l.Result), 60))
			switch {
			case l.Error != "" && l.ErrorName != "":
				res = "error: " + escapeControls(cut(l.ErrorName+": "+l.Error, 60))
			case l.Error != "":
				res = "error: " + escapeControls(cut(l.Error, 60))
			case l.Ephemeral:
				res = "(not kept: the call runs again on every replay)"
			}
			call := action(l.Connector, l.Method, l.Args, 80)
			if l.RequiresApproval {
				call += " [approval]"
			}
			if l.Uncertain {
				call += " [uncertain]"
			}
			end := l.End
			if end == "" {
				end = "-"
			} else if end != "completed" && !slices.Contains(ended, end) {
				ended = append(ended, end)
			}
			fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\t%s\n", l.Seq, l.State, escapeControls(end), call, res)
			if seq, ok := unrecordedStepEnd(l, taken); ok {
				fmt.Fprintf(tw, "  %d\t-\t-\t%s\t(not recorded: its function made no calls)\n", seq, stepEndAction(l.Args))
			}
		}
		tw.Flush()
		if len(ended) > 0 {
			fmt.Fprintln(w)
		}
		for _, end := range ended {
			label, words := callend.Describe(end)
			if label != end {
				end += " (" + label + ")"
			}
			fmt.Fprintf(w, "  %s: %s\n", escapeControls(end), words)
		}
	}
	if len(e.Logs) > 0 {
		fmt.Fprintln(w, "\nconsole:")
		for _, l := range e.Logs {
			fmt.Fprintln(w, "  "+strings.ReplaceAll(escapeControls(l), "\n", "\n  "))
		}
	}
}

// printPending prints the pending actions of each paused execution, in
// full or folded (awaiting), with the commands that decide them.
func printPending(ctx context.Context, w io.Writer, h *durable.Handle, p []store.PendingAction, now time.Time, a awaiting) {
	if len(p) == 0 {
		fmt.Fprintln(w, "no actions await approval")
		return
	}
	var order []string
	byRun := map[string][]codetool.Pending{}
	for _, pa := range p {
		if _, ok := byRun[pa.ExecutionID]; !ok {
			order = append(order, pa.ExecutionID)
		}
		byRun[pa.ExecutionID] = append(byRun[pa.ExecutionID], codetool.Pending{Seq: pa.Seq, Connector: pa.Connector, Method: pa.Method, Args: pa.Args, Uncertain: pa.Uncertain})
	}
	for i, id := range order {
		if i > 0 {
			fmt.Fprintln(w)
		}
		waiting, ra := "?", a
		if e, err := h.Execution(ctx, id); err == nil {
			waiting, ra = age(e.UpdatedAt, now), a.forRun(e)
		}
		fmt.Fprintf(w, "execution %s, paused %s ago, awaits %s:\n", id, waiting, awaitsWhat(byRun[id]))
		ra.print(w, id, byRun[id])
	}
}

// uncertainMark labels an uncertain action (store.Entry.Uncertain) for a
// person: it awaits an answer, not an approval.
func uncertainMark(uncertain bool) string {
	if uncertain {
		return "uncertain, did this happen? "
	}
	return ""
}

func countReverted(e *store.Execution) int {
	n := 0
	for _, l := range e.Log {
		if l.State == store.EntryReverted {
			n++
		}
	}
	return n
}
