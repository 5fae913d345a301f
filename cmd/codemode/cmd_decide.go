package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/durable"
	"github.com/codemode-go/codemode/durable/store"
	"github.com/codemode-go/codemode/internal/defaults"
)

// cmdApprove is `codemode approve ID [SEQ...]`: approve the pending
// actions of a paused execution and continue it; with --shown DIGEST (the
// command pending, show and a paused run print), only if they are still
// the actions shown; with SEQs, only if they are exactly the actions it
// awaits. Without --shown it approves only actions whose arguments
// `codemode pending` prints in full (none folded), as they are when it
// reads them: a person approves nothing they were not shown. Any form is
// refused, the run left paused, when the connector flags configure the
// connectors otherwise than the run's (durable.ErrConfigurationChanged).
func cmdApprove(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	j := newJournalCommand("approve").withTools().withRuntime()
	shown := j.fs.String("shown", "", "approve only if the pending actions are still the ones shown: the digest that pending, show and a paused run print")
	if err := j.parse(args, 1, 1<<16, stdout, stderr); err != nil {
		return 0, err
	}
	seqs, err := parseSeqs(j.args[1:], j.args[0])
	if err != nil {
		return 0, err
	}
	if *shown != "" && len(seqs) > 0 {
		return 0, usageError{"approve: give --shown DIGEST or SEQs, not both"}
	}
	s, err := j.open(ctx, j.args[0], stderr)
	if err != nil {
		return 0, err
	}
	defer s.close()
	h, id := s.handle, j.args[0]
	var answer codetool.Answer
	switch {
	case *shown != "":
		answer, err = h.ApproveShown(ctx, id, *shown)
	default:
		answer, err = approveUnshown(ctx, j, h, id, seqs)
	}
	if errors.Is(err, durable.ErrPendingChanged) || errors.Is(err, durable.ErrConfigurationChanged) || errors.Is(err, errFolded) {
		return 0, fmt.Errorf("approve: %w", err)
	}
	if errors.Is(err, durable.ErrNotPaused) {
		if e, eerr := h.Execution(ctx, id); eerr == nil {
			return 0, fmt.Errorf("approve: execution %s is %s: only a paused execution can be approved", id, e.Status)
		}
	}
	if err != nil {
		return 0, notFound(ctx, s.store, err, id, j.jf.name)
	}
	return j.printer().print(answer, stdout, stderr)
}

// errFolded is approve's error, without --shown, for a pending action
// whose arguments `codemode pending` folds.
var errFolded = errors.New("some arguments are longer than codemode pending shows without --full")

// approveUnshown is approve without --shown: of all the pending actions
// (or exactly seqs), approved only when `codemode pending` prints every
// argument in full, and only if they are still the actions it read (their
// digest). A running execution whose host died is resumed (Approve).
func approveUnshown(ctx context.Context, j *journalCommand, h *durable.Handle, id string, seqs []uint64) (codetool.Answer, error) {
	e, err := h.Execution(ctx, id)
	if err != nil || e.Status != store.StatusPaused {
		return h.Approve(ctx, id) // its errors, or the resume of an orphan
	}
	pending, err := h.Pending(ctx, id)
	if err != nil {
		return codetool.Answer{}, err
	}
	shown := answerPending(pending)
	for _, p := range shown {
		if _, folded := argText(p.Args, foldAt); folded {
			return codetool.Answer{}, fmt.Errorf("%w (action %d, %s.%s): nothing was approved; see them all with codemode pending%s --full %s, and approve with the --shown DIGEST it prints",
				errFolded, p.Seq, escapeControls(p.Connector), escapeControls(p.Method), journalHint(&j.jf), id)
		}
	}
	if len(seqs) > 0 {
		return h.ApprovePending(ctx, id, seqs)
	}
	return h.ApproveShown(ctx, id, durable.ShownDigest(shown))
}

// answerPending is the store's pending actions as an answer lists them
// (what durable.ShownDigest digests).
func answerPending(pending []store.PendingAction) []codetool.Pending {
	out := make([]codetool.Pending, len(pending))
	for i, p := range pending {
		out[i] = codetool.Pending{Seq: p.Seq, Connector: p.Connector, Method: p.Method, Args: p.Args, Uncertain: p.Uncertain}
	}
	return out
}

// parseSeqs parses the SEQ arguments of approve.
func parseSeqs(args []string, id string) ([]uint64, error) {
	var seqs []uint64
	for _, a := range args {
		seq, err := strconv.ParseUint(a, 10, 64)
		if err != nil {
			return nil, usageError{fmt.Sprintf("approve: SEQ %q is not a number (codemode pending %s lists them; 0 is a program awaiting approval before it runs)", a, id)}
		}
		seqs = append(seqs, seq)
	}
	return seqs, nil
}

