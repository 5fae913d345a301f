package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/drivers"
	"github.com/codemode-go/codemode/durable"
	"github.com/codemode-go/codemode/durable/journal"
)

// Durable code mode in the CLI: `run --journal FILE.db` and the commands
// that read or change a journal (executions, show, pending, approve, reject,
// rollback, expire, delete, prune).

// journalEnv names the variable holding the journal commands' default
// --journal.
const journalEnv = "CODEMODE_JOURNAL"

// Exit statuses of durable runs and approvals: 0 completed, 1 error (and any
// failure of the command), 3 paused awaiting approval.
const (
	exitCompleted = 0
	exitError     = 1
	exitPaused    = 3
)

const journalUsage = `durable code mode (a journal in a SQLite file; --journal defaults to $CODEMODE_JOURNAL):
  codemode run --journal FILE.db [--name NAME] (--tools FILE | --mcp CMD|URL | --config FILE) [--json] PROGRAM.ts
  codemode executions [--limit N]          recent executions: status, age, pending action
  codemode show ID                          one execution: its code, tool log and result
  codemode pending [ID]                     actions awaiting approval
  codemode approve (--tools FILE | ...) ID [SEQ...]
                                            approve the pending actions of ID and replay it; with
                                            SEQs, only if they are exactly the actions it awaits
  codemode reject ID SEQ                    reject the pending action SEQ; ends the execution
  codemode rollback (--tools FILE | ...) ID revert applied actions that have a revert, newest first
  codemode expire [--max-age D]             end executions paused or running for longer than D (24h)
  codemode delete ID                        remove an execution from the journal
  codemode prune [--keep N]                 keep only the N newest ended executions (50)
each takes --journal FILE.db, --name NAME (runtime name, default "default") and --json.
Exit status of run and approve: 0 completed, 1 error, 3 paused awaiting approval.
`

// isJournalCommand reports whether name is one of the journal commands.
func isJournalCommand(name string) bool {
	switch name {
	case "executions", "show", "pending", "approve", "reject", "rollback", "expire", "delete", "prune":
		return true
	}
	return false
}

// wantsJournal reports whether run's arguments ask for a durable run:
// --journal, or $CODEMODE_JOURNAL set (as it is --journal's default).
func wantsJournal(args []string) bool {
	if os.Getenv(journalEnv) != "" {
		return true
	}
	for _, a := range args {
		if a == "--" {
			return false
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && name == "journal" {
			return true
		}
	}
	return false
}

// journalFlags name the journal and the runtime in it.
type journalFlags struct {
	path   string
	name   string
	asJSON bool
	// mustExist: open refuses a SQLite file that does not exist (the
	// commands that work on recorded executions).
	mustExist bool
}

func (j *journalFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&j.path, "journal", os.Getenv(journalEnv), "the journal: a SQLite file, created when missing (default $"+journalEnv+")")
	fs.StringVar(&j.name, "name", durable.DefaultName, "the runtime name: each name is a separate history in the journal")
	fs.BoolVar(&j.asJSON, "json", false, "print JSON on one line instead of a table")
}

// open opens the journal the flags name.
func (j *journalFlags) open(ctx context.Context, command string) (durable.Store, error) {
	if j.path == "" {
		return nil, usageError{command + ": --journal FILE.db is required (or set $" + journalEnv + ")"}
	}
	if err := durable.CheckName(j.name); err != nil {
		return nil, usageError{command + ": --name: " + strings.TrimPrefix(err.Error(), "durable: ")}
	}
	if j.mustExist {
		if file, ok := journal.SQLiteFile(j.path); ok {
			if _, err := os.Stat(file); err != nil {
				return nil, fmt.Errorf("--journal %s: no journal there (%w); codemode run --journal creates one, the other commands open an existing one", j.path, err)
			}
		}
	}
	st, err := journal.OpenStore(ctx, j.path)
	if err != nil {
		return nil, fmt.Errorf("--journal %s: %w", j.path, err)
	}
	return st, nil
}

