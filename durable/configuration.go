package durable

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/codemode-go/codemode/durable/store"
)

// ErrConfigurationChanged is wrapped by the error of Approve,
// ApprovePending, ApproveShown and Resolve when the handle's
// Options.Configuration differs from the one the paused execution started
// with: the error names each item that differs, and the execution stays
// paused with its approval unused.
var ErrConfigurationChanged = errors.New("durable: the connectors' configuration differs from the run's")

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
// in, the handle's configuration.
func (h *Handle) checkConfiguration(e *store.Execution) error {
	diff := configurationDiff(e.Configuration, h.opts.Configuration)
	if len(diff) == 0 {
		return nil
	}
	return fmt.Errorf("%w: execution %s started with %s; it stays paused: continue it with the configuration it started with",
		ErrConfigurationChanged, e.ID, strings.Join(diff, "; "))
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