// cmdReject is `codemode reject ID SEQ`: reject a pending action, which
// ends the execution.
func cmdReject(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	j := newJournalCommand("reject")
	if err := j.parse(args, 1, 2, stdout, stderr); err != nil {
		return 0, err
	}
	if len(j.args) == 1 {
		return 0, usageError{fmt.Sprintf("reject: give the SEQ of the pending action after the ID: codemode reject %s SEQ (codemode pending %s lists them)", j.args[0], j.args[0])}
	}
	id := j.args[0]
	seq, err := strconv.ParseUint(j.args[1], 10, 64)
	if err != nil {
		return 0, usageError{fmt.Sprintf("reject: SEQ %q is not a number (codemode pending lists them; 0 is a program awaiting approval before it runs)", j.args[1])}
	}
	s, err := j.open(ctx, id, stderr)
	if err != nil {
		return 0, err
	}
	defer s.close()
	ok, err := s.handle.Reject(ctx, id, seq)
	if err != nil {
		return 0, err
	}
	if j.jf.asJSON {
		if err := printJSON(stdout, map[string]bool{"rejected": ok}); err != nil {
			return 0, err
		}
	}
	if !ok {
		// On stderr with --json too: the object says false, this says why.
		if _, err := s.handle.Execution(ctx, id); errors.Is(err, store.ErrNotFound) {
			fmt.Fprintf(stderr, "codemode: no execution %s in runtime %q\n", id, j.jf.name)
		} else {
			fmt.Fprintf(stderr, "codemode: action %d of %s is not pending (see codemode pending)\n", seq, id)
		}
		return exitError, nil
	}
	if !j.jf.asJSON {
		e, err := s.handle.Execution(ctx, id)
		if err != nil {
			return 0, err
		}
		fmt.Fprintf(stdout, "rejected action %d; execution %s is rejected (%s)\n", seq, id, afterReject(e, journalHint(&j.jf)))
	}
	return 0, nil
}

// afterReject says what stays of rejected execution e's earlier actions
// and how to undo them: with codemode rollback when some have a revert,
// nothing when none has (the configuration's revertsItem says which tools
// do), or, from the Go program that started it (the command line refuses
// to), with its handle. A run recorded without revertsItem (an older
// journal, a Go program's own configuration) may have reverts: rollback
// is suggested for those whose tool has one.
func afterReject(e *store.Execution, journal string) string {
	var applied []store.Entry
	for _, l := range e.Log {
		if l.State == store.EntryApplied && !l.IsStep() {
			applied = append(applied, l)
		}
	}
	switch {
	case len(applied) == 0:
		return "no earlier action ran: nothing needs undoing"
	case durable.StartedByGoProgram(e.Configuration):
		return fmt.Sprintf("%d earlier action(s) stay applied: the Go program that started it can roll back those whose tool has a revert (durable.Handle.Rollback)", len(applied))
	}
	tools, _ := recordedFlags(e.Configuration)
	rollback := "codemode rollback" + journal + cmp.Or(tools, unknownTools) + " " + e.ID
	revertible, known := revertibleActions(e.Configuration, applied)
	switch {
	case !known:
		return fmt.Sprintf("%d earlier action(s) stay applied: %s reverts those whose tool has a revert", len(applied), rollback)
	case revertible == 0:
		return fmt.Sprintf("%d earlier action(s) stay applied, none with a revert: there is nothing to roll back", len(applied))
	}
	return fmt.Sprintf("%d earlier action(s) stay applied, %d with a revert: %s reverts those", len(applied), revertible, rollback)
}

// revertibleActions counts the actions whose tool the run's configuration
// (its revertsItem) names as having a revert; known is false when the
// configuration does not say.
func revertibleActions(conf map[string]string, actions []store.Entry) (n int, known bool) {
	reverts, known := conf[revertsItem]
	if !known {
		return 0, false
	}
	names := strings.Split(reverts, ", ")
	for _, l := range actions {
		if slices.Contains(names, l.Connector+"."+l.Method) {
			n++
		}
	}
	return n, true
}