// missingTools is the error of approve or rollback without the connectors:
// it names those the execution ran with.
func missingTools(ctx context.Context, command, id string, jf *journalFlags) error {
	what := map[string]string{"approve": "the replay calls them", "rollback": "their reverts undo the actions"}[command]
	hint := fmt.Sprintf("%s: give the tools %s ran with: --tools FILE, --mcp CMD|URL, --config FILE or --openapi NAME=SPEC (%s)", command, id, what)
	st, err := jf.open(ctx, command)
	if err != nil {
		return err
	}
	defer st.Close()
	if e, err := st.Execution(ctx, jf.name, id); err == nil && len(e.Connectors) > 0 {
		hint += "; it recorded the connector(s) " + strings.Join(e.Connectors, ", ")
	}
	return usageError{hint}
}

// journalSession is what one journal command works with: the store and a
// handle on it. Its close releases everything it opened.
type journalSession struct {
	handle *durable.Handle
	closes []func()
}

func (s *journalSession) close() {
	for i := len(s.closes) - 1; i >= 0; i-- {
		s.closes[i]()
	}
}

// openSession opens the journal, and, when connectors is set, the
// connectors the contract flags name; when programs is set, a runtime too
// (run and approve run passes; the others do not).
func openSession(ctx context.Context, command string, jf *journalFlags, cf *contractFlags, rf *runtimeFlags, timeout time.Duration, stderr io.Writer) (*journalSession, error) {
	s := &journalSession{}
	ok := false
	defer func() {
		if !ok {
			s.close()
		}
	}()
	// Spans of passes, tool calls and journal transitions, exported when
	// the OTEL_* variables say so; flushed last.
	tp, stopTracing, err := startTracing(ctx, stderr)
	if err != nil {
		return nil, err
	}
	s.closes = append(s.closes, stopTracing)
	st, err := jf.open(ctx, command)
	if err != nil {
		return nil, err
	}
	s.closes = append(s.closes, func() { st.Close() })
	var connectors []durable.Connector
	if cf != nil {
		cs, closeConnectors, err := cf.connectors(ctx, stderr)
		if err != nil {
			return nil, err
		}
		s.closes = append(s.closes, closeConnectors)
		connectors = cs
	}
	var ex client.Executor = noPrograms{}
	if rf != nil {
		rt, closeRuntime, err := rf.open(ctx, timeout)
		if err != nil {
			return nil, err
		}
		s.closes = append(s.closes, closeRuntime)
		ex = rt
	}
	opts := durable.Options{Name: jf.name, TracerProvider: tp}
	if rf != nil {
		opts.Limits.Timeout = timeout
	}
	if s.handle, err = durable.New(st, ex, connectors, opts); err != nil {
		return nil, err
	}
	ok = true
	return s, nil
}

// noPrograms is the executor of journal commands that run no pass.
type noPrograms struct{}

func (noPrograms) Description() string { return "no runtime" }
func (noPrograms) TypeDefinitionFiles(context.Context) ([]drivers.TypeDefinitionFile, error) {
	return nil, nil
}
func (noPrograms) Execute(context.Context, client.ExecuteRequest) (*client.Outcome, error) {
	return nil, errors.New("this command runs no program")
}

// durableRun is `codemode run --journal FILE.db ...`.
func durableRun(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	var cf contractFlags
	cf.register(fs)
	var jf journalFlags
	jf.register(fs)
	timeout := fs.Duration("timeout", 30*time.Second, "each pass's deadline")
	input := fs.String("input", "", "not taken: an execution has no input; a snippet reads the input codemode.run gives it")
	// Registered with the contract's flags so that using it gets the error
	// below rather than "flag provided but not defined"; --help says so.
	fs.Lookup("input-schema").Usage = "not taken: an execution has no input; a snippet declares its input schema when it is saved (codemode snippet save NAME --from ID --input-schema FILE)"
	var rf runtimeFlags
	rf.register(fs)
	positional, err := parse(fs, args, stdout)
	if err != nil {
		return 0, err
	}
	if err := rf.check("run"); err != nil {
		return 0, err
	}
	switch {
	case len(positional) != 1:
		return 0, usageError{"run: exactly one PROGRAM.ts is required"}
	case *timeout <= 0:
		return 0, usageError{"run: --timeout must be positive"}
	case cf.inputSchema != "" || *input != "":
		return 0, usageError{"run: --journal runs take no --input or --input-schema: an execution has no input (a durable program reads its data through connectors); a program saved as a snippet reads `input`, which codemode.run(name, input) gives it"}
	case jf.path == "":
		return 0, usageError{"run: --journal is empty"}
	}
	source, err := readProgram(positional[0])
	if err != nil {
		return 0, err
	}
	s, err := openSession(ctx, "run", &jf, &cf, &rf, *timeout, stderr)
	if err != nil {
		return 0, err
	}
	defer s.close()
	out, err := s.handle.Execute(ctx, source)
	if err != nil {
		return 0, err
	}
	return printOutput(out, &jf, &cf, positional[0], stdout, stderr)
}

