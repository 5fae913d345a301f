package durable

import (
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
// against other connectors: another server, other credentials): the error
// names each item that differs, and nothing is done. A paused execution
// stays paused with its approval unused, an orphaned one stays orphaned
// (ResumeOrphans skips it), an ended one keeps its actions.
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
// (`petstore base URL "https://a/v3", now "https://b/v3"`),
// or nil when none does: what Approve would refuse e for, so that a
// surface can say so before offering approval.
func (h *Handle) ConfigurationChanges(e *store.Execution) []string {
	return configurationDiff(e.Configuration, h.opts.Configuration)
}

// checkConfiguration returns an error wrapping ErrConfigurationChanged
// when an item e recorded when it started is missing from, or differs
// in, the handle's configuration; it says what stays as it is, by e's
// status.
func (h *Handle) checkConfiguration(e *store.Execution) error {
	diff := configurationDiff(e.Configuration, h.opts.Configuration)
	if len(diff) == 0 {
		return nil
	}
	next := "it stays paused: continue it"
	switch {
	case e.Status == store.StatusRunning:
		next = "it stays as its host left it: resume it"
	case e.Status.Terminal():
		next = "nothing was reverted: roll it back"
	}
	if e.Configuration[hostItem] == goProgram && h.opts.Configuration[hostItem] != goProgram {
		return fmt.Errorf("%w: execution %s was started by %s; %s from the Go program that started it (its Handle's Approve, Resolve, Resume or Rollback): its tools are that program's own, and these would be others under the same names",
			ErrConfigurationChanged, e.ID, goProgram, next)
	}
	return fmt.Errorf("%w: execution %s started with %s; %s with the configuration it started with",
		ErrConfigurationChanged, e.ID, strings.Join(diff, "; "), next)
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
