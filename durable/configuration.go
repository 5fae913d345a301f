package durable

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/codemode-go/codemode/durable/store"
)

// ErrConfigurationChanged is wrapped by the error of Approve,
// ApprovePending, ApproveShown, Resolve, Resume, Rollback and
// RevertUncertain when the handle's Options.Configuration differs from the
// one the execution started with (they would run or revert its actions
// against other connectors: another server, other credentials), and by
// that of all but Rollback when a call the execution recorded names a
// tool that now calls another upstream tool (contract.Tool.Upstream
// against store.Entry.Upstream: an MCP server whose new tool took the
// name, an OpenAPI document that gave it to another operation; see
// toolMoves), or, in a run whose program a person approves whole
// (Options.ApprovePrograms), a tool its code names does: the error names
// each item that differs and each such tool, and nothing is done. A paused execution stays paused with its approval
// unused, an orphaned one stays orphaned (ResumeOrphans skips it), an
// ended one keeps its actions.
var ErrConfigurationChanged = errors.New("durable: the connectors' configuration differs from the run's")

// hostItem is the configuration item GoProgramConfiguration records.
const hostItem = "started by"

// goProgram is hostItem's value in GoProgramConfiguration.
const goProgram = "a Go program with tools of its own (durable.Options.Configuration unset)"

// GoProgramConfiguration is the configuration a handle whose
// Options.Configuration is nil records and compares: one item, "started
// by", saying that a Go program's own tools ran the execution. A new map
// on each call.
func GoProgramConfiguration() map[string]string {
	return map[string]string{hostItem: goProgram}
}

// StartedByGoProgram reports whether configuration, a run's recorded one
// (store.Execution.Configuration), is GoProgramConfiguration's: a Go
// program's own tools ran it, so only a handle of that program continues
// it, never the command line or a journal page with tools of theirs.
func StartedByGoProgram(configuration map[string]string) bool {
	return len(configuration) == 1 && configuration[hostItem] == goProgram
}

// ConfigurationChanges describes each item of the configuration e
// started with (store.Execution.Configuration) that the handle's
// Options.Configuration lacks or has with another value, in name order
// (`petstore base URL "https://a/v3", now "https://b/v3"`), then, for a
// run that has not ended, each recorded call whose tool now calls
// another upstream tool, in seq order (`files.get_file as MCP tool
// get-file (action 2), now MCP tool get_file`), or nil when there is
// none: what Approve would refuse e for, so that a surface can say so
// before offering approval.
func (h *Handle) ConfigurationChanges(e *store.Execution) []string {
	diff := configurationDiff(e.Configuration, h.opts.Configuration)
	if !e.Status.Terminal() {
		diff = append(diff, h.toolMoves(e.Log)...)
	}
	return diff
}

// checkConfiguration returns an error wrapping ErrConfigurationChanged
// when an item e recorded when it started is missing from, or differs
// in, the handle's configuration, or when e has not ended and a call it
// recorded names a tool that now calls another upstream tool (toolMoves:
// continuing it would replay the program past that call, and run it
// when it awaits approval, with another tool under the name); it says
// what stays as it is, by e's status. An ended run's calls are compared
// one by one, by what reverts them (Rollback, RevertUncertain).
func (h *Handle) checkConfiguration(e *store.Execution) error {
	diff := configurationDiff(e.Configuration, h.opts.Configuration)
	var moves []string
	if !e.Status.Terminal() {
		moves = h.toolMoves(e.Log)
	}
	if len(diff) == 0 && len(moves) == 0 {
		return nil
	}
	next := "it stays paused: continue it"
	switch {
	case e.Status == store.StatusRunning:
		next = "it stays as its host left it: resume it"
	case e.Status.Terminal():
		next = "nothing was reverted: roll it back"
	}
	if len(diff) > 0 && e.Configuration[hostItem] == goProgram && h.opts.Configuration[hostItem] != goProgram {
		return fmt.Errorf("%w: execution %s was started by %s; %s from the Go program that started it (its Handle's Approve, Resolve, Resume or Rollback): its tools are that program's own, and these would be others under the same names",
			ErrConfigurationChanged, e.ID, goProgram, next)
	}
	var what, how []string
	if len(diff) > 0 {
		what = append(what, "started with "+strings.Join(diff, "; "))
		how = append(how, "with the configuration it started with")
	}
	if len(moves) > 0 {
		what = append(what, "recorded "+strings.Join(moves, "; ")+" (a name in programs now calls another upstream tool)")
		otherwise := ", or reject it"
		if e.Status == store.StatusRunning {
			otherwise = ", or expire it"
		}
		how = append(how, "where each of those names calls the tool it recorded"+otherwise)
	}
	return fmt.Errorf("%w: execution %s %s; %s %s",
		ErrConfigurationChanged, e.ID, strings.Join(what, ", and "), next, strings.Join(how, " and "))
}