// journalCommand runs one of the journal commands and returns its exit
// status.
func journalCommand(ctx context.Context, command string, args []string, stdout, stderr io.Writer) (int, error) {
	fs := flag.NewFlagSet(command, flag.ContinueOnError)
	var jf journalFlags
	jf.register(fs)
	var cf *contractFlags
	var rf *runtimeFlags
	timeout := 30 * time.Second
	var limit, keep *int
	var maxAge *time.Duration
	switch command {
	case "approve", "rollback":
		cf = &contractFlags{}
		cf.register(fs)
		if command == "approve" {
			rf = &runtimeFlags{}
			rf.register(fs)
			fs.DurationVar(&timeout, "timeout", timeout, "the replay's deadline")
		}
	case "executions":
		limit = fs.Int("limit", 20, "show the N newest executions (0: all)")
	case "expire":
		maxAge = fs.Duration("max-age", durable.DefaultPausedTTL*time.Millisecond, "end executions paused or running for longer than this")
	case "prune":
		keep = fs.Int("keep", durable.DefaultMaxExecutions, "how many ended executions to keep")
	}
	positional, err := parse(fs, args, stdout)
	if err != nil {
		return 0, err
	}
	want := map[string][2]int{"executions": {0, 0}, "show": {1, 1}, "pending": {0, 1}, "approve": {1, 1 << 16}, "reject": {2, 2},
		"rollback": {1, 1}, "expire": {0, 0}, "delete": {1, 1}, "prune": {0, 0}}[command]
	if command == "reject" && len(positional) == 1 {
		return 0, usageError{fmt.Sprintf("reject: give the SEQ of the pending action after the ID: codemode reject %s SEQ (codemode pending %s lists them)", positional[0], positional[0])}
	}
	if len(positional) < want[0] || len(positional) > want[1] {
		return 0, usageError{fmt.Sprintf("%s: wrong arguments %q (see codemode %s --help)", command, positional, command)}
	}
	if rf != nil {
		if err := rf.check(command); err != nil {
			return 0, err
		}
	}
	switch {
	case limit != nil && *limit < 0:
		return 0, usageError{"executions: --limit must be at least 0"}
	case keep != nil && *keep < 0:
		return 0, usageError{"prune: --keep must be at least 0"}
	case maxAge != nil && *maxAge <= 0:
		return 0, usageError{"expire: --max-age must be positive"}
	case timeout <= 0:
		return 0, usageError{command + ": --timeout must be positive"}
	}
	var seq uint64
	if command == "reject" {
		if seq, err = strconv.ParseUint(positional[1], 10, 64); err != nil || seq == 0 {
			return 0, usageError{fmt.Sprintf("reject: SEQ %q is not a positive number (codemode pending lists them)", positional[1])}
		}
	}
	// Every command but run works on executions that exist: a journal
	// that does not is a typo, not a new journal.
	jf.mustExist = true
	if cf != nil && cf.tools == "" && cf.mcp == "" && cf.config == "" && !cf.openapi.used() {
		return 0, missingTools(ctx, command, positional[0], &jf)
	}
	s, err := openSession(ctx, command, &jf, cf, rf, timeout, stderr)
	if err != nil {
		return 0, err
	}
	defer s.close()
	h := s.handle
	now := time.Now()
	switch command {
	case "executions":
		list, err := h.Executions(ctx, *limit)
		if err != nil {
			return 0, err
		}
		if jf.asJSON {
			return 0, printJSON(stdout, nonNilList(list))
		}
		if len(list) == 0 && jf.name != durable.DefaultName {
			fmt.Fprintf(stdout, "no executions under the runtime name %q (--name) in %s\n", jf.name, jf.path)
			return 0, nil
		}
		printExecutions(stdout, list, now)
		return 0, nil
	case "show":
		e, err := h.Execution(ctx, positional[0])
		if err != nil {
			return 0, notFound(err, positional[0], jf.name)
		}
		if jf.asJSON {
			return 0, printJSON(stdout, e)
		}
		printExecution(stdout, e, now)
		return 0, nil
	case "pending":
		id := ""
		if len(positional) == 1 {
			id = positional[0]
			if _, err := h.Execution(ctx, id); err != nil {
				return 0, notFound(err, id, jf.name)
			}
		}
		p, err := h.Pending(ctx, id)
		if err != nil {
			return 0, err
		}
		if jf.asJSON {
			if p == nil {
				p = []durable.PendingAction{}
			}
			return 0, printJSON(stdout, p)
		}
		printPending(ctx, stdout, h, p, now)
		return 0, nil
	case "approve":
		var out durable.Output
		var err error
		if len(positional) > 1 {
			// The actions the person saw: approved only if the execution
			// still awaits exactly those (another approval may have moved
			// it on to the next action).
			seqs := make([]uint64, 0, len(positional)-1)
			for _, p := range positional[1:] {
				seq, perr := strconv.ParseUint(p, 10, 64)
				if perr != nil || seq == 0 {
					return 0, usageError{fmt.Sprintf("approve: SEQ %q is not a positive number (codemode pending %s lists them)", p, positional[0])}
				}
				seqs = append(seqs, seq)
			}
			out, err = h.ApprovePending(ctx, positional[0], seqs)
			if errors.Is(err, durable.ErrPendingChanged) {
				return 0, fmt.Errorf("approve: %w", err)
			}
		} else {
			out, err = h.Approve(ctx, positional[0])
		}
		if errors.Is(err, durable.ErrNotPaused) {
			if e, eerr := h.Execution(ctx, positional[0]); eerr == nil {
				return 0, fmt.Errorf("approve: execution %s is %s: only a paused execution can be approved", positional[0], e.Status)
			}
		}
		if err != nil {
			return 0, notFound(err, positional[0], jf.name)
		}
		return printOutput(out, &jf, cf, "", stdout, stderr)
	case "reject":
		ok, err := h.Reject(ctx, positional[0], seq)
		if err != nil {
			return 0, err
		}
		if jf.asJSON {
			if err := printJSON(stdout, map[string]bool{"rejected": ok}); err != nil {
				return 0, err
			}
		}
		if !ok {
			// On stderr with --json too: the object says false, this says why.
			if _, err := h.Execution(ctx, positional[0]); errors.Is(err, durable.ErrNotFound) {
				fmt.Fprintf(stderr, "codemode: no execution %s in runtime %q\n", positional[0], jf.name)
			} else {
				fmt.Fprintf(stderr, "codemode: action %d of %s is not pending (see codemode pending)\n", seq, positional[0])
			}
			return exitError, nil
		}
		if !jf.asJSON {
			fmt.Fprintf(stdout, "rejected action %d; execution %s is rejected (earlier actions stay applied: codemode rollback undoes them)\n", seq, positional[0])
		}
		return 0, nil
	case "rollback":
		return rollback(ctx, h, positional[0], &jf, stdout, stderr)
	case "expire":
		ids, err := h.ExpirePaused(ctx, *maxAge)
		if err != nil {
			return 0, err
		}
		if jf.asJSON {
			if ids == nil {
				ids = []string{}
			}
			return 0, printJSON(stdout, map[string][]string{"expired": ids})
		}
		for _, id := range ids {
			fmt.Fprintln(stdout, id)
		}
		if len(ids) == 0 {
			fmt.Fprintf(stderr, "codemode: no execution was paused or running for longer than %s\n", *maxAge)
		}
		return 0, nil
	case "delete":
		ok, err := h.DeleteExecution(ctx, positional[0])
		if err != nil {
			return 0, err
		}
		if jf.asJSON {
			if err := printJSON(stdout, map[string]bool{"deleted": ok}); err != nil {
				return 0, err
			}
		} else if ok {
			fmt.Fprintf(stdout, "deleted %s\n", positional[0])
		}
		if !ok {
			// On stderr with --json too: the object says false, this says why.
			fmt.Fprintf(stderr, "codemode: no execution %s in runtime %q\n", positional[0], jf.name)
			return exitError, nil
		}
		return 0, nil
	case "prune":
		n, err := h.PruneExecutions(ctx, *keep)
		if err != nil {
			return 0, err
		}
		if jf.asJSON {
			return 0, printJSON(stdout, map[string]int{"removed": n})
		}
		fmt.Fprintf(stdout, "removed %d ended execution(s)\n", n)
		return 0, nil
	}
	return 0, usageError{fmt.Sprintf("unknown command %q", command)}
}