// cmdRollback is `codemode rollback ID`: revert the execution's applied
// actions that have a revert, newest first.
func cmdRollback(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	j := newJournalCommand("rollback").withTools()
	uncertainSeq := j.fs.Uint64("uncertain", 0, "instead, revert the one uncertain action SEQ (it may never have happened: its host died before recording it), with a null output")
	if err := j.parse(args, 1, 1, stdout, stderr); err != nil {
		return 0, err
	}
	id := j.args[0]
	s, err := j.open(ctx, id, stderr)
	if err != nil {
		return 0, err
	}
	defer s.close()
	h := s.handle
	if *uncertainSeq > 0 {
		if err := h.RevertUncertain(ctx, id, *uncertainSeq); errors.Is(err, durable.ErrConfigurationChanged) {
			return 0, fmt.Errorf("rollback: %w", err)
		} else if err != nil {
			return 0, notFound(ctx, s.store, err, id, j.jf.name)
		}
		fmt.Fprintf(stdout, "reverted uncertain action %d of %s\n", *uncertainSeq, id)
		return 0, nil
	}
	before, err := h.Execution(ctx, id)
	if err != nil {
		return 0, notFound(ctx, s.store, err, id, j.jf.name)
	}
	rbErr := h.Rollback(ctx, id)
	var rb *durable.RollbackError
	if errors.Is(rbErr, durable.ErrConfigurationChanged) {
		return 0, fmt.Errorf("rollback: %w", rbErr)
	}
	if rbErr != nil && !errors.As(rbErr, &rb) {
		return 0, rbErr
	}
	e, err := h.Execution(ctx, id)
	if err != nil {
		return 0, err
	}
	reverted := countReverted(e) - countReverted(before)
	if err := printRollback(j, id, e, reverted, rbErr, stdout, stderr); err != nil {
		return 0, err
	}
	printUncertain(j, h, e, stderr)
	// Why nothing was reverted, on stderr with --json too.
	if rbErr == nil && reverted == 0 && before.Status == store.StatusRolledBack {
		fmt.Fprintf(stderr, "codemode: nothing was reverted: %s was already rolled back (%d action(s) reverted then)\n", id, countReverted(before))
	} else if rbErr == nil && reverted == 0 {
		fmt.Fprintf(stderr, "codemode: nothing was reverted: no applied action of %s has a revert (the tools file's \"revert\")\n", id)
	}
	if rbErr != nil || reverted == 0 {
		return exitError, nil
	}
	return 0, nil
}

// printUncertain lists, on stderr, the uncertain actions a rollback left
// alone (they may never have happened) that have a revert, and how to
// revert one.
func printUncertain(j *journalCommand, h *durable.Handle, e *store.Execution, stderr io.Writer) {
	for _, l := range e.Log {
		if l.IsStep() || !(l.State == store.EntryExecuting || (l.State == store.EntryPending && l.Uncertain)) || !h.Revertible(l.Connector, l.Method) {
			continue
		}
		fmt.Fprintf(stderr, "codemode: uncertain, not reverted: action %d %s may or may not have happened (its host died before recording it); if it did: codemode rollback --uncertain %d %s\n",
			l.Seq, action(l.Connector, l.Method, l.Args, 120), l.Seq, e.ID)
	}
}

// printRollback says what a rollback did.
func printRollback(j *journalCommand, id string, e *store.Execution, reverted int, rbErr error, stdout, stderr io.Writer) error {
	if j.jf.asJSON {
		v := map[string]any{"executionId": id, "status": e.Status, "reverted": reverted}
		if rbErr != nil {
			v["error"] = rbErr.Error()
		}
		return printJSON(stdout, v)
	}
	fmt.Fprintf(stdout, "%s is %s; %d action(s) reverted\n", id, e.Status, reverted)
	if rbErr != nil {
		fmt.Fprintf(stderr, "codemode: %s\n", escapeControls(oneLine(rbErr.Error())))
	}
	return nil
}

