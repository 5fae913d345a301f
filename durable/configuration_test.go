package durable_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"maps"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/durable"
	"github.com/codemode-go/codemode/durable/store"
)

// An approval from a handle whose connectors are configured otherwise
// than the run's (another base URL, a header missing) is refused naming
// the difference, on every approve path: the run stays paused, nothing
// runs, and the approval is not used up: the handle configured as the run
// was then approves it.
func TestApproveRefusedWhenConfigurationDiffers(t *testing.T) {
	svc := newService()
	st := openStore(t, filepath.Join(t.TempDir(), "j.db"))
	ctx := context.Background()
	run := map[string]string{"github base URL": "https://api.github.com", "github headers": "Authorization"}
	h := newHandle(t, st, durable.Options{Configuration: run}, svc.github())
	out := execute(t, h, readThenWrite)
	wantStatus(t, out, codetool.StatusPaused)
	if e := record(t, h, out.ExecutionID); e.Configuration["github base URL"] != "https://api.github.com" {
		t.Fatalf("the execution recorded the configuration %q", e.Configuration)
	}
	digest := durable.ShownDigest(out.Pending)
	tests := []struct {
		name   string
		config map[string]string
		want   []string // in the error
	}{
		{"another base URL", map[string]string{"github base URL": "https://evil.example", "github headers": "Authorization"},
			[]string{`github base URL "https://api.github.com", now "https://evil.example"`}},
		{"a header missing", map[string]string{"github base URL": "https://api.github.com", "github headers": ""},
			[]string{`github headers "Authorization", now ""`}},
		{"no configuration", nil,
			[]string{`github base URL "https://api.github.com", now not configured`, `github headers "Authorization", now not configured`}},
	}
	approvals := map[string]func(h *durable.Handle) error{
		"Approve": func(h *durable.Handle) error { _, err := h.Approve(ctx, out.ExecutionID); return err },
		"ApprovePending": func(h *durable.Handle) error {
			_, err := h.ApprovePending(ctx, out.ExecutionID, []uint64{out.Pending[0].Seq})
			return err
		},
		"ApproveShown": func(h *durable.Handle) error { _, err := h.ApproveShown(ctx, out.ExecutionID, digest); return err },
	}
	for _, tt := range tests {
		other := newHandle(t, st, durable.Options{Configuration: tt.config}, svc.github())
		for how, approve := range approvals {
			err := approve(other)
			if !errors.Is(err, durable.ErrConfigurationChanged) {
				t.Fatalf("%s, %s: %v, want ErrConfigurationChanged", tt.name, how, err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%s, %s: %v\nlacks %s", tt.name, how, err, w)
				}
			}
			e := record(t, h, out.ExecutionID)
			if e.Status != store.StatusPaused || e.Passes != 1 || svc.count("create_issue") != 0 {
				t.Fatalf("%s, %s: after the refusal: status %s, %d passes, create_issue ran %d times", tt.name, how, e.Status, e.Passes, svc.count("create_issue"))
			}
		}
	}
	// An item the run did not record is not compared.
	more := map[string]string{"github base URL": "https://api.github.com", "github headers": "Authorization", "slack base URL": "https://slack.com"}
	done, err := newHandle(t, st, durable.Options{Configuration: more}, svc.github()).ApproveShown(ctx, out.ExecutionID, digest)
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, done, codetool.StatusCompleted)
	if svc.count("create_issue") != 1 {
		t.Fatalf("create_issue ran %d times, want 1", svc.count("create_issue"))
	}
}

// A run recorded without a configuration (before fingerprints, or by a
// handle with an empty one) is approved by any handle.
func TestApproveWithoutRecordedConfiguration(t *testing.T) {
	svc := newService()
	st := openStore(t, filepath.Join(t.TempDir(), "j.db"))
	out := execute(t, newHandle(t, st, durable.Options{Configuration: map[string]string{}}, svc.github()), readThenWrite)
	h := newHandle(t, st, durable.Options{Configuration: map[string]string{"github base URL": "https://api.github.com"}}, svc.github())
	done, err := h.Approve(context.Background(), out.ExecutionID)
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, done, codetool.StatusCompleted)
}

