package durable_test

import (
	"context"
	"errors"
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
// handle without one) is approved by any handle.
func TestApproveWithoutRecordedConfiguration(t *testing.T) {
	svc := newService()
	st := openStore(t, filepath.Join(t.TempDir(), "j.db"))
	out := execute(t, newHandle(t, st, durable.Options{}, svc.github()), readThenWrite)
	h := newHandle(t, st, durable.Options{Configuration: map[string]string{"github base URL": "https://api.github.com"}}, svc.github())
	done, err := h.Approve(context.Background(), out.ExecutionID)
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, done, codetool.StatusCompleted)
}
