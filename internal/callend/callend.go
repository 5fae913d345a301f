// Package callend says in plain words how a tool call ended (the codes of
// client.CallEnd, kept in the journal as store.Entry.End), for the surfaces
// that show a journal to people: codemode show and the journal page.
package callend

// ends are the codes' labels and explanations.
var ends = map[string][2]string{
	"completed":           {"completed", "the tool answered and the program received the answer"},
	"failed":              {"failed", "the tool failed or refused the call, or answered what its output schema forbids"},
	"cancelled":           {"abandoned", "the program ended before this call finished (it never awaited it)"},
	"timeout":             {"timed out", "the execution's deadline passed while this call was in flight"},
	"runtime_unavailable": {"runtime lost", "the program's runtime failed or closed while this call was in flight"},
	"halted":              {"halted", "the journal stopped the pass (a pause, a replay divergence, a value too large to keep) while this call was in flight, or because of it"},
}

// Describe returns how a call that ended with the code end ended: a
// label ("abandoned" for "cancelled") and a sentence ("the program ended
// before this call finished (it never awaited it)"). For "" (the call has
// not ended, or was recorded before the journal kept ends) both are "";
// for a code it does not know, the label is the code and the sentence "".
func Describe(end string) (label, words string) {
	if d, ok := ends[end]; ok {
		return d[0], d[1]
	}
	return end, ""
}