// A run a handle without a configuration started records that a Go
// program's own tools ran it (durable.GoProgramConfiguration): a handle
// configured otherwise (the command line's, from its flags) is refused,
// naming the program, and leaves it paused; another handle without one
// (the program again, or its next release) approves it.
func TestGoProgramsRunIsApprovedByAGoProgram(t *testing.T) {
	svc := newService()
	ctx := context.Background()
	st := openStore(t, filepath.Join(t.TempDir(), "j.db"))
	out := execute(t, newHandle(t, st, durable.Options{}, svc.github()), readThenWrite)
	wantStatus(t, out, codetool.StatusPaused)
	if e := record(t, newHandle(t, st, durable.Options{}, svc.github()), out.ExecutionID); !maps.Equal(e.Configuration, durable.GoProgramConfiguration()) {
		t.Fatalf("recorded configuration %v, want %v", e.Configuration, durable.GoProgramConfiguration())
	}
	for _, conf := range []map[string]string{{}, {"tools file": "sha256:00"}} {
		_, err := newHandle(t, st, durable.Options{Configuration: conf}, svc.github()).Approve(ctx, out.ExecutionID)
		want := durable.ErrConfigurationChanged.Error() + ": execution " + out.ExecutionID +
			` was started by a Go program with tools of its own (durable.Options.Configuration unset); it stays paused: continue it from the Go program that started it (its Handle's Approve, Resolve, Resume or Rollback): its tools are that program's own, and these would be others under the same names`
		if !errors.Is(err, durable.ErrConfigurationChanged) || err.Error() != want {
			t.Fatalf("configuration %v: approve: %v\nwant ErrConfigurationChanged: %s", conf, err, want)
		}
	}
	if svc.count("create_issue") != 0 {
		t.Fatalf("create_issue ran %d times after the refusals", svc.count("create_issue"))
	}
	done, err := newHandle(t, st, durable.Options{}, svc.github()).Approve(ctx, out.ExecutionID)
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, done, codetool.StatusCompleted)
	if svc.count("create_issue") != 1 {
		t.Fatalf("create_issue ran %d times, want 1", svc.count("create_issue"))
	}
}

// Resume, and Approve of an orphan, from a handle whose connectors are
// configured otherwise than the run's are refused naming the difference:
// the run stays orphaned, its approved action not run; the handle
// configured as the run was resumes it. On both stores.
func TestResumeRefusedWhenConfigurationDiffers(t *testing.T) {
	eachStore(t, func(t *testing.T, st store.Store) {
		svc := newService()
		ctx := context.Background()
		run := map[string]string{"github base URL": "https://api.github.com"}
		h := newHandle(t, st, durable.Options{Configuration: run}, svc.github())
		out := execute(t, h, readThenWrite)
		wantStatus(t, out, codetool.StatusPaused)
		orphan(t, st, out.ExecutionID, out.Pending[0].Seq) // approved, then its approver died
		other := newHandle(t, st, durable.Options{Configuration: map[string]string{"github base URL": "https://evil.example"}}, svc.github())
		for how, resume := range map[string]func() (codetool.Answer, error){
			"Resume":  func() (codetool.Answer, error) { return other.Resume(ctx, out.ExecutionID) },
			"Approve": func() (codetool.Answer, error) { return other.Approve(ctx, out.ExecutionID) },
		} {
			_, err := resume()
			if !errors.Is(err, durable.ErrConfigurationChanged) || !strings.Contains(err.Error(), `github base URL "https://api.github.com", now "https://evil.example"`) ||
				!strings.Contains(err.Error(), "it stays as its host left it") {
				t.Fatalf("%s from another configuration: %v, want ErrConfigurationChanged naming the difference", how, err)
			}
			e := record(t, h, out.ExecutionID)
			if e.Status != store.StatusRunning || e.LeaseOwner != "dead-host" || svc.count("create_issue") != 0 {
				t.Fatalf("%s: after the refusal: %s, lease %q, create_issue ran %d times", how, e.Status, e.LeaseOwner, svc.count("create_issue"))
			}
		}
		done, err := h.Resume(ctx, out.ExecutionID)
		if err != nil {
			t.Fatal(err)
		}
		wantStatus(t, done, codetool.StatusCompleted)
		if svc.count("create_issue") != 1 {
			t.Fatalf("create_issue ran %d times, want 1", svc.count("create_issue"))
		}
	})
}

