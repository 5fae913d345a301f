package quickjs

import "testing"

// TestConfinementWarning: a Linux sandbox process without Landlock or
// without seccomp is reported, never silently accepted.
func TestConfinementWarning(t *testing.T) {
	full := childBoot{Landlock: "abi 6", Seccomp: "filter of 120 instructions"}
	tests := []struct {
		name string
		goos string
		r    childBoot
		warn bool
	}{
		{"both", "linux", full, false},
		{"no landlock", "linux", childBoot{Landlock: "unavailable: function not implemented", Seccomp: full.Seccomp}, true},
		{"no seccomp", "linux", childBoot{Landlock: full.Landlock, Seccomp: "unavailable: operation not permitted"}, true},
		{"neither", "linux", childBoot{Landlock: "unavailable: x", Seccomp: "unavailable: y"}, true},
		{"not linux", "darwin", childBoot{Seccomp: "unavailable: not Linux"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := confinementWarning(tt.goos, tt.r) != ""; got != tt.warn {
				t.Fatalf("warns %v, want %v", got, tt.warn)
			}
		})
	}
}