// notFound rewords a missing execution for a person.
func notFound(err error, id, name string) error {
	if errors.Is(err, durable.ErrNotFound) {
		return fmt.Errorf("no execution %s in runtime %q (codemode executions lists them)", id, name)
	}
	return err
}

func nonNilList(l []*durable.Execution) []*durable.Execution {
	if l == nil {
		return []*durable.Execution{}
	}
	return l
}

// rollback reverts an execution and says what happened.
func rollback(ctx context.Context, h *durable.Handle, id string, jf *journalFlags, stdout, stderr io.Writer) (int, error) {
	before, err := h.Execution(ctx, id)
	if err != nil {
		return 0, notFound(err, id, jf.name)
	}
	rbErr := h.Rollback(ctx, id)
	var rb *durable.RollbackError
	if rbErr != nil && !errors.As(rbErr, &rb) {
		return 0, rbErr
	}
	e, err := h.Execution(ctx, id)
	if err != nil {
		return 0, err
	}
	reverted := countReverted(e) - countReverted(before)
	if jf.asJSON {
		v := map[string]any{"executionId": id, "status": e.Status, "reverted": reverted}
		if rbErr != nil {
			v["error"] = rbErr.Error()
		}
		if err := printJSON(stdout, v); err != nil {
			return 0, err
		}
	} else {
		fmt.Fprintf(stdout, "%s is %s; %d action(s) reverted\n", id, e.Status, reverted)
		if rbErr != nil {
			fmt.Fprintf(stderr, "codemode: %s\n", oneLine(rbErr.Error()))
		}
	}
	// Why nothing was reverted, on stderr with --json too.
	if rbErr == nil && reverted == 0 && before.Status == durable.StatusRolledBack {
		fmt.Fprintf(stderr, "codemode: nothing was reverted: %s was already rolled back (%d action(s) reverted then)\n", id, countReverted(before))
	} else if rbErr == nil && reverted == 0 {
		fmt.Fprintf(stderr, "codemode: nothing was reverted: no applied action of %s has a revert (the tools file's \"revert\")\n", id)
	}
	if rbErr != nil || reverted == 0 {
		return exitError, nil
	}
	return 0, nil
}