// toolMoves describes each call of log whose tool now calls another
// upstream tool than when the call was recorded (moved), in seq order.
func (h *Handle) toolMoves(log []store.Entry) []string {
	var out []string
	for _, l := range log {
		if m := h.moved(l); m != "" {
			out = append(out, m)
		}
	}
	return out
}

// moved describes how the tool of the recorded call l changed, or is ""
// when it has not: `files.get_file as MCP tool get-file (action 2), now
// MCP tool get_file` when the handle's tool of that name calls another
// upstream tool (contract.Tool.Upstream) than the one recorded
// (store.Entry.Upstream), or none, or when the namespace has no tool of
// that name. For the program's own action (Options.ApprovePrograms) it
// describes so each tool the program names (programMoved). An entry
// recorded without an upstream name (a tool whose name is its identity, a
// codemode.step, an entry recorded before stores kept it) is not
// compared, nor is one of a namespace the handle lacks (missing names
// those).
func (h *Handle) moved(l store.Entry) string {
	switch {
	case l.Upstream == "":
		return ""
	case isProgram(l):
		return h.programMoved(l)
	}
	now, ok := h.toolNow(l.Connector, l.Method, l.Upstream)
	if !ok {
		return ""
	}
	return fmt.Sprintf("%s.%s as %s (action %d), now %s", l.Connector, l.Method, l.Upstream, l.Seq, now)
}

// toolNow says what the handle's tool name of namespace ns calls now when
// that is not was, the upstream tool recorded: the tool's Upstream, or
// that it names none, or that the namespace has no tool of that name. It
// reports false when the tool calls was still, or the handle lacks the
// namespace.
func (h *Handle) toolNow(ns, name, was string) (string, bool) {
	tools, ok := h.tools[ns]
	if !ok {
		return "", false
	}
	t := tools[name]
	switch {
	case t == nil:
		return "no tool of that name", true
	case t.Upstream() == was:
		return "", false
	}
	return cmp.Or(t.Upstream(), "a tool that names no upstream tool"), true
}

// skippedOrphans remembers the orphans ResumeOrphans left alone because
// their configuration differs, so that it logs each once while it stays
// one: the IDs of its last round (prev) and of this one (cur).
type skippedOrphans struct {
	mu        sync.Mutex
	prev, cur map[string]bool
}

// first notes that this round skips id, and reports whether the last
// round did not.
func (s *skippedOrphans) first(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cur == nil {
		s.cur = map[string]bool{}
	}
	s.cur[id] = true
	return !s.prev[id]
}

// endRound forgets the IDs this round did not skip.
func (s *skippedOrphans) endRound() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.prev, s.cur = s.cur, nil
}

// configurationDiff describes each item of run that now lacks or has
// another value, in name order; items only now has are not compared (a
// connector added since the run started is not one it uses).
func configurationDiff(run, now map[string]string) []string {
	var out []string
	for _, name := range slices.Sorted(maps.Keys(run)) {
		was := run[name]
		is, ok := now[name]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("%s %q, now not configured", name, was))
		case is != was:
			out = append(out, fmt.Sprintf("%s %q, now %q", name, was, is))
		}
	}
	return out
}