// Rollback and RevertUncertain from a handle whose connectors are
// configured otherwise than the run's are refused naming the difference,
// and revert nothing; the handle configured as the run was reverts. On
// both stores.
func TestRollbackRefusedWhenConfigurationDiffers(t *testing.T) {
	eachStore(t, func(t *testing.T, st store.Store) {
		svc := newService()
		ctx := context.Background()
		run := map[string]string{"github base URL": "https://api.github.com"}
		h := newHandle(t, st, durable.Options{Configuration: run}, svc.github())
		other := newHandle(t, st, durable.Options{Configuration: map[string]string{"github base URL": "https://evil.example"}}, svc.github())
		done := execute(t, h, `return await github.add_label({ title: "done" })`)
		wantStatus(t, done, codetool.StatusCompleted)
		// An approver claimed the action and died; the orphan was expired:
		// its action is uncertain.
		maybe := execute(t, h, `return await github.create_issue({ title: "maybe" })`)
		orphan(t, st, maybe.ExecutionID, 1)
		if ok, err := st.TransitionEntry(ctx, "default", maybe.ExecutionID, 1, []store.EntryState{store.EntryPending}, store.EntryExecuting, store.EntryUpdate{}); err != nil || !ok {
			t.Fatalf("claiming: %v, %v", ok, err)
		}
		if err := h.Expire(ctx, maybe.ExecutionID); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			how    string
			revert func(h *durable.Handle) error
		}{
			{"Rollback", func(h *durable.Handle) error { return h.Rollback(ctx, done.ExecutionID) }},
			{"RevertUncertain", func(h *durable.Handle) error { return h.RevertUncertain(ctx, maybe.ExecutionID, 1) }},
		} {
			before := len(svc.reverted)
			err := c.revert(other)
			if !errors.Is(err, durable.ErrConfigurationChanged) || !strings.Contains(err.Error(), `github base URL "https://api.github.com", now "https://evil.example"`) {
				t.Fatalf("%s from another configuration: %v, want ErrConfigurationChanged naming the difference", c.how, err)
			}
			if len(svc.reverted) != before {
				t.Fatalf("%s from another configuration reverted %v", c.how, svc.reverted[before:])
			}
			if err := c.revert(h); err != nil {
				t.Fatalf("%s from the run's configuration: %v", c.how, err)
			}
		}
		if len(svc.reverted) != 2 || record(t, h, done.ExecutionID).Status != store.StatusRolledBack {
			t.Fatalf("reverted %v, status %s; want both reverted, rolled_back", svc.reverted, record(t, h, done.ExecutionID).Status)
		}
	})
}

// The orphan watcher (ResumeOrphans) of a handle configured otherwise
// than an orphan's leaves it alone and says so once, naming the
// difference, however often it looks; the handle configured as the run was
// resumes it. On both stores.
func TestResumeOrphansSkipsAnotherConfiguration(t *testing.T) {
	eachStore(t, func(t *testing.T, st store.Store) {
		svc := newService()
		ctx := context.Background()
		h := newHandle(t, st, durable.Options{Configuration: map[string]string{"github base URL": "https://api.github.com"}}, svc.github())
		out := execute(t, h, readThenWrite)
		orphan(t, st, out.ExecutionID, out.Pending[0].Seq)
		var logs bytes.Buffer
		other := newHandle(t, st, durable.Options{Configuration: map[string]string{"github base URL": "https://evil.example"},
			Logger: slog.New(slog.NewTextHandler(&logs, nil))}, svc.github())
		for range 3 {
			resumed, err := other.ResumeOrphans(ctx)
			if err != nil || len(resumed) != 0 {
				t.Fatalf("ResumeOrphans from another configuration = %v, %v; want none", resumed, err)
			}
		}
		if n := strings.Count(logs.String(), "not resuming an orphaned execution"); n != 1 || !strings.Contains(logs.String(), out.ExecutionID) ||
			!strings.Contains(logs.String(), `github base URL \"https://api.github.com\", now \"https://evil.example\"`) {
			t.Fatalf("%d lines say the orphan is skipped, want 1 naming it and the difference:\n%s", n, logs.String())
		}
		if e := record(t, h, out.ExecutionID); e.Status != store.StatusRunning || e.LeaseOwner != "dead-host" || svc.count("create_issue") != 0 {
			t.Fatalf("after the skips: %s, lease %q, create_issue ran %d times", e.Status, e.LeaseOwner, svc.count("create_issue"))
		}
		resumed, err := h.ResumeOrphans(ctx)
		if err != nil || len(resumed) != 1 || resumed[0] != out.ExecutionID || svc.count("create_issue") != 1 {
			t.Fatalf("ResumeOrphans from the run's configuration = %v, %v; create_issue ran %d times", resumed, err, svc.count("create_issue"))
		}
	})
}

// StartedByGoProgram tells a Go program's run from any other by its
// recorded configuration alone.
func TestStartedByGoProgram(t *testing.T) {
	for _, c := range []struct {
		configuration map[string]string
		want          bool
	}{
		{durable.GoProgramConfiguration(), true},
		{nil, false},
		{map[string]string{}, false},
		{map[string]string{"tools file": "sha256:00"}, false},
		{map[string]string{"started by": "someone else"}, false},
		{map[string]string{"started by": durable.GoProgramConfiguration()["started by"], "tools file": "sha256:00"}, false},
	} {
		if got := durable.StartedByGoProgram(c.configuration); got != c.want {
			t.Errorf("StartedByGoProgram(%v) = %v, want %v", c.configuration, got, c.want)
		}
	}
}
