package journalui

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/durable"
	"github.com/codemode-go/codemode/durable/store"
	"github.com/codemode-go/codemode/internal/termtext"
)

// statusLabels are the words the page uses for an execution's status.
var statusLabels = map[store.Status]string{
	store.StatusPaused: "awaits approval", store.StatusRunning: "running", store.StatusCompleted: "completed",
	store.StatusError: "failed", store.StatusRejected: "rejected", store.StatusRolledBack: "rolled back",
}

// entryLabels are the words the page uses for a tool log entry's state.
var entryLabels = map[store.EntryState]string{
	store.EntryPending: "awaits approval", store.EntryExecuting: "running", store.EntryApplied: "done",
	store.EntryError: "failed", store.EntryReverted: "undone",
}

func statusLabel(s store.Status) string {
	if l, ok := statusLabels[s]; ok {
		return l
	}
	return string(s)
}

func entryLabel(s store.EntryState) string {
	if l, ok := entryLabels[s]; ok {
		return l
	}
	return string(s)
}

// toolInfo is what the page says about the tool of an action: what it
// does, its behaviour hints and whether its effect can be undone.
type toolInfo struct {
	Description string
	Hints       string // "read-only, destructive, …" from the annotations
	Revertible  bool
	Known       bool // the page's handle has the tool
}

func infoOf(d *durable.Handle, connector, method string) toolInfo {
	t := d.Contract().Tool(connector, method)
	if t == nil {
		return toolInfo{}
	}
	var hints []string
	a := t.Annotations()
	for _, h := range []struct {
		v        *bool
		yes, not string
	}{
		{a.ReadOnly, "read-only", "changes things"},
		{a.Destructive, "may destroy data", "only adds"},
		{a.Idempotent, "safe to repeat", "not safe to repeat"},
		{a.OpenWorld, "reaches outside systems", "closed domain"},
	} {
		if h.v != nil && *h.v {
			hints = append(hints, h.yes)
		} else if h.v != nil {
			hints = append(hints, h.not)
		}
	}
	return toolInfo{Description: t.Description(), Hints: strings.Join(hints, ", "), Revertible: d.Revertible(connector, method), Known: true}
}

// codeLine is one line of the program, marked when it calls a pending
// action's tool.
type codeLine struct {
	N     int
	Text  string
	Calls bool
}

// callLines numbers the code's lines and marks those that call one of the
// pending actions' tools (connector.method followed by "("); it returns
// the marked line numbers. The lines are those JavaScript reads, escaped
// (termtext.Lines): a page that split at "\n" alone showed a statement
// after a carriage return or U+2028 inside a comment's line.
func callLines(code string, pending []pendingView) ([]codeLine, []int) {
	var pats []*regexp.Regexp
	for _, p := range pending {
		pats = append(pats, regexp.MustCompile(`\b`+regexp.QuoteMeta(p.Call)+`\s*\(`))
	}
	var lines []codeLine
	var marked []int
	for i, l := range termtext.Lines(code) {
		cl := codeLine{N: i + 1, Text: l}
		for _, p := range pats {
			if p.MatchString(l) {
				cl.Calls = true
			}
		}
		if cl.Calls {
			marked = append(marked, cl.N)
		}
		lines = append(lines, cl)
	}
	return lines, marked
}

// lineList is "line 3" or "lines 3 and 7".
func lineList(ns []int) string {
	if len(ns) == 0 {
		return ""
	}
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	if len(s) == 1 {
		return "line " + s[0]
	}
	return "lines " + strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

// functionHead matches what opens the program's function at the start of
// a line: "async () => {", "export default async function main() {".
var functionHead = regexp.MustCompile(`^(export\s+default\s+)?(async\s+)?(function\b[^{]*|\([^)]*\)\s*=>|\w+\s*=>)\s*\{?\s*`)

// title names a run for a person: the program's first comment line, else
// its first statement, cut to 80 characters.
func title(code string) string {
	for _, l := range termtext.Lines(code) {
		l = strings.TrimSpace(functionHead.ReplaceAllString(strings.TrimSpace(l), ""))
		if c, ok := strings.CutPrefix(l, "//"); ok {
			l = c
		} else if c, ok := strings.CutPrefix(l, "/*"); ok {
			l = strings.TrimSuffix(strings.TrimSpace(c), "*/")
		} else if i := strings.Index(l, ";"); i >= 0 {
			l = l[:i+1]
		}
		if l = strings.TrimSpace(strings.Trim(strings.TrimSpace(l), "*{}")); l != "" && l != ";" {
			return cut(l, 80)
		}
	}
	return "(empty program)"
}

// shownDigest is the digest of the pending entries of log as the page
// shows them (durable.ShownDigest).
func shownDigest(log []store.Entry) string {
	var p []codetool.Pending
	for _, l := range log {
		if l.State == store.EntryPending {
			p = append(p, codetool.Pending{Seq: l.Seq, Connector: l.Connector, Method: l.Method, Args: l.Args})
		}
	}
	return durable.ShownDigest(p)
}

// missingConnectors lists the namespaces an execution ran with that the
// page's handle lacks ("" when it has them all): approving or rolling back
// needs them.
func missingConnectors(d *durable.Handle, e *store.Execution) string {
	have := map[string]bool{}
	for _, ns := range d.Contract().Namespaces() {
		have[ns.Name] = true
	}
	var missing []string
	for _, c := range e.Connectors {
		if !have[c] {
			missing = append(missing, c)
		}
	}
	return strings.Join(missing, ", ")
}

// earlierApprovals describes the actions of a run that were approved
// before the current pause.
func earlierApprovals(log []store.Entry) []string {
	var out []string
	for _, l := range log {
		if isProgram(l) && l.State == store.EntryApplied {
			out = append(out, "the program itself (approved before it ran)")
		} else if l.RequiresApproval && !l.IsStep() && l.State != store.EntryPending {
			out = append(out, fmt.Sprintf("action %d, %s.%s (%s)", l.Seq, l.Connector, l.Method, entryLabel(l.State)))
		}
	}
	return out
}

// isProgram reports whether l is a program's own approval before it runs
// (durable.Options.ApprovePrograms): codemode.program at ProgramSeq.
func isProgram(l store.Entry) bool {
	return l.Seq == durable.ProgramSeq && l.Connector == "codemode" && l.Method == "program"
}

// programLines is the program a pending program approval holds, line by
// line, from its arguments ({"code": CODE}); nil for any other entry, or
// for arguments of another shape (then shown as arguments).
func programLines(l store.Entry) []codeLine {
	var a struct {
		Code *string `json:"code"`
	}
	if !isProgram(l) || json.Unmarshal(l.Args, &a) != nil || a.Code == nil {
		return nil
	}
	lines, _ := callLines(*a.Code, nil)
	return lines
}
