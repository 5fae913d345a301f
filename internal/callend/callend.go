// Package callend names how a tool call ended: the codes of the telemetry's
// codemode.tool.end (package client) and of the journal's store.Entry.End,
// and their plain words for the surfaces that show a journal to people:
// codemode show and the journal page.
package callend

// How tool calls end (client.Event says how a caller tells them apart).
const (
	Completed = "completed"           // the handler answered, and the answer passed the output schema
	Failed    = "failed"              // refused (unknown tool, bad input), or the handler or the output check failed
	Cancelled = "cancelled"           // the execution ended first (the program never awaited it, or was cancelled)
	Timeout   = "timeout"             // in flight when the execution passed its deadline
	Runtime   = "runtime_unavailable" // in flight when the runtime failed or closed
	Halted    = "halted"              // the call halted the execution, or was in flight when another did
)

// ends are the codes' labels and explanations.
var ends = map[string][2]string{
	Completed: {"completed", "the tool answered and the program received the answer"},
	Failed:    {"failed", "the tool failed or refused the call, or answered what its output schema forbids"},
	Cancelled: {"abandoned", "the execution ended before this call finished (the program did not await it, or the run was cancelled)"},
	Timeout:   {"timed out", "the execution's deadline passed while this call was in flight"},
	Runtime:   {"runtime lost", "the program's runtime failed or closed while this call was in flight"},
	Halted:    {"halted", "the journal stopped the pass (a pause, a replay divergence, a value too large to keep) while this call was in flight, or because of it"},
}

// Describe returns how a call that ended with the code end ended: a
// label ("abandoned" for "cancelled") and a sentence ("the execution ended
// before this call finished (the program did not await it, or the run was
// cancelled)"). For "" (the call has
// not ended, or was recorded before the journal kept ends) both are "";
// for a code it does not know, the label is the code and the sentence "".
func Describe(end string) (label, words string) {
	if d, ok := ends[end]; ok {
		return d[0], d[1]
	}
	return end, ""
}
