package callend

import (
	"testing"

	"github.com/codemode-go/codemode/client"
)

// Every code the client gives a call has a label and a sentence; "" has
// neither, and an unknown code is its own label.
func TestEveryCodeIsDescribed(t *testing.T) {
	for _, end := range []client.CallEnd{client.CallCompleted, client.CallFailed, client.CallCancelled, client.CallTimeout, client.CallRuntime, client.CallHalted} {
		if label, words := Describe(string(end)); label == "" || words == "" {
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