// given is the connector flags as the command was given them, for a hint
// that repeats the command's connectors (" --tools tools.json"); header
// values are not repeated (they may hold secrets): " --header …" stands
// for them.
func (c *contractFlags) given() string {
	var b strings.Builder
	add := func(flag, value string) {
		if strings.ContainsAny(value, " \t'\"\\$`;&|<>()*?!#~") {
			value = "'" + strings.ReplaceAll(value, "'", `'\''`) + "'"
		}
		fmt.Fprintf(&b, " --%s %s", flag, value)
	}
	if c.tools != "" {
		add("tools", c.tools)
	}
	if c.mcp != "" {
		add("mcp", c.mcp)
	}
	if c.config != "" {
		add("config", c.config)
	}
	for _, s := range c.openapi.specs {
		add("openapi", s.name+"="+s.value)
	}
	bases := slices.Sorted(maps.Keys(c.openapi.bases))
	for _, name := range bases {
		add("base-url", name+"="+c.openapi.bases[name])
	}
	if len(c.openapi.headers) > 0 {
		b.WriteString(" --header …")
	}
	if b.Len() == 0 {
		return " --tools FILE" // not given: the connectors the execution ran with
	}
	return b.String()
}

// printOutput prints a pass's output and returns the exit status: 0
// completed, 1 error, 3 paused.
func printOutput(out durable.Output, jf *journalFlags, cf *contractFlags, path string, stdout, stderr io.Writer) (int, error) {
	status := map[durable.OutputStatus]int{durable.OutputCompleted: exitCompleted, durable.OutputPaused: exitPaused}[out.Status]
	if out.Status == durable.OutputError {
		status = exitError
	}
	if jf.asJSON {
		return status, printJSON(stdout, out)
	}
	switch out.Status {
	case durable.OutputCompleted:
		for _, l := range out.Logs {
			fmt.Fprintln(stderr, l)
		}
		printContent(stdout, out.Content) // what the program appended, as a plain run prints it
		var s string
		if json.Unmarshal(out.Result, &s) == nil {
			fmt.Fprintln(stdout, s)
		} else if len(out.Result) > 0 && string(out.Result) != "null" {
			fmt.Fprintln(stdout, string(out.Result))
		}
	case durable.OutputPaused:
		for _, l := range out.Logs {
			fmt.Fprintln(stderr, l)
		}
		fmt.Fprintf(stdout, "paused: execution %s waits for approval of %d action(s)\n", out.ExecutionID, len(out.Pending))
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "SEQ\tACTION")
		for _, p := range out.Pending {
			fmt.Fprintf(tw, "%d\t%s\n", p.Seq, action(p.Connector, p.Method, p.Args, 200))
		}
		tw.Flush()
		journal := ""
		if os.Getenv(journalEnv) != jf.path {
			journal = " --journal " + jf.path
		}
		if jf.name != durable.DefaultName {
			journal += " --name " + jf.name
		}
		seqs := ""
		for _, p := range out.Pending {
			seqs += " " + strconv.FormatUint(p.Seq, 10)
		}
		fmt.Fprintf(stdout, "approve all: codemode approve%s%s %s%s\n", journal, cf.given(), out.ExecutionID, seqs)
		fmt.Fprintf(stdout, "reject one:  codemode reject%s %s SEQ\n", journal, out.ExecutionID)
	case durable.OutputError:
		for _, l := range out.Logs {
			fmt.Fprintln(stderr, l)
		}
		msg := out.Error
		if path != "" {
			msg = named(msg, path)
		}
		fmt.Fprintf(stderr, "execution %s failed: %s\n", out.ExecutionID, msg)
	}
	return status, nil
}

