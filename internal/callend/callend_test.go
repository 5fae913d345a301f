package callend

import "testing"

// Every code a call can end with has a label and a sentence; "" has
// neither, and an unknown code is its own label.
func TestEveryCodeIsDescribed(t *testing.T) {
	for _, end := range []string{Completed, Failed, Cancelled, Timeout, Runtime, Halted} {
		if label, words := Describe(end); label == "" || words == "" {
			t.Errorf("Describe(%q) = %q, %q", end, label, words)
		}
	}
	if label, words := Describe(""); label != "" || words != "" {
		t.Errorf(`Describe("") = %q, %q`, label, words)
	}
	if label, words := Describe("exploded"); label != "exploded" || words != "" {
		t.Errorf(`Describe("exploded") = %q, %q`, label, words)
	}
}
