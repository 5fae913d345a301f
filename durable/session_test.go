package durable_test

import (
	"context"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/codetool"
)

// TestDurableRunsRefuseSessions: a durable run replays its program from
// the start on every pass, so a code tool session (codetool.WithSession) is
// refused with an error saying why.
func TestDurableRunsRefuseSessions(t *testing.T) {
	h, _, _ := fixture(t)
	_, err := h.Execute(codetool.WithSession(context.Background(), "k"), "1")
	if err == nil || !strings.Contains(err.Error(), "sessions and durable runs do not mix") {
		t.Fatalf("Execute in a session: %v; want the refusal", err)
	}
}