// printJSON writes v as one line of JSON, "<", ">" and "&" as they are
// (json.Marshal would write \u003c, \u003e and \u0026).
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// action renders a call as connector.method(args), args cut to max
// characters.
func action(connector, method string, args json.RawMessage, max int) string {
	return connector + "." + method + "(" + cut(string(args), max) + ")"
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
// pending actions, its error, or its result.
func detail(e *durable.Execution) string {
	switch e.Status {
	case durable.StatusPaused:
		var parts []string
		for _, l := range e.Log {
			if l.State == durable.EntryPending {
				parts = append(parts, fmt.Sprintf("#%d %s", l.Seq, action(l.Connector, l.Method, l.Args, 60)))
			}
		}
		return "awaits approval: " + strings.Join(parts, ", ")
	case durable.StatusCompleted:
		return "result: " + cut(string(e.Result), 70)
	case durable.StatusRunning:
		return ""
	case durable.StatusRolledBack:
		return fmt.Sprintf("%d action(s) reverted", countReverted(e))
	}
	return cut(e.Error, 80)
}

func calls(e *durable.Execution) int {
	n := 0
	for _, l := range e.Log {
		if !l.IsStep() {
			n++
		}
	}
	return n
}

func printExecutions(w io.Writer, list []*durable.Execution, now time.Time) {
	if len(list) == 0 {
		fmt.Fprintln(w, "no executions")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTATUS\tAGE\tUPDATED\tCALLS\tDETAIL")
	for _, e := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\n", e.ID, e.Status, age(e.CreatedAt, now), age(e.UpdatedAt, now), calls(e), detail(e))
	}
	tw.Flush()
}

func printExecution(w io.Writer, e *durable.Execution, now time.Time) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "execution\t%s\n", e.ID)
	fmt.Fprintf(tw, "status\t%s\n", e.Status)
	fmt.Fprintf(tw, "created\t%s (%s ago)\n", time.UnixMilli(e.CreatedAt).Format(time.RFC3339), age(e.CreatedAt, now))
	fmt.Fprintf(tw, "updated\t%s (%s ago)\n", time.UnixMilli(e.UpdatedAt).Format(time.RFC3339), age(e.UpdatedAt, now))
	fmt.Fprintf(tw, "passes\t%d\n", e.Passes)
	fmt.Fprintf(tw, "connectors\t%s\n", strings.Join(e.Connectors, ", "))
	if e.Error != "" {
		fmt.Fprintf(tw, "error\t%s\n", oneLine(e.Error))
	}
	if e.Status == durable.StatusCompleted || len(e.Result) > 0 {
		fmt.Fprintf(tw, "result\t%s\n", cut(string(e.Result), 500))
	}
	tw.Flush()
	fmt.Fprintln(w, "\ncode:")
	for _, l := range strings.Split(strings.TrimRight(e.Code, "\n"), "\n") {
		fmt.Fprintln(w, "  "+l)
	}
	fmt.Fprintln(w, "\ntool log:")
	if len(e.Log) == 0 {
		fmt.Fprintln(w, "  (no calls)")
	} else {
		tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "  SEQ\tSTATE\tACTION\tRESULT")
		for _, l := range e.Log {
			res := cut(string(l.Result), 60)
			switch {
			case l.Error != "":
				res = "error: " + cut(l.Error, 60)
			case l.Ephemeral:
				res = "(not kept: replay reexecute)"
			}
			call := action(l.Connector, l.Method, l.Args, 80)
			if l.RequiresApproval {
				call += " [approval]"
			}
			fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\n", l.Seq, l.State, call, res)
		}
		tw.Flush()
	}
	if len(e.Logs) > 0 {
		fmt.Fprintln(w, "\nconsole:")
		for _, l := range e.Logs {
			fmt.Fprintln(w, "  "+l)
		}
	}
}

