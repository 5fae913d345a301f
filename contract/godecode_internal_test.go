package contract

import (
	"slices"
	"testing"
)

// TestHoldsAny: a decode failure is dropped when the schema failed at its
// pointer or below it, and only then (a member whose name extends
// another's is not below it).
func TestHoldsAny(t *testing.T) {
	failed := []string{"/a.b", "/count", "/node/until", "/x/0/y"}
	slices.Sort(failed)
	for _, tc := range []struct {
		p    string
		want bool
	}{
		{"/", true},
		{"/count", true},
		{"/node", true},
		{"/node/until", true},
		{"/x", true},
		{"/x/0", true},
		{"/a", false},
		{"/coun", false},
		{"/node/due", false},
		{"/node/until/0", false},
		{"/x/1", false},
		{"/x/0/y0", false},
	} {
		if got := holdsAny(tc.p, failed); got != tc.want {
			t.Errorf("holdsAny(%q) = %v, want %v", tc.p, got, tc.want)
		}
	}
}