// cmdExpire is `codemode expire [ID]`: end one execution, or executions
// paused or orphaned for longer than --max-age; a live pass is never
// ended.
func cmdExpire(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	j := newJournalCommand("expire")
	maxAge := j.fs.Duration("max-age", defaults.PausedTTL, "without ID: end executions paused, or running with their lease ended (their host died), for longer than this")
	if err := j.parse(args, 0, 1, stdout, stderr); err != nil {
		return 0, err
	}
	if *maxAge <= 0 {
		return 0, usageError{"expire: --max-age must be positive"}
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
		return expireOne(ctx, j, s, id, stdout)
	}
	ids, err := s.handle.ExpirePaused(ctx, *maxAge)
	if err != nil {
		return 0, err
	}
	if j.jf.asJSON {
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
}

// expireOne is `codemode expire ID`.
func expireOne(ctx context.Context, j *journalCommand, s *session, id string, stdout io.Writer) (int, error) {
	if err := s.handle.Expire(ctx, id); err != nil {
		if errors.Is(err, durable.ErrRunning) {
			return 0, fmt.Errorf("expire: %w (a live pass is never expired; once its host is gone and the lease ends, codemode resume %s continues it)", err, id)
		}
		return 0, notFound(ctx, s.store, err, id, j.jf.name)
	}
	e, err := s.handle.Execution(ctx, id)
	if err != nil {
		return 0, err
	}
	if j.jf.asJSON {
		return 0, printJSON(stdout, map[string]any{"expired": []string{id}, "status": e.Status})
	}
	fmt.Fprintf(stdout, "%s is %s: %s\n", id, e.Status, e.Error)
	return 0, nil
}

// cmdResume is `codemode resume ID`: take over a running execution whose
// host died (its lease ended) and continue it from the journal.
func cmdResume(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	j := newJournalCommand("resume").withTools().withRuntime()
	if err := j.parse(args, 1, 1, stdout, stderr); err != nil {
		return 0, err
	}
	id := j.args[0]
	s, err := j.open(ctx, id, stderr)
	if err != nil {
		return 0, err
	}
	defer s.close()
	answer, err := s.handle.Resume(ctx, id)
	if errors.Is(err, durable.ErrRunning) {
		return 0, fmt.Errorf("resume: %w: wait until its lease ends (its pass renews it while its host is alive)", err)
	}
	if errors.Is(err, durable.ErrConfigurationChanged) {
		return 0, fmt.Errorf("resume: %w", err)
	}
	if err != nil {
		return 0, notFound(ctx, s.store, err, id, j.jf.name)
	}
	return j.printer().print(answer, stdout, stderr)
}

// cmdHappened is `codemode happened ID SEQ [--result JSON]`: the answer "it
// happened" to an uncertain action (one a dead host may or may not have
// run); the execution continues. The other answers are approve (run it
// again) and reject (fail the run).
func cmdHappened(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	j := newJournalCommand("happened").withTools().withRuntime()
	result := j.fs.String("result", "", "the action's output as JSON, as the tool would have returned it (default null)")
	if err := j.parse(args, 2, 2, stdout, stderr); err != nil {
		return 0, err
	}
	id := j.args[0]
	seq, err := strconv.ParseUint(j.args[1], 10, 64)
	if err != nil || seq == 0 {
		return 0, usageError{fmt.Sprintf("happened: SEQ %q is not a positive number (codemode pending %s lists them)", j.args[1], id)}
	}
	s, err := j.open(ctx, id, stderr)
	if err != nil {
		return 0, err
	}
	defer s.close()
	var out json.RawMessage
	if *result != "" {
		out = json.RawMessage(*result)
	}
	answer, err := s.handle.Resolve(ctx, id, seq, out)
	var invalid *contract.ValidationError
	if err != nil && out == nil && errors.As(err, &invalid) && invalid.Phase == "output" {
		// Without --result the recorded result is null, which this tool
		// cannot return: the person has to say what it returned.
		return 0, fmt.Errorf("happened: give --result JSON, the result action %d returned, which the program receives as the call's result (without --result it is null, which the tool cannot return): %w", seq, err)
	}
	if err != nil {
		return 0, notFound(ctx, s.store, err, id, j.jf.name)
	}
	return j.printer().print(answer, stdout, stderr)
}

// cmdDelete is `codemode delete ID`: remove an execution from the journal.
func cmdDelete(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	j := newJournalCommand("delete")
	if err := j.parse(args, 1, 1, stdout, stderr); err != nil {
		return 0, err
	}
	id := j.args[0]
	s, err := j.open(ctx, id, stderr)
	if err != nil {
		return 0, err
	}
	defer s.close()
	ok, err := s.handle.DeleteExecution(ctx, id)
	if err != nil {
		return 0, err
	}
	if j.jf.asJSON {
		if err := printJSON(stdout, map[string]bool{"deleted": ok}); err != nil {
			return 0, err
		}
	} else if ok {
		fmt.Fprintf(stdout, "deleted %s\n", id)
	}
	if !ok {
		// On stderr with --json too: the object says false, this says why.
		fmt.Fprintf(stderr, "codemode: no execution %s in runtime %q\n", id, j.jf.name)
		return exitError, nil
	}
	return 0, nil
}

// cmdPrune is `codemode prune`: keep only the --keep newest ended
// executions.
func cmdPrune(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	j := newJournalCommand("prune")
	keep := j.fs.Int("keep", 50, "how many ended executions to keep")
	if err := j.parse(args, 0, 0, stdout, stderr); err != nil {
		return 0, err
	}
	if *keep < 0 {
		return 0, usageError{"prune: --keep must be at least 0"}
	}
	s, err := j.open(ctx, "", stderr)
	if err != nil {
		return 0, err
	}
	defer s.close()
	n, err := s.handle.PruneExecutions(ctx, *keep)
	if err != nil {
		return 0, err
	}
	if j.jf.asJSON {
		return 0, printJSON(stdout, map[string]int{"removed": n})
	}
	fmt.Fprintf(stdout, "removed %d ended execution(s)\n", n)
	return 0, nil
}