func printPending(ctx context.Context, w io.Writer, h *durable.Handle, p []durable.PendingAction, now time.Time) {
	if len(p) == 0 {
		fmt.Fprintln(w, "no actions await approval")
		return
	}
	ages := map[string]string{}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "EXECUTION\tSEQ\tWAITING\tACTION")
	for _, a := range p {
		if _, ok := ages[a.ExecutionID]; !ok {
			ages[a.ExecutionID] = "?"
			if e, err := h.Execution(ctx, a.ExecutionID); err == nil {
				ages[a.ExecutionID] = age(e.UpdatedAt, now)
			}
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\n", a.ExecutionID, a.Seq, ages[a.ExecutionID], action(a.Connector, a.Method, a.Args, 200))
	}
	tw.Flush()
}

func countReverted(e *durable.Execution) int {
	n := 0
	for _, l := range e.Log {
		if l.State == durable.EntryReverted {
			n++
		}
	}
	return n
}

// positionalHint is what a command's usage line shows after [flags].
func positionalHint(command string) string {
	switch command {
	case "check", "run":
		return " PROGRAM.ts"
	case "show", "approve", "rollback", "delete":
		return " ID"
	case "reject":
		return " ID SEQ"
	case "pending":
		return " [ID]"
	}
	return ""
}
