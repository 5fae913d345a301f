package store_test

import (
	"testing"

	"github.com/codemode-go/codemode/durable/store"
)

func TestOrphaned(t *testing.T) {
	tests := []struct {
		name   string
		status store.Status
		until  int64
		want   bool
	}{
		{"running, lease run out", store.StatusRunning, 99, true},
		{"running, lease ends now", store.StatusRunning, 100, false},
		{"running, lease held", store.StatusRunning, 200, false},
		{"paused, no lease", store.StatusPaused, 0, false},
	}
	for _, tt := range tests {
		e := &store.Execution{Status: tt.status, LeaseUntil: tt.until}
		if got := e.Orphaned(100); got != tt.want {
			t.Errorf("%s: Orphaned %v, want %v", tt.name, got, tt.want)
		}
	}
}
