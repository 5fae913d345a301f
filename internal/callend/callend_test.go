package callend

import (
	"strings"
	"testing"
)

// Every code a call can end with has a label and a sentence; "" has
// neither, and an unknown code is its own label.
func TestEveryCodeIsDescribed(t *testing.T) {
	for _, end := range []string{Completed, Failed, Cancelled, Timeout, Runtime, Halted} {
		if label, words := Describe(end); label == "" || words == "" {
			t.Errorf("Describe(%q) = %q, %q", end, label, words)
		}
	}
	// A call is cancelled when the program did not await it, and when the
	// run itself was cancelled (codemode run's Ctrl-C) while the program
	// awaited it: the words must not blame the program alone.
	if _, words := Describe(Cancelled); !strings.Contains(words, "the run was cancelled") {
		t.Errorf("Describe(Cancelled) = %q: it does not say the run may have been cancelled", words)
	}
	if label, words := Describe(""); label != "" || words != "" {
		t.Errorf(`Describe("") = %q, %q`, label, words)
	}
	if label, words := Describe("exploded"); label != "exploded" || words != "" {
		t.Errorf(`Describe("exploded") = %q, %q`, label, words)
	}
}
